/**
 * 2026-07-28 over HTTP: every POST is one request standing alone (`statelessRequest.ts` decides
 * what it gets). A request that asked for progress gets an event stream (the progress, then its
 * response; closing it cancels the call); `subscriptions/listen` an event stream that lasts; any
 * other a JSON response.
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { JsonRpc } from "@effect-mcp/protocol"
import { McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Mailbox from "effect/Mailbox"
import * as Stream from "effect/Stream"
import * as Request from "./statelessRequest.js"

const encoder = new TextEncoder()

/** One event of an event stream. */
const event = (message: unknown) => encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`)

const eventStream = (body: Stream.Stream<Uint8Array>) =>
  HttpServerResponse.stream(body, { contentType: "text/event-stream", headers: { "cache-control": "no-cache" } })

/** Serves one stateless request over HTTP. */
export const serve = (
  message: JsonRpc.JSONRPCRequest,
  headers: Request.Headers,
  context: Request.StatelessContext
): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
  Effect.gen(function* () {
    if (message.method === "subscriptions/listen") {
      return eventStream(Stream.map(Request.listen(message, context), event))
    }
    const meta = message.params?._meta
    const wantsProgress = McpSchema.isJsonObject(meta) && meta.progressToken !== undefined
    if (!wantsProgress) {
      const answer = yield* Request.respond(message, headers, context, () => Effect.void)
      return HttpServerResponse.unsafeJson(answer.message, { status: answer.status })
    }
    const progress = yield* Mailbox.make<Uint8Array>()
    const answered = Request.respond(message, headers, context, (notification) =>
      Effect.asVoid(progress.offer(event(notification)))
    )
    // The call runs in the stream's scope: a client that closes the stream cancels it.
    const body = Stream.unwrapScoped(
      answered.pipe(
        Effect.flatMap((answer) => progress.offer(event(answer.message))),
        Effect.ensuring(progress.done(Exit.void)),
        Effect.forkScoped,
        Effect.as(Mailbox.toStream(progress))
      )
    )
    return eventStream(body)
  })
