/**
 * The gateway over Streamable HTTP, independent of the HTTP server: a request (method, URL,
 * headers, a JSON body read on demand) in, a {@link Reply.Reply} out. `StreamableHttpServer`
 * adapts it to `@effect/platform`'s `HttpApp`, `NodeStreamableHttpServer` to `node:http`; both run
 * this one code path.
 *
 * `initialize` opens a session (its id in `Mcp-Session-Id`), each session a gateway connection of
 * its own; a POST that carries requests is answered with an event stream, one that carries only
 * notifications or responses with 202; GET opens the session's stream for what relates to no
 * request, or with `Last-Event-ID` resumes the stream that event was on; DELETE ends the session.
 * A 2026-07-28 request stands alone (`statelessHttp.ts`).
 *
 * Guarded as the specification asks: credentials when any are configured (`auth.ts`: the shared
 * token, API keys, OAuth access tokens; 401 without them), the `Origin` of browsers checked against
 * DNS rebinding (403), unknown sessions 404, a request without its session 400. The caller is a
 * principal (`principal.ts`), set as `CurrentPrincipal` around all the work of its request and of
 * the sessions it opens: a session, like a sealed `requestState`, is its principal's alone (another
 * principal's session id is 404). What it sees and how often it may call is the policy's
 * (`policy.ts`, `guardedHost.ts`); a principal over its request limit is answered 429.
 */
import { McpHost } from "@effect-mcp/host"
import * as Transport from "@effect-mcp/jsonrpc/Transport"
import { JsonRpc, ProtocolVersion } from "@effect-mcp/protocol"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Scope from "effect/Scope"
import * as McpGateway from "../McpGateway.js"
import * as ApiKeys from "./apiKeys.js"
import * as Auth from "./auth.js"
import * as Connection from "./connection.js"
import * as GuardedHost from "./guardedHost.js"
import * as HeldCalls from "./heldCalls.js"
import * as Guards from "./httpGuards.js"
import type * as HttpSession from "./httpSession.js"
import type * as OAuthResource from "./oauthResource.js"
import * as Owned from "./ownedSessions.js"
import * as Policy from "./policy.js"
import * as Principal from "./principal.js"
import * as RateLimit from "./rateLimit.js"
import * as Reply from "./reply.js"
import * as Sealing from "./sealing.js"
import * as ServerRequests from "./serverRequests.js"
import * as SessionTable from "./sessionTable.js"
import * as Stateless from "./statelessHttp.js"
import * as StatelessRequest from "./statelessRequest.js"

