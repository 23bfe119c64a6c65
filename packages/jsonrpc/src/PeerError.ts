/**
 * What a peer's requests and its transport fail with. The transport's signals (`SessionExpired`,
 * `LegacyServer`, `StreamBroken`) are for the session above, which recovers from them; the others
 * reach the caller. Each carries the other side's name (`server`: the peer's name for it), the
 * method when there is one, and a readable `message`. They are `Schema.TaggedError`s: they cross
 * package boundaries and encode.
 *
 * @since 0.1.0
 */
import { JsonRpc, ProtocolVersion } from "@effect-mcp/protocol"
import * as DurationRuntime from "effect/Duration"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/**
 * The brand of every error effect-mcp's packages give a caller (these, the client's, the
 * protocol's): a global symbol, so that an error made by another copy of the packages (the
 * one-file `NodePromiseClient` bundle carries its own) is still recognised, by {@link isPeerError}
 * (the client's `isMcpError`) and its `_tag`. `instanceof` holds only for the copy that made it.
 *
 * @since 0.1.0
 * @category type ids
 */
export const TypeId: ProtocolVersion.ErrorTypeId = ProtocolVersion.ErrorTypeId

/**
 * The type of {@link TypeId}.
 *
 * @since 0.1.0
 * @category type ids
 */
export type TypeId = ProtocolVersion.ErrorTypeId

/**
 * Whether `u` is one of this module's errors, made by any copy of it: it carries {@link TypeId}
 * and one of their tags. Narrow it further by its `_tag`.
 *
 * @since 0.1.0
 * @category guards
 */
export const isPeerError = (u: unknown): u is PeerError =>
  Predicate.hasProperty(u, TypeId) &&
  u[TypeId] === TypeId &&
  Predicate.hasProperty(u, "_tag") &&
  typeof u._tag === "string" &&
  Object.hasOwn(peerTags, u._tag)

/**
 * The connection is gone or failed: nothing more can be sent or received on it.
 *
 * @since 0.1.0
 * @category errors
 */
export class TransportError extends Schema.TaggedError<TransportError>()("TransportError", {
  server: Schema.String,
  reason: Schema.String,
  /** What went wrong underneath (encoded as a defect). */
  cause: Schema.optional(Schema.Defect),
  /** stdio: the server process's exit code, when it exited. */
  exitCode: Schema.optional(Schema.Number),
  /** stdio: the signal that ended the server process. */
  signal: Schema.optional(Schema.String),
  /** stdio: the last lines the server wrote to stderr. */
  stderr: Schema.optional(Schema.String),
  /** HTTP: the response status. */
  status: Schema.optional(Schema.Number),
  /** HTTP: the server's `Retry-After` (429, 503), in milliseconds. */
  retryAfter: Schema.optional(Schema.Number)
}) {
  /** The brand of effect-mcp's errors ({@link isPeerError}). */
  get [TypeId](): TypeId {
    return TypeId
  }

  override get message(): string {
    return `${this.server}: ${this.detail}`
  }

  /** The message without the server's name, for a reader that names the server itself. */
  get detail(): string {
    const tail = this.stderr === undefined || this.stderr === "" ? "" : `\n--- last lines of stderr ---\n${this.stderr}`
    return `transport failed: ${this.reason}${tail}`
  }
}

/**
 * A transport's signal (not a request error): the HTTP server no longer knows the session (404
 * or 400 on a request that carried its id, or a JSON-RPC -32000 saying so: a restarted server).
 * The session initializes again and retries the request.
 *
 * @since 0.1.0
 * @category errors
 */
export class SessionExpired extends Schema.TaggedError<SessionExpired>()("SessionExpired", {
  server: Schema.String,
  /** The HTTP status the server refused the session with (404, or 400 from the official SDKs' servers). Default: 404. */
  status: Schema.optional(Schema.Number),
  /** What the server said, when it said something (its JSON-RPC error message). */
  detail: Schema.optional(Schema.String)
}) {
  /** The brand of effect-mcp's errors ({@link isPeerError}). */
  get [TypeId](): TypeId {
    return TypeId
  }

  /** What happened, in words (the transport failure it becomes when nothing recovers). */
  get reason(): string {
    return `the server no longer knows the session (${this.status ?? 404}${this.detail === undefined ? "" : `: ${this.detail}`})`
  }
  override get message(): string {
    return `${this.server}: transport failed: ${this.reason}`
  }
}

/**
 * A transport's signal (not a request error): a request before any session was refused with
 * 400, 404 or 405, as a legacy HTTP+SSE server does; the `auto` HTTP transport falls back to it.
 *
 * @since 0.1.0
 * @category errors
 */
export class LegacyServer extends Schema.TaggedError<LegacyServer>()("LegacyServer", {
  server: Schema.String,
  status: Schema.Number
}) {
  /** The brand of effect-mcp's errors ({@link isPeerError}). */
  get [TypeId](): TypeId {
    return TypeId
  }

  /** What happened, in words (the transport failure it becomes when nothing falls back). */
  get reason(): string {
    return `HTTP ${this.status}: the server does not speak Streamable HTTP (a legacy HTTP+SSE server? try the auto or sse transport)`
  }
  override get message(): string {
    return `${this.server}: transport failed: ${this.reason}`
  }
}

