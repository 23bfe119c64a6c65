/**
 * OAuth for HTTP servers that ask for it, through the page: the authorization code flow's
 * interactive step (an `Authorizer`) shows the authorization address in the page, where the user
 * opens it; the authorization server sends the browser back to the page's own `/oauth/callback`,
 * whose parameters complete the flow that is waiting with the same `state` (unguessable and used
 * once, which is what lets that route do without the launch token: a redirect from another site
 * carries no SameSite=Strict cookie).
 */
import { AuthError, Authorizer } from "@effect-mcp/client"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Ref from "effect/Ref"
import type * as Api from "../Api.js"
import { randomId } from "./inputs.js"

/** The authorizations part. */
export interface Authorizations {
  /** The `Authorizer` every server's client is given. */
  readonly layer: Layer.Layer<Authorizer.Authorizer>
  readonly pending: Effect.Effect<ReadonlyArray<Api.AuthorizationRequest>>
  /** Completes the authorization waiting for this redirect; `false` when none is. */
  readonly callback: (parameters: URLSearchParams) => Effect.Effect<boolean>
}

interface Waiting {
  readonly request: Api.AuthorizationRequest
  readonly state: string | undefined
  readonly answer: Deferred.Deferred<URLSearchParams>
}

/** Starts the authorizations part; the authorization server sends the browser back to `redirectUri`. */
export const make = (events: PubSub.PubSub<Api.Event>, redirectUri: string): Effect.Effect<Authorizations> =>
  Effect.gen(function* () {
    const waiting = yield* Ref.make<ReadonlyMap<string, Waiting>>(new Map())
    const remove = (id: string) =>
      Ref.update(waiting, (map) => {
        const next = new Map(map)
        next.delete(id)
        return next
      }).pipe(Effect.zipRight(PubSub.publish(events, { _tag: "AuthorizationSettled", id })))

    const complete = (server: string) => (url: string) =>
      Effect.gen(function* () {
        const address = URL.canParse(url) ? new URL(url) : undefined
        if (address === undefined || (address.protocol !== "https:" && address.protocol !== "http:"))
          return yield* new AuthError.AuthorizationError({
            server,
            step: "authorization",
            reason: "the authorization address is not an http(s) URL"
          })
        const request: Api.AuthorizationRequest = { id: randomId(), server, url: address.href }
        const answer = yield* Deferred.make<URLSearchParams>()
        const state = address.searchParams.get("state") ?? undefined
        yield* Ref.update(waiting, (map) => new Map(map).set(request.id, { request, state, answer }))
        yield* PubSub.publish(events, { _tag: "Authorization", request })
        return yield* Deferred.await(answer).pipe(Effect.ensuring(remove(request.id)))
      })

    return {
      layer: Layer.succeed(
        Authorizer.Authorizer,
        Authorizer.Authorizer.of({ begin: (server) => Effect.succeed({ redirectUri, complete: complete(server) }) })
      ),
      pending: Effect.map(Ref.get(waiting), (map) => [...map.values()].map((entry) => entry.request)),
      callback: (parameters) =>
        Effect.flatMap(Ref.get(waiting), (map) => {
          const state = parameters.get("state")
          const entry = [...map.values()].find((one) => state !== null && one.state === state)
          return entry === undefined ? Effect.succeed(false) : Deferred.succeed(entry.answer, parameters)
        })
    }
  })
