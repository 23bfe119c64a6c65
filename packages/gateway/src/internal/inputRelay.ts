/**
 * A server's input requests relayed to a 2026-07-28 client, which can only be asked by answering
 * its request with `input_required` and reading the answers in its retry (a new request, maybe on
 * another instance). The requests that have no answer yet are collected, and they go to the
 * client, with a sealed `requestState` for the retry.
 *
 * A 2026-07-28 server asks the same way: its round is passed on (the run is stopped), and the retry
 * continues it (its answers and its own `requestState`, carried untouched in the sealed one, go to
 * that server). A stateful server's request waits for its answer in the call, which the gateway
 * holds across the round (`heldCalls.ts`): the retry answers it and the call goes on. A call that
 * cannot be continued runs again from the start, every input request answered from the answers
 * collected so far (the sealed ones and the retry's).
 *
 * Keys name a request by its method, a digest of its params and its rank among equal ones, so that
 * the same question asked again in a later run finds its answer.
 */
import type { McpHost } from "@effect-mcp/host"
import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import type { JsonRpcFailure } from "@effect-mcp/jsonrpc/PeerError"
import { McpSchema } from "@effect-mcp/protocol"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type { Payload, Sealer } from "./sealing.js"
import type { Asker } from "./serverRequests.js"

/** The methods whose requests may be answered with `input_required`. */
export const RELAYED = new Set(["tools/call", "prompts/get", "resources/read"])

/** How long a round's `requestState` (and the call it holds) stays good. */
export const LIFETIME_MS = 10 * 60 * 1000

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

/** The held call a round's retry continues: the instance that holds it, its id there, and its server. */
export interface HeldAt {
  readonly instance: string
  readonly id: string
  readonly server: string
}

/** One request's relay across its rounds. */
export interface Relay {
  /**
   * Answers a server's input request from what is known, or collects it for the round: a stateful
   * server's then waits for its answer (`resume`), any other's never returns (its run is stopped).
   */
  readonly request: (
    method: string,
    params: Peer.WireObject | undefined,
    from: Asker | undefined
  ) => Effect.Effect<Peer.WireObject, JsonRpcFailure>
  /** Completes once the current round has collected a request without an answer. */
  readonly needed: Effect.Effect<void>
  /** The stateful server whose requests, all waiting in its call, make the current round (none: the run must stop). */
  readonly holding: () => string | undefined
  /** The `input_required` result for the current round (`held`: the call its retry continues); a new round begins. */
  readonly inputRequired: (now: number, held?: HeldAt) => Effect.Effect<Peer.WireObject>
  /** A retry's answers (by the keys the client saw) to the waiting requests; those it does not answer are asked again. */
  readonly resume: (responses: Readonly<Record<string, unknown>>) => Effect.Effect<void>
}

/** What a round starts from. */
export interface RoundContext {
  readonly sealer: Sealer
  readonly host: McpHost.McpHostService
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
}

/** The era the gateway speaks with `server` (a request with no server named is treated as stateless). */
const eraOf = (context: RoundContext, server: string | undefined) =>
  server === undefined
    ? Effect.succeed("stateless" as const)
    : Effect.map(Effect.option(context.host.client(server)), (client) =>
        client._tag === "Some" ? client.value.era : ("stateless" as const)
      )

/** A request collected for a round: its gateway key, what it asks, and (a stateful server's) its waiting answer. */
interface Asked {
  readonly key: string
  readonly method: string
  readonly params: Peer.WireObject | undefined
  readonly server: string | undefined
  readonly waiting: Deferred.Deferred<Peer.WireObject> | undefined
}

/** A round: its requests by the key the client sees, and the signal that it has one. */
interface Round {
  readonly asked: Map<string, Asked>
  readonly signal: Deferred.Deferred<void>
}

/** A relay for one run of a request. */
export const make = (context: RoundContext): Effect.Effect<Relay> =>
  Effect.gen(function* () {
    const newRound = Effect.map(Deferred.make<void>(), (signal): Round => ({ asked: new Map(), signal }))
    let round = yield* newRound
    let sealed: Round | undefined
    const ranks = new Map<string, number>()
    const known: Record<string, unknown> = { ...(context.known ?? context.answers) }
    let serverRound: Payload["serverRound"]
    const collect = (shown: string, asked: Asked) =>
      Effect.suspend(() => {
        round.asked.set(shown, asked)
        return Deferred.succeed(round.signal, undefined)
      })
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
          if (era === "stateful") {
            // The server waits in its call, which is held until the retry answers.
            const waiting = yield* Deferred.make<Peer.WireObject>()
            yield* collect(key, { key, method, params, server, waiting })
            return yield* Deferred.await(waiting)
          }
          // A 2026-07-28 server's own key goes to the client (it may mean something to it), and
          // its round is what the retry continues.
          const shown = own ?? key
          // Only a round with the server's own state (a task's input request has none: its round
          // cannot be continued by a new call, and the call runs again with the answers instead).
          if (server !== undefined && from?.requestState !== undefined) {
            serverRound = { server, requestState: from.requestState }
          }
          yield* collect(shown, { key, method, params, server, waiting: undefined })
          return yield* Effect.never
        }),
      needed: Effect.suspend(() => Deferred.await(round.signal)),
      holding: () => {
        let server: string | undefined
        for (const asked of round.asked.values()) {
          if (asked.waiting === undefined || asked.server === undefined) return undefined
          if (server !== undefined && asked.server !== server) return undefined
          server = asked.server
        }
        return server
      },
      inputRequired: (now, held) =>
        Effect.gen(function* () {
          const current = round
          sealed = current
          round = yield* newRound
          const requestState = yield* context.sealer.seal({
            ...context.binding,
            expires: now + LIFETIME_MS,
            answers: known,
            asked: Object.fromEntries([...current.asked].map(([shown, asked]) => [shown, asked.key])),
            ...(serverRound === undefined ? {} : { serverRound }),
            ...(held === undefined ? {} : { held })
          })
          return {
            resultType: "input_required",
            inputRequests: Object.fromEntries(
              [...current.asked].map(([shown, asked]) => [
                shown,
                { method: asked.method, ...(asked.params === undefined ? {} : { params: asked.params }) }
              ])
            ),
            requestState
          }
        }),
      resume: (responses) =>
        Effect.forEach(
          sealed?.asked ?? [],
          ([shown, asked]) => {
            const answer = responses[shown]
            if (asked.waiting === undefined) return Effect.void
            if (!McpSchema.isJsonObject(answer)) return collect(shown, asked)
            known[asked.key] = answer
            return Deferred.succeed(asked.waiting, answer)
          },
          { discard: true }
        )
    }
  })