/** Where and how the gateway listens. */
export interface Options {
  /** The endpoint's path. Default: `/mcp`. */
  readonly path?: string
  /** Every request must carry `Authorization: Bearer <token>` (or another accepted credential). Default: none (loopback only). */
  readonly token?: string
  /** Callers' API keys (`Authentication.apiKeys`), each caller its own principal, sent as bearer tokens. */
  readonly apiKeys?: ReadonlyArray<ApiKeys.ApiKey>
  /**
   * OAuth access tokens, checked as a resource server (`Authentication.oauth`): its Protected
   * Resource Metadata is served at `/.well-known/oauth-protected-resource` (and the resource's path-suffixed form).
   */
  readonly oauth?: OAuthResource.Verifier
  /**
   * What each principal may see and how often it may call (`AccessPolicy`); the API keys' own rules
   * apply to the names the policy does not list. Default: everything, unlimited.
   */
  readonly policy?: Policy.Policy
  /** Browser origins allowed besides the loopback ones (`http://localhost:*`, `127.0.0.1`, `[::1]`). */
  readonly allowedOrigins?: ReadonlyArray<string>
  /**
   * Browser origins whose pages may call the gateway from another origin (CORS): their preflight is
   * answered and their answers readable, `Mcp-Session-Id` and `MCP-Protocol-Version` exposed. They
   * pass the `Origin` check too. Default: none.
   */
  readonly corsOrigins?: ReadonlyArray<string>
  /**
   * The `Host` names (the port aside) a request may carry, against DNS rebinding: another is 403.
   * Default: any (`NodeStreamableHttpServer.listen` on a loopback address: the loopback names).
   */
  readonly allowedHosts?: ReadonlyArray<string>
  /** How each connection presents the gateway. */
  readonly gateway?: McpGateway.Options
  /**
   * The keys of 2026-07-28 input rounds' `requestState` (the first seals; all open): every instance
   * behind one balancer needs the same. Default: a random key of this process (one instance only).
   */
  readonly sealing?: ReadonlyArray<Sealing.SealingKey>
  /**
   * This instance's name in the `requestState` of the rounds whose stateful servers' calls it holds
   * (a retry elsewhere is refused naming it). Default: a random name.
   */
  readonly instance?: string
  /** The largest request body read; a larger one is answered 413. Default: 10 MiB. */
  readonly maxBodyBytes?: number
  /**
   * How long a 2025-11-25 session's POST with one request waits for its response, which then is its
   * JSON answer, before it opens its event stream. Default: 1 second.
   */
  readonly answerWindow?: Duration.DurationInput
  /**
   * How long a 2025-11-25 session lives with no request of it in progress and no stream of it
   * connected; then it ends (its calls are cancelled) and its id is unknown. Default: 30 minutes.
   */
  readonly sessionIdleTimeout?: Duration.DurationInput
  /**
   * How long a 2025-11-25 session is unused before it is put to rest: its serving stops and what it
   * agreed is kept, so that idle sessions cost little; its next request serves it again. One that
   * holds something open (a subscription, a log level, a task) is not; its GET stream may stay open,
   * and hears what a served session would. Default: 10 seconds.
   */
  readonly sessionDormantAfter?: Duration.DurationInput
  /** The most 2025-11-25 sessions at once: a new one ends the longest idle (503 when all are busy). Default: 10,000. */
  readonly maxSessions?: number
}

/** An HTTP request as the gateway reads it. */
export interface Request {
  readonly method: string
  /** The path and query. */
  readonly url: string
  /** Lower-case names. */
  readonly headers: StatelessRequest.Headers
  /** The body as JSON; fails when it is not JSON, or with {@link BodyTooLarge}. */
  readonly json: Effect.Effect<unknown, unknown>
}

/** The most a request body may hold, unless told: as `@effect/platform`'s Node server allows. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024

/** A request body larger than the adapter reads (answered 413). */
export class BodyTooLarge extends Data.TaggedError("BodyTooLarge")<{ readonly limit: number }> {}

/** The largest body the adapters read. */
export const bodyLimit = (options: Options): number => options.maxBodyBytes ?? MAX_BODY_BYTES

/**
 * A request body read chunk by chunk, up to `limit` bytes: `push` says whether reading should go
 * on (past the limit it should not: nothing more is kept), and `json` is what was read, parsed, or
 * {@link BodyTooLarge}.
 */
export const bodyReader = (limit: number) => {
  const chunks: Array<Uint8Array> = []
  let size = 0
  return {
    push: (chunk: Uint8Array): boolean => {
      size += chunk.length
      if (size > limit) return false
      chunks.push(chunk)
      return true
    },
    json: Effect.suspend((): Effect.Effect<unknown, unknown> => {
      if (size > limit) return Effect.fail(new BodyTooLarge({ limit }))
      const bytes = new Uint8Array(size)
      let at = 0
      for (const chunk of chunks) {
        bytes.set(chunk, at)
        at += chunk.length
      }
      return Effect.try(() => JSON.parse(new TextDecoder().decode(bytes)) as unknown)
    })
  }
}

/** Whether the request says, before it is read, that its body is larger than `limit`. */
export const declaredTooLarge = (headers: StatelessRequest.Headers, limit: number): boolean =>
  Number(headers["content-length"] ?? 0) > limit

