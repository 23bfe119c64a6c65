/**
 * One 2026-07-28 request, whatever carries it: no session, no handshake. Its `_meta` envelope says
 * the revision and the client's capabilities; over HTTP its headers must agree with its body
 * (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`; stdio has none). The catalog serves it as it
 * serves a session's requests, the result is completed as the revision asks (`resultType`, the
 * gateway's `serverInfo` in `_meta`, cache hints on lists and reads), and a server's input requests
 * during it are relayed in rounds (`rounds.ts`, `inputRelay.ts`). The transports (`statelessHttp.ts`, the stdio
 * peer's handlers) frame what this decides.
 */
import type { McpHost } from "@effect-mcp/host"
import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import { JsonRpcFailure } from "@effect-mcp/jsonrpc/PeerError"
import { JsonRpc, McpSchema, ProtocolVersion } from "@effect-mcp/protocol"
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as ParseResult from "effect/ParseResult"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Catalog from "./catalog.js"
import { capabilities } from "./handshake.js"
import type * as HeldCalls from "./heldCalls.js"
import * as InFlight from "./inflight.js"
import * as InputRelay from "./inputRelay.js"
import * as LogRelay from "./logRelay.js"
import { type Relayed, relayFor } from "./rounds.js"
import type * as Sealing from "./sealing.js"
import * as ServerRequests from "./serverRequests.js"
import * as Views from "./views.js"
import { failure } from "./wire.js"

export const VERSION = "2026-07-28"
export const ENVELOPE = "io.modelcontextprotocol/"

/** Methods this revision removed: 404 with -32601, as for an unknown method. */
const REMOVED = new Set(["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"])

/** Results a client may cache: they carry `ttlMs` and `cacheScope`. */
const CACHEABLE = new Set([
  "tools/list",
  "resources/list",
  "resources/templates/list",
  "prompts/list",
  "resources/read"
])

/** The body member `Mcp-Name` mirrors, per method. */
const NAMED: Readonly<Record<string, string>> = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" }

/** The client capability each server request needs. */
const REQUIRED: Readonly<Record<string, string>> = {
  "sampling/createMessage": "sampling",
  "elicitation/create": "elicitation",
  "roots/list": "roots"
}

/** The error for a request that needed capabilities the client did not declare. */
const missing = (required: Record<string, object>) =>
  failure(-32021, `The request needs client capabilities it did not declare: ${Object.keys(required).join(", ")}`, {
    requiredCapabilities: required
  })

/** An HTTP request's headers (lower-case names); a stdio request has none. */
export type Headers = Readonly<Record<string, string | undefined>>

/** What serving a stateless request needs. */
export interface StatelessContext {
  readonly host: McpHost.McpHostService
  /** Seals and opens the `requestState` of input rounds. */
  readonly sealer: Sealing.Sealer
  readonly serverInfo: McpSchema.Implementation
  readonly instructions: string | undefined
  readonly attachments: ServerRequests.AttachmentsService
  /** Tool search (`toolSearch.ts`) instead of every tool in `tools/list`. */
  readonly toolSearch?: boolean
  /** The longest a call may take on a server (`McpGateway.Options.maxCallTime`). */
  readonly maxCallTime?: (server: string) => Duration.DurationInput | undefined
  /** The stateful servers' calls held across input rounds, on this instance. */
  readonly held: HeldCalls.HeldCalls
}

const errorObject = (error: JsonRpcFailure) => ({
  code: error.code,
  message: error.errorMessage,
  ...(error.data === undefined ? {} : { data: error.data })
})

/** A response to send, and the HTTP status it goes with. */
export interface Answer {
  readonly status: number
  readonly message: JsonRpc.JSONRPCResponse
}

const answer = (status: number, id: JsonRpc.RequestId | undefined, error: JsonRpcFailure): Answer => ({
  status,
  message: { jsonrpc: "2.0", ...(id === undefined ? {} : { id }), error: errorObject(error) }
})

const decodeCapabilities = Schema.decodeUnknownEither(McpSchema.ClientCapabilities)

