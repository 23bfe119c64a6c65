/**
 * What the server's answer to a POST means, by status and content type: 202/204 (done), a
 * refusal before any session (a legacy HTTP+SSE server, unless the body is the request's JSON-RPC
 * answer), a 404 or 400 for the session (`SessionExpired`: the server restarted), a 2026-07-28
 * 4xx carrying the request's JSON-RPC answer, an error status (with a body excerpt and
 * `Retry-After`), an event stream, or JSON (bounded, and it must contain the response when one is
 * awaited).
 */

import { decodeIncoming, type Incoming } from "@effect-mcp/jsonrpc/Transport"
import type { JsonRpc } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Scope from "effect/Scope"
import type { AuthorizationError } from "../../../auth/AuthError.js"
import { LegacyServer, SessionExpired, StreamBroken, type TransportError } from "../../../McpError.js"
import * as Retry from "../../../Retry.js"
import { type Answer, type Collected, readBody, readExcerpt, statusAnswer, tooLarge } from "../httpBody.js"
import { type Connection, requestId } from "./connection.js"
import { answers, type ReadEvents } from "./events.js"

/** How much of a refusal's body is read to tell a lost session from a refused request (a longer one is the request's). */
const REFUSAL_BYTES = 65536

/** What the official SDKs' servers say of a session they do not have: HTTP 400 with -32000, or 404 with -32001. */
const LOST_SESSION = /session|not initiali[sz]ed/i
const SESSION_CODES: ReadonlyArray<number> = [-32000, -32001]

/** The items of a JSON body, if it is JSON. */
const itemsOf = (body: string): ReadonlyArray<Incoming> | undefined => {
  try {
    return decodeIncoming(JSON.parse(body))
  } catch {
    return undefined
  }
}

/** The error a JSON-RPC error body carries (the first, in a batch), if the body is one. */
const errorOf = (body: string): { readonly code: number; readonly message: string } | undefined => {
  for (const item of itemsOf(body) ?? []) {
    if (item._tag === "Message" && "error" in item.message) return item.message.error
  }
  return undefined
}

/**
 * Whether a 4xx to a request that carried a session id says the server lost the session (with
 * what it said): any 404 (the spec's answer); another 4xx only with a JSON-RPC error -32000 or
 * -32001 about the session ("Bad Request: No valid session ID provided", "Server not
 * initialized", "Session not found"). Anything else, a plain-text or HTML 400 from a proxy or a
 * JSON-RPC error about the request itself, is the request's failure: a live session is never
 * thrown away for it, nor a call sent twice.
 */
export const lostSession = (status: number, body: string): { readonly detail: string | undefined } | undefined => {
  const error = errorOf(body)
  if (status === 404) return { detail: error?.message ?? (body.trim() === "" ? undefined : body.trim().slice(0, 200)) }
  return error !== undefined && SESSION_CODES.includes(error.code) && LOST_SESSION.test(error.message)
    ? { detail: error.message }
    : undefined
}

/** Every failure a request's POST can end with. */
export type PostFailure = TransportError | AuthorizationError | SessionExpired | LegacyServer | StreamBroken

/** The answers of one connection. */
export interface Answers {
  /** Delivers what `answer` (to `message`, sent at `stateless` or with the session `sentWith`) says, or fails with why not. */
  readonly handle: (
    answer: Answer,
    message: JsonRpc.JSONRPCMessage,
    stateless: string | undefined,
    sentWith: string | undefined
  ) => Effect.Effect<void, PostFailure, Scope.Scope>
  /**
   * What a 2xx JSON answer delivers: its items, and the failure of the request `id` when the
   * body broke off, was too large, was not JSON, or did not answer it.
   */
  readonly jsonOutcome: (
    body: Either.Either<Collected, string>,
    status: number,
    id: JsonRpc.RequestId | undefined
  ) => { readonly items: ReadonlyArray<Incoming>; readonly error: TransportError | undefined }
  /** The failure of the request `id` as its inbound item (a warning, for a message nothing waits on). */
  readonly failRequest: (id: JsonRpc.RequestId | undefined, error: PostFailure) => Effect.Effect<void>
}

