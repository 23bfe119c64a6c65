/**
 * 2026-07-28 over HTTP: every POST is one request standing alone (`statelessRequest.ts` decides
 * what it gets). A request that asked for progress or log messages gets an event stream (those, then
 * its response; closing it cancels the call); `subscriptions/listen` an event stream that lasts; any
 * other a JSON response.
 */
import type { JsonRpc } from "@effect-mcp/protocol"
import { McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { event, running } from "./events.js"
import * as Listen from "./listen.js"
import * as Reply from "./reply.js"
import * as Request from "./statelessRequest.js"

/** Serves one stateless request over HTTP. */
export const serve = (
  message: JsonRpc.JSONRPCRequest,
  headers: Request.Headers,
  context: Request.StatelessContext
): Effect.Effect<Reply.Reply> => {
  if (message.method === "subscriptions/listen") {
    return Effect.succeed(
      Reply.events(
        running((sink) =>
          Stream.runForEach(Listen.listen(message, context), (notification) =>
            Effect.sync(() => sink.write(event(notification)))
          )
        )
      )
    )
  }
  const meta = message.params?._meta
  const wantsProgress = McpSchema.isJsonObject(meta) && meta.progressToken !== undefined
  if (!wantsProgress && Request.logLevelOf(message) === undefined) {
    return Effect.map(
      Request.respond(message, headers, context, () => Effect.void),
      (answer) => Reply.json(answer.message, answer.status)
    )
  }
  // The call runs in the connection's scope: a client that closes the stream cancels it.
  return Effect.succeed(
    Reply.events(
      running((sink) =>
        Request.respond(message, headers, context, (notification) =>
          Effect.sync(() => sink.write(event(notification)))
        ).pipe(Effect.flatMap((answer) => Effect.sync(() => sink.write(event(answer.message)))))
      )
    )
  )
}
