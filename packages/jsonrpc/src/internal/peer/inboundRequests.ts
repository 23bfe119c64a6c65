/**
 * Requests from the other side, as the peer answers them: `ping` at once, a method with no
 * handler with -32601, any other by its handler in a fiber of its own, keyed by id in a
 * `FiberMap` of the scope so that `notifications/cancelled` interrupts it (no response is sent
 * then). The handler sees the origin of the request it came for (`RequestOrigin`) when one is
 * known; its exit is the response: its value, its failure's JSON-RPC error, or -32603 for a
 * defect (logged).
 */
import { JsonRpc } from "@effect-mcp/protocol"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberMap from "effect/FiberMap"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type { JsonRpcFailure } from "../../PeerError.js"
import type { Pending } from "./pending.js"
import { RequestOrigin } from "./starting.js"
import type { RequestHandler, WireObject } from "./types.js"

/** The requests part of the inbound side. */
export interface InboundRequests {
  /** The handlers, by method. */
  readonly handlers: Map<string, RequestHandler>
  /**
   * Answers a request, or starts its handler. `relatedRequest`: the outstanding request whose own
   * stream carried it, when the transport knows.
   */
  readonly onRequest: (message: JsonRpc.JSONRPCRequest, relatedRequest?: JsonRpc.RequestId) => Effect.Effect<void>
  /** Interrupts the handler of a request the other side cancelled (nothing when none runs). */
  readonly cancel: (id: JsonRpc.RequestId) => Effect.Effect<void>
  /** Requests being handled. */
  readonly running: Effect.Effect<number>
}

/** What the requests part needs. */
export interface InboundRequestsOptions {
  readonly server: () => string
  /** The outstanding outbound requests, whose origins an inbound request is for. */
  readonly pending: Pending
  /** Writes a response (a write that fails is ignored). */
  readonly reply: (message: JsonRpc.JSONRPCMessage) => Effect.Effect<void>
}

/** The `data` member of a JSON-RPC error object: present only when there is data. */
export const dataOf = (data: unknown): { readonly data?: unknown } => (data === undefined ? {} : { data })

/** The requests part; handlers run in fibers of the scope. */
export const make = (options: InboundRequestsOptions): Effect.Effect<InboundRequests, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { server, pending, reply } = options
    const handlers = new Map<string, RequestHandler>()
    const inbound = yield* FiberMap.make<JsonRpc.RequestId>()

    const respond = (id: JsonRpc.RequestId, exit: Exit.Exit<WireObject, JsonRpcFailure>) => {
      if (Exit.isSuccess(exit)) return reply({ jsonrpc: "2.0", id, result: exit.value })
      if (Cause.isInterruptedOnly(exit.cause)) return Effect.void // cancelled: no response
      const failure = Cause.failureOption(exit.cause)
      const error = Option.isSome(failure)
        ? { code: failure.value.code, message: failure.value.errorMessage, ...dataOf(failure.value.data) }
        : { code: JsonRpc.ErrorCode.InternalError, message: "Internal error" }
      return Effect.zipRight(
        Option.isNone(failure)
          ? Effect.logError(`handler of a request from ${server()} died`, exit.cause)
          : Effect.void,
        reply({ jsonrpc: "2.0", id, error })
      )
    }

    /**
     * Who a request from the other side is for: the origin of the request whose own stream carried
     * it, else the one origin of every request outstanding (when they are all for one), else none.
     */
    const originOf = (relatedRequest: JsonRpc.RequestId | undefined): object | undefined => {
      const related = relatedRequest === undefined ? undefined : pending.get(relatedRequest)
      return related !== undefined ? related.origin : pending.soleOrigin()
    }

    const onRequest = (message: JsonRpc.JSONRPCRequest, relatedRequest?: JsonRpc.RequestId): Effect.Effect<void> => {
      const { id, method } = message
      if (method === "ping") return reply({ jsonrpc: "2.0", id, result: {} })
      const handler = handlers.get(method)
      if (handler === undefined) {
        return reply({
          jsonrpc: "2.0",
          id,
          error: { code: JsonRpc.ErrorCode.MethodNotFound, message: `Method not found: ${method}` }
        })
      }
      const origin = originOf(relatedRequest)
      const handled = Effect.suspend(() => handler({ id, method, params: message.params }))
      const run = (origin === undefined ? handled : Effect.provideService(handled, RequestOrigin, origin)).pipe(
        Effect.onExit((exit) => respond(id, exit))
      )
      return Effect.asVoid(FiberMap.run(inbound, id, run))
    }

    return {
      handlers,
      onRequest,
      cancel: (id) => FiberMap.remove(inbound, id),
      running: FiberMap.size(inbound)
    }
  })