/** Answers one HTTP request. */
export type Handler = (request: Request) => Effect.Effect<Reply.Reply>

const SESSION = "mcp-session-id"

/** The name of a `Host` header without its port (see `httpGuards.ts`). */
export const hostName = Guards.hostName

/**
 * Why a batch is refused: JSON-RPC batches left the protocol at 2025-06-18, and `initialize`
 * was never to be batched. `undefined`: an older revision's batch, served.
 */
const batchRefusal = (items: ReadonlyArray<Transport.Incoming>, version: string | undefined): string | undefined => {
  if (items.some((item) => item._tag === "Message" && "method" in item.message && item.message.method === "initialize"))
    return "Invalid request: initialize cannot be part of a batch"
  // A client that sends no revision header speaks 2025-03-26 (the header came with 2025-06-18).
  if (
    version !== undefined &&
    (!ProtocolVersion.isSupported(version) || ProtocolVersion.isAtLeast(version, "2025-06-18"))
  )
    return `Invalid request: batches are not part of MCP ${version}`
  return undefined
}

/** A POST the gateway cannot read or answer as asked: not JSON (415), or accepting neither JSON nor an event stream (406). */
const mediaRefusal = (headers: StatelessRequest.Headers): Reply.Reply | undefined => {
  const type = (headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase()
  if (type !== "application/json") {
    return Reply.refuse(
      415,
      JsonRpc.ErrorCode.InvalidRequest,
      "Unsupported Media Type: the body must be application/json"
    )
  }
  const accept = (headers.accept ?? "").toLowerCase()
  if (!/application\/json|text\/event-stream|\*\/\*/.test(accept)) {
    return Reply.refuse(
      406,
      JsonRpc.ErrorCode.InvalidRequest,
      "Not Acceptable: the client must accept application/json and text/event-stream"
    )
  }
  return undefined
}

const isReply = (value: HttpSession.HttpSession | Reply.Reply): value is Reply.Reply => "_tag" in value

/** The refusals of requests that cannot be read. */
const invalid = (message: string) => Reply.refuse(400, JsonRpc.ErrorCode.InvalidRequest, message)

/** The session's GET stream, or with `Last-Event-ID` the rest of the stream that event was on. */
const get = (session: HttpSession.HttpSession | Reply.Reply, request: Request): Reply.Reply => {
  if (isReply(session)) return session
  const listened = session.listen({
    version: request.headers["mcp-protocol-version"],
    lastEventId: request.headers["last-event-id"]
  })
  switch (listened._tag) {
    case "Stream":
      return Reply.events(listened.events, { [SESSION]: session.id })
    case "Busy":
      return Reply.refuse(409, JsonRpc.ErrorCode.InvalidRequest, "Conflict: this session's stream is already open")
    case "Unknown":
      return invalid(`Bad Request: Last-Event-ID ${listened.lastEventId} is unknown or has expired`)
    case "Finished":
      // The SSE standard's "stop reconnecting": the stream has ended and nothing was missed.
      return Reply.empty(204, { [SESSION]: session.id })
  }
}

/** Ends the session a DELETE names. */
const removeFrom = (owned: Owned.Owned) => (session: HttpSession.HttpSession | Reply.Reply) =>
  isReply(session) ? Effect.succeed(session) : Effect.as(owned.end(session), Reply.empty(200))

/** What a stateless (2026-07-28) request is served with: the guarded host, the sealer, the held calls. */
const statelessContext = (
  options: Options,
  host: McpHost.McpHostService,
  attachments: ServerRequests.AttachmentsService
): Effect.Effect<StatelessRequest.StatelessContext, never, Scope.Scope> =>
  Effect.gen(function* () {
    return {
      host,
      serverInfo: options.gateway?.serverInfo ?? McpGateway.defaultServerInfo,
      instructions: options.gateway?.instructions,
      attachments,
      sealer: yield* Sealing.make(
        options.sealing !== undefined && options.sealing.length > 0 ? options.sealing : [yield* Sealing.localKey]
      ),
      toolSearch: options.gateway?.toolSearch === true,
      ...(options.gateway?.maxCallTime === undefined ? {} : { maxCallTime: options.gateway.maxCallTime }),
      held: yield* HeldCalls.make(options.instance)
    }
  })

/** A POST's body once it is read and checked: its messages, and whether they came as a batch. */
interface PostBody {
  readonly items: ReadonlyArray<Transport.Incoming>
  readonly batch: boolean
}

/**
 * Reads a POST's body and checks it before a session or a stateless request sees it: a media type
 * the gateway reads, JSON within the body limit, messages only, a batch its revision allows and, in
 * a session, a revision the gateway speaks. Left: the refusal.
 */
const readPost = (request: Request): Effect.Effect<Either.Either<PostBody, Reply.Reply>> =>
  Effect.gen(function* () {
    const unreadable = mediaRefusal(request.headers)
    if (unreadable !== undefined) return Either.left(unreadable)
    const body = yield* Effect.either(request.json)
    if (body._tag === "Left") {
      return Either.left(
        body.left instanceof BodyTooLarge
          ? Reply.refuse(413, JsonRpc.ErrorCode.InvalidRequest, `Request body larger than ${body.left.limit} bytes`, {
              connection: "close"
            })
          : Reply.refuse(400, JsonRpc.ErrorCode.ParseError, "Parse error")
      )
    }
    const items = Transport.decodeIncoming(body.right)
    if (items.length === 0 || items.some((item) => item._tag !== "Message")) {
      return Either.left(invalid("Invalid request"))
    }
    const batch = Array.isArray(body.right)
    if (batch) {
      const batchOf = batchRefusal(items, request.headers["mcp-protocol-version"])
      if (batchOf !== undefined) return Either.left(invalid(batchOf))
    }
    // In a session an unknown revision is refused, not taken for a stateless request.
    const version = request.headers["mcp-protocol-version"]
    if (request.headers[SESSION] !== undefined && version !== undefined && !ProtocolVersion.isSupported(version)) {
      return Either.left(Reply.refuse(400, -32022, `Bad Request: unsupported protocol version ${version}`))
    }
    return Either.right({ items, batch })
  })

/**
 * The gateway's handler; sessions live until they are deleted, their client's connection ends, they
 * are idle too long (`sessionTable.ts`) or the scope closes.
 */
export const make = (
  options: Options = {}
): Effect.Effect<Handler, never, Scope.Scope | McpHost.McpHost | ServerRequests.Attachments> =>
  Effect.gen(function* () {
    const path = options.path ?? "/mcp"
    const context = yield* Effect.context<McpHost.McpHost | ServerRequests.Attachments>()
    const credentials: Auth.Credentials = { token: options.token, apiKeys: options.apiKeys, oauth: options.oauth }
    const oauth = options.oauth
    const keyRules = options.apiKeys === undefined ? {} : ApiKeys.rulesOf(options.apiKeys)
    const policy =
      options.policy ?? (Object.keys(keyRules).length > 0 ? Policy.make({ principals: {} }, keyRules) : undefined)
    const limiter = yield* RateLimit.make
    const host = Context.get(context, McpHost.McpHost)
    // Every connection sees the host through the policy, as its principal may.
    const guarded = policy === undefined ? host : GuardedHost.make(host, policy, limiter)
    const stateless = yield* statelessContext(options, guarded, Context.get(context, ServerRequests.Attachments))
    // The servers are followed from the start, before any client can ask to hear them (the host
    // itself: following is no one's in particular).
    yield* stateless.attachments.fanout(host)
    const owned = yield* Owned.make({
      limits: {
        idle: options.sessionIdleTimeout ?? SessionTable.defaultLimits.idle,
        max: options.maxSessions ?? SessionTable.defaultLimits.max,
        dormant: options.sessionDormantAfter ?? SessionTable.defaultLimits.dormant
      },
      serve: (session, resumable) => Connection.serve(session.transport, options.gateway ?? {}, resumable),
      rested: (session) => Connection.rested(session.transport),
      answerWindow: options.answerWindow,
      host: guarded,
      context
    })
    const { open, sessionOf } = owned
    const remove = removeFrom(owned)

    const post = (request: Request, principal: Principal.Principal) =>
      Effect.gen(function* () {
        const read = yield* readPost(request)
        if (Either.isLeft(read)) return read.left
        const { items, batch } = read.right
        const only = items.length === 1 && items[0]?._tag === "Message" ? items[0].message : undefined
        if (only !== undefined && StatelessRequest.isStateless(only, request.headers)) {
          return yield* Stateless.serve(only, request.headers, stateless)
        }
        const opening = items.some(
          (item) => item._tag === "Message" && "method" in item.message && item.message.method === "initialize"
        )
        const session = opening ? yield* open(principal) : yield* sessionOf(request, principal)
        if (isReply(session)) return session
        // JSON for one request, unless the client sent a batch (owed an array) or accepts no JSON.
        const accept = request.headers.accept
        const answerJson =
          !batch && (accept === undefined || accept.includes("application/json") || accept.includes("*/*"))
        const posted = yield* session
          .post(items, request.headers["mcp-protocol-version"], answerJson)
          .pipe(owned.using(session))
        switch (posted._tag) {
          case "Accepted":
            return Reply.empty(202, { [SESSION]: session.id })
          case "Answered":
            return Reply.json(posted.message, 200, { [SESSION]: session.id })
          case "Stream":
            return Reply.events(posted.events, { [SESSION]: session.id })
          case "Closed":
            return Reply.refuse(404, -32001, "Session not found")
        }
      })

    /** A request of an authenticated `principal`, served on its behalf. */
    const serveFor = (request: Request, principal: Principal.Principal): Effect.Effect<Reply.Reply> => {
      // A POST's revision is read with its body (a stateless request's envelope decides).
      const version = request.headers["mcp-protocol-version"]
      if (request.method !== "POST" && version !== undefined && !ProtocolVersion.isStateful(version)) {
        return Effect.succeed(Reply.refuse(400, -32022, `Bad Request: unsupported protocol version ${version}`))
      }
      switch (request.method) {
        case "POST":
          return Effect.flatMap(Guards.overLimit(policy, limiter, principal), (limited) =>
            limited !== undefined ? Effect.succeed(limited) : post(request, principal)
          )
        case "GET":
          return Effect.flatMap(sessionOf(request, principal), (session) =>
            isReply(session) ? Effect.succeed(session) : owned.using(session)(Effect.sync(() => get(session, request)))
          )
        case "DELETE":
          return Effect.flatMap(sessionOf(request, principal), remove)
        default:
          return Effect.succeed(
            Reply.refuse(405, JsonRpc.ErrorCode.InvalidRequest, "Method not allowed", {
              allow: `${Guards.CORS_METHODS}, OPTIONS`
            })
          )
      }
    }

    const guards = Guards.make({
      path,
      allowedHosts: options.allowedHosts,
      allowedOrigins: options.allowedOrigins,
      corsOrigins: options.corsOrigins,
      oauth
    })
    const answer = (request: Request): Effect.Effect<Reply.Reply> => {
      const refused = guards.refusal(request)
      if (refused !== undefined) return Effect.succeed(refused)
      return Auth.authenticate(credentials, request.headers.authorization).pipe(
        Effect.matchEffect({
          onFailure: Effect.succeed,
          onSuccess: (principal) => Principal.within(principal)(serveFor(request, principal))
        })
      )
    }

    return (request: Request): Effect.Effect<Reply.Reply> => Effect.map(answer(request), guards.readable(request))
  })
