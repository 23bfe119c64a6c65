/**
 * 2026-07-28 over a peer (stdio): until a client initializes, each request that carries the
 * revision's envelope is answered on its own, as over HTTP; one without it finds no method (-32601),
 * as at a server of the older revisions, so that such a client initializes instead. Once the client
 * initializes, the session's handlers replace these. `subscriptions/listen` sends its
 * acknowledgement and the changes it asked for on the one channel until the client cancels it.
 */
import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import { JsonRpcFailure } from "@effect-mcp/jsonrpc/PeerError"
import { JsonRpc } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Listen from "./listen.js"
import * as Request from "./statelessRequest.js"
import { failure } from "./wire.js"

/** The methods a stateless client may call. */
const METHODS = [
  "server/discover",
  "subscriptions/listen",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
  "completion/complete"
]

/** The handler of one method for stateless requests. */
const handler =
  (peer: Peer.Peer, context: Request.StatelessContext): Peer.RequestHandler =>
  (inbound) => {
    const message: JsonRpc.JSONRPCRequest = {
      jsonrpc: "2.0",
      id: inbound.id,
      method: inbound.method,
      ...(inbound.params === undefined ? {} : { params: inbound.params })
    }
    if (!Request.isStateless(message, undefined)) {
      return Effect.fail(failure(JsonRpc.ErrorCode.MethodNotFound, `Method not found: ${inbound.method}`))
    }
    const notify = (notification: JsonRpc.JSONRPCNotification) =>
      Effect.ignore(peer.notify(notification.method, notification.params))
    if (inbound.method === "subscriptions/listen") {
      return Stream.runForEach(Listen.listen(message, context), notify).pipe(Effect.zipRight(Effect.never))
    }
    return Effect.flatMap(Request.respond(message, undefined, context, notify), ({ message: response }) =>
      "error" in response
        ? Effect.fail(
            new JsonRpcFailure({
              code: response.error.code,
              errorMessage: response.error.message,
              ...(response.error.data === undefined ? {} : { data: response.error.data })
            })
          )
        : Effect.succeed(response.result)
    )
  }

/** Serves stateless requests on `peer` (until the session's handlers replace them). */
export const register = (peer: Peer.Peer, context: Request.StatelessContext): Effect.Effect<void> => {
  const serve = handler(peer, context)
  return Effect.forEach(METHODS, (method) => peer.handle(method, serve), { discard: true })
}
