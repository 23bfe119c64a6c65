/** Decorations the normal Effect way, each recording what passes through it before passing it on. */
import { Features, Session } from "@effect-mcp/client"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** A `Session` whose `execute` records each request's method, over the `Session` in context. */
export const recordingSession = (seen: Array<string>) =>
  Layer.effect(
    Session.Session,
    Effect.map(Session.Session, (session) => ({
      ...session,
      execute: (request: Session.Prepared) =>
        Effect.zipRight(
          Effect.sync(() => seen.push(request.method)),
          session.execute(request)
        )
    }))
  )

/** `Features.Tools` whose `call` records each tool's name, over the `Tools` in context. */
export const recordingTools = (calls: Array<string>) =>
  Layer.effect(
    Features.Tools,
    Effect.map(
      Features.Tools,
      (tools): Features.ToolsService => ({
        ...tools,
        call: (name, args, options) =>
          Effect.zipRight(
            Effect.sync(() => calls.push(name)),
            tools.call(name, args, options)
          )
      })
    )
  )
