/**
 * A chat turn in the AI SDK's UI message stream format (server-sent events of `UIMessageChunk`s,
 * header `x-vercel-ai-ui-message-stream: v1`), so that another front end (`useChat` of the AI
 * SDK, say) can drive the page's conversation: the request's last user message starts a turn of
 * the host's conversation (the history is the host's, as the page's is), and the turn's messages
 * are told as chunks as they happen: the text parts, each tool call's input and its output (or
 * error), an error, and the finish.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Api from "../Api.js"
import type { Chat, ChatRefused } from "./chat.js"

/** What is read of a UI message stream request: its messages' roles and text parts (the rest is allowed and left). */
export const UiRequest = Schema.Struct({
  messages: Schema.Array(
    Schema.Struct({
      role: Schema.String,
      parts: Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) }))
    })
  )
})

/** The text of the last user message, if it has any. */
export const lastUserText = (request: typeof UiRequest.Type): string | undefined => {
  const last = [...request.messages].reverse().find((message) => message.role === "user")
  const text = last?.parts
    .flatMap((part) => (part.type === "text" && part.text !== undefined ? [part.text] : []))
    .join("")
  return text === undefined || text.trim() === "" ? undefined : text
}

type Chunk = { readonly type: string } & Record<string, unknown>

/** The chunks one event of the turn adds, given what was told so far. */
const chunksOf = (
  told: { openText: string | undefined; tools: Set<string> },
  event: Api.Event
): ReadonlyArray<Chunk> => {
  const closeText = (): ReadonlyArray<Chunk> => {
    const open = told.openText
    told.openText = undefined
    return open === undefined ? [] : [{ type: "text-end", id: open }]
  }
  if (event._tag === "ChatDelta")
    return told.openText === undefined ? [] : [{ type: "text-delta", id: told.openText, delta: event.text }]
  if (event._tag !== "Chat") return []
  const message = event.message
  switch (message._tag) {
    case "User":
      return []
    case "Assistant": {
      const id = `text-${message.part}`
      if (told.openText === id) return []
      const closed = closeText()
      told.openText = id
      return [
        ...closed,
        { type: "text-start", id },
        ...(message.text === "" ? [] : [{ type: "text-delta", id, delta: message.text }])
      ]
    }
    case "Tool": {
      const chunks: Array<Chunk> = []
      if (!told.tools.has(message.callId)) {
        told.tools.add(message.callId)
        chunks.push(...closeText(), {
          type: "tool-input-available",
          // The servers' tools are not known to a front end beforehand.
          dynamic: true,
          toolCallId: message.callId,
          toolName: message.name,
          input: message.arguments
        })
      }
      if (message.result !== undefined)
        chunks.push(
          message.isError === true
            ? { type: "tool-output-error", toolCallId: message.callId, errorText: message.result }
            : {
                type: "tool-output-available",
                toolCallId: message.callId,
                output: { text: message.result, content: message.content }
              }
        )
      return chunks
    }
    case "Error":
      return [...closeText(), { type: "error", errorText: message.message }]
    case "Done":
      return [...closeText(), { type: "finish" }]
  }
}

const turnOf = (event: Api.Event) =>
  event._tag === "ChatDelta" ? event.turnId : event._tag === "Chat" ? event.message.turnId : undefined

const isEnd = (event: Api.Event) =>
  event._tag === "Chat" && (event.message._tag === "Done" || event.message._tag === "Error")

/** Starts a turn with `text` and tells it as UI message chunks, `data: [DONE]` last. */
export const stream = (
  events: PubSub.PubSub<Api.Event>,
  chat: Chat,
  text: string
): Effect.Effect<Stream.Stream<Uint8Array>, ChatRefused> =>
  Effect.gen(function* () {
    const encoder = new TextEncoder()
    const frame = (chunk: Chunk | "[DONE]") =>
      encoder.encode(`data: ${chunk === "[DONE]" ? chunk : JSON.stringify(chunk)}\n\n`)
    // Subscribed before the turn starts, so that none of its events is missed; the subscription
    // lives as long as the stream (or ends at once when the turn is refused).
    const scope = yield* Scope.make()
    const subscription = yield* Scope.extend(PubSub.subscribe(events), scope)
    const turnId = yield* chat.send(text).pipe(Effect.onError(() => Scope.close(scope, Exit.void)))
    const told = { openText: undefined as string | undefined, tools: new Set<string>() }
    return Stream.make(frame({ type: "start", messageId: turnId })).pipe(
      Stream.concat(
        Stream.fromQueue(subscription).pipe(
          Stream.filter((event) => turnOf(event) === turnId),
          Stream.takeUntil(isEnd),
          Stream.mapConcat((event) => chunksOf(told, event).map(frame))
        )
      ),
      Stream.concat(Stream.make(frame("[DONE]"))),
      Stream.ensuring(Scope.close(scope, Exit.void))
    )
  })
