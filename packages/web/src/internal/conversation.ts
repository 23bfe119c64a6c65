/**
 * The conversation as kept: its messages (what the page draws) and the model's prompt (what the
 * next turn continues), each in a `Ref`, read from the platform's `KeyValueStore` at start and
 * written back when a step ends, so a conversation survives a reload of the page and a restart of
 * the command. Every change of a message is published to the page.
 */
import * as Prompt from "@effect/ai/Prompt"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Api from "../Api.js"

type ToolMessage = Extract<Api.ChatMessage, { _tag: "Tool" }>

/** The conversation part. */
export interface Conversation {
  readonly messages: Effect.Effect<ReadonlyArray<Api.ChatMessage>>
  readonly prompt: Effect.Effect<Prompt.Prompt>
  readonly setPrompt: (prompt: Prompt.Prompt) => Effect.Effect<void>
  /** Adds a message, or replaces the one it is a newer version of, and tells the page. */
  readonly put: (message: Api.ChatMessage) => Effect.Effect<void>
  /** Appends to an answer's stretch, telling the page only the new text. */
  readonly grow: (turnId: string, part: number, text: string, delta: string) => Effect.Effect<void>
  /** Changes a tool call's message, if it is there. */
  readonly updateTool: (
    turnId: string,
    callId: string,
    change: (message: ToolMessage) => ToolMessage
  ) => Effect.Effect<void>
  readonly clear: Effect.Effect<void>
  /** Writes it to the store (a failure is logged: the conversation goes on). */
  readonly save: Effect.Effect<void>
}

const STORE_KEY = "conversation"

const Saved = Schema.parseJson(Schema.Struct({ messages: Schema.Array(Api.ChatMessage), prompt: Schema.String }))

/** Whether two messages are the same one (a newer version replaces the older). */
const same = (a: Api.ChatMessage, b: Api.ChatMessage) =>
  a.turnId === b.turnId &&
  a._tag === b._tag &&
  (a._tag !== "Tool" || (b._tag === "Tool" && a.callId === b.callId)) &&
  (a._tag !== "Assistant" || (b._tag === "Assistant" && a.part === b.part))

const upsert = (messages: ReadonlyArray<Api.ChatMessage>, message: Api.ChatMessage) => {
  const index = messages.findIndex((one) => same(one, message))
  return index === -1 ? [...messages, message] : messages.map((one, at) => (at === index ? message : one))
}

const empty = { messages: [] as ReadonlyArray<Api.ChatMessage>, prompt: Prompt.empty }

/** What the store kept, or a new conversation (a kept one that cannot be read is logged and left). */
const load = (store: KeyValueStore.KeyValueStore) =>
  store.get(STORE_KEY).pipe(
    Effect.flatMap(
      Option.match({
        onNone: () => Effect.succeed(empty),
        onSome: (text) =>
          Effect.flatMap(Schema.decode(Saved)(text), (saved) =>
            Effect.map(Schema.decode(Prompt.FromJson)(saved.prompt), (prompt) => ({ messages: saved.messages, prompt }))
          )
      })
    ),
    Effect.catchAll((error) =>
      Effect.as(Effect.logWarning("the kept conversation could not be read; starting a new one", error.message), empty)
    )
  )

/** The kept conversation, read from the context's store. */
export const make = (
  events: PubSub.PubSub<Api.Event>
): Effect.Effect<Conversation, never, KeyValueStore.KeyValueStore> =>
  Effect.gen(function* () {
    const store = yield* KeyValueStore.KeyValueStore
    const kept = yield* load(store)
    const messages = yield* Ref.make(kept.messages)
    const prompt = yield* Ref.make(kept.prompt)
    const put = (message: Api.ChatMessage) =>
      Effect.zipRight(
        Ref.update(messages, (all) => upsert(all, message)),
        PubSub.publish(events, { _tag: "Chat", message })
      )
    return {
      messages: Ref.get(messages),
      prompt: Ref.get(prompt),
      setPrompt: (next) => Ref.set(prompt, next),
      put,
      grow: (turnId, part, text, delta) =>
        Effect.zipRight(
          Ref.update(messages, (all) => upsert(all, { _tag: "Assistant", turnId, part, text })),
          PubSub.publish(events, { _tag: "ChatDelta", turnId, part, text: delta })
        ),
      updateTool: (turnId, callId, change) =>
        Effect.flatMap(Ref.get(messages), (all) => {
          const found = all.find(
            (one): one is ToolMessage => one._tag === "Tool" && one.turnId === turnId && one.callId === callId
          )
          return found === undefined ? Effect.void : put(change(found))
        }),
      clear: Effect.zipRight(
        Effect.zipRight(Ref.set(messages, []), Ref.set(prompt, Prompt.empty)),
        PubSub.publish(events, { _tag: "ChatCleared" })
      ),
      save: Effect.gen(function* () {
        const text = yield* Schema.encode(Saved)({
          messages: yield* Ref.get(messages),
          prompt: yield* Schema.encode(Prompt.FromJson)(yield* Ref.get(prompt))
        })
        yield* store.set(STORE_KEY, text)
      }).pipe(Effect.catchAll((error) => Effect.logWarning("the conversation could not be kept", error.message)))
    }
  })
