/**
 * What every step of the flow is given, built from the context: the `TokenStore` (else one in
 * memory), the `Authorizer` (else none), the requester with its limits, and a DPoP key made
 * when first needed.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { AuthorizationError } from "../AuthError.js"
import { Authorizer } from "../Authorizer.js"
import { makeDpopKey } from "../Crypto.js"
import type { OAuthOptions } from "../OAuthOptions.js"
import { makeMemory, TokenStore } from "../TokenStore.js"
import type { Limits, Requester } from "./oauthHttp.js"
import type { FlowContext } from "./state.js"

const DEFAULT_LIMITS = { maxBytes: 256 * 1024, timeout: Duration.seconds(15) }

/** The limits of every request of the flow, from the options. */
export const limitsOf = (options: Pick<OAuthOptions, "maxDocumentBytes" | "requestTimeout">): Limits => ({
  maxBytes: options.maxDocumentBytes ?? DEFAULT_LIMITS.maxBytes,
  timeout: options.requestTimeout === undefined ? DEFAULT_LIMITS.timeout : Duration.decode(options.requestTimeout)
})

/** The requester of the flow's HTTP requests for `server`. */
export const requesterOf = (
  server: string,
  client: HttpClient.HttpClient,
  options: Pick<OAuthOptions, "maxDocumentBytes" | "requestTimeout">
): Requester => ({ client, server, limits: limitsOf(options) })

/** The flow's context for the server at `serverUrl`, named `server`. */
export const make = (
  server: string,
  serverUrl: string,
  client: HttpClient.HttpClient,
  options: OAuthOptions
): Effect.Effect<FlowContext> =>
  Effect.gen(function* () {
    const store = yield* Effect.serviceOption(TokenStore).pipe(
      Effect.flatMap(Option.match({ onSome: Effect.succeed, onNone: () => makeMemory }))
    )
    return {
      server,
      serverUrl,
      options,
      store,
      authorizer: yield* Effect.serviceOption(Authorizer),
      requester: requesterOf(server, client, options),
      dpopKey: yield* Effect.cached(makeDpopKey),
      failed: (step, reason, extra = {}) => new AuthorizationError({ server, step, reason, ...extra })
    }
  })
