/**
 * The gateway over Streamable HTTP on Node's own `node:http` server: the same HTTP core as
 * `StreamableHttpServer` (sessions, event streams, resumption, 2026-07-28, the guards), with its
 * answers written straight to Node's response, events included, with no `Stream` per response.
 * `StreamableHttpServer.make` is the same gateway as an `HttpApp` for any `@effect/platform` server.
 *
 * @since 0.1.0
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { McpHost } from "@effect-mcp/host"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as FiberSet from "effect/FiberSet"
import type * as Scope from "effect/Scope"
import * as Auth from "./internal/auth.js"
import * as HttpCore from "./internal/httpCore.js"
import * as Ops from "./internal/ops.js"
import type * as Reply from "./internal/reply.js"
import type * as ServerRequests from "./internal/serverRequests.js"
import type * as StreamableHttpServer from "./StreamableHttpServer.js"

/**
 * Where and how the gateway listens, with the address.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends StreamableHttpServer.Options {
  /** The address to listen on. Default: 127.0.0.1. */
  readonly host?: string
  /** The port; 0 picks a free one. */
  readonly port: number
}

/**
 * The server could not listen (the port is taken, the address is not this machine's).
 *
 * @since 0.1.0
 * @category errors
 */
export class ListenError extends Data.TaggedError("ListenError")<{
  readonly host: string
  readonly port: number
  readonly cause: unknown
}> {
  override get message(): string {
    return `cannot listen on ${this.host}:${this.port}: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`
  }
}

/**
 * Whether `host` is a loopback address (127.0.0.0/8, `localhost`, `::1`): only there may the
 * gateway listen without a token.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isLoopback = (host: string): boolean => /^(127\.\d+\.\d+\.\d+|localhost|::1)$/.test(host)

/** A Node request as the core reads it; its body is read up to `limit` bytes. */
const requestOf = (request: IncomingMessage, limit: number): HttpCore.Request => {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = typeof value === "string" ? value : value.join(", ")
  }
  return {
    method: request.method ?? "GET",
    url: request.url ?? "/",
    headers,
    json: Effect.async<unknown, unknown>((resume) => {
      const body = HttpCore.bodyReader(limit)
      let fits = true
      const onData = (chunk: Buffer) => {
        fits = body.push(chunk)
        if (fits) return
        request.off("data", onData)
        resume(body.json)
      }
      request.on("data", onData)
      request.once("error", (cause) => resume(Effect.fail(cause)))
      request.once("end", () => {
        if (fits) resume(body.json)
      })
    })
  }
}

/** Writes `reply`; an event stream stays connected until its events end. */
const write = (reply: Reply.Reply, response: ServerResponse): Effect.Effect<void> =>
  Effect.suspend(() => {
    switch (reply._tag) {
      case "Json": {
        const body = JSON.stringify(reply.body)
        response.writeHead(reply.status, {
          ...reply.headers,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body)
        })
        return Effect.sync(() => response.end(body))
      }
      case "Text":
        return Effect.sync(() =>
          response
            .writeHead(reply.status, { ...reply.headers, "content-length": Buffer.byteLength(reply.body) })
            .end(reply.body)
        )
      case "Empty":
        return Effect.sync(() => response.writeHead(reply.status, reply.headers).end())
      case "Events": {
        response.writeHead(200, reply.headers)
        let ended = false
        let finish: (() => void) | undefined
        const sink = {
          write: (bytes: Uint8Array) => {
            if (!ended) response.write(bytes)
          },
          end: () => {
            if (ended) return
            ended = true
            response.end()
            finish?.()
          }
        }
        const over = Effect.async<void>((resume) => {
          if (ended) return resume(Effect.void)
          finish = () => resume(Effect.void)
        })
        return Effect.scoped(Effect.zipRight(reply.events.connect(sink), over))
      }
    }
  })

/** Serves one request: its answer written, or a 500 when serving it failed. */
const serveOne = (handle: HttpCore.Handler, limit: number, request: IncomingMessage, response: ServerResponse) =>
  handle(requestOf(request, limit)).pipe(
    Effect.flatMap((reply) => write(reply, response)),
    Effect.catchAllCause((cause) =>
      Effect.sync(() => {
        if (response.headersSent) response.destroy()
        else response.writeHead(500).end()
      }).pipe(Effect.zipRight(Effect.logError("the gateway failed to serve an HTTP request", cause)))
    )
  )

/**
 * Listens and serves the gateway until the scope closes (open streams are ended, sessions closed);
 * succeeds with the port it listens on.
 *
 * @since 0.1.0
 * @category constructors
 */
export const listen = (
  options: Options
): Effect.Effect<{ readonly port: number }, ListenError, Scope.Scope | McpHost.McpHost | ServerRequests.Attachments> =>
  Effect.gen(function* () {
    const host = options.host ?? "127.0.0.1"
    if (options.token === "") {
      return yield* new ListenError({ host, port: options.port, cause: new Error("the token is empty") })
    }
    if (!Auth.required(options) && !isLoopback(host)) {
      return yield* new ListenError({
        host,
        port: options.port,
        cause: new Error(
          "beyond loopback the gateway needs a token (options.token), API keys or OAuth, which clients send as bearer tokens"
        )
      })
    }
    // On loopback only loopback names reach the gateway: a page of another site whose name was
    // made to point here (DNS rebinding) is refused by its Host.
    const guarded: Options =
      options.allowedHosts === undefined && isLoopback(host)
        ? { ...options, allowedHosts: ["localhost", "127.0.0.1", "[::1]", host.includes(":") ? `[${host}]` : host] }
        : options
    const handle = yield* Ops.around(yield* HttpCore.make(guarded), {
      ...options.ops,
      ...(guarded.allowedHosts === undefined ? {} : { allowedHosts: guarded.allowedHosts })
    })
    const limit = HttpCore.bodyLimit(options)
    const run = yield* FiberSet.makeRuntime<never, void, never>()
    const server = createServer((request, response) => {
      const fiber = run(serveOne(handle, limit, request, response))
      // A client that goes away before its answer is complete interrupts what serves it: reading
      // its body, a 2026-07-28 call (cancelled), a connection to an event stream (the stream lives on).
      response.once("close", () => {
        if (!response.writableFinished) fiber.unsafeInterruptAsFork(FiberId.none)
      })
    })
    yield* Effect.acquireRelease(
      Effect.async<void, ListenError>((resume) => {
        server.once("error", (cause) => resume(Effect.fail(new ListenError({ host, port: options.port, cause }))))
        server.listen(options.port, host, () => resume(Effect.void))
      }),
      () =>
        Effect.async<void>((resume) => {
          server.close(() => resume(Effect.void))
          server.closeAllConnections()
        })
    )
    const address = server.address()
    return { port: typeof address === "object" && address !== null ? address.port : options.port }
  })
