/**
 * A server's requests (sampling, elicitation, roots) passed on to the gateway's client: the host's
 * handler services, answering each request by asking the client whose call it belongs to (the one
 * that started the task it belongs to, else the one whose call the server is in: the gateway's
 * client relates a server's request to its call by the call's stream, or because only that
 * client's calls are in flight to the server, and runs it with that call's {@link Served} as its
 * `RequestOrigin`), and decoding its answer with the revision that client speaks. A request outside
 * any call, or one the server made while several clients' calls were in flight and it cannot say
 * which it is for, goes to no client: it is refused, naming the server and why. A client that did
 * not declare the capability is not asked: the server gets -32601, as that client would have answered.
 */
import { Capabilities } from "@effect-mcp/client"
import type { McpHost } from "@effect-mcp/host"
import * as Peer from "@effect-mcp/jsonrpc/Peer"
import { JsonRpcFailure } from "@effect-mcp/jsonrpc/PeerError"
import { JsonRpc, McpSchema, Methods, type ProtocolVersion } from "@effect-mcp/protocol"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as ParseResult from "effect/ParseResult"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import * as Fanout from "./fanout.js"
import { Caller, type InFlight, relatedTo, Served } from "./inflight.js"
import * as Lanes from "./lanes.js"
import { failure } from "./wire.js"

/**
 * The server that asks, its own name for the request (a 2026-07-28 server's input key), the
 * server's task the request belongs to, if any, and a 2026-07-28 server's `requestState` of the
 * round that asks.
 */
export interface Asker {
  readonly server: string
  readonly requestId: JsonRpc.RequestId
  readonly relatedTaskId?: string | undefined
  readonly requestState?: string | undefined
}

/** A client of the gateway, as far as the servers' requests are concerned. */
export interface Attached {
  /** The revision it speaks and what it declared. */
  readonly client: {
    readonly version: ProtocolVersion.ProtocolVersion
    readonly capabilities: McpSchema.ClientCapabilities
  }
  readonly inFlight: InFlight
  /** Told when a server asked for what it did not declare (a stateless request then fails with -32021). */
  readonly undeclared?: (method: string) => void
  /** The id it knows a server's task by, when the task is one it started. */
  readonly taskIdOf?: (server: string, taskId: string) => string | undefined
  /** Asks it (a request to a stateful client; a stateless one cannot be asked mid-call). */
  readonly request: (
    method: string,
    params: Peer.WireObject | undefined,
    from: Asker | undefined
  ) => Effect.Effect<Peer.WireObject, JsonRpcFailure>
}

/** How a stateful client connected over `peer` is asked. */
export const askPeer =
  (peer: Peer.Peer): Attached["request"] =>
  (method, params) =>
    peer
      .request(method, params, { timeout: "1 hour" })
      .pipe(
        Effect.mapError((error) =>
          error._tag === "RpcError"
            ? failure(error.code, error.errorMessage, error.data)
            : failure(
                JsonRpc.ErrorCode.InternalError,
                `The gateway's client did not answer ${method}: ${error.message}`
              )
        )
      )

/**
 * What the gateway's connections share: the clients, newest first (where the servers' requests
 * go), how many connections subscribe to each server's resource (the server's one session is
 * unsubscribed when the last of them leaves), and the log level each connection set (the servers'
 * sessions are set to the most verbose of them; each connection hears its own level).
 */
export interface AttachmentsService {
  readonly attached: Ref.Ref<ReadonlyArray<Attached>>
  readonly subscribers: Map<string, number>
  /** Held while the servers' standing requests change (a resource's holders and its (un)subscribe, the shared log level): one change at a time. */
  readonly subscribing: Effect.Semaphore
  readonly levels: Map<object, McpSchema.LoggingLevel>
  /** Who is on each server's shared session now (`lanes.ts`). */
  readonly lanes: Lanes.Shared
  /** The connections' fan-out of what the host's servers send, made on first use and kept with these attachments. */
  readonly fanout: (host: McpHost.McpHostService) => Effect.Effect<Fanout.Fanout>
  /**
   * The sessions of the servers' own that callers of one request each (2026-07-28) borrow when
   * the shared one is another's (`lanes.ts`), made on first use and kept with these attachments.
   */
  readonly pool: (host: McpHost.McpHostService) => Effect.Effect<Lanes.Pool>
}

