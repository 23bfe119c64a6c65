/**
 * A 2026-07-28 request's input rounds at the gateway: the relay of a request that may need input,
 * made from its sealed `requestState` (which must be this caller's, for this very request, and
 * current) and its retry's `inputResponses`. A retry of a 2026-07-28 server's round continues it
 * there; a retry of a stateful server's held call continues that call on the instance holding it
 * (`heldCalls.ts`); anything else runs again with the answers known so far (`inputRelay.ts`), a
 * stateful server's tool only when it is marked safe to run twice.
 */
import type { McpHost } from "@effect-mcp/host"
import { JsonRpc, McpSchema } from "@effect-mcp/protocol"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as Catalog from "./catalog.js"
import type * as HeldCalls from "./heldCalls.js"
import * as InputRelay from "./inputRelay.js"
import * as Principal from "./principal.js"
import * as Sealing from "./sealing.js"
import { failure } from "./wire.js"

/**
 * The relay of a request that may need input: the answers of its sealed `requestState` (which must
 * be this caller's, for this very request, and current) and of its retry's `inputResponses`.
 */
export const relayFor = (
  message: JsonRpc.JSONRPCRequest,
  headers: Readonly<Record<string, string | undefined>> | undefined,
  context: {
    readonly host: McpHost.McpHostService
    readonly sealer: Sealing.Sealer
    readonly held: HeldCalls.HeldCalls
  }
) =>
  Effect.gen(function* () {
    const params = message.params ?? {}
    const name = typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : ""
    const binding = {
      caller: yield* Principal.currentCaller(headers?.authorization),
      method: message.method,
      name,
      arguments: yield* Sealing.digest(JSON.stringify(params.arguments ?? {}))
    }
    let answers: Record<string, unknown> = {}
    let asked: Readonly<Record<string, string>> = {}
    let serverRound: Sealing.Payload["serverRound"]
    let held: Sealing.Payload["held"]
    if (params.requestState !== undefined) {
      const now = yield* Clock.currentTimeMillis
      const opened = yield* Effect.either(context.sealer.open(String(params.requestState), now))
      const payload = Either.getOrUndefined(opened)
      const refusal = Either.isLeft(opened)
        ? opened.left
        : payload !== undefined &&
            (payload.caller !== binding.caller ||
              payload.method !== binding.method ||
              payload.name !== binding.name ||
              payload.arguments !== binding.arguments)
          ? "not this request"
          : undefined
      if (refusal !== undefined || payload === undefined) {
        return failure(JsonRpc.ErrorCode.InvalidParams, `Invalid requestState (${refusal ?? "malformed"})`, {
          reason: "invalid_request_state"
        })
      }
      answers = { ...payload.answers }
      asked = payload.asked
      serverRound = payload.serverRound
      held = payload.held
    }
    const responses = McpSchema.isJsonObject(params.inputResponses) ? params.inputResponses : {}
    const tool = message.method === "tools/call" ? name : undefined
    if (held !== undefined) {
      const local = held.instance === context.held.instance ? yield* context.held.take(held.id) : Option.none()
      if (Option.isSome(local))
        return { relay: local.value.relay, continues: undefined, resumes: local.value } satisfies Relayed
      // Not held here: the request runs again from the start only when that is safe.
      if (!(yield* replayable(context.host, tool))) return notHeld(held, context.held.instance, tool)
    }
    // The retry's answers, under the keys the gateway gave their requests (others are ignored).
    for (const [shown, key] of Object.entries(asked))
      if (Object.hasOwn(responses, shown)) answers[key] = responses[shown]
    const relay = (answered: Record<string, unknown>, direct: Record<string, unknown>) =>
      InputRelay.make({
        host: context.host,
        sealer: context.sealer,
        binding,
        answers: answered,
        known: answers,
        direct
      })
    if (serverRound === undefined)
      return { relay: yield* relay(answers, responses), continues: undefined } satisfies Relayed
    // A 2026-07-28 server's round: the retry's answers to it (by its own keys) and its state go to
    // it; what it asks next is a new round, asked of the client.
    const inputResponses: Record<string, unknown> = {}
    for (const shown of Object.keys(asked))
      if (Object.hasOwn(responses, shown)) inputResponses[shown] = responses[shown]
    const continues: Catalog.Continued = {
      server: serverRound.server,
      answering: {
        inputResponses,
        ...(serverRound.requestState === undefined ? {} : { requestState: serverRound.requestState })
      }
    }
    // Should the server refuse its state (another instance's server sealed it, say), the request
    // runs again from the start, every question asked so far answered from what is known.
    const restart = Effect.map(relay(answers, responses), (fresh): Relayed => ({ relay: fresh, continues: undefined }))
    return { relay: yield* relay({}, {}), continues, restart } satisfies Relayed
  })

/**
 * A request's relay for this run; the server's round it continues, and how to run it afresh
 * instead; or the held call it continues.
 */
export interface Relayed {
  readonly relay: InputRelay.Relay | undefined
  readonly continues: Catalog.Continued | undefined
  readonly restart?: Effect.Effect<Relayed>
  readonly resumes?: HeldCalls.Run
}

/** Whether a request may be run again from the start: reads and prompts, and tools marked safe to run twice. */
const replayable = (host: McpHost.McpHostService, tool: string | undefined) =>
  Effect.gen(function* () {
    if (tool === undefined) return true
    const annotations = (yield* host.tools).find((entry) => entry.name === tool)?.tool.annotations
    return annotations?.readOnlyHint === true || annotations?.idempotentHint === true
  })

/** The error of a retry whose held call this instance does not have, and that may not run again. */
const notHeld = (held: NonNullable<Sealing.Payload["held"]>, instance: string, tool: string | undefined) =>
  failure(
    JsonRpc.ErrorCode.InternalError,
    held.instance === instance
      ? `The call of ${held.server} this round continues has ended (it expired, or another retry continued it), and ${tool} is not marked safe to repeat (readOnlyHint or idempotentHint): call it again`
      : `The call of ${held.server} this round continues is held by gateway instance ${held.instance}, and this is ${instance}: send the retry to ${held.instance} (keep a client's requests on one instance), or mark ${tool} safe to repeat`,
    { server: held.server, instance: held.instance, reason: "held_elsewhere" }
  )
