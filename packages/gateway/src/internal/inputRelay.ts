/**
 * A server's input requests relayed to a 2026-07-28 client, which can only be asked by answering
 * its request with `input_required` and reading the answers in its retry (a new request, maybe on
 * another instance). The requests that have no answer yet are collected, the run is stopped, and
 * they go to the client, with a sealed `requestState` for the retry.
 *
 * A 2026-07-28 server asks the same way: its round is passed on, and the retry continues it (its
 * answers and its own `requestState`, carried untouched in the sealed one, go to that server).
 * A stateful server cannot be continued: its request is run again from the start, every input
 * request answered from the answers collected so far (the sealed ones and the retry's), and only
 * for a tool marked safe to run twice (`readOnlyHint` or `idempotentHint`); else the call fails
 * naming the server.
 *
 * Keys name a request by its method, a digest of its params and its rank among equal ones, so that
 * the same question asked again in a later run finds its answer.
 */
import type { McpHost } from "@effect-mcp/host"
import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import type { JsonRpcFailure } from "@effect-mcp/jsonrpc/PeerError"
import { JsonRpc, McpSchema } from "@effect-mcp/protocol"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type { Payload, Sealer } from "./sealing.js"
import type { Asker } from "./serverRequests.js"
import { failure } from "./wire.js"

/** The methods whose requests may be answered with `input_required`. */
export const RELAYED = new Set(["tools/call", "prompts/get", "resources/read"])

/** How long a round's `requestState` stays good. */
const LIFETIME_MS = 10 * 60 * 1000

/** FNV-1a of a text, hex: a short stable digest for keys. */
const fnv = (text: string): string => {
  let hash = 0x811c9dc5
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index)
    hash = Math.imul(hash, 0x01000193)
  }
  return (hash >>> 0).toString(16)
}

/** The params that identify a question (not its `_meta`, nor a URL elicitation's fresh id). */
const identity = (params: Peer.WireObject | undefined): string => {
  if (params === undefined) return ""
  const { _meta: _, elicitationId: __, ...rest } = params
  return JSON.stringify(rest)
}

/** One request's relay across its rounds. */
export interface Relay {
  /** Answers a server's input request from what is known, or collects it and never returns. */
  readonly request: (
    method: string,
    params: Peer.WireObject | undefined,
    from: Asker | undefined
  ) => Effect.Effect<Peer.WireObject, JsonRpcFailure>
  /** Completes once a request without an answer has been collected. */
  readonly needed: Effect.Effect<void>
  /** A server that cannot run again asked: the error the call ends with. */
  readonly refused: () => JsonRpcFailure | undefined
  /** The `input_required` result for what was collected. */
  readonly inputRequired: (now: number) => Effect.Effect<Peer.WireObject>
}

/** What a round starts from. */
export interface RoundContext {
  readonly host: McpHost.McpHostService
  readonly sealer: Sealer
  /** The bound the next token carries (caller, method, name, arguments). */
  readonly binding: Omit<Payload, "answers" | "expires" | "asked">
  /** The answers this run gives the servers' questions, by the gateway's keys. */
  readonly answers: Readonly<Record<string, unknown>>
  /**
   * Every answer known so far (the token's and the retry's), sealed into the next token with those
   * this run gives: a later run that starts again answers them all (default: `answers`).
   */
  readonly known?: Readonly<Record<string, unknown>>
  /** The retry's `inputResponses` as sent (by the keys the client saw). */
  readonly direct: Readonly<Record<string, unknown>>
  /** The tool, when the request is a call (its annotations say whether a stateful server may run it again). */
  readonly tool: string | undefined
}

/** The era the gateway speaks with `server` (a request with no server named is treated as stateless). */
const eraOf = (context: RoundContext, server: string | undefined) =>
  server === undefined
    ? Effect.succeed("stateless" as const)
    : Effect.map(Effect.option(context.host.client(server)), (client) =>
        client._tag === "Some" ? client.value.era : ("stateless" as const)
      )

/** Whether a stateful server may be asked to run this request again: reads, and tools marked safe. */
const replayable = (context: RoundContext) =>
  Effect.gen(function* () {
    if (context.tool === undefined) return true
    const tools = yield* context.host.tools
    const annotations = tools.find((entry) => entry.name === context.tool)?.tool.annotations
    return annotations?.readOnlyHint === true || annotations?.idempotentHint === true
  })

/** A relay for one run of a request. */
export const make = (context: RoundContext): Effect.Effect<Relay> =>
  Effect.gen(function* () {
    const signal = yield* Deferred.make<void>()
    const asked = new Map<
      string,
      { readonly key: string; readonly method: string; readonly params: Peer.WireObject | undefined }
    >()
    const ranks = new Map<string, number>()
    const known: Record<string, unknown> = { ...(context.known ?? context.answers) }
    let refusal: JsonRpcFailure | undefined
    let serverRound: Payload["serverRound"]
    return {
      request: (method, params, from) =>
        Effect.gen(function* () {
          const server = from?.server
          const question = `${method}:${fnv(identity(params))}`
          const rank = ranks.get(question) ?? 0
          ranks.set(question, rank + 1)
          const key = `${question}:${rank}`
          const era = yield* eraOf(context, server)
          // The gateway's key; or a 2026-07-28 server's own, which a client may answer by directly.
          const own = era === "stateless" && typeof from?.requestId === "string" ? from.requestId : undefined
          const answer = context.answers[key] ?? (own === undefined ? undefined : context.direct[own])
          if (McpSchema.isJsonObject(answer)) {
            known[key] = answer
            return answer
          }
          if (era === "stateful" && !(yield* replayable(context))) {
            refusal = failure(
              JsonRpc.ErrorCode.InternalError,
              `${server} asked for ${method} mid-call: a 2026-07-28 client answers in a new request, which would run ${context.tool} again, and it is not marked safe to repeat (readOnlyHint or idempotentHint)`,
              { server }
            )
            return yield* refusal
          }
          // A 2026-07-28 server's own key goes to the client (it may mean something to it), and
          // its round is what the retry continues.
          const shown = own ?? key
          // Only a round with the server's own state (a task's input request has none: its round
          // cannot be continued by a new call, and the call runs again with the answers instead).
          if (era === "stateless" && server !== undefined && from?.requestState !== undefined) {
            serverRound = { server, requestState: from.requestState }
          }
          asked.set(shown, { key, method, params })
          yield* Deferred.succeed(signal, undefined)
          return yield* Effect.never
        }),
      needed: Deferred.await(signal),
      refused: () => refusal,
      inputRequired: (now) =>
        Effect.map(
          context.sealer.seal({
            ...context.binding,
            expires: now + LIFETIME_MS,
            answers: known,
            asked: Object.fromEntries([...asked].map(([shown, request]) => [shown, request.key])),
            ...(serverRound === undefined ? {} : { serverRound })
          }),
          (requestState) => ({
            resultType: "input_required",
            inputRequests: Object.fromEntries(
              [...asked].map(([key, request]) => [
                key,
                { method: request.method, ...(request.params === undefined ? {} : { params: request.params }) }
              ])
            ),
            requestState
          })
        )
    }
  })
