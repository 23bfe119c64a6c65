/** Prompts over the session: the listing (cached like the others), prompts filled in, and argument completion. */
import type { McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { McpClientService } from "../api.js"
import { request } from "../session/request.js"
import type { SessionService as Session } from "../session/types.js"
import { toRequestOptions } from "./callOptions.js"
import * as Lists from "./lists.js"

/** The prompts part of a client. */
export interface Prompts {
  readonly list: Lists.CachedList<McpSchema.Prompt>
  readonly get: McpClientService["getPrompt"]
  /** Completions of a prompt's or resource template's argument. */
  readonly complete: McpClientService["complete"]
}

/** Builds the prompts part over a session. */
export const make = (session: Session): Effect.Effect<Prompts, never, Scope.Scope> =>
  Effect.gen(function* () {
    const list = yield* Lists.cachedList(
      Lists.paginate(
        session.server,
        "prompts/list",
        (cursor) => request(session, "prompts/list", cursor === undefined ? undefined : { cursor }),
        (result) => result.prompts
      ),
      Effect.sync(() => session.freshness("prompts/list"))
    )
    return {
      list,
      get: (name, args, options) =>
        request(
          session,
          "prompts/get",
          args === undefined ? { name } : { name, arguments: args },
          toRequestOptions(options, session.established().protocolVersion)
        ),
      complete: (params) => Effect.map(request(session, "completion/complete", params), (result) => result.completion)
    }
  })
