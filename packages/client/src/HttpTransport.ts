/**
 * HTTP transports by URL: Streamable HTTP, legacy HTTP+SSE, or `auto`, which tries Streamable
 * HTTP and falls back to HTTP+SSE when the server answers the initialize POST with 400, 404
 * or 405, as the specification's backwards-compatibility section says.
 *
 * `make` and `layer` send every request through the context's `HttpClient`, whatever else the
 * context holds. A platform package passes its faster route explicitly (`makeWithRoute`, as
 * `@effect-mcp/node`'s `NodeHttpTransport` does).
 *
 * `auto` remembers the requests it sent until the first answer; a `LegacyServer` item for one of
 * them opens the legacy transport at the same URL and sends them again there, and the inbound
 * items come from whichever transport is active. Unless `auth: false`, the context's client is
 * wrapped by OAuth's authorizing client, so every request (POSTs, the GET listener, resumption,
 * `DELETE`) is authorized the same way and the transports know nothing of OAuth; a route is used
 * only while that client would send a request as it is (no credentials, no refusal seen).
 *
 * @since 0.1.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import { type Incoming, makeInbound, Transport, type TransportService } from "@effect-mcp/jsonrpc/Transport"
import type { JsonRpc } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope_ from "effect/Scope"
import * as AuthorizedClient from "./auth/AuthorizedClient.js"
import * as OAuth from "./auth/OAuth.js"
import type { OAuthSession } from "./auth/OAuthSession.js"
import { TokenStore } from "./auth/TokenStore.js"
import { parseEndpoint } from "./internal/transport/httpBody.js"
import { gated } from "./internal/transport/route.js"
import * as SseTransport from "./internal/transport/sseTransport.js"
import * as StreamableHttpTransport from "./internal/transport/streamableHttpTransport.js"
import { resendUnanswered } from "./internal/transport/unanswered.js"
import { TransportError } from "./McpError.js"
import type { HttpRoute } from "./Platform.js"

/**
 * Options for any HTTP transport.
 *
 * @since 0.1.0
 * @category options
 */
export interface HttpOptions extends StreamableHttpTransport.StreamableHttpOptions {
  /** `auto` (default): Streamable HTTP with fallback to legacy SSE; `http`; `sse`. */
  readonly transport?: "auto" | "http" | "sse"
  /**
   * OAuth authorization when the server asks for it (a 401): the defaults make a public client
   * that registers itself; tokens go to the `TokenStore` and the user to the `Authorizer`
   * found in the context. `false`: a 401 is an error. Default: `{}`.
   */
  readonly auth?: OAuth.OAuthOptions | false
}

/**
 * Streamable HTTP first; legacy HTTP+SSE at the same URL when Streamable HTTP says the server
 * is a legacy one (a `LegacyServer` item: a request before any session refused with 400, 404
 * or 405). The refused requests are sent again over HTTP+SSE. Fails with a `TransportError`
 * when the URL is invalid.
 */
