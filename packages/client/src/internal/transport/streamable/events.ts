/**
 * Reading a Streamable HTTP event stream (a POST's SSE answer, or the GET listener's stream):
 * each event's messages go to the inbound as they arrive (a POST's notifications and requests
 * marked as its request's); a stream that breaks is resumed with
 * `Last-Event-ID` after the server's `retry` interval (or the default delay), while it still
 * matters, a bounded number of times in a row without an event.
 */

import { parseIncoming } from "@effect-mcp/jsonrpc/Transport"
import type { JsonRpc } from "@effect-mcp/protocol"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { Incoming } from "../../../Transport.js"
import type { Answer } from "../httpBody.js"
import { makeParser } from "../sse.js"
import type { Connection } from "./connection.js"

/** Whether `items` carry the response to the request `id`. */
export const answers = (items: ReadonlyArray<Incoming>, id: JsonRpc.RequestId | undefined): boolean =>
  id !== undefined &&
  items.some(
    (item) => item._tag === "Message" && "id" in item.message && !("method" in item.message) && item.message.id === id
  )

/** A notification or a request on a request's own stream, marked as that request's. */
const relatedTo = (item: Incoming, request: JsonRpc.RequestId | undefined): Incoming =>
  request !== undefined && item._tag === "Message" && "method" in item.message
    ? { ...item, relatedRequest: request }
    : item

/** How an SSE stream ended: whether the awaited response came, and if not, why the stream stopped. */
export interface SseEnd {
  readonly answered: boolean
  readonly ending: string
}

/** Reads an event stream of the connection; `waitingFor` is the request it answers, if any. */
export type ReadEvents = (
  response: Answer,
  waitingFor: JsonRpc.RequestId | undefined,
  resumable?: boolean
) => Effect.Effect<SseEnd, never, Scope.Scope>

/**
 * The reader: resumes a stream (with Last-Event-ID when the server gave ids) while `waitingFor`
 * has no answer, or, for the listener, while the session lives. Resumptions in a row that
 * deliver no event are bounded by `maxReconnects`; one that delivers resets the count.
 */
export const reader =
  (connection: Connection, maxReconnects: number, defaultDelay: Duration.Duration): ReadEvents =>
  (response, waitingFor, resumable = true) =>
    Effect.gen(function* () {
      const { maxBytes, inbound, server } = connection
      let current: Answer = response
      let lastEventId: string | undefined
      let delay = defaultDelay
      let answered = false
      let resumesWithoutProgress = 0
      for (;;) {
        let delivered = 0
        const parser = makeParser(maxBytes, (item) => {
          if (item._tag === "Retry") {
            delay = Duration.millis(item.millis)
            return
          }
          if (item.id !== undefined) lastEventId = item.id
          // An event with an id and empty data primes resumption (the spec asks servers to send one).
          if (item.event !== "message" || item.data === "") return
          delivered++
          const items = parseIncoming(item.data)
          if (answers(items, waitingFor)) answered = true
          for (const incoming of items) inbound.unsafeOffer(relatedTo(incoming, waitingFor))
        })
        let tooLarge = false
        const outcome = yield* Effect.either(
          current.forEachChunk((chunk) => {
            tooLarge = !parser.push(chunk)
            return !tooLarge
          })
        )
        let ending =
          waitingFor === undefined
            ? "the server's event stream ended"
            : "the server's event stream ended before the response arrived"
        if (tooLarge) {
          ending = `an SSE event exceeded ${maxBytes} bytes`
          yield* Effect.logWarning(`${server}: ${ending}`)
        } else if (outcome._tag === "Left") {
          ending = outcome.left
        } else {
          parser.end()
        }
        if (
          connection.closed ||
          answered ||
          !resumable ||
          (waitingFor === undefined && connection.sessionId === undefined)
        )
          return { answered, ending }
        // A request's stream can only be resumed from an event id; the listener may reopen afresh.
        if (lastEventId === undefined && waitingFor !== undefined) return { answered, ending }
        if (delivered > 0) resumesWithoutProgress = 0
        if (resumesWithoutProgress >= maxReconnects)
          return {
            answered,
            ending: `${ending}; resumed ${maxReconnects} times in a row without receiving an event`
          }
        resumesWithoutProgress++
        yield* Effect.sleep(delay)
        const resumed = yield* Effect.either(
          connection.get(
            `resuming with GET ${connection.url}`,
            lastEventId === undefined ? {} : { "last-event-id": lastEventId }
          )
        )
        if (resumed._tag === "Left") return { answered, ending: `${ending}; ${resumed.left}` }
        if (resumed.right.status !== 200)
          return { answered, ending: `${ending}; resuming with GET was answered ${resumed.right.status}` }
        current = resumed.right
      }
    })
