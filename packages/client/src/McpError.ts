/**
 * The errors of the client, grouped by what a caller does about them. Each carries the
 * server's name, the method when there is one, and a readable `message`. They are
 * `Schema.TaggedError`s: they cross package boundaries (host status, `--json`) and encode.
 *
 * @since 0.1.0
 */

import {
  type DecodeError,
  type PeerError,
  type RequestTimeout,
  type RpcError,
  type TransportError,
  TypeId
} from "@effect-mcp/jsonrpc/PeerError"
import { ProtocolVersion, Revision } from "@effect-mcp/protocol"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import type { AssertionError, AuthorizationError, AuthorizationNotRequired } from "./auth/AuthError.js"

export {
  /**
   * A message from the server did not match the protocol's Schema.
   *
   * @since 0.1.0
   * @category errors
   */
  DecodeError,
  /**
   * A handler of a server request fails with this to answer with a chosen JSON-RPC error.
   *
   * @since 0.1.0
   * @category errors
   */
  JsonRpcFailure,
  /**
   * A transport's signal: the server speaks legacy HTTP+SSE (the `auto` HTTP transport falls back to it).
   *
   * @since 0.1.0
   * @category errors
   */
  LegacyServer,
  /**
   * No answer in time; the request was cancelled on the server.
   *
   * @since 0.1.0
   * @category errors
   */
  RequestTimeout,
  /**
   * The server answered a request with a JSON-RPC error object.
   *
   * @since 0.1.0
   * @category errors
   */
  RpcError,
  /**
   * A transport's signal: the HTTP server no longer knows the session (the session initializes again).
   *
   * @since 0.1.0
   * @category errors
   */
  SessionExpired,
  /**
   * A transport's signal: a 2026-07-28 request's response stream closed before its answer.
   *
   * @since 0.1.0
   * @category errors
   */
  StreamBroken,
  /**
   * The connection is gone or failed: nothing more can be sent or received on it.
   *
   * @since 0.1.0
   * @category errors
   */
  TransportError,
  /**
   * The brand every error of effect-mcp carries, under a global symbol (see {@link isMcpError}).
   *
   * @since 0.1.0
   * @category type ids
   */
  TypeId
} from "@effect-mcp/jsonrpc/PeerError"

/**
 * The feature needs a capability the other side did not declare; nothing was sent.
 *
 * @since 0.1.0
 * @category errors
 */
export class CapabilityNotSupported extends Schema.TaggedError<CapabilityNotSupported>()("CapabilityNotSupported", {
  server: Schema.String,
  method: Schema.String,
  capability: Schema.String
}) {
  /** The brand of effect-mcp's errors ({@link isMcpError}). */
  get [TypeId](): TypeId {
    return TypeId
  }

  override get message(): string {
    return `${this.server}: ${this.detail}`
  }

  /** The message without the server's name, for a reader that names the server itself. */
  get detail(): string {
    return `${this.method} needs the server capability ${this.capability}, which the server did not declare`
  }
}

/**
 * The caller's input, or a value to be sent, was rejected before anything went out.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidInput extends Schema.TaggedError<InvalidInput>()("InvalidInput", {
  server: Schema.String,
  method: Schema.String,
  reason: Schema.String,
  /** `tools/call`: the tool whose `inputSchema` the arguments do not match. */
  tool: Schema.optional(Schema.String),
  /** The JSON pointer of the first offending value in the input. */
  pointer: Schema.optional(Schema.String)
}) {
  /** The brand of effect-mcp's errors ({@link isMcpError}). */
  get [TypeId](): TypeId {
    return TypeId
  }

  override get message(): string {
    return `${this.server}: ${this.detail}`
  }

  /** The message without the server's name, for a reader that names the server itself. */
  get detail(): string {
    return `${this.method}: ${this.reason}`
  }
}

/**
 * The server's request needed input (a 2026-07-28 `input_required` answer) that this client did
 * not give: the server asked for something the client cannot answer (`request`: what it asked
 * for; no handler for it, or the handler failed), or kept asking beyond `maxInputRounds`
 * (`rounds`). The caller's own input was fine.
 *
 * @since 0.1.0
 * @category errors
 */
