/**
 * Why authorization failed, by step. Messages name the server, the step and the reason;
 * they never carry tokens, codes, verifiers or client secrets. The errors are
 * `Schema.TaggedError`s: they cross package boundaries (host status, the CLI's `--json`) and
 * encode to plain JSON. An `AuthorizationError` is one of the failures of the transport seam
 * (`@effect-mcp/jsonrpc/Transport`'s `RequestFailures`, extended here), so a request fails with it
 * as it is, to be caught by its tag.
 *
 * @since 0.1.0
 */

import { TypeId } from "@effect-mcp/jsonrpc/PeerError"
import * as Schema from "effect/Schema"

/**
 * The steps of the OAuth flow, as a Schema.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AuthStep = Schema.Literal(
  "discovery",
  "registration",
  "authorization",
  "token",
  "refresh",
  "policy",
  "storage",
  "revocation"
)

/**
 * The step of the OAuth flow that failed.
 *
 * @since 0.1.0
 * @category models
 */
export type AuthStep = typeof AuthStep.Type

/**
 * What the MCP server said when it refused a request: its status and its `WWW-Authenticate` Bearer parameters.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ServerRefusal = Schema.Struct({
  status: Schema.Number,
  error: Schema.optional(Schema.String),
  errorDescription: Schema.optional(Schema.String),
  scope: Schema.optional(Schema.String)
})

/**
 * The type of {@link ServerRefusal}.
 *
 * @since 0.1.0
 * @category models
 */
export type ServerRefusal = typeof ServerRefusal.Type

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
 *
 * @since 0.1.0
 * @category errors
 */
export class AuthorizationError extends Schema.TaggedError<AuthorizationError>()("AuthorizationError", {
  /** The MCP server's name. */
  server: Schema.String,
  step: AuthStep,
  reason: Schema.String,
  /** The OAuth error code the authorization server answered with, when it did. */
  oauthError: Schema.optional(Schema.String),
  /** The refusal by the MCP server that the failed authorization answered. */
  refusal: Schema.optional(ServerRefusal),
  /** The JSON-RPC method of the request that needed authorization, when there was one. */
  method: Schema.optional(Schema.String),
  /** What went wrong underneath (encoded as a defect: an `Error` becomes its name and message). */
  cause: Schema.optional(Schema.Defect)
}) {
  /** The brand of effect-mcp's errors ({@link isPeerError}). */
  get [TypeId](): TypeId {
    return TypeId
  }

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

declare module "@effect-mcp/jsonrpc/Transport" {
  /** The client's HTTP transports fail a request with an `AuthorizationError` when authorizing it failed. */
  interface RequestFailures {
    readonly AuthorizationError: AuthorizationError
  }
}

/**
 * A host could not produce an assertion for a machine grant (a workload identity JWT, an
 * enterprise ID token): the flow fails with an `AuthorizationError` at the `token` step
 * carrying it as its cause.
 *
 * @since 0.1.0
 * @category errors
 */
export class AssertionError extends Schema.TaggedError<AssertionError>()("AssertionError", {
  /** Why the assertion could not be obtained (never the assertion itself). */
  reason: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {
  /** The brand of effect-mcp's errors (`McpError.isMcpError`). */
  get [TypeId](): TypeId {
    return TypeId
  }

  override get message(): string {
    return `the assertion could not be obtained: ${this.reason}`
  }
}

/**
 * An explicit authorization (`Authorizations.login`) was asked of a server that needs none: it
 * answered a request without credentials and did not ask for them (no 401).
 *
 * @since 0.1.0
 * @category errors
 */
export class AuthorizationNotRequired extends Schema.TaggedError<AuthorizationNotRequired>()(
  "AuthorizationNotRequired",
  {
    /** The MCP server's name. */
    server: Schema.String,
    url: Schema.String,
    /** The status it answered the request without credentials with. */
    status: Schema.Number
  }
) {
  /** The brand of effect-mcp's errors (`McpError.isMcpError`). */
  get [TypeId](): TypeId {
    return TypeId
  }

  override get message(): string {
    return `${this.server} needs no authorization: ${this.url} answered ${this.status} to a request without credentials, not 401`
  }
}
