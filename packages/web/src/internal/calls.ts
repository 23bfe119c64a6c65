/**
 * The tool calls made from the page's tool panes: each runs in its own fiber of a `FiberMap`
 * keyed by its call id, so Cancel is removing it from the map (which interrupts the call, and the
 * client sends `notifications/cancelled`). Progress and the end are streamed as events.
 */
import type { McpClient } from "@effect-mcp/client"
import type { McpHost } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
import * as FiberMap from "effect/FiberMap"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Api from "../Api.js"
import { randomId } from "./inputs.js"
import type { Running } from "./running.js"

/** The calls part. */
export interface Calls {
  /** Starts a call; its id is the page's own when it gave one. */
  readonly start: (server: string, call: Api.CallTool) => Effect.Effect<string>
  /** Cancels a running call (nothing when it already ended). */
  readonly cancel: (callId: string) => Effect.Effect<void>
}

const hasOutputSchema = (tool: unknown) => typeof tool === "object" && tool !== null && "outputSchema" in tool

/** Starts the calls part; running calls are interrupted when the scope closes. */
export const make = (
  host: McpHost.McpHostService,
  events: PubSub.PubSub<Api.Event>,
  running: Running
): Effect.Effect<Calls, never, Scope.Scope> =>
  Effect.gen(function* () {
    const fibers = yield* FiberMap.make<string>()
    const publish = (event: Api.Event) => PubSub.publish(events, event)

    const run = (server: string, callId: string, call: Api.CallTool) =>
      Effect.gen(function* () {
        const started = Date.now()
        const ended = (event: Omit<Extract<Api.Event, { _tag: "CallEnded" }>, "_tag" | "callId" | "durationMs">) =>
          publish({ _tag: "CallEnded", callId, durationMs: Date.now() - started, ...event })
        const client = yield* host.client(server)
        const tool = (yield* Effect.option(client.tools)).pipe((tools) =>
          tools._tag === "Some" ? tools.value.find((one) => one.name === call.tool) : undefined
        )
        const progressed = (progress: McpClient.Progress) =>
          publish({
            _tag: "CallProgress",
            callId,
            progress: progress.progress,
            ...(progress.total === undefined ? {} : { total: progress.total }),
            ...(progress.message === undefined ? {} : { message: progress.message })
          })
        // A tool that must run as a task runs as one; so does any call the page asks to.
        const asTask = call.asTask === true || tool?.execution?.taskSupport === "required"
        const result: Effect.Effect<McpClient.CallToolResult, { readonly message: string }> = asTask
          ? client.tasks.runStream(call.tool, call.arguments).pipe(
              Stream.runFoldEffect(undefined as McpClient.CallToolResult | undefined, (last, event) =>
                event._tag === "Status"
                  ? Effect.as(publish({ _tag: "CallTask", callId, server, task: event.task }), last)
                  : event._tag === "Progress"
                    ? Effect.as(progressed(event), last)
                    : Effect.succeed(event.result)
              ),
              Effect.flatMap((last) =>
                last === undefined ? Effect.fail({ message: "the task ended without a result" }) : Effect.succeed(last)
              )
            )
          : client.callTool(call.tool, call.arguments, { onProgress: progressed })
        yield* result.pipe(
          Effect.matchEffect({
            onFailure: (error) => ended({ outcome: "error", error: error.message }),
            onSuccess: (value) =>
              ended({
                outcome: "result",
                result: value,
                ...(hasOutputSchema(tool) && "structuredContent" in value && value.structuredContent !== undefined
                  ? { outputCheck: "valid: the structured content matches the tool's outputSchema" }
                  : {})
              })
          }),
          Effect.onInterrupt(() => ended({ outcome: "cancelled" }))
        )
      }).pipe(
        Effect.catchAll((error) =>
          publish({ _tag: "CallEnded", callId, outcome: "error", error: error.message, durationMs: 0 })
        ),
        running.during(callId, server)
      )

    return {
      start: (server, call) =>
        Effect.gen(function* () {
          const callId = call.callId ?? randomId()
          yield* FiberMap.run(fibers, callId, run(server, callId, call))
          return callId
        }),
      cancel: (callId) => FiberMap.remove(fibers, callId)
    }
  })