/** The request's envelope, or the error its absence or its revision earns. */
const envelopeOf = (request: JsonRpc.JSONRPCRequest, headers: Headers | undefined) => {
  const meta = McpSchema.isJsonObject(request.params?._meta) ? request.params._meta : {}
  const version = meta[`${ENVELOPE}protocolVersion`]
  const client = meta[`${ENVELOPE}clientCapabilities`]
  if (typeof version !== "string" || !McpSchema.isJsonObject(client)) {
    return Either.left(
      failure(JsonRpc.ErrorCode.InvalidParams, "The request's _meta must carry protocolVersion and clientCapabilities")
    )
  }
  const named = NAMED[request.method]
  const name = named === undefined ? undefined : request.params?.[named]
  const mismatch =
    headers === undefined
      ? undefined
      : headers["mcp-protocol-version"] !== version
        ? "MCP-Protocol-Version"
        : headers["mcp-method"]?.trim() !== request.method
          ? "Mcp-Method"
          : typeof name === "string" && headers["mcp-name"]?.trim() !== name
            ? "Mcp-Name"
            : undefined
  if (mismatch !== undefined) {
    return Either.left(failure(-32020, `The ${mismatch} header does not match the request`))
  }
  if (version !== VERSION) {
    return Either.left(
      failure(-32022, `Unsupported protocol version ${version}`, {
        requested: version,
        supported: [VERSION, ...ProtocolVersion.STATEFUL]
      })
    )
  }
  const logLevel = meta[McpSchema.MetaKey.logLevel]
  if (logLevel !== undefined && !isLevel(logLevel)) {
    return Either.left(failure(JsonRpc.ErrorCode.InvalidParams, `Invalid log level: ${JSON.stringify(logLevel)}`))
  }
  return Either.mapBoth(decodeCapabilities(client), {
    onLeft: (error) =>
      failure(
        JsonRpc.ErrorCode.InvalidParams,
        `Invalid clientCapabilities: ${ParseResult.TreeFormatter.formatErrorSync(error)}`
      ),
    onRight: (capabilities) => ({ version, capabilities, logLevel })
  })
}

const isLevel = Schema.is(McpSchema.LoggingLevel)

/** The log level a 2026-07-28 request asks its logs at (none: it gets no log message). */
export const logLevelOf = (request: JsonRpc.JSONRPCRequest): McpSchema.LoggingLevel | undefined => {
  const level = McpSchema.isJsonObject(request.params?._meta)
    ? request.params._meta[McpSchema.MetaKey.logLevel]
    : undefined
  return isLevel(level) ? level : undefined
}

/** A result as this revision sends it. */
const completed = (method: string, result: Peer.WireObject, serverInfo: McpSchema.Implementation): Peer.WireObject => ({
  ...result,
  resultType: result.resultType === "input_required" ? "input_required" : "complete",
  _meta: { ...(McpSchema.isJsonObject(result._meta) ? result._meta : {}), [`${ENVELOPE}serverInfo`]: serverInfo },
  ...(CACHEABLE.has(method) ? { ttlMs: result.ttlMs ?? 0, cacheScope: result.cacheScope ?? "private" } : {})
})

/** `server/discover`'s result (MCP Apps declared when a server offers it now). */
const discover = (context: StatelessContext, apps: boolean): Peer.WireObject => ({
  supportedVersions: [VERSION, ...ProtocolVersion.STATEFUL],
  capabilities: {
    ...capabilities,
    resources: { subscribe: true, listChanged: true },
    ...(apps ? { extensions: Views.extension } : {})
  },
  serverInfo: context.serverInfo,
  ...(context.instructions === undefined ? {} : { instructions: context.instructions }),
  ttlMs: 0,
  cacheScope: "private"
})

/** What one run of a request needs besides its relay. */
interface Run {
  readonly context: StatelessContext
  /** What the client declared in the request's envelope. */
  readonly capabilities: McpSchema.ClientCapabilities
  readonly inFlight: InFlight.InFlight
  readonly notify: HeldCalls.Notify
  /** The request's logs: its calls' own, at the level it asked for (none when it asked for none). */
  readonly logs: LogRelay.Options & { readonly asked: boolean }
}

/**
 * Starts one run of a request through the catalog, in a fiber of the instance's (it may be held
 * between rounds): the servers' input requests go to the relay; an input request the client did
 * not declare the capability for is noted, for -32021.
 */
