/**
 * Requests of an extension's methods (`skills/list`, `skills/get`), which the method table, and
 * so the session's `request`, does not hold. They go over the session's peer as the session's
 * dialect sends any request: only once the session is ready; at 2026-07-28 with the `_meta`
 * envelope (revision, client capabilities with every declared extension, client info); a
 * result that is not `complete` is refused; the result is decoded with the extension's Schema.
 * Unlike table requests they are not retried after an HTTP session expired (the request fails
 * with a TransportError; the next table request re-initializes the session).
 */
import { McpSchema, ProtocolVersion } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as SubscriptionRef from "effect/SubscriptionRef"
import { DecodeError, type RequestError, SessionUnavailable, TransportError } from "../../McpError.js"
import type * as Peer from "../../Peer.js"
import type { Session } from "../session/session.js"
import * as Stateless from "../session/stateless.js"
import * as TaskExtension from "../session/taskExtension.js"

/** A result decoder (compiled once by the caller: `Schema.decodeUnknownEither(schema)`). */
export type Decode<A> = (input: unknown) => Either.Either<A, ParseResult.ParseError>

/** Sends one extension request and decodes its result. */
export type ExtensionRequest = <A>(
  method: string,
  params: Peer.WireObject | undefined,
  decode: Decode<A>,
  options?: Peer.RequestOptions
) => Effect.Effect<A, RequestError>

/** What the client declared in its handshake (or declares on every 2026-07-28 request). */
export interface Declared {
  readonly capabilities: McpSchema.ClientCapabilities
  readonly clientInfo: McpSchema.Implementation
}

/** The `_meta` envelope of a 2026-07-28 request, its capabilities naming every extension this client declares. */
const envelope = (version: ProtocolVersion.StatelessVersion, declared: Declared): Peer.WireObject => ({
  ...Stateless.envelope(version, declared.capabilities, declared.clientInfo, undefined),
  [McpSchema.MetaKey.clientCapabilities]: {
    ...declared.capabilities,
    extensions: { ...declared.capabilities.extensions, [TaskExtension.EXTENSION]: {} }
  }
})

/** Extension requests over a session. */
export const make =
  (session: Session, declared: Declared): ExtensionRequest =>
  <A>(
    method: string,
    params: Peer.WireObject | undefined,
    decode: Decode<A>,
    options: Peer.RequestOptions = {}
  ): Effect.Effect<A, RequestError> =>
    Effect.gen(function* () {
      const state = yield* SubscriptionRef.get(session.state)
      if (state._tag !== "Ready") {
        return yield* new SessionUnavailable({
          server: session.server,
          reason: state._tag === "Failed" ? state.cause.message : `the session is ${state._tag}`
        })
      }
      const version = session.established().protocolVersion
      const meta = ProtocolVersion.isStateless(version) ? envelope(version, declared) : undefined
      const raw = yield* session.peer
        .request(method, params, meta === undefined ? options : { ...options, meta: { ...options.meta, ...meta } })
        .pipe(
          Effect.catchTags({
            SessionExpired: () =>
              new TransportError({
                server: session.server,
                reason: "the server no longer knows the session (404)",
                status: 404
              }),
            LegacyServer: (signal) =>
              new TransportError({ server: session.server, reason: signal.message, status: signal.status }),
            StreamBroken: (signal) => new TransportError({ server: session.server, reason: signal.reason })
          })
        )
      if (raw.resultType !== undefined && raw.resultType !== "complete") {
        return yield* new DecodeError({
          server: session.server,
          method,
          issue: `unknown resultType ${JSON.stringify(raw.resultType)}`
        })
      }
      const decoded = decode(raw)
      if (Either.isLeft(decoded)) {
        return yield* new DecodeError({
          server: session.server,
          method,
          issue: ParseResult.TreeFormatter.formatErrorSync(decoded.left)
        })
      }
      return decoded.right
    })
