/**
 * Why authorization failed, by step. Messages name the server, the step and the reason;
 * they never carry tokens, codes, verifiers or client secrets.
 */
import * as Data from "effect/Data"

/** The step of the OAuth flow that failed. */
export type AuthStep = "discovery" | "registration" | "authorization" | "token" | "refresh" | "policy" | "storage"

/** What the MCP server said when it refused a request: its status and its `WWW-Authenticate` Bearer parameters. */
export interface ServerRefusal {
  readonly status: number
  readonly error?: string
  readonly errorDescription?: string
  readonly scope?: string
}

const describeRefusal = (refusal: ServerRefusal): string => {
  const details = [
    refusal.error,
    refusal.errorDescription === undefined ? undefined : JSON.stringify(refusal.errorDescription),
    refusal.scope === undefined ? undefined : `scope ${JSON.stringify(refusal.scope)}`
  ].filter((detail): detail is string => detail !== undefined && detail !== "")
  return `the server answered ${refusal.status}${details.length === 0 ? "" : ` (${details.join(", ")})`}`
}

/**
 * Authorization with the server's authorization server failed. When a refusal by the MCP
 * server (401 or 403) started it, the message says first what the server said, then which
 * step failed and why.
 */
export class AuthorizationError extends Data.TaggedError("AuthorizationError")<{
  /** The MCP server's name. */
  readonly server: string
  readonly step: AuthStep
  readonly reason: string
  /** The OAuth error code the authorization server answered with, when it did. */
  readonly oauthError?: string
  /** The refusal by the MCP server that the failed authorization answered. */
  readonly refusal?: ServerRefusal
  /** The JSON-RPC method of the request that needed authorization, when there was one. */
  readonly method?: string
  readonly cause?: unknown
}> {
  override get message(): string {
    return `${this.server}: ${this.method === undefined ? "" : `${this.method}: `}${this.detail}`
  }

  /** The message without the server and method: what the server said, then what failed. */
  get detail(): string {
    return this.refusal === undefined
      ? `authorization failed (${this.step}): ${this.reason}`
      : `${describeRefusal(this.refusal)}; authorization then failed (${this.step}): ${this.reason}`
  }
}
