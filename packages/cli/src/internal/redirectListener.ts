/**
 * The loopback listener behind `Authorization.listenForRedirect`: a platform `HttpServer` on a
 * free port of 127.0.0.1. A module of its own, imported when an authorization asks the user:
 * the HTTP server (with its WebSocket and multipart support) is loaded only then.
 */
import { createServer } from "node:http"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { AuthError } from "@effect-mcp/client"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

const PAGE = `<!doctype html><meta charset="utf-8"><title>effect-mcp</title><p>Authorization received. You can close this window and return to the terminal.</p>`

/**
 * Listens for the redirect back to `/callback` (the page, its parameters kept; anything else a
 * 404; every answer closes its connection) until the scope closes: the redirect URI and the
 * parameters of the first redirect.
 */
export const listen = (
  server: string
): Effect.Effect<
  { readonly redirectUri: string; readonly received: Effect.Effect<URLSearchParams> },
  AuthError.AuthorizationError,
  Scope.Scope
> =>
  Effect.gen(function* () {
    const arrived = yield* Deferred.make<URLSearchParams>()
    const listener = yield* NodeHttpServer.make(() => createServer(), { port: 0, host: "127.0.0.1" }).pipe(
      Effect.mapError(
        (error) =>
          new AuthError.AuthorizationError({
            server,
            step: "authorization",
            reason: "could not listen for the redirect",
            cause: error.cause
          })
      )
    )
    const close = { headers: { connection: "close" } }
    yield* listener.serve(
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const url = new URL(request.url, "http://127.0.0.1")
        if (url.pathname !== "/callback") return HttpServerResponse.empty({ status: 404, ...close })
        yield* Deferred.succeed(arrived, url.searchParams)
        return HttpServerResponse.text(PAGE, { contentType: "text/html; charset=utf-8", ...close })
      })
    )
    const address = listener.address
    if (address._tag !== "TcpAddress") return yield* Effect.dieMessage("a TCP listener without a TCP address")
    return { redirectUri: `http://127.0.0.1:${address.port}/callback`, received: Deferred.await(arrived) }
  })
