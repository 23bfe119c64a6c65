/**
 * One Streamable HTTP transport's link to its server: what it knows of the session (the id the
 * server gave, the negotiated revision, whether the server has answered, whether the transport
 * is closed) and its two requests, a POST of a message and a GET for an event stream, each over
 * the fast route when the transport was given one and it takes the request, else through the
 * `HttpClient`.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type { Inbound } from "@effect-mcp/jsonrpc/Transport"
import { type JsonRpc, McpSchema, ProtocolVersion } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { AuthorizationError } from "../../../auth/AuthError.js"
import { TransportError } from "../../../McpError.js"
import { type Answer, describeCause, fromResponse, requestFailure, withMethod } from "../httpBody.js"
import * as McpHeaders from "../mcpHeaders.js"
import type { HttpRoute, RouteAnswer } from "../route.js"

/** What a POST accepts. */
export const ACCEPT = "application/json, text/event-stream"

/** The id of a request (responses and notifications have none to wait for). */
export const requestId = (message: JsonRpc.JSONRPCMessage): JsonRpc.RequestId | undefined =>
  "method" in message && "id" in message ? message.id : undefined

/** The stateless revision a message speaks, read from its `_meta` (2026-07-28 requests carry it). */
export const statelessVersionOf = (message: JsonRpc.JSONRPCMessage): string | undefined => {
  const params = "params" in message ? message.params : undefined
  const meta = params?._meta
  const version = McpSchema.isJsonObject(meta) ? meta[McpSchema.MetaKey.protocolVersion] : undefined
  return typeof version === "string" && ProtocolVersion.isStateless(version) ? version : undefined
}

/**
 * The session id a stateful message is sent with: the connection's, except for `initialize`,
 * which opens a new session and never carries the one it replaces (a server that forgot it would
 * refuse the very request that recovers from that).
 */
export const sessionFor = (
  connection: Pick<Connection, "sessionId">,
  message: JsonRpc.JSONRPCMessage
): string | undefined => ("method" in message && message.method === "initialize" ? undefined : connection.sessionId)

/** An `HttpClient` whose requests live as long as the scope they run in (`HttpClient.withScope`). */
export type ScopedClient = HttpClient.HttpClient.With<HttpClientError.HttpClientError, Scope.Scope>

/** The session state (mutable: the transport's one place for it) and the requests. */
export interface Connection {
  readonly url: string
  /** The server's name in errors and logs. */
  readonly server: string
  readonly maxBytes: number
  readonly inbound: Inbound
  /** The `HttpClient` (each request scoped), for what never takes the route (`DELETE`). */
  readonly client: ScopedClient
  /** The session id the server gave (stateful revisions). */
  sessionId: string | undefined
  protocolVersion: string | undefined
  /** Whether the server has answered any request with a 2xx. */
  answeredOnce: boolean
  /** The session the GET listener is open for. */
  listening: string | undefined
  closed: boolean
  /** The headers of a stateful message (with the session id `sessionFor` gives it). */
  readonly headersFor: (
    accept: string,
    extra?: Readonly<Record<string, string>>,
    message?: JsonRpc.JSONRPCMessage
  ) => Record<string, string>
  /** The headers of a 2026-07-28 message: version, method and name from the message itself; no session. */
  readonly statelessHeaders: (
    version: string,
    message: JsonRpc.JSONRPCMessage,
    extra: Readonly<Record<string, string>> | undefined
  ) => Record<string, string>
  readonly httpError: (
    reason: string,
    extra?: { readonly status?: number; readonly cause?: unknown; readonly retryAfter?: number }
  ) => TransportError
  /** What an answer says about the session: any 2xx is an answer; a new session id is kept (not at 2026-07-28). */
  readonly observe: (answer: Answer, stateless: string | undefined) => void
  /** A POST that failed before any answer. */
  readonly postFailed: (cause: unknown) => TransportError
  /** POSTs `message` with `headers`; the answer is released with the scope. */
  readonly execute: (
    message: JsonRpc.JSONRPCMessage,
    headers: Readonly<Record<string, string>>
  ) => Effect.Effect<Answer, TransportError | AuthorizationError, Scope.Scope>
  /** A GET for an event stream (with `extra` headers); fails with a clause naming `what`. */
  readonly get: (what: string, extra?: Record<string, string>) => Effect.Effect<Answer, string, Scope.Scope>
}

