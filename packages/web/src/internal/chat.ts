/**
 * The page's conversation: each message the user sends is one turn of the `@effect/ai` tool loop
 * (`ToolLoop.stream`) over every open server's tools, its events turned into the conversation's
 * messages as they happen (`turnEvents.ts`) and streamed to the page. Tools that may destroy
 * something wait for the user's approval in the page. The conversation is kept
 * (`conversation.ts`), so it survives a reload of the page and a restart of the command.
 */
import type * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import { McpToolkit, ToolLoop } from "@effect-mcp/ai"
import type { McpHost } from "@effect-mcp/host"
import type * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberHandle from "effect/FiberHandle"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as PubSub from "effect/PubSub"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Api from "../Api.js"
import * as Conversation from "./conversation.js"
import { randomId } from "./inputs.js"
import type { Running } from "./running.js"
import * as TurnEvents from "./turnEvents.js"

/** The model the conversation uses, with its name for the page. */
export interface ChatModel {
  readonly layer: Layer.Layer<LanguageModel.LanguageModel>
  /** `anthropic claude-sonnet-4-5`, … */
  readonly name: string
}

/** How the conversation runs. */
export interface ChatOptions {
  /** None: the chat pane shows `hint`. */
  readonly model: Option.Option<ChatModel>
  /** Without a model: what to configure. */
  readonly hint: string
  readonly system?: string
  /** At most this many tool calls per turn (the seed's `max_tool_calls`). Default: 16. */
  readonly maxToolCalls?: number
  /** Ask before every tool call, not only those that may destroy something. Default: false. */
  readonly approveAll?: boolean
}

/** Chat was asked for without a model, or while a turn runs. */
export class ChatRefused extends Data.TaggedError("ChatRefused")<{ readonly reason: string }> {
  override get message() {
    return this.reason
  }
}

/** The chat part. */
export interface Chat {
  readonly info: Api.ChatInfo
  readonly conversation: Effect.Effect<ReadonlyArray<Api.ChatMessage>>
  readonly send: (text: string) => Effect.Effect<string, ChatRefused>
  readonly approve: (callId: string, allow: boolean) => Effect.Effect<void>
  readonly clear: Effect.Effect<void>
  /**
   * A view's `ui/message` (MCP Apps): a user message in the conversation, from `server`'s view.
   * With a model and no turn running it starts a turn; otherwise it is kept in the conversation
   * (and the model's prompt) for the next turn.
   */
  readonly fromView: (server: string, text: string) => Effect.Effect<void>
  /** A view's `ui/update-model-context`: replaces that view's context, given to the model on the next turn. */
  readonly setContext: (view: string, server: string, text: string) => Effect.Effect<void>
}

