/**
 * The protocol trace and the servers' consoles: every JSON-RPC message of every server, both
 * ways, as its transport saw it (the era probe included), and every line a stdio server wrote to
 * stderr. The transports push into one queue from plain code; one fiber owns the kept entries,
 * measures each response's latency from its request, and publishes each entry as an event, with
 * the log messages and resource updates read from the notifications.
 *
 * The trace is the transports', not the peer's, so everything the session sends shows (the era
 * probe, recovery). A server reached over HTTP gets the client's generic `HttpTransport` over an
 * `HttpClient` decorated with `tap`/`tapError`: that is how its exchanges (status, session id,
 * headers masked) are seen; Node's faster `node:http` route would have none to show.
 */
import type * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import { HttpTransport, type McpError, StdioTransport, Transport, Transports } from "@effect-mcp/client"
import type { JsonRpc } from "@effect-mcp/protocol"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Api from "../Api.js"
import { MASK, masker } from "./mask.js"

/** How many messages are kept per server (the oldest go first). */
const KEEP = 50_000
/** How many console lines are kept per server. */
const KEEP_LINES = 5_000

type Observed =
  | { readonly _tag: "Exchange"; readonly exchange: Omit<Api.ExchangeEntry, "seq"> }
  | {
      readonly _tag: "Message"
      readonly server: string
      readonly dir: "send" | "receive"
      readonly message: object
      readonly t: number
      /** A view's traffic (MCP Apps): the view's id. */
      readonly view?: string
    }
  | { readonly _tag: "Line"; readonly server: string; readonly line: string; readonly t: number }

interface Kept {
  readonly entries: ReadonlyMap<string, Chunk.Chunk<Api.TraceEntry>>
  readonly exchanges: ReadonlyMap<string, Chunk.Chunk<Api.ExchangeEntry>>
  readonly lines: ReadonlyMap<string, Chunk.Chunk<Api.ConsoleLine>>
  /** Requests not answered yet, by `server dir id`: when they were sent and their method. */
  readonly open: ReadonlyMap<string, { readonly t: number; readonly method: string }>
  readonly seq: number
}

/** The trace part. */
export interface Trace {
  /**
   * The transports, each message and stderr line of every server recorded; a server reached over
   * HTTP gets the client's HTTP transport over the platform's `HttpClient`, each exchange recorded.
   */
  readonly transports: Layer.Layer<Transports.Transports, never, Transports.Transports | HttpClient.HttpClient>
  /** A note of the host in a server's console (a restart, a failure). */
  readonly note: (server: string, line: string) => Effect.Effect<void>
  readonly entries: (server: string) => Effect.Effect<ReadonlyArray<Api.TraceEntry>>
  /** The HTTP exchanges of a server reached over HTTP. */
  readonly exchanges: (server: string) => Effect.Effect<ReadonlyArray<Api.ExchangeEntry>>
  readonly lines: (server: string) => Effect.Effect<ReadonlyArray<Api.ConsoleLine>>
  /** A message between the page and a server's view (`receive`: from the view), recorded in the server's trace. */
  readonly view: (server: string, view: string, dir: "send" | "receive", message: object) => Effect.Effect<void>
  /** A server's traffic as the CLI's record file (`effect-mcp replay` reads it); a view's traffic is not part of it. */
  readonly recording: (server: string) => Effect.Effect<string>
}

const keyOf = (server: string, dir: "send" | "receive", id: unknown, view: string | undefined) =>
  `${server}\u0000${view ?? ""}\u0000${dir}\u0000${String(id)}`
const other = (dir: "send" | "receive") => (dir === "send" ? "receive" : "send")

const append = <A>(map: ReadonlyMap<string, Chunk.Chunk<A>>, server: string, value: A, keep: number) => {
  const before = map.get(server) ?? Chunk.empty<A>()
  const after = Chunk.append(before.length >= keep ? Chunk.drop(before, before.length - keep + 1) : before, value)
  return new Map(map).set(server, after)
}

/** Adds one message; returns the entry made of it. */
const addMessage = (
  kept: Kept,
  observed: Extract<Observed, { _tag: "Message" }>,
  mask: (value: unknown) => unknown
): [Api.TraceEntry, Kept] => {
  const { server, dir, message, t, view } = observed
  const json = JSON.stringify(message)
  let open = kept.open
  let latency: number | undefined
  const method = "method" in message && typeof message.method === "string" ? message.method : undefined
  const id = "id" in message ? message.id : undefined
  if (method !== undefined && id !== undefined) {
    open = new Map(open).set(keyOf(server, dir, id, view), { t, method })
  } else if (method === undefined && id !== undefined && id !== null) {
    const key = keyOf(server, other(dir), id, view)
    const request = open.get(key)
    if (request !== undefined) {
      latency = t - request.t
      const rest = new Map(open)
      rest.delete(key)
      open = rest
    }
  }
  const entry: Api.TraceEntry = {
    server,
    seq: kept.seq + 1,
    t,
    dir,
    message: mask(message),
    size: new TextEncoder().encode(json).length,
    ...(latency === undefined ? {} : { latency }),
    ...(view === undefined ? {} : { view })
  }
  return [entry, { ...kept, seq: entry.seq, open, entries: append(kept.entries, server, entry, KEEP) }]
}

