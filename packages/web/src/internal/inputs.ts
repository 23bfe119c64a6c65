/**
 * What servers ask of the user, answered in the page: each sampling and elicitation request
 * becomes a pending {@link Api.InputRequest} shown where it belongs (under the call it came
 * during, when one call of that server is running), and waits for the page's answer, which is
 * decoded with the request's result Schema before it goes back. A request the server gives up
 * (cancelled, or its call ended) leaves the page. Roots are the host's setting, not a question:
 * `roots/list` is answered at once with the list the page edits, and every server is told when
 * it changes.
 */
import type * as LanguageModel from "@effect/ai/LanguageModel"
import { SamplingModel } from "@effect-mcp/ai"
import { Capabilities, McpError } from "@effect-mcp/client"
import { McpSchema } from "@effect-mcp/protocol"
import type * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import type * as Api from "../Api.js"

/** No pending request has this id (answered already, or given up by its server). */
export class UnknownInput extends Data.TaggedError("UnknownInput")<{ readonly id: string; readonly reason?: string }> {
  override get message() {
    return this.reason === undefined ? `no server is waiting for input ${this.id}` : `input ${this.id}: ${this.reason}`
  }
}

/** The inputs part. */
export interface Inputs {
  readonly pending: Effect.Effect<ReadonlyArray<Api.InputRequest>>
  readonly answer: (id: string, answer: Api.InputAnswer) => Effect.Effect<void, UnknownInput>
  readonly roots: Effect.Effect<ReadonlyArray<McpSchema.Root>>
  /** Replaces the roots; every server is told they changed. */
  readonly setRoots: (roots: ReadonlyArray<McpSchema.Root>) => Effect.Effect<void>
  /** The handler services every server's client is given. */
  readonly handlers: Layer.Layer<Capabilities.Sampling | Capabilities.Elicitation | Capabilities.Roots>
}

/** What the page gave: a result to send, or a refusal. */
type Given = Exclude<Api.InputAnswer, { readonly _tag: "AskModel" }>

interface Waiting {
  readonly request: Api.InputRequest
  readonly answer: Deferred.Deferred<Given>
  /** A sampling request's own parameters and context, for the model to answer. */
  readonly sampling?: {
    readonly params: Parameters<Capabilities.Sampling["Type"]["createMessage"]>[0]
    readonly context: Capabilities.RequestContext
  }
}

/** A fresh id: 16 random bytes, hex. */
export const randomId = () =>
  Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("")

/**
 * Starts the inputs part. `callOf` names the call a server's request belongs to (the one call of
 * that server running, if there is exactly one); `defaultRoots` pre-fill the roots editor.
 */
export const make = (
  events: PubSub.PubSub<Api.Event>,
  callOf: (server: string) => Effect.Effect<string | undefined>,
  defaultRoots: ReadonlyArray<McpSchema.Root>,
  /** The chat's model, when there is one: a sampling request may be answered by it. */
  model: Option.Option<Context.Context<LanguageModel.LanguageModel>>
): Effect.Effect<Inputs> =>
  Effect.gen(function* () {
    const waiting = yield* Ref.make<ReadonlyMap<string, Waiting>>(new Map())
    const sampler = yield* Effect.transposeOption(
      Option.map(model, (context) => Effect.provide(SamplingModel.make({ modelName: "effect-mcp ui" }), context))
    )
    const roots = yield* SubscriptionRef.make(defaultRoots)

    /** Shows a request in the page and waits for its answer, decoded with `result`. */
    const ask = <A, I>(
      kind: Api.InputRequest["kind"],
      context: Capabilities.RequestContext,
      params: unknown,
      result: Schema.Schema<A, I>,
      refusal: number,
      sampling?: Waiting["sampling"]
    ): Effect.Effect<A, McpError.JsonRpcFailure> =>
      Effect.gen(function* () {
        const callId = yield* callOf(context.server)
        const request: Api.InputRequest = {
          id: randomId(),
          server: context.server,
          kind,
          params,
          ...(callId === undefined ? {} : { callId })
        }
        const answer = yield* Deferred.make<Given>()
        yield* Ref.update(waiting, (map) =>
          new Map(map).set(request.id, { request, answer, ...(sampling === undefined ? {} : { sampling }) })
        )
        yield* PubSub.publish(events, { _tag: "Input", request })
        const given = yield* Deferred.await(answer).pipe(
          Effect.ensuring(
            Ref.update(waiting, (map) => {
              const next = new Map(map)
              next.delete(request.id)
              return next
            }).pipe(Effect.zipRight(PubSub.publish(events, { _tag: "InputSettled", id: request.id })))
          )
        )
        if (given._tag === "Refuse")
          return yield* new McpError.JsonRpcFailure({ code: refusal, errorMessage: given.message })
        return yield* Schema.decodeUnknown(result)(given.result).pipe(
          Effect.mapError(
            (error) =>
              new McpError.JsonRpcFailure({
                code: -32603,
                errorMessage: `the answer given in the page is not valid: ${error.message}`
              })
          )
        )
      })

    const handlers = Layer.mergeAll(
      Layer.succeed(Capabilities.Sampling, {
        createMessage: (params, context) =>
          ask("sampling", context, params, McpSchema.CreateMessageResult, -1, { params, context })
      }),
      Layer.succeed(Capabilities.Elicitation, {
        form: (params, context) => ask("elicitation-form", context, params, McpSchema.ElicitResult, -32603),
        url: (params, context) => ask("elicitation-url", context, params, McpSchema.ElicitResult, -32603)
      }),
      Layer.succeed(Capabilities.Roots, {
        list: SubscriptionRef.get(roots),
        changes: Stream.map(Stream.drop(roots.changes, 1), () => undefined)
      })
    )

    return {
      roots: SubscriptionRef.get(roots),
      setRoots: (next) =>
        Effect.zipRight(
          SubscriptionRef.set(roots, next),
          PubSub.publish(events, { _tag: "RootsChanged", roots: next })
        ),
      pending: Effect.map(Ref.get(waiting), (map) => [...map.values()].map((entry) => entry.request)),
      answer: (id, answer) =>
        Effect.flatMap(Ref.get(waiting), (map) => {
          const entry = map.get(id)
          if (entry === undefined) return Effect.fail(new UnknownInput({ id }))
          if (answer._tag !== "AskModel") return Deferred.succeed(entry.answer, answer)
          // The chat's model answers a sampling request, as the server asked it (its own consent was the click).
          const sampling = entry.sampling
          if (sampling === undefined || Option.isNone(sampler))
            return Effect.fail(new UnknownInput({ id, reason: "no model can answer it (configure the chat's model)" }))
          return sampler.value.createMessage(sampling.params, sampling.context).pipe(
            Effect.match({
              onFailure: (error): Given => ({ _tag: "Refuse", message: error.errorMessage }),
              onSuccess: (result): Given => ({ _tag: "Result", result })
            }),
            Effect.flatMap((given) => Deferred.succeed(entry.answer, given))
          )
        }),
      handlers
    }
  })