const start = (
  message: JsonRpc.JSONRPCRequest,
  run: Run,
  relayed: Relayed | undefined
): Effect.Effect<HeldCalls.Run | undefined> =>
  Effect.gen(function* () {
    const { context, capabilities, inFlight, logs } = run
    const { id, method } = message
    const relay = relayed?.relay
    const sink = yield* Ref.make(run.notify)
    const notify: HeldCalls.Notify = (notification) => Effect.flatMap(Ref.get(sink), (send) => send(notification))
    const handler = Catalog.handlers({
      host: context.host,
      version: VERSION,
      notify: (notification, params) => notify({ jsonrpc: "2.0", method: notification, params }),
      inFlight,
      toolSearch: context.toolSearch === true,
      ...(context.maxCallTime === undefined ? {} : { maxCallTime: context.maxCallTime }),
      clientCapabilities: capabilities,
      logs: LogRelay.own(logs),
      ...(relayed?.continues === undefined ? {} : { continues: relayed.continues }),
      // Each request is a caller of its own: over a server that cannot tell callers apart, it has
      // the shared session alone or a pooled one of the server's own.
      lane: (yield* context.attachments.pool(context.host)).lane()
    }).get(method)
    if (handler === undefined) return undefined
    const required: Record<string, object> = {}
    const attached: ServerRequests.Attached = {
      client: { version: VERSION, capabilities },
      inFlight,
      undeclared: (asked) => {
        required[REQUIRED[asked] ?? asked] = {}
      },
      request: (asked, params, from) =>
        relay === undefined
          ? Effect.fail(
              failure(JsonRpc.ErrorCode.InternalError, `${asked} cannot be asked of a ${VERSION} client here`)
            )
          : relay.request(asked, params, from)
    }
    const call = Effect.acquireUseRelease(
      Ref.update(context.attachments.attached, (all) => [attached, ...all]),
      () => handler({ id, method, params: message.params }).pipe(ServerRequests.servingFor(attached, id)),
      () => Ref.update(context.attachments.attached, (all) => all.filter((entry) => entry !== attached))
    )
    const fiber = yield* context.held.fork(call)
    return { fiber, relay, required, sink, stop: Effect.asVoid(Fiber.interrupt(fiber)) }
  })

/**
 * The answer of a run: its result; or, once its relay has collected a request without an answer,
 * `input_required` (the run held when a stateful server's requests wait in it, stopped otherwise).
 */
const settle = (id: JsonRpc.RequestId, method: string, running: HeldCalls.Run, context: StatelessContext) => {
  const { fiber, relay, required } = running
  // A request without an answer ends the wait once the round's other requests are collected too
  // (they are asked side by side, each reaching the relay before anything else happens).
  const collected = relay?.needed.pipe(Effect.zipRight(Effect.repeatN(Effect.yieldNow(), 20)), Effect.as(undefined))
  // Awaited, not joined: the run's fiber refs (its first request's context) stay its own.
  const ended = Effect.map(Effect.flatten(Fiber.await(fiber)), (result) => ({ result }))
  return (collected === undefined ? ended : Effect.raceFirst(ended, collected)).pipe(
    // The client went away: a run not held is stopped.
    Effect.onInterrupt(() => running.stop),
    Effect.flatMap((outcome) =>
      Effect.gen(function* () {
        if (Object.keys(required).length > 0) return yield* Effect.zipRight(running.stop, missing(required))
        if (outcome !== undefined || relay === undefined) {
          return { jsonrpc: "2.0" as const, id, result: completed(method, outcome?.result ?? {}, context.serverInfo) }
        }
        const now = yield* Clock.currentTimeMillis
        const server = relay.holding()
        const held =
          server === undefined ? undefined : { instance: context.held.instance, id: crypto.randomUUID(), server }
        if (held === undefined) yield* running.stop
        else yield* context.held.hold(held.id, running, InputRelay.LIFETIME_MS)
        const result = yield* relay.inputRequired(now, held)
        return { jsonrpc: "2.0" as const, id, result: completed(method, result, context.serverInfo) }
      })
    ),
    Effect.catchAll((error) => {
      const refusedFirst = Object.keys(required).length > 0 ? missing(required) : error
      return Effect.succeed({ jsonrpc: "2.0" as const, id, error: errorObject(refusedFirst) })
    }),
    Effect.map(
      (response): Answer => ({
        status: "error" in response && response.error.code === -32021 ? 400 : 200,
        message: response
      })
    )
  )
}

