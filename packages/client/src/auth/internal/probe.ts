/**
 * Whether a server wants authorization, asked the way the MCP specification says a client
 * learns it: an `initialize` request without credentials, which a protected server answers
 * 401 (or 403) with a `WWW-Authenticate` challenge; a legacy HTTP+SSE server is asked with the
 * GET of its event stream (at once for `sse`, after a 404 or 405 for `auto`). A server that
 * answers anything else needs none; a session it opened for the probe is ended at once
 * (`DELETE`).
 */
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { ProtocolVersion } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import { AuthorizationError } from "../AuthError.js"
import * as Challenge from "../Challenge.js"
import type { Requester } from "./oauthHttp.js"

/** What the server answered the request without credentials. */
export type Probed =
  | {
      readonly _tag: "Challenged"
      readonly status: number
      readonly challenge: Challenge.Challenge["params"] | undefined
    }
  | { readonly _tag: "Open"; readonly status: number }

const initialize = (clientName: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: ProtocolVersion.LATEST_STATEFUL,
      capabilities: {},
      clientInfo: { name: clientName, version: "0" }
    }
  })

/** Which HTTP transport the server speaks, as the transports name them. */
export type ProbedTransport = "auto" | "http" | "sse"

/** Sends `initialize` to `serverUrl` without credentials (with the caller's own `headers`), or the legacy GET. */
export const probe = (
  requester: Requester,
  serverUrl: string,
  settings: {
    readonly headers: Record<string, string>
    readonly clientName: string
    readonly transport: ProbedTransport
  }
): Effect.Effect<Probed, AuthorizationError> =>
  Effect.scoped(
    Effect.gen(function* () {
      const { headers } = settings
      const send = (request: HttpClientRequest.HttpClientRequest) =>
        requester.client.execute(HttpClientRequest.setHeaders(request, headers)).pipe(
          Effect.timeout(requester.limits.timeout),
          Effect.mapError(
            (cause) =>
              new AuthorizationError({
                server: requester.server,
                step: "discovery",
                reason: `${serverUrl} could not be reached`,
                cause
              })
          )
        )
      const legacy = HttpClientRequest.get(serverUrl).pipe(HttpClientRequest.setHeader("accept", "text/event-stream"))
      const first =
        settings.transport === "sse"
          ? yield* send(legacy)
          : yield* send(
              HttpClientRequest.post(serverUrl).pipe(
                HttpClientRequest.setHeader("accept", "application/json, text/event-stream"),
                HttpClientRequest.bodyText(initialize(settings.clientName), "application/json")
              )
            )
      const response =
        settings.transport === "auto" && (first.status === 404 || first.status === 405) ? yield* send(legacy) : first
      if (response.status === 401 || response.status === 403)
        return {
          _tag: "Challenged",
          status: response.status,
          challenge: Challenge.bearer(response.headers["www-authenticate"])
        } as const
      const session = response.headers["mcp-session-id"]
      if (session !== undefined)
        yield* send(HttpClientRequest.del(serverUrl).pipe(HttpClientRequest.setHeader("mcp-session-id", session))).pipe(
          Effect.ignore
        )
      return { _tag: "Open", status: response.status } as const
    })
  )
