/**
 * The HTTP transports with their requests on Node's `http` client directly, for Node programs:
 * the same options, behaviour and errors as {@link HttpTransport}, whose Streamable HTTP
 * transport sends everything through the platform `HttpClient`. Here a message is POSTed by
 * `node:http` over a keep-alive agent, and a JSON (or empty) answer is read in the socket's
 * own callbacks with no fiber; other answers (an SSE stream, an error status) get the
 * transport's usual handling, and event streams (the GET listener, resumption) are read chunk
 * by chunk with no stream stage. The context's `HttpClient` still serves `DELETE`, the legacy
 * HTTP+SSE transport, and every request while OAuth has something to add (a stored token, or
 * once a server refused a request: that request is sent again through it), so the client
 * plugged in for authorization sees those.
 *
 * A POST in callbacks costs less client CPU than one through the platform `HttpClient` (the
 * benchmark's notes say how much). `layer` is the drop-in for `HttpTransport.layer`; `makeRoute` is the route alone, for
 * `HttpTransport.makeWithRoute` (`NodeTransports` shares one among the servers of a program).
 * Requests that must go through your own `HttpClient` (a proxy, custom signing) need
 * `HttpTransport` instead.
 *
 * @since 0.1.0
 */
import * as Http from "node:http"
import * as Https from "node:https"
import { finished } from "node:stream"
import { urlToHttpOptions } from "node:url"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpTransport from "@effect-mcp/client/HttpTransport"
import type { TransportError } from "@effect-mcp/client/McpError"
import {
  type Collected,
  closedMidBody,
  cutShort,
  decodeChunks,
  type HttpRoute,
  markReusedConnection,
  type RouteAnswer,
  resetOnReusedConnection
} from "@effect-mcp/client/Platform"
import { Transport, type TransportService } from "@effect-mcp/client/Transport"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"

/**
 * Options of Node's agents (`keepAlive` is on unless turned off).
 *
 * @since 0.1.0
 * @category options
 */
export interface NodeHttpOptions {
  readonly agent?: Http.AgentOptions
}

/** The lower-case header record of a Node response (repeated headers joined with `, `). */
const headersOf = (message: Http.IncomingMessage): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const name in message.headers) {
    const value = message.headers[name]
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value
  }
  return headers
}

/** The error behind a stream that ended early: none to tell for a plain premature close. */
const causeOf = (error: NodeJS.ErrnoException): unknown =>
  error.code === "ERR_STREAM_PREMATURE_CLOSE" ? undefined : error

/** A Node response as a {@link RouteAnswer}. */
const answerOf = (request: Http.ClientRequest, response: Http.IncomingMessage): RouteAnswer => {
  // Once taken, the body is read (or dropped) by exactly one reader.
  let taken = false
  /**
   * Hands each chunk to `onChunk` until it says `false` (the rest is cut off, with the connection),
   * then calls `onEnd` once: `stopped`, or the body ended, or the error that broke it off.
   * `finished` also reports a response that broke off before anyone listened (a reset while a
   * fiber was scheduled).
   */
  const consume = (
    onChunk: (chunk: Buffer) => boolean,
    onEnd: (outcome: { readonly stopped: true } | { readonly stopped: false; readonly error: unknown }) => void
  ) => {
    taken = true
    let settled = false
    response.on("data", (chunk: Buffer) => {
      if (settled || onChunk(chunk)) return
      settled = true
      onEnd({ stopped: true })
      request.destroy()
    })
    finished(response, (error) => {
      if (settled) return
      settled = true
      onEnd({ stopped: false, error: error === undefined || error === null ? undefined : causeOf(error) })
    })
  }
  const read: RouteAnswer["read"] = (maxBytes, done) => {
    const chunks: Array<Uint8Array> = []
    let size = 0
    consume(
      (chunk) => {
        const room = maxBytes - size
        const kept = chunk.length > room ? chunk.subarray(0, room) : chunk
        chunks.push(kept)
        size += kept.length
        return chunk.length <= room
      },
      (outcome) => {
        if (outcome.stopped) return done(Either.right({ text: decodeChunks(chunks, size), over: true }))
        done(
          outcome.error === undefined
            ? Either.right({ text: decodeChunks(chunks, size), over: false })
            : Either.left(cutShort(size, outcome.error))
        )
      }
    )
  }
  return {
    status: response.statusCode ?? 0,
    headers: headersOf(response),
    read,
    collect: (maxBytes) =>
      Effect.async<Collected, string>((resume) => {
        read(maxBytes, (result) => resume(result))
        return Effect.sync(() => request.destroy())
      }),
    forEachChunk: (f) =>
      Effect.async<void, string>((resume) => {
        consume(f, (outcome) =>
          resume(
            outcome.stopped || outcome.error === undefined ? Effect.void : Effect.fail(closedMidBody(outcome.error))
          )
        )
        return Effect.sync(() => request.destroy())
      }),
    drain: () => {
      taken = true
      response.resume()
    },
    release: () => {
      // A body the parser has all of is dropped, keeping the connection; else the connection goes.
      if (!response.complete) request.destroy()
      else if (!taken) response.resume()
    }
  }
}

/** `agent`, telling `Platform.resetOnReusedConnection` which requests it gives a pooled connection. */
const marking = <A extends Http.Agent>(agent: A): A => {
  const reuse = agent.reuseSocket.bind(agent)
  agent.reuseSocket = (socket, request) => {
    reuse(socket, request)
    markReusedConnection(request)
  }
  return agent
}

