/**
 * HTTP transports by URL: Streamable HTTP, legacy HTTP+SSE, or `auto`, which tries Streamable
 * HTTP and falls back to HTTP+SSE when the server answers the initialize POST with 400, 404
 * or 405, as the specification's backwards-compatibility section says.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Mailbox from "effect/Mailbox"
import * as Scope_ from "effect/Scope"
import * as AuthorizedClient from "./auth/AuthorizedClient.js"
import * as OAuth from "./auth/OAuth.js"
import { parseEndpoint } from "./internal/httpBody.js"
import type { TransportError } from "./McpError.js"
import * as SseTransport from "./SseTransport.js"
import * as StreamableHttpTransport from "./StreamableHttpTransport.js"
import { forEachIncoming, fromMailbox, type Incoming, Transport, type TransportService } from "./Transport.js"

/** Options for any HTTP transport. */
export interface HttpOptions extends Omit<StreamableHttpTransport.StreamableHttpOptions, "onLegacyServer"> {
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
 * Streamable HTTP first; legacy HTTP+SSE at the same URL if the server refuses the initialize
 * POST. Fails with a `TransportError` when the URL is invalid.
 */
export const makeAuto = (
  options: HttpOptions
): Effect.Effect<TransportService, TransportError, HttpClient.HttpClient | Scope_.Scope> =>
  Effect.gen(function* () {
    const inbound = yield* Mailbox.make<Incoming, TransportError>()
    const fibers = yield* FiberSet.make()
    const scope = yield* Effect.scope
    const httpClient = yield* HttpClient.HttpClient
    let current: TransportService | undefined
    const forward = (transport: TransportService) =>
      FiberSet.run(
        fibers,
        Effect.interruptible(
          forEachIncoming(transport, (item) => Effect.asVoid(inbound.offer(item))).pipe(
            Effect.matchEffect({
              onFailure: (error) => (current === transport ? inbound.fail(error) : Effect.void),
              onSuccess: () => (current === transport ? inbound.end : Effect.void)
            })
          )
        )
      )
    const streamable = yield* StreamableHttpTransport.make({
      ...options,
      onLegacyServer: (initialize) =>
        Effect.gen(function* () {
          const legacy = yield* SseTransport.make({
            url: options.url,
            ...(options.name === undefined ? {} : { name: options.name }),
            ...(options.headers === undefined ? {} : { headers: options.headers }),
            ...(options.maxMessageBytes === undefined ? {} : { maxMessageBytes: options.maxMessageBytes })
          }).pipe(Scope_.extend(scope), Effect.provideService(HttpClient.HttpClient, httpClient))
          current = legacy
          yield* forward(legacy)
          yield* legacy.send(initialize)
        })
    })
    current = streamable
    yield* forward(streamable)
    const active = () => current ?? streamable
    return {
      ...fromMailbox(inbound),
      send: (message, headers) => Effect.suspend(() => active().send(message, headers)),
      setProtocolVersion: (version) => Effect.suspend(() => active().setProtocolVersion(version))
    } satisfies TransportService
  })

/** The HTTP client of the transport: the context's, authorizing unless `auth` is `false`. */
const clientFor = (options: HttpOptions): Effect.Effect<HttpClient.HttpClient, TransportError, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const url = yield* parseEndpoint(options.url, options.name)
    const raw = yield* HttpClient.HttpClient
    if (options.auth === false) return raw
    const session = yield* OAuth.make(options.name ?? url.host, options.url, raw, options.auth ?? {})
    return AuthorizedClient.authorize(raw, session)
  })

/**
 * An HTTP `Transport` layer for a URL, by the chosen (or detected) transport. The optional
 * `TokenStore` and `Authorizer` services of the context serve its authorization. Fails with a
 * `TransportError` when the URL is invalid or the connection cannot be made (legacy SSE).
 */
export const layer = (options: HttpOptions): Layer.Layer<Transport, TransportError, HttpClient.HttpClient> =>
  Layer.scoped(
    Transport,
    Effect.flatMap(clientFor(options), (client) => {
      const transport = options.transport ?? "auto"
      const made =
        transport === "http"
          ? StreamableHttpTransport.make(options)
          : transport === "sse"
            ? SseTransport.make(options)
            : makeAuto(options)
      return Effect.provideService(made, HttpClient.HttpClient, client)
    })
  )