export class InputNotGiven extends Schema.TaggedError<InputNotGiven>()("InputNotGiven", {
  server: Schema.String,
  method: Schema.String,
  reason: Schema.String,
  /** The input request the client could not answer (`roots/list`, `elicitation/create`, `sampling/createMessage`). */
  request: Schema.optional(Schema.String),
  /** The rounds the server asked for input, when it asked more often than the client allows. */
  rounds: Schema.optional(Schema.Number)
}) {
  /** The brand of effect-mcp's errors ({@link isMcpError}). */
  get [TypeId](): TypeId {
    return TypeId
  }

  override get message(): string {
    return `${this.server}: ${this.detail}`
  }

  /** The message without the server's name, for a reader that names the server itself. */
  get detail(): string {
    return `${this.method}: ${this.reason}`
  }
}

/**
 * A tool's `structuredContent` is missing or does not match its `outputSchema`.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolOutputInvalid extends Schema.TaggedError<ToolOutputInvalid>()("ToolOutputInvalid", {
  server: Schema.String,
  tool: Schema.String,
  reason: Schema.String
}) {
  /** The brand of effect-mcp's errors ({@link isMcpError}). */
  get [TypeId](): TypeId {
    return TypeId
  }

  override get message(): string {
    return `${this.server}: the output of tool ${this.tool} does not match its outputSchema: ${this.reason}`
  }
}

/**
 * The session cannot serve requests: it is not initialized, is closing, or has failed.
 *
 * @since 0.1.0
 * @category errors
 */
export class SessionUnavailable extends Schema.TaggedError<SessionUnavailable>()("SessionUnavailable", {
  server: Schema.String,
  reason: Schema.String
}) {
  /** The brand of effect-mcp's errors ({@link isMcpError}). */
  get [TypeId](): TypeId {
    return TypeId
  }

  override get message(): string {
    return `${this.server}: ${this.detail}`
  }

  /** The message without the server's name, for a reader that names the server itself. */
  get detail(): string {
    return `the session is unavailable: ${this.reason}`
  }
}

/**
 * The tool may not be called as a task: the tool's `execution.taskSupport` is absent or `forbidden`.
 *
 * @since 0.1.0
 * @category errors
 */
export class TaskNotAllowed extends Schema.TaggedError<TaskNotAllowed>()("TaskNotAllowed", {
  server: Schema.String,
  tool: Schema.String,
  taskSupport: Schema.Literal("forbidden")
}) {
  /** The brand of effect-mcp's errors ({@link isMcpError}). */
  get [TypeId](): TypeId {
    return TypeId
  }

  override get message() {
    return `${this.server}: tool ${this.tool} cannot be called as a task (its taskSupport is ${this.taskSupport})`
  }
}

/**
 * The tool must be called as a task (`execution.taskSupport: "required"`); nothing was sent.
 *
 * @since 0.1.0
 * @category errors
 */
export class TaskRequired extends Schema.TaggedError<TaskRequired>()("TaskRequired", {
  server: Schema.String,
  tool: Schema.String
}) {
  /** The brand of effect-mcp's errors ({@link isMcpError}). */
  get [TypeId](): TypeId {
    return TypeId
  }

  override get message() {
    return `${this.server}: tool ${this.tool} must be called as a task`
  }
}

/**
 * A skill's file is not what the server's listing promised, so the skill (or that file) was
 * refused and none of its content used (skills extension, SEP-2640). `field` says what did not
 * match: `size`, `digest`, `frontmatter` (the file's frontmatter is missing or not a YAML
 * mapping), `frontmatter.<key>` (one field differs from the listing's), `resources` (the entry
 * lists no files, or not this one), `content` (the read returned no single content, or a
 * `SKILL.md` that is not UTF-8). The cached listing is dropped: loading again fetches a fresh entry.
 *
 * @since 0.1.0
 * @category errors
 */
export class SkillVerificationFailed extends Schema.TaggedError<SkillVerificationFailed>()("SkillVerificationFailed", {
  server: Schema.String,
  /** The URI of the skill's `SKILL.md`. */
  skill: Schema.String,
  /** The URI of the file that failed. */
  file: Schema.String,
  field: Schema.String,
  /** What the listing says (a size, a digest, a frontmatter value as JSON), when it says one. */
  expected: Schema.optional(Schema.String),
  /** What the file held instead. */
  actual: Schema.optional(Schema.String),
  reason: Schema.String
}) {
  /** The brand of effect-mcp's errors ({@link isMcpError}). */
  get [TypeId](): TypeId {
    return TypeId
  }

  override get message(): string {
    return `${this.server}: skill ${this.skill}: ${this.file} failed verification (${this.field}): ${this.reason}`
  }
}

