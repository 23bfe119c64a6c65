/**
 * Calls a stateful (2025-era) server is still in, held across a 2026-07-28 client's input rounds.
 * The server asked mid-call (sampling, elicitation, roots); the client can only be asked by
 * answering its request with `input_required`, and its retry (a new request) answers the server's
 * request that is still waiting, so the server's tool runs once. A held call lives on the instance
 * that made it, for at most a round's lifetime, after which it is stopped (its call cancelled);
 * the round's sealed `requestState` names the instance and the call (`sealing.ts`).
 */
import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import type { JsonRpcFailure } from "@effect-mcp/jsonrpc/PeerError"
import type { JsonRpc } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as FiberMap from "effect/FiberMap"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import type { Relay } from "./inputRelay.js"

/** Where what relates to a request goes (its stream): the retry's, once a held call is continued. */
export type Notify = (notification: JsonRpc.JSONRPCNotification) => Effect.Effect<void>

/** A request's run through the catalog, in a fiber of its own so that it can be held between rounds. */
export interface Run {
  readonly fiber: Fiber.RuntimeFiber<Peer.WireObject, JsonRpcFailure>
  readonly relay: Relay | undefined
  /** The capabilities a server asked for that the client did not declare, as -32021 names them. */
  readonly required: Record<string, object>
  readonly sink: Ref.Ref<Notify>
  /** Stops the run (a server's request in it is cancelled). */
  readonly stop: Effect.Effect<void>
}

/** The held calls of one gateway instance. */
export interface HeldCalls {
  /** This instance's name in the `requestState` of the rounds whose calls it holds. */
  readonly instance: string
  /** Runs `effect` in a fiber that may outlive the request (it lives with the instance), interruptible whatever forks it. */
  readonly fork: <B, E>(effect: Effect.Effect<B, E>) => Effect.Effect<Fiber.RuntimeFiber<B, E>>
  /** Holds `call` under `id` until it is taken or `lifetime` has passed (then it is stopped). */
  readonly hold: (id: string, call: Run, lifetime: number) => Effect.Effect<void>
  /** The call held under `id`, no longer held (none: it ended, expired, or another retry took it). */
  readonly take: (id: string) => Effect.Effect<Option.Option<Run>>
}

/** An instance's held calls (named `instance`, default a random name); those still held when the scope closes are stopped. */
export const make = (instance?: string): Effect.Effect<HeldCalls, never, Scope.Scope> =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const held = yield* Ref.make<ReadonlyMap<string, Run>>(new Map())
    const expiries = yield* FiberMap.make<string>()
    const remove = (id: string) =>
      Ref.modify(held, (calls): [Option.Option<Run>, ReadonlyMap<string, Run>] => {
        const call = calls.get(id)
        if (call === undefined) return [Option.none(), calls]
        const rest = new Map(calls)
        rest.delete(id)
        return [Option.some(call), rest]
      })
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(Ref.getAndSet(held, new Map()), (calls) =>
        Effect.forEach(calls.values(), (call) => call.stop, { discard: true })
      )
    )
    return {
      instance: instance ?? crypto.randomUUID().slice(0, 8),
      fork: (effect) => Effect.forkIn(Effect.interruptible(effect), scope),
      hold: (id, call, lifetime) =>
        Effect.zipRight(
          Ref.update(held, (calls) => new Map(calls).set(id, call)),
          FiberMap.run(
            expiries,
            id,
            Effect.sleep(lifetime).pipe(
              Effect.zipRight(remove(id)),
              Effect.flatMap(Option.match({ onNone: () => Effect.void, onSome: (expired) => expired.stop }))
            )
          )
        ).pipe(Effect.asVoid),
      take: (id) => Effect.tap(remove(id), () => FiberMap.remove(expiries, id))
    }
  })