/** The gateway's shared state. */
export class Attachments extends Context.Tag("@effect-mcp/gateway/Attachments")<Attachments, AttachmentsService>() {}

/** An empty set of attachments; the fan-out, once made, lives as long as the layer. */
export const layerAttachments: Layer.Layer<Attachments> = Layer.scoped(
  Attachments,
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    // Made on first use (a gateway with no 2026-07-28 caller has no pool, one with no client no
    // fan-out), then kept with the attachments.
    const once = <A>(make: (host: McpHost.McpHostService) => Effect.Effect<A, never, Scope.Scope>) =>
      Effect.map(Effect.makeSemaphore(1), (lock) => {
        let made: A | undefined
        return (host: McpHost.McpHostService) =>
          made !== undefined
            ? Effect.succeed(made)
            : lock.withPermits(1)(
                Effect.suspend(() =>
                  made !== undefined
                    ? Effect.succeed(made)
                    : Effect.tap(Scope.extend(make(host), scope), (value) => {
                        made = value
                      })
                )
              )
      })
    const lanes: Lanes.Shared = new Map()
    return {
      attached: yield* Ref.make<ReadonlyArray<Attached>>([]),
      subscribers: new Map<string, number>(),
      subscribing: yield* Effect.makeSemaphore(1),
      levels: new Map<object, McpSchema.LoggingLevel>(),
      lanes,
      fanout: yield* once(Fanout.make),
      pool: yield* once((host) => Lanes.pool(host, lanes))
    }
  })
)

/** Adds a client to `attachments` for as long as the scope lives. */
export const attach = (
  attachments: Ref.Ref<ReadonlyArray<Attached>>,
  attached: Attached
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    Ref.update(attachments, (all) => [attached, ...all]),
    () => Ref.update(attachments, (all) => all.filter((entry) => entry !== attached))
  )

type Forwarded = "sampling/createMessage" | "elicitation/create" | "roots/list"

export { Caller, Served } from "./inflight.js"

/** Serves `effect` as the work of `attached`'s request `request` (see {@link Caller}). */
export const servingFor = (attached: Attached, request: JsonRpc.RequestId) => {
  const served = new Served(attached, request)
  return <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.provideService(effect, Caller, served)
}

/** The call a server's request is made in: its own fiber's, else the one its origin names. */
const servedNow = Effect.map(Effect.zip(Caller, Peer.RequestOrigin), ([caller, origin]) => ({
  served: caller ?? (origin instanceof Served ? origin : undefined),
  /** Made in the call's own fiber (a 2026-07-28 server's input request), not only related to it. */
  inFiber: caller !== undefined
}))

/**
 * The client a server's request is for: a task's, the task's; else the client whose call it was
 * made in. One made outside any call, or in one of several clients' calls that the server does not
 * say, is no client's: no client may see another's requests.
 */
const targetOf = (
  all: ReadonlyArray<Attached>,
  from: Asker | undefined,
  method: string,
  caller: Served | undefined
): Attached | JsonRpcFailure => {
  const server = from?.server ?? "a server"
  const task = from?.relatedTaskId
  if (from !== undefined && task !== undefined) {
    // A task's request goes to the client that started the task, and to no other.
    const owner = all.find((entry) => entry.taskIdOf?.(from.server, task) !== undefined)
    return (
      owner ??
      failure(JsonRpc.ErrorCode.InternalError, `${method} from ${server} is for task ${task}, whose client has gone`)
    )
  }
  if (caller !== undefined) {
    return all.includes(caller.attached)
      ? caller.attached
      : failure(JsonRpc.ErrorCode.InternalError, `${method} from ${server} is for a call whose client has gone`)
  }
  const calling = from === undefined ? [] : all.filter((entry) => entry.inFlight.latest(from.server) !== undefined)
  return failure(
    JsonRpc.ErrorCode.InternalError,
    calling.length > 1
      ? `${method} from ${server} cannot be routed: ${calling.length} of the gateway's clients have calls in flight to it and it does not say which call it is for`
      : `${method} from ${server} was made outside any call of the gateway's clients: the gateway asks a client only within its own call`,
    { server: from?.server, method }
  )
}

