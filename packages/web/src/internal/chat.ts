/**
 * The page's conversation: each message the user sends is one turn of the `@effect/ai` tool loop
 * (`ToolLoop.stream`) over every open server's tools, its events turned into the conversation's
 * messages as they happen and streamed to the page. Tools that may destroy something wait for
 * the user's approval in the page. The conversation (its messages and the model's prompt) is kept
 * in the platform's `KeyValueStore` after every change that ends a step, so it survives a reload
 * of the page and a restart of the command.
 */
import type * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { McpToolkit, ToolLoop, ToolOutput } from "@effect-mcp/ai"
import type { McpHost } from "@effect-mcp/host"
import type * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberHandle from "effect/FiberHandle"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Api from "../Api.js"
import { randomId } from "./inputs.js"
import type { Running } from "./running.js"

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
    const store = yield* KeyValueStore.KeyValueStore
    const maxToolCalls = options.maxToolCalls ?? 16

    const toolkit = McpToolkit.make(host, { skills: true })

    const kept = yield* store.get(STORE_KEY).pipe(
      Effect.flatMap(
        Option.match({
          onNone: () => Effect.succeed(Option.none()),
          onSome: (text) => Effect.asSome(Schema.decode(Saved)(text))
        })
      ),
      Effect.flatMap(
        Option.match({
          onNone: () => Effect.succeed({ messages: [] as ReadonlyArray<Api.ChatMessage>, prompt: Prompt.empty }),
          onSome: (saved) =>
            Effect.map(Schema.decode(Prompt.FromJson)(saved.prompt), (prompt) => ({ messages: saved.messages, prompt }))
        })
      ),
      Effect.catchAll((error) =>
        Effect.as(Effect.logWarning("the kept conversation could not be read; starting a new one", error.message), {
          messages: [] as ReadonlyArray<Api.ChatMessage>,
          prompt: Prompt.empty
        })
      )
    )
    const messages = yield* Ref.make(kept.messages)
    const history = yield* Ref.make(kept.prompt)
    const approvals = yield* Ref.make<ReadonlyMap<string, Deferred.Deferred<boolean>>>(new Map())
    const turn = yield* FiberHandle.make()
    const busy = yield* Ref.make(false)
    /** Each view's latest context, by view id, until a turn takes them. */
    const contexts = yield* Ref.make<ReadonlyMap<string, { readonly server: string; readonly text: string }>>(new Map())
    /** Views' messages that came while a turn ran, for the next turn's prompt. */
    const waiting = yield* Ref.make<ReadonlyArray<string>>([])

    const save = Effect.gen(function* () {
      const prompt = yield* Schema.encode(Prompt.FromJson)(yield* Ref.get(history))
      const text = yield* Schema.encode(Saved)({ messages: yield* Ref.get(messages), prompt })
      yield* store.set(STORE_KEY, text)
    }).pipe(Effect.catchAll((error) => Effect.logWarning("the conversation could not be kept", error.message)))

    const put = (message: Api.ChatMessage) =>
      Effect.zipRight(
        Ref.update(messages, (all) => upsert(all, message)),
        PubSub.publish(events, { _tag: "Chat", message })
      )
    const toolMessage = (turnId: string, callId: string) =>
      Effect.map(Ref.get(messages), (all) =>
        all.find(
          (one): one is Extract<Api.ChatMessage, { _tag: "Tool" }> =>
            one._tag === "Tool" && one.turnId === turnId && one.callId === callId
        )
      )
    const updateTool = (
      turnId: string,
      callId: string,
      change: (message: Extract<Api.ChatMessage, { _tag: "Tool" }>) => Api.ChatMessage
    ) =>
      Effect.flatMap(toolMessage(turnId, callId), (found) => (found === undefined ? Effect.void : put(change(found))))

    const describe = (
      turnId: string,
      call: ToolLoop.ToolCall,
      extra: Partial<Extract<Api.ChatMessage, { _tag: "Tool" }>>
    ): Api.ChatMessage => ({
      _tag: "Tool",
      turnId,
      callId: call.callId,
      name: call.tool?.hostName ?? call.name,
      ...(call.tool === undefined ? {} : { server: call.tool.server, tool: call.tool.tool.name }),
      ...(call.tool?.tool.ui?.resourceUri === undefined ? {} : { view: call.tool.tool.ui.resourceUri }),
      arguments: call.arguments,
      ...extra
    })

    const ask = (turnId: string) => (call: ToolLoop.ToolCall) =>
      Effect.gen(function* () {
        const answer = yield* Deferred.make<boolean>()
        yield* Ref.update(approvals, (map) => new Map(map).set(call.callId, answer))
        yield* put(describe(turnId, call, { awaitingApproval: true }))
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

    const runTurn = (context: Context.Context<LanguageModel.LanguageModel>, turnId: string, text: string) =>
      Effect.gen(function* () {
        let part = -1
        let inText = false
        let answer = ""
        const onEvent = (event: ToolLoop.TurnEvent): Effect.Effect<void> =>
          ToolLoop.TurnEvent.$match(event, {
            TextDelta: ({ text: delta }) =>
              Effect.suspend(() => {
                if (!inText) {
                  inText = true
                  part += 1
                  answer = delta
                  return put({ _tag: "Assistant", turnId, part, text: answer })
                }
                answer += delta
                return Effect.zipRight(
                  Ref.update(messages, (all) => upsert(all, { _tag: "Assistant", turnId, part, text: answer })),
                  PubSub.publish(events, { _tag: "ChatDelta", turnId, part, text: delta })
                )
              }),
            ToolCallStarted: ({ call }) =>
              Effect.suspend(() => {
                inText = false
                return Effect.zipRight(
                  call.tool === undefined ? Effect.void : calls.start(call.callId, call.tool.server),
                  put(describe(turnId, call, {}))
                )
              }),
            ToolProgress: ({ callId, progress }) =>
              updateTool(turnId, callId, (message) => ({
                ...message,
                progress: {
                  progress: progress.progress,
                  ...(progress.total === undefined ? {} : { total: progress.total }),
                  ...(progress.message === undefined ? {} : { message: progress.message })
                }
              })),
            ToolResult: ({ call, output, isError }) =>
              Effect.zipRight(
                calls.end(call.callId),
                put(describe(turnId, call, { result: ToolOutput.plainText(output), isError, content: output.content }))
              ),
            Error: ({ error }) => put({ _tag: "Error", turnId, message: error.message }),
            Done: ({ outcome }) =>
              Effect.zipRight(
                Ref.set(history, outcome.prompt),
                put({ _tag: "Done", turnId, toolCalls: outcome.toolCalls, limitReached: outcome.limitReached })
              )
          })
        // What views said since the last turn (their messages, their latest contexts) comes first.
        const viewContexts = [...(yield* Ref.getAndSet(contexts, new Map())).values()].map(
          (context) => `Context from the view of ${context.server}:\n${context.text}`
        )
        const before = [...(yield* Ref.getAndSet(waiting, [])), ...viewContexts]
        const prompt = Prompt.merge(
          yield* Ref.get(history),
          Prompt.make([
            ...before.map((content) => ({ role: "user" as const, content })),
            { role: "user" as const, content: text }
          ])
        )
        const approve = options.approveAll === true ? ask(turnId) : ToolLoop.approveDestructive(ask(turnId))
        yield* ToolLoop.stream({
          prompt,
          maxToolCalls,
          approve,
          ...(options.system === undefined ? {} : { system: options.system })
        }).pipe(
          Stream.runForEach(onEvent),
          Effect.provideService(McpToolkit.McpToolkit, toolkit),
          Effect.provide(context)
        )
      }).pipe(Effect.ensuring(Effect.zipRight(Ref.set(busy, false), save)))

    return {
      info: {
        available: Option.isSome(options.model),
        maxToolCalls,
        ...Option.match(options.model, {
          onNone: () => ({ hint: options.hint }),
          onSome: (chosen) => ({ model: chosen.name })
        })
      },
      conversation: Ref.get(messages),
      send: (text) =>
        Effect.gen(function* () {
          if (Option.isNone(model)) return yield* new ChatRefused({ reason: options.hint })
          if (yield* Ref.getAndSet(busy, true))
            return yield* new ChatRefused({ reason: "a turn is running: wait for its answer" })
          const turnId = randomId()
          yield* put({ _tag: "User", turnId, text })
          yield* save
          yield* FiberHandle.run(turn, runTurn(model.value, turnId, text))
          return turnId
        }),
      fromView: (server, text) =>
        Effect.gen(function* () {
          if (Option.isSome(model) && !(yield* Ref.getAndSet(busy, true))) {
            const turnId = randomId()
            yield* put({ _tag: "User", turnId, text, view: server })
            yield* save
            yield* FiberHandle.run(turn, runTurn(model.value, turnId, text))
            return
          }
          yield* put({ _tag: "User", turnId: randomId(), text, view: server })
          if (Option.isSome(model)) yield* Ref.update(waiting, (list) => [...list, text])
          else
            yield* Ref.update(history, (prompt) => Prompt.merge(prompt, Prompt.make([{ role: "user", content: text }])))
          yield* save
        }),
      setContext: (view, server, text) => Ref.update(contexts, (map) => new Map(map).set(view, { server, text })),
      approve: (callId, allow) =>
        Effect.flatMap(Ref.get(approvals), (map) => {
          const waiting = map.get(callId)
          return waiting === undefined ? Effect.void : Deferred.succeed(waiting, allow)
        }),
      clear: Effect.gen(function* () {
        yield* FiberHandle.clear(turn)
        yield* Ref.set(messages, [])
        yield* Ref.set(history, Prompt.empty)
        yield* PubSub.publish(events, { _tag: "ChatCleared" })
        yield* save
      })
    }
  })
