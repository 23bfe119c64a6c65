/**
 * The legacy HTTP+SSE transport (2024-11-05): a GET opens an SSE stream whose first event,
 * `endpoint`, names the URL to POST messages to (on the same origin, or it is refused);
 * every server message arrives on the stream as a `message` event.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { makeInbound, parseIncoming, Transport, type TransportService } from "@effect-mcp/jsonrpc/Transport"
import type { JsonRpc } from "@effect-mcp/protocol"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { AuthorizationError } from "../../auth/AuthError.js"
import { TransportError } from "../../McpError.js"
import {
  fromResponse,
  parseEndpoint,
  readExcerpt,
  requestFailure,
  statusAnswer,
  tracedWhenTracing,
  withMethod
} from "./httpBody.js"
import { makeParser } from "./sse.js"

/** Where the server's SSE endpoint is and how to talk to it. */
export interface SseOptions {
  /** The SSE endpoint, for example `http://127.0.0.1:3001/sse`. */
  readonly url: string
  readonly name?: string
  readonly headers?: { readonly [name: string]: string }
  /** The largest SSE event accepted, in bytes. Default: 64 MiB. */
  readonly maxMessageBytes?: number
  /** How long to wait for the `endpoint` event. Default: 10 seconds. */
  readonly endpointTimeout?: Duration.DurationInput
}

/**
 * Connects (GET, then waits for the `endpoint` event); the stream ends with the scope. Fails
 * with a `TransportError` when the URL is invalid or the stream cannot be opened.
 */
export const make = (
  options: SseOptions
): Effect.Effect<TransportService, TransportError, HttpClient.HttpClient | Scope.Scope> =>
  Effect.gen(function* () {
    const url = yield* parseEndpoint(options.url, options.name)
    const server = options.name ?? url.host
    const maxBytes = options.maxMessageBytes ?? 64 * 1024 * 1024
    const client = (yield* HttpClient.HttpClient).pipe(HttpClient.withScope, tracedWhenTracing)
    const inbound = makeInbound()
    const fibers = yield* FiberSet.make()
    const endpoint = yield* Deferred.make<URL, TransportError>()
    let closed = false
    const error = (reason: string, status?: number) =>
      new TransportError({ server, reason, ...(status === undefined ? {} : { status }) })

    const listen = Effect.scoped(
      Effect.gen(function* () {
        const response = yield* client
          .execute(
            HttpClientRequest.get(options.url).pipe(
              HttpClientRequest.setHeaders({ ...options.headers, accept: "text/event-stream" })
            )
          )
          .pipe(Effect.mapError((cause) => error(requestFailure(`GET ${options.url}`, cause))))
        const contentType = (response.headers["content-type"] ?? "").toLowerCase()
        if (response.status !== 200 || !contentType.startsWith("text/event-stream")) {
          const body = yield* readExcerpt(fromResponse(response), 2048)
          return yield* error(
            `GET ${options.url} answered ${statusAnswer(response.status, body)} (${contentType === "" ? "no content type" : contentType})`,
            response.status
          )
        }
        let stopped: TransportError | undefined
        const parser = makeParser(maxBytes, (item) => {
          if (item._tag !== "Event" || stopped !== undefined) return
          if (item.event === "endpoint") {
            const target = URL.canParse(item.data, options.url) ? new URL(item.data, options.url) : undefined
            if (target !== undefined && target.origin === url.origin)
              Deferred.unsafeDone(endpoint, Exit.succeed(target))
            else stopped = error(`the server announced an endpoint on another origin: ${item.data}`)
            return
          }
          if (item.event !== "message" || item.data === "") return
          for (const incoming of parseIncoming(item.data)) inbound.unsafeOffer(incoming)
        })
        yield* fromResponse(response)
          .forEachChunk((chunk) => {
            if (!parser.push(chunk)) stopped = error(`an SSE event exceeded the maximum size of ${maxBytes} bytes`)
            return stopped === undefined
          })
          .pipe(Effect.mapError((cause) => error(`the SSE stream broke: ${cause}`)))
        if (stopped !== undefined) return yield* stopped
        parser.end()
        return yield* error("the server closed the SSE stream")
      })
    ).pipe(
      Effect.catchAll((failure) =>
        closed ? Effect.void : Effect.zipRight(Deferred.fail(endpoint, failure), inbound.fail(failure))
      )
    )
    yield* FiberSet.run(fibers, listen)
    const target = yield* Deferred.await(endpoint).pipe(
      Effect.timeoutFail({
        duration: options.endpointTimeout ?? "10 seconds",
        onTimeout: () => error("the server sent no endpoint event")
      })
    )
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        closed = true
      }).pipe(Effect.zipRight(inbound.end))
    )

    const post = (message: JsonRpc.JSONRPCMessage) =>
      Effect.scoped(
        Effect.gen(function* () {
          const response = yield* client
            .execute(
              HttpClientRequest.post(target.href).pipe(
                HttpClientRequest.setHeaders({ ...options.headers }),
                HttpClientRequest.bodyText(JSON.stringify(message), "application/json")
              )
            )
            .pipe(
              Effect.mapError((cause) =>
                cause.cause instanceof AuthorizationError
                  ? withMethod(cause.cause, "method" in message ? message.method : undefined)
                  : error(requestFailure(`POST ${target.href}`, cause))
              )
            )
          if (response.status >= 200 && response.status < 300) return
          const body = yield* readExcerpt(fromResponse(response), 2048)
          return yield* error(statusAnswer(response.status, body), response.status)
        })
      ).pipe(
        Effect.catchAll((failure) =>
          "method" in message && "id" in message
            ? Effect.asVoid(inbound.offer({ _tag: "Failed", id: message.id, error: failure }))
            : Effect.logWarning(failure.message)
        )
      )

    return {
      run: inbound.run,
      send: (message) =>
        closed
          ? Effect.fail(error("the transport is closed"))
          : // Interruptible whatever the caller's region (a response is often sent from a handler's
            // onExit, which is not): closing must be able to abort a POST the server never answers.
            Effect.asVoid(FiberSet.run(fibers, Effect.interruptible(post(message)))),
      setProtocolVersion: () => Effect.void
    } satisfies TransportService
  })

/** A legacy HTTP+SSE `Transport` layer. */
export const layer = (options: SseOptions): Layer.Layer<Transport, TransportError, HttpClient.HttpClient> =>
  Layer.scoped(Transport, make(options))