/** Starts the chat part, reading the kept conversation. */
export const make = (
  host: McpHost.McpHostService,
  events: PubSub.PubSub<Api.Event>,
  calls: Running,
  options: ChatOptions,
  /** The model's layer, built once (by the caller, which shares it with sampling). */
  model: Option.Option<Context.Context<LanguageModel.LanguageModel>>
): Effect.Effect<Chat, never, Scope.Scope | KeyValueStore.KeyValueStore> =>
  Effect.gen(function* () {
    const maxToolCalls = options.maxToolCalls ?? 16
    const toolkit = McpToolkit.make(host, { skills: true })
    const conversation = yield* Conversation.make(events)
    const approvals = yield* Ref.make<ReadonlyMap<string, Deferred.Deferred<boolean>>>(new Map())
    const turn = yield* FiberHandle.make()
    const busy = yield* Ref.make(false)
    /** Each view's latest context, by view id, until a turn takes them. */
    const contexts = yield* Ref.make<ReadonlyMap<string, { readonly server: string; readonly text: string }>>(new Map())
    /** Views' messages that came while a turn ran, for the next turn's prompt. */
    const waiting = yield* Ref.make<ReadonlyArray<string>>([])

    const ask = (turnId: string) => (call: ToolLoop.ToolCall) =>
      Effect.gen(function* () {
        const answer = yield* Deferred.make<boolean>()
        yield* Ref.update(approvals, (map) => new Map(map).set(call.callId, answer))
        yield* conversation.put(TurnEvents.describe(turnId, call, { awaitingApproval: true }))
        return yield* Deferred.await(answer).pipe(
          Effect.ensuring(
            Ref.update(approvals, (map) => {
              const next = new Map(map)
              next.delete(call.callId)
              return next
            })
          )
        )
      })

    /** The turn's prompt: the conversation so far, what views said since the last turn, the user's message. */
    const promptFor = (text: string) =>
      Effect.gen(function* () {
        const viewContexts = [...(yield* Ref.getAndSet(contexts, new Map())).values()].map(
          (context) => `Context from the view of ${context.server}:\n${context.text}`
        )
        const before = [...(yield* Ref.getAndSet(waiting, [])), ...viewContexts]
        return Prompt.merge(
          yield* conversation.prompt,
          Prompt.make([
            ...before.map((content) => ({ role: "user" as const, content })),
            { role: "user" as const, content: text }
          ])
        )
      })

    const runTurn = (context: Context.Context<LanguageModel.LanguageModel>, turnId: string, text: string) =>
      Effect.gen(function* () {
        const onEvent = yield* TurnEvents.handler(conversation, calls, turnId)
        const approve = options.approveAll === true ? ask(turnId) : ToolLoop.approveDestructive(ask(turnId))
        yield* ToolLoop.stream({
          prompt: yield* promptFor(text),
          maxToolCalls,
          approve,
          ...(options.system === undefined ? {} : { system: options.system })
        }).pipe(
          Stream.runForEach(onEvent),
          Effect.provideService(McpToolkit.McpToolkit, toolkit),
          Effect.provide(context)
        )
      }).pipe(Effect.ensuring(Effect.zipRight(Ref.set(busy, false), conversation.save)))

    /** Starts a turn on the user's (or a view's) message, unless one runs. */
    const begin = (
      context: Context.Context<LanguageModel.LanguageModel>,
      message: Api.ChatMessage & { _tag: "User" }
    ) =>
      Effect.gen(function* () {
        yield* conversation.put(message)
        yield* conversation.save
        yield* FiberHandle.run(turn, runTurn(context, message.turnId, message.text))
      })

    return {
      info: {
        available: Option.isSome(options.model),
        maxToolCalls,
        ...Option.match(options.model, {
          onNone: () => ({ hint: options.hint }),
          onSome: (chosen) => ({ model: chosen.name })
        })
      },
      conversation: conversation.messages,
      send: (text) =>
        Effect.gen(function* () {
          if (Option.isNone(model)) return yield* new ChatRefused({ reason: options.hint })
          if (yield* Ref.getAndSet(busy, true))
            return yield* new ChatRefused({ reason: "a turn is running: wait for its answer" })
          const turnId = randomId()
          yield* begin(model.value, { _tag: "User", turnId, text })
          return turnId
        }),
      fromView: (server, text) =>
        Effect.gen(function* () {
          if (Option.isSome(model) && !(yield* Ref.getAndSet(busy, true)))
            return yield* begin(model.value, { _tag: "User", turnId: randomId(), text, view: server })
          yield* conversation.put({ _tag: "User", turnId: randomId(), text, view: server })
          if (Option.isSome(model)) yield* Ref.update(waiting, (list) => [...list, text])
          else
            yield* Effect.flatMap(conversation.prompt, (prompt) =>
              conversation.setPrompt(Prompt.merge(prompt, Prompt.make([{ role: "user", content: text }])))
            )
          yield* conversation.save
        }),
      setContext: (view, server, text) => Ref.update(contexts, (map) => new Map(map).set(view, { server, text })),
      approve: (callId, allow) =>
        Effect.flatMap(Ref.get(approvals), (map) => {
          const pending = map.get(callId)
          return pending === undefined ? Effect.void : Deferred.succeed(pending, allow)
        }),
      clear: Effect.gen(function* () {
        yield* FiberHandle.clear(turn)
        yield* conversation.clear
        yield* conversation.save
      })
    }
  })
