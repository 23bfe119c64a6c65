/**
 * JSON-RPC 2.0 as MCP uses it: ids, the four message kinds, batches (allowed by the
 * 2025-03-26 revision only), the error object and the error codes the specifications
 * define, and a strict classifier for raw messages.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Compiled from "./internal/compiled.js"
import { optional } from "./internal/fields.js"
import { Integer, JsonObject, JsonValue } from "./schema/Json.js"

/**
 * The only JSON-RPC version MCP speaks.
 *
 * @since 0.1.0
 * @category constants
 */
export const JSONRPC_VERSION = "2.0" as const

/**
 * The literal `"2.0"` member of every message.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JsonRpcVersion = Schema.Literal(JSONRPC_VERSION)

/**
 * A request id: a string or an integer (never `null` in MCP).
 *
 * @since 0.1.0
 * @category schemas
 */
export const RequestId = Schema.Union(Schema.String, Integer).annotations({ identifier: "RequestId" })

/**
 * The type of {@link RequestId}.
 *
 * @since 0.1.0
 * @category models
 */
export type RequestId = typeof RequestId.Type

/**
 * Error codes defined by JSON-RPC 2.0 and by the MCP revisions.
 *
 * @since 0.1.0
 * @category constants
 */
export const ErrorCode = {
  /** Invalid JSON was received. */
  ParseError: -32700,
  /** The JSON sent is not a valid request object. */
  InvalidRequest: -32600,
  /** The method does not exist or is not available (also: capability not supported). */
  MethodNotFound: -32601,
  /** Invalid method parameters. */
  InvalidParams: -32602,
  /** Internal error of the receiver. */
  InternalError: -32603,
  /** A resource was not found (resources/read, resources/subscribe). */
  ResourceNotFound: -32002,
  /** Streamable HTTP: the HTTP headers do not match the body (2026-07-28). */
  HeaderMismatch: -32020,
  /** The request needs a client capability that was not declared (2026-07-28). */
  MissingRequiredClientCapability: -32021,
  /** The request's protocol version is not supported (2026-07-28). */
  UnsupportedProtocolVersion: -32022,
  /** The server needs the user to complete a URL-mode elicitation first (2025-11-25). */
  UrlElicitationRequired: -32042
} as const

/**
 * The name of a known error code.
 *
 * @since 0.1.0
 * @category models
 */
export type ErrorCodeName = keyof typeof ErrorCode

/**
 * The name of a known error code, if it is one; JSON-RPC reserves -32768..-32000 for implementations.
 *
 * @since 0.1.0
 * @category accessors
 */
export const errorCodeName = (code: number): ErrorCodeName | undefined => {
  for (const name of Object.keys(ErrorCode) as Array<ErrorCodeName>) {
    if (ErrorCode[name] === code) return name
  }
  return undefined
}

/**
 * The error object of an error response.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ErrorObject = Schema.Struct({
  code: Integer,
  message: Schema.String,
  data: optional(JsonValue)
}).annotations({ identifier: "Error" })

/**
 * The type of {@link ErrorObject}.
 *
 * @since 0.1.0
 * @category models
 */
export type ErrorObject = typeof ErrorObject.Type

export {
  /**
   * Same as {@link ErrorObject}, under the specification's name.
   *
   * @since 0.1.0
   * @category schemas
   */
  ErrorObject as Error
}

/**
 * A request that expects a response. `params`, when present, is an object.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JSONRPCRequest = Schema.Struct({
  jsonrpc: JsonRpcVersion,
  id: RequestId,
  method: Schema.String,
  params: optional(JsonObject)
}).annotations({ identifier: "JSONRPCRequest" })

/**
 * The type of {@link JSONRPCRequest}.
 *
 * @since 0.1.0
 * @category models
 */
export type JSONRPCRequest = typeof JSONRPCRequest.Type

/**
 * A notification: a request without an id, which receives no response.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JSONRPCNotification = Schema.Struct({
  jsonrpc: JsonRpcVersion,
  method: Schema.String,
  params: optional(JsonObject)
}).annotations({ identifier: "JSONRPCNotification" })

/**
 * The type of {@link JSONRPCNotification}.
 *
 * @since 0.1.0
 * @category models
 */
export type JSONRPCNotification = typeof JSONRPCNotification.Type

/**
 * A successful response. The result is any object; the method table gives its schema.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JSONRPCResultResponse = Schema.Struct({
  jsonrpc: JsonRpcVersion,
  id: RequestId,
  result: JsonObject
}).annotations({ identifier: "JSONRPCResultResponse" })

/**
 * The type of {@link JSONRPCResultResponse}.
 *
 * @since 0.1.0
 * @category models
 */
export type JSONRPCResultResponse = typeof JSONRPCResultResponse.Type

/**
 * An error response. The id is absent when the receiver could not read it; a `null` id
 * (what JSON-RPC 2.0 itself prescribes) is accepted on decode and treated as absent.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JSONRPCErrorResponse = Schema.Struct({
  jsonrpc: JsonRpcVersion,
  id: Schema.optionalWith(RequestId, { exact: true, nullable: true }),
  error: ErrorObject
}).annotations({ identifier: "JSONRPCErrorResponse" })

/**
 * The type of {@link JSONRPCErrorResponse}.
 *
 * @since 0.1.0
 * @category models
 */
export type JSONRPCErrorResponse = typeof JSONRPCErrorResponse.Type

/**
 * Either response kind.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JSONRPCResponse = Schema.Union(JSONRPCResultResponse, JSONRPCErrorResponse).annotations({
  identifier: "JSONRPCResponse"
})

/**
 * The type of {@link JSONRPCResponse}.
 *
 * @since 0.1.0
 * @category models
 */
