/** Requests to the gateway's HTTP core (`internal/httpCore.ts`) as an adapter hands them over. */
import * as Effect from "effect/Effect"
import type * as HttpCore from "../../src/internal/httpCore.js"
import type * as Reply from "../../src/internal/reply.js"

/** A POST of `body` (already JSON) with `headers` besides the content type and accept. */
export const postTo = (handle: HttpCore.Handler, body: unknown, headers: Record<string, string> = {}) =>
  handle({
    method: "POST",
    url: "/mcp",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    json: Effect.succeed(body)
  })

/** A reply's HTTP status (an event stream is 200). */
export const statusOf = (reply: Reply.Reply) => (reply._tag === "Events" ? 200 : reply.status)