/** The connection to `url` through `client`, and over `route` when there is one. */
export const make = (options: {
  readonly url: string
  readonly server: string
  readonly maxBytes: number
  readonly headers: { readonly [name: string]: string } | undefined
  readonly inbound: Inbound
  readonly client: ScopedClient
  readonly route: HttpRoute | undefined
}): Connection => {
  const { url, server, client, route } = options

  /**
   * A request over the fast route, its answer released with the scope; `undefined` when there
   * is no route or it declined (or authorization took over after a refusal). Fails with the
   * platform's error.
   */
  const viaRoute = (
    method: "GET" | "POST",
    headers: Readonly<Record<string, string>>,
    body: string | undefined
  ): Effect.Effect<RouteAnswer | undefined, unknown, Scope.Scope> => {
    if (route === undefined) return Effect.succeed(undefined)
    const sent = Effect.async<RouteAnswer | undefined, unknown>((resume) => {
      const abort = route.request(method, url, headers, body, {
        onAnswer: (answer) => resume(Effect.succeed(answer)),
        onError: (cause) => resume(Effect.fail(cause)),
        onRefused: () => resume(Effect.succeed(undefined))
      })
      if (abort === undefined) return resume(Effect.succeed(undefined))
      return Effect.sync(abort)
    })
    return Effect.uninterruptibleMask((restore) =>
      Effect.tap(restore(sent), (answer) =>
        answer === undefined ? Effect.void : Effect.addFinalizer(() => Effect.sync(answer.release))
      )
    )
  }

  const connection: Connection = {
    url,
    server,
    maxBytes: options.maxBytes,
    inbound: options.inbound,
    client,
    sessionId: undefined,
    protocolVersion: undefined,
    answeredOnce: false,
    listening: undefined,
    closed: false,
    headersFor: (accept, extra = {}, message) => {
      const session = message === undefined ? connection.sessionId : sessionFor(connection, message)
      return {
        ...options.headers,
        accept,
        ...(session === undefined ? {} : { "mcp-session-id": session }),
        ...(connection.protocolVersion === undefined ? {} : { "mcp-protocol-version": connection.protocolVersion }),
        ...extra
      }
    },
    statelessHeaders: (version, message, extra) => {
      const method = "method" in message ? message.method : undefined
      const name =
        method === undefined ? undefined : McpHeaders.nameOf(method, "params" in message ? message.params : undefined)
      return {
        ...options.headers,
        accept: ACCEPT,
        "mcp-protocol-version": version,
        ...(method === undefined ? {} : { "mcp-method": method }),
        ...(name === undefined ? {} : { "mcp-name": name }),
        ...extra
      }
    },
    httpError: (reason, extra = {}) => new TransportError({ server, reason, ...extra }),
    observe: (answer, stateless) => {
      if (answer.status >= 200 && answer.status < 300) connection.answeredOnce = true
      const newSession = answer.headers["mcp-session-id"]
      // 2026-07-28 has no sessions: a session id in its answers means nothing.
      if (stateless === undefined && newSession !== undefined && newSession !== "") connection.sessionId = newSession
    },
    postFailed: (cause) =>
      connection.httpError(`POST ${url} failed: ${describeCause(cause) ?? "the request failed"}`, { cause }),
    execute: (message, headers) => {
      const body = JSON.stringify(message)
      const viaClient = client
        .execute(
          HttpClientRequest.post(url).pipe(
            HttpClientRequest.setHeaders(headers),
            HttpClientRequest.bodyText(body, "application/json")
          )
        )
        .pipe(
          Effect.mapError((error: HttpClientError.HttpClientError) =>
            error.cause instanceof AuthorizationError
              ? withMethod(error.cause, "method" in message ? message.method : undefined)
              : connection.httpError(requestFailure(`POST ${url}`, error), { cause: error })
          ),
          Effect.map(fromResponse)
        )
      return Effect.flatMap(Effect.mapError(viaRoute("POST", headers, body), connection.postFailed), (answer) =>
        answer === undefined ? viaClient : Effect.succeed(answer)
      )
    },
    get: (what, extra = {}) => {
      const headers = connection.headersFor("text/event-stream", extra)
      return Effect.flatMap(
        Effect.mapError(
          viaRoute("GET", headers, undefined),
          (cause) => `${what} failed: ${describeCause(cause) ?? "the request failed"}`
        ),
        (answer) =>
          answer !== undefined
            ? Effect.succeed(answer)
            : client
                .execute(HttpClientRequest.get(url).pipe(HttpClientRequest.setHeaders(headers)))
                .pipe(Effect.mapBoth({ onFailure: (error) => requestFailure(what, error), onSuccess: fromResponse }))
      )
    }
  }
  return connection
}