/** The events a received notification means beside its trace entry. */
const notificationEvents = (entry: Api.TraceEntry): ReadonlyArray<Api.Event> => {
  const message = entry.message
  if (
    entry.dir !== "receive" ||
    entry.view !== undefined ||
    typeof message !== "object" ||
    message === null ||
    !("method" in message)
  )
    return []
  const params =
    "params" in message && typeof message.params === "object" && message.params !== null ? message.params : {}
  if (message.method === "notifications/message") {
    const level = "level" in params && typeof params.level === "string" ? params.level : "info"
    const logger = "logger" in params && typeof params.logger === "string" ? params.logger : undefined
    const data = "data" in params ? params.data : undefined
    return [{ _tag: "Log", server: entry.server, t: entry.t, level, data, ...(logger === undefined ? {} : { logger }) }]
  }
  if (message.method === "notifications/resources/updated" && "uri" in params && typeof params.uri === "string")
    return [{ _tag: "ResourceUpdated", server: entry.server, uri: params.uri }]
  return []
}

/** The transport with its traffic observed. Its `send` is new, with no plain form, so every send goes through it. */
const observed = (
  inner: Transport.TransportService,
  server: string,
  observe: (item: Observed) => void
): Transport.TransportService => {
  const { probe, ...rest } = inner
  const seen = (dir: "send" | "receive", message: JsonRpc.JSONRPCMessage) =>
    observe({ _tag: "Message", server, dir, message, t: Date.now() })
  return {
    ...rest,
    run: (deliver) =>
      inner.run((item) => {
        if (item._tag === "Message") seen("receive", item.message)
        deliver(item)
      }),
    send: (message, headers) =>
      Effect.zipRight(
        Effect.sync(() => seen("send", message)),
        inner.send(message, headers)
      ),
    ...(probe === undefined
      ? {}
      : {
          probe: (request: JsonRpc.JSONRPCRequest, timeout: Parameters<typeof probe>[1]) =>
            Effect.zipRight(
              Effect.sync(() => seen("send", request)),
              Effect.tap(probe(request, timeout), (outcome) =>
                Effect.sync(() => {
                  if (outcome._tag === "Answered") seen("receive", outcome.message)
                })
              )
            )
        })
  }
}

/** Headers with secrets masked (by name, and any value given as a secret). */
const headersOf = (headers: Headers.Headers, mask: (value: unknown) => unknown): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key)$/i.test(name) ? MASK : String(mask(value))
    ])
  )

/** The HTTP client with each of its exchanges observed as the server's: request, status, headers. */
const exchanged = (
  client: HttpClient.HttpClient,
  server: string,
  mask: (value: unknown) => unknown,
  observe: (item: Observed) => void
): HttpClient.HttpClient =>
  client.pipe(
    HttpClient.tap((response) =>
      Effect.sync(() =>
        observe({
          _tag: "Exchange",
          exchange: {
            server,
            t: Date.now(),
            method: response.request.method,
            url: String(mask(response.request.url)),
            status: response.status,
            requestHeaders: headersOf(response.request.headers, mask),
            responseHeaders: headersOf(response.headers, mask),
            ...(response.headers["mcp-session-id"] === undefined
              ? {}
              : { sessionId: response.headers["mcp-session-id"] }),
            ...(response.request.headers["mcp-protocol-version"] === undefined
              ? {}
              : { protocolVersion: response.request.headers["mcp-protocol-version"] })
          }
        })
      )
    ),
    HttpClient.tapError((error) =>
      Effect.sync(() =>
        observe({
          _tag: "Exchange",
          exchange: {
            server,
            t: Date.now(),
            method: error.request.method,
            url: String(mask(error.request.url)),
            error: error.message,
            requestHeaders: headersOf(error.request.headers, mask),
            responseHeaders: {}
          }
        })
      )
    )
  )