/**
 * A transport's signal (not a request error): a 2026-07-28 request's response stream closed before
 * its answer. That revision has no resumption: the request is sent again under a new id.
 *
 * @since 0.1.0
 * @category errors
 */
export class StreamBroken extends Schema.TaggedError<StreamBroken>()("StreamBroken", {
  server: Schema.String,
  reason: Schema.String
}) {
  /** The brand of effect-mcp's errors ({@link isPeerError}). */
  get [TypeId](): TypeId {
    return TypeId
  }

  override get message(): string {
    return `${this.server}: transport failed: ${this.reason}`
  }
}

/**
 * The server answered a request with a JSON-RPC error object.
 *
 * @since 0.1.0
 * @category errors
 */
export class RpcError extends Schema.TaggedError<RpcError>()("RpcError", {
  server: Schema.String,
  method: Schema.String,
  code: Schema.Number,
  errorMessage: Schema.String,
  data: Schema.optional(Schema.Unknown)
}) {
  /** The brand of effect-mcp's errors ({@link isPeerError}). */
  get [TypeId](): TypeId {
    return TypeId
  }

  /**
   * What the code means, when the protocol names it: `HeaderMismatch` (-32020),
   * `MissingRequiredClientCapability` (-32021), `UnsupportedProtocolVersion` (-32022),
   * `ResourceNotFound` (-32002, and 2026-07-28's -32602 for `resources/read`), the JSON-RPC codes.
   */
  get kind(): JsonRpc.ErrorCodeName | "ServerError" {
    if (this.code === JsonRpc.ErrorCode.InvalidParams && this.method === "resources/read") return "ResourceNotFound"
    const known = (Object.keys(JsonRpc.ErrorCode) as ReadonlyArray<JsonRpc.ErrorCodeName>).find(
      (name) => JsonRpc.ErrorCode[name] === this.code
    )
    return known ?? "ServerError"
  }

  override get message(): string {
    return `${this.server}: ${this.detail}`
  }

  /** The message without the server's name, for a reader that names the server itself. */
  get detail(): string {
    return `${this.method} failed with ${this.code}: ${this.errorMessage}`
  }
}

/**
 * No answer in time. The request was cancelled on the server (`notifications/cancelled`).
 *
 * @since 0.1.0
 * @category errors
 */
export class RequestTimeout extends Schema.TaggedError<RequestTimeout>()("RequestTimeout", {
  server: Schema.String,
  method: Schema.String,
  timeout: Schema.Duration,
  /** `idle`: no answer (or progress, when that resets it) within the timeout; `total`: the maximum total time passed. */
  kind: Schema.Literal("idle", "total")
}) {
  /** The brand of effect-mcp's errors ({@link isPeerError}). */
  get [TypeId](): TypeId {
    return TypeId
  }

  override get message(): string {
    return `${this.server}: ${this.detail}`
  }

  /** The message without the server's name, for a reader that names the server itself. */
  get detail(): string {
    const what = this.kind === "total" ? "maximum total time" : "timeout"
    return `${this.method} got no answer within its ${what} of ${DurationRuntime.format(this.timeout)}`
  }
}

/**
 * A message from the server did not match the protocol's Schema.
 *
 * @since 0.1.0
 * @category errors
 */
export class DecodeError extends Schema.TaggedError<DecodeError>()("DecodeError", {
  server: Schema.String,
  method: Schema.String,
  /** The Schema's explanation, with the path of the offending value. */
  issue: Schema.String
}) {
  /** The brand of effect-mcp's errors ({@link isPeerError}). */
  get [TypeId](): TypeId {
    return TypeId
  }

  override get message(): string {
    return `${this.server}: ${this.detail}`
  }

  /** The message without the server's name, for a reader that names the server itself. */
  get detail(): string {
    return `the answer to ${this.method} is not valid: ${this.issue}`
  }
}

/**
 * A handler of a server request fails with this to answer with a chosen JSON-RPC error;
 * any other failure is answered as an internal error (-32603).
 *
 * @since 0.1.0
 * @category errors
 */
export class JsonRpcFailure extends Schema.TaggedError<JsonRpcFailure>()("JsonRpcFailure", {
  code: Schema.Number,
  errorMessage: Schema.String,
  data: Schema.optional(Schema.Unknown)
}) {
  /** The brand of effect-mcp's errors ({@link isPeerError}). */
  get [TypeId](): TypeId {
    return TypeId
  }

  override get message(): string {
    return `${this.code}: ${this.errorMessage}`
  }
}

/**
 * The errors of this module.
 *
 * @since 0.1.0
 * @category errors
 */
export type PeerError =
  | TransportError
  | SessionExpired
  | LegacyServer
  | StreamBroken
  | RpcError
  | RequestTimeout
  | DecodeError
  | JsonRpcFailure

const peerTags: { readonly [Tag in PeerError["_tag"]]: true } = {
  TransportError: true,
  SessionExpired: true,
  LegacyServer: true,
  StreamBroken: true,
  RpcError: true,
  RequestTimeout: true,
  DecodeError: true,
  JsonRpcFailure: true
}
