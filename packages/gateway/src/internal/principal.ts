/**
 * Who is calling: the principal an HTTP request was authenticated as (a bearer token, an API key,
 * an OAuth access token), or the anonymous caller of a gateway that asks for no credentials (stdio,
 * or HTTP on loopback without a token). The HTTP layer sets {@link CurrentPrincipal} around all the
 * work a request (or a 2025-11-25 session) does, so that what runs on its behalf (policy, rate
 * limits, the audit log, metrics, spans) reads it without it being threaded through every call.
 */
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import { digest } from "./sealing.js"

/** A caller the gateway has identified. */
export interface Principal {
  /** A stable id: the API key's name, the token's `sub`, `token` or `anonymous`. */
  readonly id: string
  /** How it was identified. */
  readonly kind: "anonymous" | "token" | "apiKey" | "oauth"
  /** The scopes its credentials grant (OAuth), if any. */
  readonly scopes: ReadonlyArray<string>
  /** The authorization server that issued its token (OAuth). */
  readonly issuer?: string
}

/** The caller of a gateway that asks for no credentials. */
export const anonymous: Principal = { id: "anonymous", kind: "anonymous", scopes: [] }

/** The caller that presented the gateway's one shared token (`EFFECT_MCP_GATEWAY_TOKEN`). */
export const sharedToken: Principal = { id: "token", kind: "token", scopes: [] }

/** The principal the current work is done for. */
export const CurrentPrincipal: FiberRef.FiberRef<Principal> = FiberRef.unsafeMake(anonymous)

/** Runs `effect` on behalf of `principal`. */
export const within =
  (principal: Principal) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.locally(effect, CurrentPrincipal, principal)

/**
 * What binds state to its principal (a session, a sealed `requestState`): its kind, issuer and id,
 * so an API key named like a token's subject is another principal.
 */
export const binding = (principal: Principal): string => `${principal.kind}:${principal.issuer ?? ""}:${principal.id}`

/**
 * The caller a sealed `requestState` is bound to: the current principal; for an anonymous caller
 * (a gateway that asks for no credentials), a digest of whatever credentials it presented.
 */
export const currentCaller = (authorization: string | undefined): Effect.Effect<string> =>
  Effect.flatMap(FiberRef.get(CurrentPrincipal), (principal) =>
    digest(principal.kind === "anonymous" ? (authorization ?? "") : binding(principal))
  )