/** A transport layer whose transport is observed; a stdio server's stderr lines are observed too. */
const observedLayer = <R>(
  layer: Layer.Layer<R | Transport.Transport, McpError.TransportError>,
  server: string,
  observe: (item: Observed) => void
): Layer.Layer<R | Transport.Transport, McpError.TransportError> =>
  Layer.flatMap(layer, (context) => {
    const transport = Context.get(context as Context.Context<Transport.Transport>, Transport.Transport)
    const replaced = Context.add(context, Transport.Transport, observed(transport, server, observe))
    const process = Context.getOption(
      context as Context.Context<StdioTransport.StdioProcess>,
      StdioTransport.StdioProcess
    )
    const stderr = Option.match(process, {
      onNone: () => Effect.void,
      onSome: (info) =>
        Effect.gen(function* () {
          // What it wrote before this layer was built, then every line as it comes.
          const tail = yield* info.stderrTail
          for (const line of tail === "" ? [] : tail.split("\n")) observe({ _tag: "Line", server, line, t: Date.now() })
          yield* info.stderr.pipe(
            Stream.runForEach((line) => Effect.sync(() => observe({ _tag: "Line", server, line, t: Date.now() }))),
            Effect.forkScoped
          )
        })
    })
    return Layer.merge(Layer.succeedContext(replaced), Layer.scopedDiscard(stderr))
  })

/** Starts the trace; its fiber ends with the scope. */
export const make = (
  events: PubSub.PubSub<Api.Event>,
  secrets: ReadonlyArray<string>
): Effect.Effect<Trace, never, Scope.Scope> =>
  Effect.gen(function* () {
    const mask = masker(secrets)
    const queue = yield* Queue.unbounded<Observed>()
    const kept = yield* Ref.make<Kept>({
      entries: new Map(),
      exchanges: new Map(),
      lines: new Map(),
      open: new Map(),
      seq: 0
    })
    const observe = (item: Observed) => {
      queue.unsafeOffer(item)
    }

    const take = (item: Observed) =>
      Effect.flatMap(
        Ref.modify(kept, (current): [ReadonlyArray<Api.Event>, Kept] => {
          if (item._tag === "Exchange") {
            const exchange: Api.ExchangeEntry = { ...item.exchange, seq: current.seq + 1 }
            return [
              [{ _tag: "Exchange", exchange }],
              {
                ...current,
                seq: exchange.seq,
                exchanges: append(current.exchanges, exchange.server, exchange, KEEP_LINES)
              }
            ]
          }
          if (item._tag === "Line") {
            const line: Api.ConsoleLine = { server: item.server, t: item.t, line: String(mask(item.line)) }
            return [
              [{ _tag: "Console", line }],
              { ...current, lines: append(current.lines, item.server, line, KEEP_LINES) }
            ]
          }
          const [entry, next] = addMessage(current, item, mask)
          return [[{ _tag: "Trace", entry }, ...notificationEvents(entry)], next]
        }),
        (published) => PubSub.publishAll(events, published)
      )
    yield* Queue.take(queue).pipe(Effect.flatMap(take), Effect.forever, Effect.forkScoped)

    const entries = (server: string) =>
      Effect.map(Ref.get(kept), (k) => Chunk.toReadonlyArray(k.entries.get(server) ?? Chunk.empty()))
    return {
      transports: Layer.effect(
        Transports.Transports,
        Effect.gen(function* () {
          const inner = yield* Transports.Transports
          const client = yield* HttpClient.HttpClient
          return {
            stdio: (options) => observedLayer(inner.stdio(options), options.name ?? options.command, observe),
            http: (options) => {
              const server = options.name ?? options.url
              const exchanges = Layer.succeed(HttpClient.HttpClient, exchanged(client, server, mask, observe))
              return observedLayer(Layer.provide(HttpTransport.layer(options), exchanges), server, observe)
            }
          }
        })
      ),
      note: (server, line) => Effect.sync(() => observe({ _tag: "Line", server, line, t: Date.now() })),
      view: (server, view, dir, message) =>
        Effect.sync(() => observe({ _tag: "Message", server, dir, message, t: Date.now(), view })),
      entries,
      exchanges: (server) =>
        Effect.map(Ref.get(kept), (k) => Chunk.toReadonlyArray(k.exchanges.get(server) ?? Chunk.empty())),
      lines: (server) => Effect.map(Ref.get(kept), (k) => Chunk.toReadonlyArray(k.lines.get(server) ?? Chunk.empty())),
      recording: (server) =>
        Effect.map(entries(server), (list) => {
          const started = list[0]?.t ?? Date.now()
          const header = { recording: "effect-mcp", version: 1, server, startedAt: new Date(started).toISOString() }
          const lines = list.flatMap((entry) =>
            entry.view !== undefined
              ? []
              : [JSON.stringify({ t: entry.t - started, dir: entry.dir, message: entry.message })]
          )
          return `${[JSON.stringify(header), ...lines].join("\n")}\n`
        })
    }
  })