export type JSONRPCResponse = typeof JSONRPCResponse.Type

/**
 * Any single JSON-RPC message. Members are tried in order (a request is recognised
 * before a notification); use {@link decodeMessage} for strict classification.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JSONRPCMessage = Schema.Union(
  JSONRPCRequest,
  JSONRPCNotification,
  JSONRPCResultResponse,
  JSONRPCErrorResponse
).annotations({ identifier: "JSONRPCMessage" })

/**
 * The type of {@link JSONRPCMessage}.
 *
 * @since 0.1.0
 * @category models
 */
export type JSONRPCMessage = typeof JSONRPCMessage.Type

/**
 * A batch of messages (2025-03-26 only; later revisions removed batching). Never empty.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JSONRPCBatch = Schema.NonEmptyArray(JSONRPCMessage).annotations({ identifier: "JSONRPCBatch" })

/**
 * What one JSON text on the wire may hold: a message, or (2025-03-26) a batch.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JSONRPCPayload = Schema.Union(JSONRPCMessage, JSONRPCBatch)

/**
 * The kind of a JSON-RPC message.
 *
 * @since 0.1.0
 * @category models
 */
export type MessageKind = "request" | "notification" | "response" | "error"

/**
 * Is this decoded message a request?
 *
 * @since 0.1.0
 * @category guards
 */
export const isRequest = (message: JSONRPCMessage): message is JSONRPCRequest => "method" in message && "id" in message

/**
 * Is this decoded message a notification?
 *
 * @since 0.1.0
 * @category guards
 */
export const isNotification = (message: JSONRPCMessage): message is JSONRPCNotification =>
  "method" in message && !("id" in message)

/**
 * Is this decoded message a successful response?
 *
 * @since 0.1.0
 * @category guards
 */
export const isResultResponse = (message: JSONRPCMessage): message is JSONRPCResultResponse => "result" in message

/**
 * Is this decoded message an error response?
 *
 * @since 0.1.0
 * @category guards
 */
export const isErrorResponse = (message: JSONRPCMessage): message is JSONRPCErrorResponse => "error" in message

/**
 * Classifies a parsed JSON value by its members, without decoding it. A value that is
 * not exactly one kind (for example a response with both `result` and `error`, or a
 * request that also carries `result`) is `undefined`.
 *
 * @since 0.1.0
 * @category decoding
 */
export const classify = (value: unknown): MessageKind | undefined => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined
  const method = Object.hasOwn(value, "method")
  const result = Object.hasOwn(value, "result")
  const error = Object.hasOwn(value, "error")
  if (method) return result || error ? undefined : Object.hasOwn(value, "id") ? "request" : "notification"
  if (result) return error ? undefined : "response"
  return error ? "error" : undefined
}

const decodeRequest = Compiled.decoder(JSONRPCRequest)
const decodeNotification = Compiled.decoder(JSONRPCNotification)
const decodeResult = Compiled.decoder(JSONRPCResultResponse)
const decodeError = Compiled.decoder(JSONRPCErrorResponse)

/**
 * Decodes one parsed JSON value as exactly one message kind. Fails with a `ParseError`
 * whose path names the offending member; an ambiguous value fails at the root.
 *
 * @example
 * ```ts
 * import { JsonRpc } from "@effect-mcp/protocol"
 * import { Either } from "effect"
 * import { deepStrictEqual } from "node:assert"
 *
 * const message = Either.getOrThrow(
 *   JsonRpc.decodeMessage(JSON.parse('{"jsonrpc":"2.0","id":1,"method":"ping"}'))
 * )
 * deepStrictEqual(JsonRpc.isRequest(message), true)
 *
 * // A response with both `result` and `error` is not a message
 * deepStrictEqual(
 *   Either.isLeft(
 *     JsonRpc.decodeMessage({
 *       jsonrpc: "2.0",
 *       id: 1,
 *       result: {},
 *       error: { code: 1, message: "x" }
 *     })
 *   ),
 *   true
 * )
 * ```
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeMessage = (value: unknown): Either.Either<JSONRPCMessage, ParseResult.ParseError> => {
  switch (classify(value)) {
    case "request":
      return decodeRequest(value)
    case "notification":
      return decodeNotification(value)
    case "response":
      return decodeResult(value)
    case "error":
      return decodeError(value)
    case undefined:
      return Either.left(
        new ParseResult.ParseError({
          issue: new ParseResult.Type(
            JSONRPCMessage.ast,
            value,
            "Expected exactly one JSON-RPC message kind: a request (id, method), a notification (method), a result response (id, result) or an error response (error)"
          )
        })
      )
  }
}

/**
 * Decodes a parsed JSON value that may be a single message or, as the 2025-03-26
 * revision allows, a batch. Always returns the messages as an array.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodePayload = (value: unknown): Either.Either<ReadonlyArray<JSONRPCMessage>, ParseResult.ParseError> => {
  if (!Array.isArray(value)) return Either.map(decodeMessage(value), (message) => [message])
  if (value.length === 0) {
    return Either.left(
      new ParseResult.ParseError({
        issue: new ParseResult.Type(JSONRPCBatch.ast, value, "Expected a non-empty batch")
      })
    )
  }
  const messages: Array<JSONRPCMessage> = []
  for (let index = 0; index < value.length; index++) {
    const decoded = decodeMessage(value[index])
    if (Either.isLeft(decoded)) {
      return Either.left(
        new ParseResult.ParseError({
          issue: new ParseResult.Pointer(index, value, decoded.left.issue)
        })
      )
    }
    messages.push(decoded.right)
  }
  return Either.right(messages)
}
