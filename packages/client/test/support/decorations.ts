/** Decorations the normal Effect way, each recording what passes through it before passing it on. */
import { Features, McpClient, Session } from "@effect-mcp/client"
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

/** An `McpClient` whose `callTool` and `request` record each tool's name or method, over the client in context. */
export const recordingClient = (calls: Array<string>) =>
  Layer.effect(
    McpClient.McpClient,
    Effect.map(
      McpClient.McpClient,
      (client): McpClient.McpClientService => ({
        ...client,
        callTool: (name, args, options) =>
          Effect.zipRight(
            Effect.sync(() => calls.push(name)),
            client.callTool(name, args, options)
          ),
        request: (method, params, options) =>
          Effect.zipRight(
            Effect.sync(() => calls.push(method)),
            client.request(method, params, options)
          )
      })
    )
  )