/** The answers of `connection`, reading event streams with `readEvents`. */
export const make = (connection: Connection, readEvents: ReadEvents): Answers => {
  const { server, maxBytes, inbound, httpError } = connection
  const offerAll = (items: ReadonlyArray<Incoming>) => Effect.asVoid(inbound.offerAll(items))

  /** The items of a JSON error body, when they answer the request `id`. */
  const jsonAnswer = (answer: Answer, id: JsonRpc.RequestId | undefined) =>
    Effect.map(Effect.either(readBody(answer, maxBytes)), (body) => {
      if (body._tag === "Left") return undefined
      const items = itemsOf(body.right)
      return items !== undefined && answers(items, id) ? items : undefined
    })

  const jsonOutcome: Answers["jsonOutcome"] = (body, status, id) => {
    const failed = (reason: string) => ({ items: [], error: httpError(reason, { status }) })
    if (Either.isLeft(body)) return failed(body.left)
    if (body.right.over) return failed(tooLarge(maxBytes))
    let parsed: unknown
    try {
      parsed = JSON.parse(body.right.text)
    } catch {
      return failed(`the server answered with a body that is not JSON: ${body.right.text.slice(0, 200)}`)
    }
    const items = decodeIncoming(parsed)
    return {
      items,
      error:
        id !== undefined && !answers(items, id)
          ? httpError("the server's JSON answer did not contain the response", { status })
          : undefined
    }
  }

  const handle: Answers["handle"] = (answer, message, stateless, sentWith) =>
    Effect.gen(function* () {
      const id = requestId(message)
      connection.observe(answer, stateless)
      const contentType = (answer.headers["content-type"] ?? "").toLowerCase()
      if (answer.status === 202 || answer.status === 204) return
      // Refused before any session, as a legacy HTTP+SSE server refuses a POST: say so (the
      // auto transport falls back); a 404 for a session it gave: it forgot the session.
      // (Only before any answer: once the server has answered, a refusal is that request's failure.)
      if (
        stateless === undefined &&
        !connection.answeredOnce &&
        sentWith === undefined &&
        [400, 404, 405].includes(answer.status)
      ) {
        // Unless the refusal is a JSON-RPC answer (a modern-only server's -32022 names its revisions).
        const refusal = contentType.startsWith("application/json") ? yield* jsonAnswer(answer, id) : undefined
        if (refusal !== undefined) return yield* offerAll(refusal)
        return yield* new LegacyServer({ server, status: answer.status })
      }
      // A refusal of a request that carried a session id: the server forgot the session (it
      // restarted), unless its body says the request itself was at fault.
      const refusedSession =
        stateless === undefined &&
        sentWith !== undefined &&
        answer.status >= 400 &&
        answer.status < 500 &&
        answer.status !== 401 &&
        answer.status !== 403
      const excerpt = refusedSession ? yield* readExcerpt(answer, REFUSAL_BYTES) : undefined
      const lost = excerpt === undefined ? undefined : lostSession(answer.status, excerpt)
      if (lost !== undefined) {
        // The session id is kept: until a new initialize replaces it, every request meets the same
        // refusal and recovers (one nothing awaits, a notification, cannot leave the client
        // sending no session id at all); an initialize never carries it (`Connection.sessionFor`).
        connection.listening = undefined
        return yield* new SessionExpired({
          server,
          status: answer.status,
          ...(lost.detail === undefined ? {} : { detail: lost.detail })
        })
      }
      // A stateful request's own refusal that is its JSON-RPC answer (an error with its id): that
      // error, as the server said it (RpcError), not an HTTP failure.
      if (excerpt !== undefined && contentType.startsWith("application/json")) {
        const items = itemsOf(excerpt)
        if (items !== undefined && answers(items, id)) return yield* offerAll(items)
      }
      if (
        stateless !== undefined &&
        answer.status >= 400 &&
        answer.status < 500 &&
        contentType.startsWith("application/json")
      ) {
        // 2026-07-28: a 4xx with a JSON-RPC body is that request's answer (-32022, -32020, -32601, …).
        const refusal = yield* jsonAnswer(answer, id)
        if (refusal !== undefined) return yield* offerAll(refusal)
        return yield* httpError(`HTTP ${answer.status} without a JSON-RPC answer`, { status: answer.status })
      }
      if (answer.status < 200 || answer.status >= 300) {
        const body = excerpt === undefined ? yield* readExcerpt(answer, 2048) : excerpt.slice(0, 2048)
        const retryAfter = Retry.parseRetryAfter(answer.headers["retry-after"], Date.now())
        return yield* httpError(statusAnswer(answer.status, body), {
          status: answer.status,
          ...(retryAfter === undefined ? {} : { retryAfter })
        })
      }
      if (contentType.startsWith("text/event-stream")) {
        // 2026-07-28 has no resumption: a broken stream loses the request, which is sent again.
        const { answered, ending } = yield* readEvents(answer, id, stateless === undefined)
        if (stateless !== undefined && id !== undefined && !answered && !connection.closed) {
          return yield* new StreamBroken({ server, reason: ending })
        }
        if (id !== undefined && !answered && !connection.closed) {
          return yield* httpError(ending, { status: answer.status })
        }
        return
      }
      if (contentType.startsWith("application/json")) {
        const body = yield* Effect.either(answer.collect(maxBytes))
        const { items, error } = jsonOutcome(body, answer.status, id)
        yield* offerAll(items)
        if (error !== undefined) return yield* error
        return
      }
      const body = yield* readExcerpt(answer, 2048)
      return yield* httpError(
        `unexpected content type ${contentType === "" ? "(none)" : contentType} with status ${answer.status}: ${statusAnswer(answer.status, body)}`,
        { status: answer.status }
      )
    })

  const failRequest: Answers["failRequest"] = (id, error) =>
    id === undefined ? Effect.logWarning(error.message) : offerAll([{ _tag: "Failed", id, error }])

  return { handle, jsonOutcome, failRequest }
}