/** The params as the client is asked them: a task's request names the task by the client's id for it. */
const forClient = <P extends { readonly _meta?: { readonly [key: string]: unknown } | undefined }>(
  target: Attached,
  from: Asker | undefined,
  params: P
): P => {
  const taskId = from?.relatedTaskId === undefined ? undefined : target.taskIdOf?.(from.server, from.relatedTaskId)
  return taskId === undefined
    ? params
    : { ...params, _meta: { ...params._meta, [McpSchema.RELATED_TASK_META_KEY]: { taskId } } }
}

/** Asks the client the request is for (if it can answer `method`), and decodes its answer. */
const ask = <M extends Forwarded>(
  attachments: Ref.Ref<ReadonlyArray<Attached>>,
  from: Asker | undefined,
  method: M,
  params: Methods.RequestParamsOf<M> | undefined,
  declared: (capabilities: McpSchema.ClientCapabilities) => boolean
): Effect.Effect<Methods.ResultOf<M>, JsonRpcFailure> =>
  Effect.gen(function* () {
    const server = from?.server
    const { served: caller, inFiber } = yield* servedNow
    const target = targetOf(yield* Ref.get(attachments), from, method, caller)
    if (target instanceof JsonRpcFailure) return yield* target
    if (!declared(target.client.capabilities)) {
      // The client's request fails for it only when the server asked during that client's call; a
      // roots/list not made in the call itself (a server asks for roots when it likes, after its
      // handshake say, and is only taken for a call's by timing) is the server's own business: -32601.
      const inCall = method !== "roots/list" || inFiber
      if (inCall && server !== undefined && target.inFlight.latest(server) !== undefined) target.undeclared?.(method)
      return yield* failure(JsonRpc.ErrorCode.MethodNotFound, `The gateway's client does not support ${method}`)
    }
    const version = target.client.version
    const encoded =
      params === undefined
        ? Either.right(undefined)
        : Methods.encodeRequestParams(method, forClient(target, from, params), version)
    if (Either.isLeft(encoded) || (encoded.right !== undefined && !McpSchema.isJsonObject(encoded.right))) {
      return yield* failure(JsonRpc.ErrorCode.InvalidParams, `The ${method} request cannot be sent at ${version}`)
    }
    // With the call it was made in, else with the client's newest call to that server.
    const related =
      caller?.attached === target ? caller.request : server === undefined ? undefined : target.inFlight.latest(server)
    const answer = yield* target.request(method, encoded.right, from).pipe(relatedTo(related))
    const decoded = Methods.decodeResult(method, answer, version)
    if (Either.isLeft(decoded)) {
      const why = ParseResult.TreeFormatter.formatErrorSync(decoded.left)
      return yield* failure(JsonRpc.ErrorCode.InternalError, `The gateway's client answered ${method} wrongly: ${why}`)
    }
    return decoded.right
  })

/** A `roots/list` passed on to the client it is for. */
const rootsFor = (attachments: Ref.Ref<ReadonlyArray<Attached>>, from: Asker | undefined) =>
  Effect.map(
    ask(attachments, from, "roots/list", undefined, (capabilities) => capabilities.roots !== undefined),
    (result) => result.roots
  )

/** The host's handler services, each passing the request on to the connected client. */
export const layer: Layer.Layer<
  Capabilities.Sampling | Capabilities.Elicitation | Capabilities.Roots,
  never,
  Attachments
> = Layer.unwrapEffect(
  Effect.map(Attachments, ({ attached: attachments }) =>
    Layer.mergeAll(
      Layer.succeed(Capabilities.Sampling, {
        createMessage: (params, context) =>
          ask(
            attachments,
            context,
            "sampling/createMessage",
            params,
            (capabilities) => capabilities.sampling !== undefined
          ),
        tools: true,
        context: true
      }),
      Layer.succeed(Capabilities.Elicitation, {
        form: (params, context) =>
          ask(
            attachments,
            context,
            "elicitation/create",
            params,
            (capabilities) =>
              capabilities.elicitation !== undefined &&
              (capabilities.elicitation.form !== undefined || capabilities.elicitation.url === undefined)
          ),
        url: (params, context) =>
          ask(
            attachments,
            context,
            "elicitation/create",
            params,
            (capabilities) => capabilities.elicitation?.url !== undefined
          )
      }),
      Layer.succeed(Capabilities.Roots, {
        list: rootsFor(attachments, undefined),
        listFor: (context) => rootsFor(attachments, context)
      })
    )
  )
)
