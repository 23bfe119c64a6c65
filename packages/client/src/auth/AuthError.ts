/**
 * Why authorization failed, by step. Messages name the server, the step and the reason;
 * they never carry tokens, codes, verifiers or client secrets.
 */
import * as Data from "effect/Data"

/** The step of the OAuth flow that failed. */
export type AuthStep = "discovery" | "registration" | "authorization" | "token" | "refresh" | "policy" | "storage"

/** Authorization with the server's authorization server failed. */
export class AuthorizationError extends Data.TaggedError("AuthorizationError")<{
  /** The MCP server's name. */
  readonly server: string
  readonly step: AuthStep
  readonly reason: string
  /** The OAuth error code the authorization server answered with, when it did. */
  readonly oauthError?: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return `${this.server}: authorization failed (${this.step}): ${this.reason}`
  }
}
