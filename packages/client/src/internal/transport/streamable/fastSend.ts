/**
 * A stateful message over the fast route with no fiber: the route writes it, and an empty or
 * 2xx JSON answer is handled in the route's own callbacks (the JSON read in one step, bounded);
 * any other answer goes to the connection's answer handling in a fiber of the transport. POSTs
 * still unanswered are aborted when the transport closes.
 */
import * as IdTable from "@effect-mcp/jsonrpc/IdTable"
import type { JsonRpc } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import type { TransportError } from "../../../McpError.js"
import type { Answer } from "../httpBody.js"
import type { HttpRoute } from "../route.js"
import type { Answers } from "./answers.js"
import { ACCEPT, type Connection, requestId, sessionFor } from "./connection.js"

const isJson = (answer: Answer) => (answer.headers["content-type"] ?? "").toLowerCase().startsWith("application/json")

/** The fast sending of one transport. */
export interface FastSend {
  /** Sends `message`; `false` when the route declined it (nothing was sent). */
  readonly send: (message: JsonRpc.JSONRPCMessage, extra: Readonly<Record<string, string>> | undefined) => boolean
  /** Aborts every POST still waiting for its answer (the transport closes). */
  readonly abortAll: () => void
}

/**
 * Fast sending for `connection` over `route`; `runFork` runs what needs a fiber in the
 * transport's set, and `post` is the `HttpClient` path a refused request goes again by.
 */
export const make = (options: {
  readonly connection: Connection
  readonly route: HttpRoute
  readonly answers: Answers
  readonly runFork: (effect: Effect.Effect<void>) => void
  readonly post: (
    message: JsonRpc.JSONRPCMessage,
    extra: Readonly<Record<string, string>> | undefined
  ) => Effect.Effect<void>
}): FastSend => {
  const { connection, route, answers, runFork, post } = options
  // The POSTs under way outside any fiber, until their answer is read (what aborts each), each by a
  // number of its own: they pass through as fast as they are sent, which a `Set` does not survive
  // (see `IdTable`: 370 MB promoted in a 55,000-call run with 100 in flight).
  const unanswered = IdTable.make<{ readonly id: number; readonly abort: () => void }>()
  let posted = 0

  /** The failure of the request `id` (or a warning, for a message nothing waits on), outside any fiber. */
  const failNow = (id: JsonRpc.RequestId | undefined, error: TransportError) => {
    if (id === undefined) runFork(Effect.logWarning(error.message))
    else connection.inbound.unsafeOffer({ _tag: "Failed", id, error })
  }

  const send: FastSend["send"] = (message, extra) => {
    const id = requestId(message)
    const sentWith = sessionFor(connection, message)
    // Set once `request` returned: the route calls no handler before (`RouteHandlers`).
    let underWay: { readonly id: number; readonly abort: () => void } | undefined
    const settled = () => {
      if (underWay !== undefined) unanswered.remove(underWay)
    }
    const abort: (() => void) | undefined = route.request(
      "POST",
      connection.url,
      connection.headersFor(ACCEPT, extra, message),
      JSON.stringify(message),
      {
        onAnswer: (answer) => {
          const status = answer.status
          if (!connection.closed && status >= 200 && status < 300 && isJson(answer)) {
            connection.observe(answer, undefined)
            // Under way until its body is read: closing aborts it.
            return answer.read(connection.maxBytes, (body) => {
              settled()
              if (connection.closed) return
              const { items, error } = answers.jsonOutcome(body, status, id)
              for (const item of items) connection.inbound.unsafeOffer(item)
              if (error !== undefined) failNow(id, error)
            })
          }
          settled()
          if (connection.closed) return answer.release()
          if (status === 202 || status === 204) {
            connection.observe(answer, undefined)
            return answer.drain()
          }
          runFork(
            answers.handle(answer, message, undefined, sentWith).pipe(
              Effect.scoped,
              Effect.ensuring(Effect.sync(answer.release)),
              Effect.catchAll((error) => answers.failRequest(id, error))
            )
          )
        },
        onError: (cause) => {
          settled()
          if (!connection.closed) failNow(id, connection.postFailed(cause))
        },
        // Authorization took over: the request goes again, through the `HttpClient`.
        onRefused: () => {
          settled()
          if (!connection.closed) runFork(post(message, extra))
        }
      }
    )
    if (abort === undefined) return false
    underWay = { id: posted++, abort }
    unanswered.add(underWay)
    return true
  }

  return {
    send,
    abortAll: () => {
      // Each still under way when its turn comes: aborting one may settle another.
      for (const open of unanswered.values()) if (unanswered.remove(open)) open.abort()
    }
  }
}
