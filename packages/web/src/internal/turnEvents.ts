/**
 * One turn's events (`ToolLoop.TurnEvent`) as the conversation's messages: each stretch of the
 * answer an `Assistant` message of its own (`part`), growing as it streams; each tool call a
 * `Tool` message from its start to its result (with its progress); the error, the end. The turn's
 * place in the answer is a `Ref` of this turn's.
 */
import type { ToolLoop } from "@effect-mcp/ai"
import { ToolOutput } from "@effect-mcp/ai"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type * as Api from "../Api.js"
import type { Conversation } from "./conversation.js"
import type { Running } from "./running.js"

/** A tool call as its message says it. */
export const describe = (
  turnId: string,
  call: ToolLoop.ToolCall,
  extra: Partial<Extract<Api.ChatMessage, { _tag: "Tool" }>>
): Extract<Api.ChatMessage, { _tag: "Tool" }> => ({
  _tag: "Tool",
  turnId,
  callId: call.callId,
  name: call.tool?.hostName ?? call.name,
  ...(call.tool === undefined ? {} : { server: call.tool.server, tool: call.tool.tool.name }),
  ...(call.tool?.tool.ui?.resourceUri === undefined ? {} : { view: call.tool.tool.ui.resourceUri }),
  arguments: call.arguments,
  ...extra
})

/** Where the answer is: the stretch being streamed, and its text so far. */
interface Place {
  readonly part: number
  readonly inText: boolean
  readonly text: string
}

/** The handler of one turn's events. */
export const handler = (
  conversation: Conversation,
  calls: Running,
  turnId: string
): Effect.Effect<(event: ToolLoop.TurnEvent) => Effect.Effect<void>> =>
  Effect.map(Ref.make<Place>({ part: -1, inText: false, text: "" }), (place) => (event) => {
    switch (event._tag) {
      case "TextDelta":
        return Effect.flatMap(
          Ref.modify(place, (now): [Place & { readonly fresh: boolean }, Place] => {
            const next = now.inText
              ? { ...now, text: now.text + event.text }
              : { part: now.part + 1, inText: true, text: event.text }
            return [{ ...next, fresh: !now.inText }, next]
          }),
          ({ part, text, fresh }) =>
            fresh
              ? conversation.put({ _tag: "Assistant", turnId, part, text })
              : conversation.grow(turnId, part, text, event.text)
        )
      case "ToolCallStarted":
        return Effect.all(
          [
            Ref.update(place, (now) => ({ ...now, inText: false })),
            event.call.tool === undefined ? Effect.void : calls.start(event.call.callId, event.call.tool.server),
            conversation.put(describe(turnId, event.call, {}))
          ],
          { discard: true }
        )
      case "ToolProgress":
        return conversation.updateTool(turnId, event.callId, (message) => ({
          ...message,
          progress: {
            progress: event.progress.progress,
            ...(event.progress.total === undefined ? {} : { total: event.progress.total }),
            ...(event.progress.message === undefined ? {} : { message: event.progress.message })
          }
        }))
      case "ToolResult":
        return Effect.zipRight(
          calls.end(event.call.callId),
          conversation.put(
            describe(turnId, event.call, {
              result: ToolOutput.plainText(event.output),
              isError: event.isError,
              content: event.output.content
            })
          )
        )
      case "Error":
        return conversation.put({ _tag: "Error", turnId, message: event.error.message })
      case "Done":
        return Effect.zipRight(
          conversation.setPrompt(event.outcome.prompt),
          conversation.put({
            _tag: "Done",
            turnId,
            toolCalls: event.outcome.toolCalls,
            limitReached: event.outcome.limitReached
          })
        )
    }
  })