/**
 * Keep-alive agents for `http` and `https` (destroyed with the scope) whose requests on a pooled
 * connection are marked, so that one reset before any answer is sent again once, also through an
 * `HttpClient` on them (`NodeHttpClient.layerWithoutAgent` with these as its `HttpAgent`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeAgents = (
  options: Http.AgentOptions = {}
): Effect.Effect<{ readonly http: Http.Agent; readonly https: Https.Agent }, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => ({
      http: marking(new Http.Agent({ keepAlive: true, ...options })),
      https: marking(new Https.Agent({ keepAlive: true, ...options }))
    })),
    (made) =>
      Effect.sync(() => {
        made.http.destroy()
        made.https.destroy()
      })
  )

/** Keep-alive agents for `http` and `https`, each made on first use and destroyed with the scope. */
const agents = (options: NodeHttpOptions) =>
  Effect.map(
    Effect.acquireRelease(
      Effect.sync((): { http?: Http.Agent; https?: Https.Agent } => ({})),
      (made) =>
        Effect.sync(() => {
          made.http?.destroy()
          made.https?.destroy()
        })
    ),
    (made) =>
      (protocol: string): Http.Agent => {
        if (protocol === "https:") {
          made.https ??= marking(new Https.Agent({ keepAlive: true, ...options.agent }))
          return made.https
        }
        made.http ??= marking(new Http.Agent({ keepAlive: true, ...options.agent }))
        return made.http
      }
  )

/**
 * The fast route on `node:http`/`node:https` over the agents: the request written at once, its
 * answer handed over as soon as the headers arrived.
 */
const route = (agentFor: (protocol: string) => Http.Agent): HttpRoute => {
  // The request options of each URL, worked out once.
  const targets = new Map<string, Http.RequestOptions>()
  const targetOf = (url: string) => {
    let target = targets.get(url)
    if (target === undefined) {
      const parsed = new URL(url)
      target = { ...urlToHttpOptions(parsed), agent: agentFor(parsed.protocol) }
      targets.set(url, target)
    }
    return target
  }
  return {
    request: (method, url, headers, body, handlers) => {
      let request: Http.ClientRequest | undefined
      let answered = false
      const send = (again: boolean) => {
        let sent: Http.ClientRequest
        try {
          const target = targetOf(url)
          const options = {
            ...target,
            method,
            headers:
              body === undefined
                ? headers
                : { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body) }
          }
          sent = target.protocol === "https:" ? Https.request(options) : Http.request(options)
        } catch (cause) {
          // An invalid header, say: reported like any failure, after `request` returned.
          process.nextTick(() => handlers.onError(cause))
          return
        }
        request = sent
        sent.once("response", (response) => {
          answered = true
          handlers.onAnswer(answerOf(sent, response))
        })
        sent.on("error", (cause) => {
          if (answered || request !== sent) return
          // A kept-alive connection the server closed as the request came (its idle timeout), before
          // any answer: sent once more on a new connection (the rule of `Platform.resetOnReusedConnection`).
          if (!again && resetOnReusedConnection(cause)) return send(true)
          answered = true
          handlers.onError(cause)
        })
        sent.end(body)
      }
      send(false)
      return () => {
        request?.destroy()
      }
    }
  }
}

/**
 * The route on `node:http`/`node:https` over keep-alive agents of its own (destroyed with the
 * scope), for `HttpTransport.makeWithRoute`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeRoute = (options: NodeHttpOptions = {}): Effect.Effect<HttpRoute, never, Scope.Scope> =>
  Effect.map(agents(options), route)

/**
 * An HTTP transport for a URL, as `HttpTransport.make` (the same options and failures), with its
 * POSTs on `node:http`; it ends with the scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: HttpTransport.HttpOptions & NodeHttpOptions
): Effect.Effect<TransportService, TransportError, HttpClient.HttpClient | Scope.Scope> =>
  Effect.flatMap(makeRoute(options), (route) => HttpTransport.makeWithRoute(options, route))

/**
 * An HTTP `Transport` layer for a URL, as `HttpTransport.layer` (the same options and
 * failures), with its POSTs on `node:http`.
 *
 * *When to use*: a server reached by URL from a Node program: its POSTs and event streams skip the
 * platform `HttpClient`'s per-request cost.
 *
 * *Gotchas*: an `HttpClient` is still required, for what is not a POST of the protocol (the
 * session's DELETE, OAuth's requests); `agent` bounds the sockets per origin.
 *
 * @example
 * ```ts
 * import { McpClient } from "@effect-mcp/client"
 * import { NodeHttpTransport } from "@effect-mcp/node"
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { Layer } from "effect"
 *
 * // POSTs and event streams on `node:http` keep-alive agents; the `HttpClient` serves the rest
 * // (the session's DELETE, OAuth's requests)
 * const TransportLive = NodeHttpTransport.layer({
 *   url: "http://127.0.0.1:3001/mcp",
 *   agent: { maxSockets: 16 }
 * }).pipe(Layer.provide(NodeHttpClient.layer))
 *
 * const ClientLive = McpClient.layer({ name: "local" }).pipe(Layer.provide(TransportLive))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: HttpTransport.HttpOptions & NodeHttpOptions
): Layer.Layer<Transport, TransportError, HttpClient.HttpClient> => Layer.scoped(Transport, make(options))