/**
 * No skill of the server goes by that name, or more than one does (`candidates`: their URIs).
 *
 * @since 0.1.0
 * @category errors
 */
export class SkillNotFound extends Schema.TaggedError<SkillNotFound>()("SkillNotFound", {
  server: Schema.String,
  name: Schema.String,
  candidates: Schema.Array(Schema.String)
}) {
  /** The brand of effect-mcp's errors ({@link isMcpError}). */
  get [TypeId](): TypeId {
    return TypeId
  }

  override get message(): string {
    return this.candidates.length === 0
      ? `${this.server}: no skill named ${this.name}`
      : `${this.server}: ${this.candidates.length} skills are named ${this.name}; load one by its path or URI: ${this.candidates.join(", ")}`
  }
}

/**
 * What loading a skill, or reading one of its files, can fail with besides a request error.
 *
 * @since 0.1.0
 * @category errors
 */
export type SkillError = SkillVerificationFailed | SkillNotFound

/**
 * Re-exported: the server answered `initialize` with a revision this client does not speak.
 *
 * @since 0.1.0
 * @category errors
 */
export const UnsupportedProtocolVersion = ProtocolVersion.UnsupportedProtocolVersion

/**
 * The type of {@link UnsupportedProtocolVersion}.
 *
 * @since 0.1.0
 * @category errors
 */
export type UnsupportedProtocolVersion = ProtocolVersion.UnsupportedProtocolVersion

/**
 * Re-exported: a message the negotiated revision cannot carry.
 *
 * @since 0.1.0
 * @category errors
 */
export const UnrepresentableMessage = Revision.UnrepresentableMessage

/**
 * The type of {@link UnrepresentableMessage}.
 *
 * @since 0.1.0
 * @category errors
 */
export type UnrepresentableMessage = Revision.UnrepresentableMessage

/**
 * The client's limit on requests in flight was reached and its wait queue was full: the request
 * was not sent (`limit` in flight, `queued` waiting).
 *
 * @since 0.1.0
 * @category errors
 */
export class Overloaded extends Schema.TaggedError<Overloaded>()("Overloaded", {
  server: Schema.String,
  method: Schema.String,
  limit: Schema.Number,
  queued: Schema.Number
}) {
  /** The brand of effect-mcp's errors ({@link isMcpError}). */
  get [TypeId](): TypeId {
    return TypeId
  }

  override get message(): string {
    return `${this.server}: ${this.detail}`
  }

  /** The message without the server's name, for a reader that names the server itself. */
  get detail(): string {
    return `${this.method} was not sent: ${this.limit} requests are in flight and ${this.queued} waiting, the client's limit`
  }
}

/**
 * What any request to the server can fail with (`AuthorizationError`: an HTTP server refused it and authorizing failed).
 *
 * @since 0.1.0
 * @category errors
 */
export type RequestError =
  | TransportError
  | Overloaded
  | AuthorizationError
  | RpcError
  | RequestTimeout
  | CapabilityNotSupported
  | DecodeError
  | InvalidInput
  | InputNotGiven
  | SessionUnavailable
  | UnrepresentableMessage

/**
 * What starting a session can fail with.
 *
 * @since 0.1.0
 * @category errors
 */
export type InitializeError = RequestError | UnsupportedProtocolVersion

/**
 * Every error the client gives a caller, its transports' and the peer's included.
 *
 * @since 0.1.0
 * @category errors
 */
export type McpError =
  | PeerError
  | CapabilityNotSupported
  | InvalidInput
  | InputNotGiven
  | ToolOutputInvalid
  | SessionUnavailable
  | TaskNotAllowed
  | TaskRequired
  | SkillVerificationFailed
  | SkillNotFound
  | Overloaded
  | UnsupportedProtocolVersion
  | UnrepresentableMessage
  | AuthorizationError
  | AssertionError
  | AuthorizationNotRequired

/**
 * Whether `u` is one of effect-mcp's errors, made by any copy of the packages: `instanceof` holds
 * only for the copy that made it, and the one-file `NodePromiseClient` bundle carries its own
 * copy (of `effect` too). It reads the brand ({@link TypeId}) under a global symbol, never the
 * shape alone; narrow the result by its `_tag`.
 *
 * @since 0.1.0
 * @category guards
 */
export const isMcpError = (u: unknown): u is McpError =>
  Predicate.hasProperty(u, TypeId) && u[TypeId] === TypeId && Predicate.hasProperty(u, "_tag")
