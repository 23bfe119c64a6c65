/**
 * Why authorization failed, by step. Messages name the server, the step and the reason;
 * they never carry tokens, codes, verifiers or client secrets. Both errors are
 * `Schema.TaggedError`s: they cross package boundaries (host status, the CLI's `--json`) and
 * encode to plain JSON.
 *
 * @since 0.1.0
 */

import { TypeId } from "@effect-mcp/jsonrpc/PeerError"
import * as Schema from "effect/Schema"

export {
  /**
   * Authorization with the server's authorization server failed (defined with the transport's
   * errors, which carry it).
   *
   * @since 0.1.0
   * @category errors
   */
  AuthorizationError,
  /**
   * The steps of the OAuth flow, as a Schema, and the step that failed.
   *
   * @since 0.1.0
   * @category schemas
   */
  AuthStep,
  /**
   * What the MCP server said when it refused a request.
   *
   * @since 0.1.0
   * @category schemas
   */
  ServerRefusal
} from "@effect-mcp/jsonrpc/PeerError"

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