const auto = (
  options: HttpOptions,
  route: HttpRoute | undefined
): Effect.Effect<TransportService, TransportError, HttpClient.HttpClient | Scope_.Scope> =>
  Effect.gen(function* () {
    const inbound = makeInbound()
    const fibers = yield* FiberSet.make()
    const runFork = yield* FiberSet.runtime(fibers)<never>()
    const scope = yield* Effect.scope
    const httpClient = yield* HttpClient.HttpClient
    const streamable = yield* streamableOver(options, route)
    let current: TransportService = streamable
    // Requests sent over Streamable HTTP until its first answer: the ones to send again on a fallback.
    let unsettled: Map<JsonRpc.RequestId, JsonRpc.JSONRPCMessage> | undefined = new Map()
    const legacy = Effect.cached(
      Effect.gen(function* () {
        const sse = yield* SseTransport.make({
          url: options.url,
          ...(options.name === undefined ? {} : { name: options.name }),
          ...(options.headers === undefined ? {} : { headers: options.headers }),
          ...(options.maxMessageBytes === undefined ? {} : { maxMessageBytes: options.maxMessageBytes })
        }).pipe(Scope_.extend(scope), Effect.provideService(HttpClient.HttpClient, httpClient))
        current = sse
        yield* forward(sse)
        return sse
      })
    )
    const fallBack = yield* legacy
    /** An item from Streamable HTTP: a legacy server's refusal sends the request again over HTTP+SSE. */
    const fromStreamable = (item: Incoming): void => {
      if (item._tag === "Failed" && item.error._tag === "LegacyServer") {
        const refused = unsettled?.get(item.id)
        if (refused !== undefined) {
          const id = item.id
          const status = item.error.status
          runFork(
            Effect.logInfo(
              `${item.error.server}: HTTP ${item.error.status}; trying the legacy HTTP+SSE transport`
            ).pipe(
              Effect.zipRight(fallBack),
              Effect.flatMap((sse) => sse.send(refused)),
              // Say what made the client try the legacy transport, not only how that failed too.
              Effect.catchAll((error) =>
                inbound.offer({
                  _tag: "Failed",
                  id,
                  error:
                    error._tag === "TransportError"
                      ? new TransportError({
                          server: error.server,
                          reason: `the POST answered HTTP ${status}, so the legacy HTTP+SSE transport was tried, and failed too: ${error.reason}`,
                          ...(error.status === undefined ? {} : { status: error.status }),
                          ...(error.cause === undefined ? {} : { cause: error.cause })
                        })
                      : error
                })
              )
            )
          )
          return
        }
      }
      if (item._tag === "Message") unsettled = undefined
      inbound.unsafeOffer(item)
    }
    const toInbound = (item: Incoming): void => {
      inbound.unsafeOffer(item)
    }
    const forward = (transport: TransportService): Effect.Effect<void> =>
      Effect.asVoid(
        FiberSet.run(
          fibers,
          Effect.interruptible(
            transport.run(transport === streamable ? fromStreamable : toInbound).pipe(
              Effect.matchEffect({
                onFailure: (error) => (current === transport ? inbound.fail(error) : Effect.void),
                onSuccess: () => (current === transport ? inbound.end : Effect.void)
              })
            )
          )
        )
      )
    yield* forward(streamable)
    return {
      run: inbound.run,
      send: (message, headers) =>
        Effect.suspend(() => {
          if (current === streamable && unsettled !== undefined && "id" in message && "method" in message) {
            unsettled.set(message.id, message)
          }
          return current.send(message, headers)
        }),
      setProtocolVersion: (version) => Effect.suspend(() => current.setProtocolVersion(version)),
      // Streamable HTTP sessions expire; after a fallback to HTTP+SSE, nothing says so.
      expiresSessions: true,
      sessionId: () => current.sessionId?.(),
      // A reattached session is Streamable HTTP's: its requests carry the id, so no fallback follows.
      reattach: (sessionId) => Effect.suspend(() => current.reattach?.(sessionId) ?? Effect.void)
    } satisfies TransportService
  })

/** A session that is made (in the current context) on first use; `maxAttempts` as `OAuth.make` says. */
const lazily = (make: Effect.Effect<OAuthSession>, options: OAuth.OAuthOptions): Effect.Effect<OAuthSession> =>
  Effect.map(
    Effect.flatMap(Effect.context<never>(), (context) => Effect.cached(Effect.provide(make, context))),
    (made) => ({
      credentials: (method, url) => Effect.flatMap(made, (session) => session.credentials(method, url)),
      challenged: (refusal, sent) => Effect.flatMap(made, (session) => session.challenged(refusal, sent)),
      maxAttempts: options.maxAttempts ?? 3
    })
  )

/** The Streamable HTTP transport, over `route` when there is one. */
const streamableOver = (options: StreamableHttpTransport.StreamableHttpOptions, route: HttpRoute | undefined) =>
  route === undefined ? StreamableHttpTransport.make(options) : StreamableHttpTransport.makeWithRoute(options, route)

