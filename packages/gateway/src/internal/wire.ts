/**
 * Serving one method of the table: params decoded and results encoded with the definitions of the
 * revision the client speaks, and every failure behind the gateway turned into the JSON-RPC error
 * its client is owed (naming the server it came from).
 */
import type { McpError } from "@effect-mcp/client"
import type { HostError } from "@effect-mcp/host"
import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import { JsonRpcFailure } from "@effect-mcp/jsonrpc/PeerError"
import { JsonRpc, McpSchema, Methods, ProtocolVersion, Revision } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"

/** A JSON-RPC error for the gateway's client. */
export const failure = (code: number, message: string, data?: unknown): JsonRpcFailure =>
  new JsonRpcFailure({ code, errorMessage: message, ...(data === undefined ? {} : { data }) })

/** What a request behind the gateway can fail with. */
export type BehindFailure =
  | McpError.RequestError
  | McpError.ToolOutputInvalid
  | McpError.TaskRequired
  | McpError.TaskNotAllowed
  | HostError.NotFound
  | HostError.ServerUnavailable
  | HostError.ToolNotAllowed
  | HostError.UnknownServer

/**
 * The error the gateway's client gets for a failure behind it: a server's own JSON-RPC error as
 * the server sent it; what the client asked wrongly as invalid params (unknown tools and prompts,
 * as the specification says; unknown resources as -32002); anything else (a server down, a
 * timeout, a broken answer) as an internal error whose message names the server.
 */
export const toFailure = (error: BehindFailure, version?: ProtocolVersion.ProtocolVersion): JsonRpcFailure => {
  switch (error._tag) {
    case "RpcError":
      return failure(error.code, error.errorMessage, error.data)
    case "NotFound":
      return error.kind === "resource"
        ? failure(
            // SEP-2164: from 2026-07-28 an unknown resource is invalid params.
            version !== undefined && ProtocolVersion.isStateless(version)
              ? JsonRpc.ErrorCode.InvalidParams
              : JsonRpc.ErrorCode.ResourceNotFound,
            `Resource not found: ${error.name}`,
            { uri: error.name }
          )
        : failure(JsonRpc.ErrorCode.InvalidParams, `Unknown ${error.kind}: ${error.name}`)
    case "ToolNotAllowed":
      return failure(JsonRpc.ErrorCode.InvalidParams, `Unknown tool: ${error.tool} (excluded by the gateway)`)
    case "InvalidInput":
      return failure(JsonRpc.ErrorCode.InvalidParams, error.message)
    // As the specification says of a task-augmented call the tool forbids, or a required one made without.
    case "CapabilityNotSupported":
    case "TaskNotAllowed":
    case "TaskRequired":
      return failure(JsonRpc.ErrorCode.MethodNotFound, error.message)
    default:
      return failure(JsonRpc.ErrorCode.InternalError, error.message, {
        error: error._tag,
        ...("server" in error ? { server: error.server } : {})
      })
  }
}

/** A handler's work on decoded params. */
export type Serve<M extends Methods.RequestMethodName> = (
  params: Methods.RequestParamsOf<M>,
  request: Peer.InboundRequest
) => Effect.Effect<Methods.ResultOf<M>, JsonRpcFailure>

/**
 * The peer's handler for `method` at `version`, for work that writes its own result: params that
 * do not decode get -32602 with the Schema's explanation.
 */
export const decodedHandler =
  <M extends Methods.RequestMethodName>(
    method: M,
    version: ProtocolVersion.ProtocolVersion,
    serve: (
      params: Methods.RequestParamsOf<M>,
      request: Peer.InboundRequest
    ) => Effect.Effect<Peer.WireObject, JsonRpcFailure>
  ): Peer.RequestHandler =>
  (request) => {
    const params = Methods.decodeRequestParams(method, request.params ?? {}, version)
    if (Either.isLeft(params)) {
      return Effect.fail(
        failure(
          JsonRpc.ErrorCode.InvalidParams,
          `Invalid params for ${method}: ${ParseResult.TreeFormatter.formatErrorSync(params.left)}`
        )
      )
    }
    return serve(params.right, request)
  }

/** `method`'s result written at `version` (`Revision.serverResult`), or -32603 when it cannot be. */
export const written = <M extends Methods.RequestMethodName>(
  method: M,
  version: ProtocolVersion.ProtocolVersion,
  result: Methods.ResultOf<M>
): Effect.Effect<Peer.WireObject, JsonRpcFailure> => {
  const encoded = Methods.encodeResult(method, result, version)
  if (Either.isRight(encoded) && McpSchema.isJsonObject(encoded.right)) {
    return Effect.succeed(Revision.serverResult(version, method, encoded.right))
  }
  const why = Either.isLeft(encoded) ? ParseResult.TreeFormatter.formatErrorSync(encoded.left) : "not an object"
  return Effect.fail(
    failure(JsonRpc.ErrorCode.InternalError, `The result of ${method} cannot be sent at ${version}: ${why}`)
  )
}

/**
 * The peer's handler for `method` at `version`: params decoded ({@link decodedHandler}) and the
 * result written at that revision ({@link written}).
 */
export const handler = <M extends Methods.RequestMethodName>(
  method: M,
  version: ProtocolVersion.ProtocolVersion,
  serve: Serve<M>
): Peer.RequestHandler =>
  decodedHandler(method, version, (params, request) =>
    Effect.flatMap(serve(params, request), (result) => written(method, version, result))
  )

/** Runs a request behind the gateway, its failure turned into the client's JSON-RPC error. */
export const behind = <A>(
  effect: Effect.Effect<A, BehindFailure>,
  version?: ProtocolVersion.ProtocolVersion
): Effect.Effect<A, JsonRpcFailure> => Effect.mapError(effect, (error) => toFailure(error, version))