/** One run of a request (or the held call it continues, its answers given), to its answer. */
const runOnce = (message: JsonRpc.JSONRPCRequest, run: Run, relayed: Relayed | undefined): Effect.Effect<Answer> =>
  Effect.gen(function* () {
    const { id, method } = message
    const continued = relayed?.resumes
    if (continued !== undefined) {
      yield* Ref.set(continued.sink, run.notify)
      const responses = McpSchema.isJsonObject(message.params?.inputResponses) ? message.params.inputResponses : {}
      yield* continued.relay?.resume(responses) ?? Effect.void
      return yield* settle(id, method, continued, run.context)
    }
    const running = yield* start(message, run, relayed)
    if (running === undefined) {
      return answer(404, id, failure(JsonRpc.ErrorCode.MethodNotFound, `Method not found: ${method}`))
    }
    return yield* settle(id, method, running, run.context)
  })

/**
 * Answers one stateless request (not `subscriptions/listen`, see `listen.ts`); `notify` sends
 * what relates to it meanwhile (progress).
 */
export const respond = (
  message: JsonRpc.JSONRPCRequest,
  headers: Headers | undefined,
  context: StatelessContext,
  notify: HeldCalls.Notify
): Effect.Effect<Answer> =>
  Effect.gen(function* () {
    const { id, method } = message
    if (REMOVED.has(method)) {
      return answer(404, id, failure(JsonRpc.ErrorCode.MethodNotFound, `${method} does not exist at ${VERSION}`))
    }
    const envelope = envelopeOf(message, headers)
    if (Either.isLeft(envelope)) return answer(400, id, envelope.left)
    if (method === "server/discover") {
      return {
        status: 200,
        message: {
          jsonrpc: "2.0",
          id,
          result: completed(method, discover(context, yield* Views.offered(context.host)), context.serverInfo)
        }
      }
    }
    const relayed = InputRelay.RELAYED.has(method) ? yield* relayFor(message, headers, context) : undefined
    if (relayed instanceof JsonRpcFailure) return answer(200, id, relayed)
    const inFlight = InFlight.make()
    // Log messages only for a request that asked for them, those of its own call, on its stream.
    const level = envelope.right.logLevel
    const logs = {
      send: (params: LogRelay.LogParams) => notify({ jsonrpc: "2.0", method: "notifications/message", params }),
      ownCallsOnly: true,
      level: () => level,
      asked: level !== undefined
    }
    const once = (relaying: Relayed | undefined) =>
      runOnce(message, { context, capabilities: envelope.right.capabilities, inFlight, notify, logs }, relaying)
    const run = Effect.gen(function* () {
      const first = yield* once(relayed)
      const restart = relayed?.restart
      const refused = "error" in first.message && first.message.error.code === JsonRpc.ErrorCode.InvalidParams
      return restart !== undefined && refused ? yield* once(yield* restart) : first
    })
    const logged =
      level === undefined
        ? run
        : Effect.flatMap(context.attachments.fanout(context.host), (fanout) =>
            LogRelay.relay(fanout, inFlight, logs).pipe(Effect.zipRight(run), Effect.scoped)
          )
    return yield* logged
  })

/**
 * Whether a request is for this revision: its `MCP-Protocol-Version` header (HTTP) or its
 * envelope names a revision that is not stateful (an unknown one is then refused, with -32022).
 */
export const isStateless = (
  message: JsonRpc.JSONRPCMessage,
  headers: Headers | undefined
): message is JsonRpc.JSONRPCRequest => {
  if (!JsonRpc.isRequest(message)) return false
  const header = headers?.["mcp-protocol-version"]
  if (header !== undefined) return !ProtocolVersion.isStateful(header)
  const meta = message.params?._meta
  const version = McpSchema.isJsonObject(meta) ? meta[`${ENVELOPE}protocolVersion`] : undefined
  return typeof version === "string" && !ProtocolVersion.isStateful(version)
}
