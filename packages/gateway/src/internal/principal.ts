/**
 * Who is calling: the principal an HTTP request was authenticated as (a bearer token, an API key,
 * an OAuth access token), or the anonymous caller of a gateway that asks for no credentials (stdio,
 * or HTTP on loopback without a token). The HTTP layer sets {@link CurrentPrincipal} around all the
 * work a request (or a 2025-11-25 session) does, so that what runs on its behalf (policy, rate
 * limits, the audit log, metrics, spans) reads it without it being threaded through every call.
 */
import * as FiberRef from "effect/FiberRef"

/** A caller the gateway has identified. */
export interface Principal {
  /** A stable id: the API key's name, the token's `sub` (with its issuer), `token` or `anonymous`. */
  readonly id: string
  /** How it was identified. */
  readonly kind: "anonymous" | "token" | "apiKey" | "oauth"
  /** The scopes its credentials grant (OAuth), if any. */
  readonly scopes: ReadonlyArray<string>
}

/** The caller of a gateway that asks for no credentials. */
export const anonymous: Principal = { id: "anonymous", kind: "anonymous", scopes: [] }

/** The principal the current work is done for. */
export const CurrentPrincipal: FiberRef.FiberRef<Principal> = FiberRef.unsafeMake(anonymous)
