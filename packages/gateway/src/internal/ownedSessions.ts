/**
 * The gateway's 2025-11-25 HTTP sessions as their principals own them: one is opened for a
 * principal and served on its behalf until it ends (or the gateway's scope closes), and a request
 * finds a session only when its principal opened it (another's is answered as unknown, 404).
 */
import { McpHost } from "@effect-mcp/host"
import { JsonRpc } from "@effect-mcp/protocol"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import type * as Scope from "effect/Scope"
import * as HttpSession from "./httpSession.js"
import * as Observe from "./observe.js"
import * as Principal from "./principal.js"
import * as Reply from "./reply.js"
import type * as ServerRequests from "./serverRequests.js"
import type * as SessionTable from "./sessionTable.js"
import type * as StatelessRequest from "./statelessRequest.js"

const SESSION = "mcp-session-id"

/** What the sessions are opened with. */
export interface OwnedOptions {
  readonly sessions: SessionTable.SessionTable
  /** Serves the gateway on a session's transport (until the scope it is given closes). */
  readonly serve: (
    session: HttpSession.HttpSession
  ) => Effect.Effect<void, never, McpHost.McpHost | ServerRequests.Attachments | Scope.Scope>
  /** How long a POST waits to answer with JSON before it streams (`HttpSession.make`). */
  readonly answerWindow: Parameters<typeof HttpSession.make>[2]
  /** The host as the principals see it (through the policy). */
  readonly host: McpHost.McpHostService
  readonly context: Context.Context<McpHost.McpHost | ServerRequests.Attachments>
  /** The gateway's scope: every session ends with it. */
  readonly scope: Scope.Scope
}

/** Opening sessions and finding them for their owner. */
export interface Owned {
  /** A new session of `principal`, served on its behalf; 503 when there is no room. */
  readonly open: (principal: Principal.Principal) => Effect.Effect<HttpSession.HttpSession | Reply.Reply>
  /** The session a request of `principal` names: 400 without one, 404 for one it does not own. */
  readonly sessionOf: (
    request: { readonly headers: StatelessRequest.Headers },
    principal: Principal.Principal
  ) => Effect.Effect<HttpSession.HttpSession | Reply.Reply>
}

/** The owned sessions of a gateway. */
export const make = (options: OwnedOptions): Owned => {
  const { sessions, scope } = options
  // What a session does owes its principal nothing more: it is bound to it.
  const owners = new WeakMap<HttpSession.HttpSession, string>()

  const open: Owned["open"] = (principal) =>
    Effect.gen(function* () {
      const session = HttpSession.make(crypto.randomUUID(), undefined, options.answerWindow)
      if (!(yield* sessions.add(session))) {
        return Reply.refuse(503, JsonRpc.ErrorCode.InternalError, "Too many sessions: try again later", {
          "retry-after": "10"
        })
      }
      owners.set(session, Principal.binding(principal))
      yield* Metric.increment(Observe.sessions)
      yield* options.serve(session).pipe(
        Effect.scoped,
        Effect.ensuring(
          Effect.zipRight(
            Effect.sync(() => sessions.remove(session.id)),
            Effect.zipRight(session.close, Metric.incrementBy(Observe.sessions, -1))
          )
        ),
        Effect.provideService(McpHost.McpHost, options.host),
        Effect.provide(options.context),
        Principal.within(principal),
        // An HTTP server may run its handlers uninterruptibly, and a fork inherits that: the
        // session must stop when the gateway's scope closes.
        Effect.interruptible,
        Effect.forkIn(scope)
      )
      return session
    })

  const sessionOf: Owned["sessionOf"] = (request, principal) => {
    const id = request.headers[SESSION]
    if (id === undefined)
      return Effect.succeed(
        Reply.refuse(400, JsonRpc.ErrorCode.InvalidRequest, "Bad Request: Mcp-Session-Id is missing")
      )
    return Effect.map(sessions.get(id), (session) =>
      session !== undefined && owners.get(session) === Principal.binding(principal)
        ? session
        : Reply.refuse(404, -32001, "Session not found")
    )
  }

  return { open, sessionOf }
}