/**
 * An HTTP transport for a URL, by the chosen (or detected) transport, every request through the
 * context's `HttpClient`, authorizing unless `auth` is `false` (with the context's optional
 * `TokenStore` and `Authorizer`). Fails with a `TransportError` when the URL is invalid or the
 * connection cannot be made (legacy SSE).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: HttpOptions
): Effect.Effect<TransportService, TransportError, HttpClient.HttpClient | Scope_.Scope> => build(options, undefined)

/**
 * As {@link make}, with the Streamable HTTP transport's POSTs and event streams over `route` (a
 * platform's own HTTP client, `Platform.HttpRoute`) while authorization has nothing to add: the
 * route declines a request to a URL it holds credentials for, and a refusal (401, or 403 for
 * more scope) met on the route hands that request and the ones after it to the authorizing
 * `HttpClient`. `DELETE` and the legacy HTTP+SSE transport always use the `HttpClient`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeWithRoute = (
  options: HttpOptions,
  route: HttpRoute
): Effect.Effect<TransportService, TransportError, HttpClient.HttpClient | Scope_.Scope> => build(options, route)

const build = (
  options: HttpOptions,
  route: HttpRoute | undefined
): Effect.Effect<TransportService, TransportError, HttpClient.HttpClient | Scope_.Scope> =>
  Effect.gen(function* () {
    const url = yield* parseEndpoint(options.url, options.name)
    // Every request, OAuth's included: one that met a kept-alive connection the server had closed
    // is sent again once (unanswered.ts says when, and why only then).
    const raw = resendUnanswered(yield* HttpClient.HttpClient)
    const transport = options.transport ?? "auto"
    /** The transport, its Streamable HTTP requests over `over` when there is a route. */
    const made = (over: HttpRoute | undefined) =>
      transport === "http"
        ? streamableOver(options, over)
        : transport === "sse"
          ? SseTransport.make(options)
          : auto(options, over)
    if (options.auth === false) return yield* Effect.provideService(made(route), HttpClient.HttpClient, raw)
    const auth = options.auth ?? {}
    const makeSession = OAuth.make(options.name ?? url.host, options.url, raw, auth)
    // Without a `TokenStore` no token of an earlier run can be sent: nothing is added to a request
    // before a refusal, and the flow's state is made only then (in this context).
    const stored = Option.isSome(yield* Effect.serviceOption(TokenStore))
    const authorizing = stored
      ? AuthorizedClient.make(raw, yield* makeSession)
      : AuthorizedClient.make(raw, yield* lazily(makeSession, auth), { bare: true })
    // A route for the requests goes around the authorizing client only while it has nothing to add.
    return yield* made(route === undefined ? undefined : gated(route, authorizing)).pipe(
      Effect.provideService(HttpClient.HttpClient, authorizing.client)
    )
  })

/**
 * An HTTP `Transport` layer for a URL, by the chosen (or detected) transport, every request
 * through the context's `HttpClient` (the layer of {@link make}). The optional
 * `TokenStore` and `Authorizer` services of the context serve its authorization. Fails with a
 * `TransportError` when the URL is invalid or the connection cannot be made (legacy SSE).
 *
 * *When to use*: a server reached by URL, through any platform's `HttpClient`. On Node,
 * `NodeHttpTransport.layer` takes the same options and posts on `node:http` keep-alive agents.
 *
 * *Gotchas*: `transport: "auto"` (the default) tries Streamable HTTP and falls back to legacy
 * HTTP+SSE. A 401 starts OAuth unless `auth: false`: the user's step goes to the `Authorizer` in
 * context (without one, a flow that needs the user fails with an `AuthorizationError`) and tokens
 * to the `TokenStore` (without one, nothing is kept between runs). A server that forgets its
 * session is initialized again, as often as the client's `sessionRetries` allow.
 *
 * @example
 * ```ts
 * import { HttpTransport, McpClient } from "@effect-mcp/client"
 * import { FetchHttpClient } from "@effect/platform"
 * import { Layer } from "effect"
 *
 * // Streamable HTTP, falling back to legacy HTTP+SSE (`transport: "auto"`, the default);
 * // a 401 starts OAuth unless `auth: false`
 * const TransportLive = HttpTransport.layer({
 *   url: "https://example.com/mcp",
 *   transport: "auto",
 *   headers: { "x-api-key": "…" }
 * }).pipe(Layer.provide(FetchHttpClient.layer))
 *
 * const ClientLive = McpClient.layer({ name: "example" }).pipe(Layer.provide(TransportLive))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: HttpOptions): Layer.Layer<Transport, TransportError, HttpClient.HttpClient> =>
  Layer.scoped(Transport, make(options))
