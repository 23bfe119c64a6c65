/**
 * Resources over the session: the listing (cached until the server says it changed, or for its
 * `ttlMs` at 2026-07-28), templates and reads. (Subscriptions are the session's, and their updates
 * a notification stream: the client offers them without building this part.)
 */
import type { McpSchema } from "@effect-mcp/protocol"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { RequestError } from "../../McpError.js"
import type { McpClientService } from "../api.js"
import { request } from "../session/request.js"
import type { SessionService as Session } from "../session/types.js"
import { toRequestOptions } from "./callOptions.js"
import * as Lists from "./lists.js"

/** The resources part of a client. */
export interface Resources {
  readonly list: Lists.CachedList<McpSchema.Resource>
  readonly stream: Stream.Stream<McpSchema.Resource, RequestError>
  readonly templates: McpClientService["resourceTemplates"]
  readonly read: McpClientService["readResource"]
}

/** Builds the resources part over a session. */
export const make = (session: Session): Effect.Effect<Resources, never, Scope.Scope> =>
  Effect.gen(function* () {
    const stream = Lists.paginate(
      session.server,
      "resources/list",
      (cursor) => request(session, "resources/list", cursor === undefined ? undefined : { cursor }),
      (result) => result.resources
    )
    const list = yield* Lists.cachedList(
      stream,
      Effect.sync(() => session.freshness("resources/list"))
    )
    const templates = Lists.paginate(
      session.server,
      "resources/templates/list",
      (cursor) => request(session, "resources/templates/list", cursor === undefined ? undefined : { cursor }),
      (result) => result.resourceTemplates
    )
    return {
      list,
      stream,
      templates: Effect.map(Stream.runCollect(templates), Chunk.toReadonlyArray),
      read: (uri, options) =>
        request(session, "resources/read", { uri }, toRequestOptions(options, session.established().protocolVersion))
    }
  })
