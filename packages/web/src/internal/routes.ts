/**
 * The HTTP routes of the page (see the table in `Api.ts`): every body decoded with its Schema
 * before anything runs, every failure an {@link Api.ApiError} with a status that says whose it is
 * (400 bad input, 404 unknown, 409 refused now, 502 the server failed).
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { McpHost } from "@effect-mcp/host"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Api from "../Api.js"
import type { Apps } from "./apps.js"
import type { Authorizations } from "./authorize.js"
import type { Calls } from "./calls.js"
import type { Chat } from "./chat.js"
import type { Inputs } from "./inputs.js"
import * as Servers from "./servers.js"
import type { Trace } from "./trace.js"
import * as UiStream from "./uiStream.js"

/** Everything the routes use. */
export interface Parts {
  readonly host: McpHost.McpHostService
  readonly events: PubSub.PubSub<Api.Event>
  readonly trace: Trace
  readonly inputs: Inputs
  readonly calls: Calls
  readonly chat: Chat
  readonly authorizations: Authorizations
  /** Done when the page's server stops: its long-lived answers end then. */
  readonly closing: Deferred.Deferred<void>
  readonly apps: Apps
  /** The MCP Apps sandbox proxy's origin, when there is one. */
  readonly sandbox: string | undefined
  readonly configFiles: ReadonlyArray<string>
  /** Adds a server that plays a recording back. */
  readonly replay: (request: Api.Replay) => Effect.Effect<void, { readonly message: string }>
  /** Adds a server (and saves it when asked); answers with what it did. */
  readonly addServer: (
    request: Api.AddServer
  ) => Effect.Effect<typeof Api.AddServerAnswer.Type, { readonly message: string }>
}

const failure = (status: number, error: string) => HttpServerResponse.unsafeJson({ error }, { status })

/** The status of a failure, by its tag. */
const statusOf = (error: { readonly _tag?: string }) => {
  switch (error._tag) {
    case "ParseError":
    case "RequestError":
      return 400
    case "UnknownServer":
    case "UnknownInput":
    case "NotFound":
      return 404
    case "ChatRefused":
    case "DuplicateServer":
    case "ServerUnavailable":
      return 409
    default:
      return 502
  }
}

const answer = <A, E extends { readonly _tag?: string; readonly message: string }, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.map((value) => HttpServerResponse.unsafeJson(value ?? {})),
    Effect.catchAll((error) => Effect.succeed(failure(statusOf(error), error.message)))
  )

const serverParam = Effect.map(
  HttpRouter.schemaPathParams(Schema.Struct({ server: Schema.String })),
  (params) => params.server
)

const body = <A, I>(schema: Schema.Schema<A, I>) => HttpServerRequest.schemaBodyJson(schema)

/** The server-sent events: every {@link Api.Event} as it happens, a comment every 15 s to keep the connection. */
const eventStream = (parts: Parts) =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const subscription = yield* PubSub.subscribe(parts.events)
      const servers = yield* Servers.views(parts.host)
      const encoder = new TextEncoder()
      const frame = (event: Api.Event) => encoder.encode(`data: ${JSON.stringify(event)}\n\n`)
      return Stream.concat(
        Stream.make(encoder.encode(": connected\n\n"), frame({ _tag: "Servers", servers })),
        Stream.merge(
          Stream.map(Stream.fromQueue(subscription), frame),
          Stream.map(Stream.fromSchedule(Schedule.spaced("15 seconds")), () => encoder.encode(": keep-alive\n\n"))
        )
      ).pipe(
        // Ends when the page's server stops: an open stream would keep the HTTP server from closing.
        Stream.interruptWhen(Deferred.await(parts.closing))
      )
    })
  )

/** A server's client, by the route's `:server`, once it is ready. */
const clientOf = (host: McpHost.McpHostService) => Effect.flatMap(serverParam, host.client)

/** The page's state and events, a server's lists and traces, and servers added, acted on and called. */
const pageRoutes = (parts: Parts) => {
  const { host, trace, calls, chat, inputs } = parts
  return HttpRouter.empty.pipe(
    HttpRouter.get(
      "/api/state",
      answer(
        Effect.gen(function* () {
          return {
            servers: yield* Servers.views(host),
            chat: chat.info,
            conversation: yield* chat.conversation,
            pending: yield* inputs.pending,
            authorizations: yield* parts.authorizations.pending,
            roots: yield* inputs.roots,
            configFiles: parts.configFiles,
            ...(parts.sandbox === undefined ? {} : { sandbox: parts.sandbox })
          } satisfies Api.State
        })
      )
    ),
    HttpRouter.get(
      "/api/events",
      Effect.succeed(
        HttpServerResponse.stream(eventStream(parts), {
          contentType: "text/event-stream",
          headers: { "cache-control": "no-store", "x-accel-buffering": "no" }
        })
      )
    ),
    HttpRouter.get("/api/servers/:server/lists", answer(Effect.flatMap(clientOf(host), Servers.lists))),
    HttpRouter.get("/api/servers/:server/trace", answer(Effect.flatMap(serverParam, trace.entries))),
    HttpRouter.get("/api/servers/:server/console", answer(Effect.flatMap(serverParam, trace.lines))),
    HttpRouter.get("/api/servers/:server/exchanges", answer(Effect.flatMap(serverParam, trace.exchanges))),
    HttpRouter.get(
      "/api/servers/:server/recording",
      Effect.gen(function* () {
        const server = yield* serverParam
        const text = yield* trace.recording(server)
        return HttpServerResponse.text(text, {
          contentType: "application/x-ndjson",
          headers: {
            "content-disposition": `attachment; filename="${server.replace(/[^\w.-]/g, "_")}.mcp-recording.jsonl"`
          }
        })
      }).pipe(Effect.catchAll((error) => Effect.succeed(failure(400, error.message))))
    ),
    HttpRouter.post("/api/servers", answer(Effect.flatMap(body(Api.AddServer), parts.addServer))),
    HttpRouter.post("/api/replay", answer(Effect.flatMap(body(Api.Replay), parts.replay))),
    HttpRouter.post(
      "/api/servers/:server/action",
      answer(
        Effect.flatMap(Effect.zip(serverParam, body(Api.ServerAction)), ([server, { action }]) =>
          Servers.act(host, server, action)
        )
      )
    ),
    HttpRouter.post(
      "/api/servers/:server/call",
      answer(
        Effect.flatMap(Effect.zip(serverParam, body(Api.CallTool)), ([server, call]) =>
          Effect.map(calls.start(server, call), (callId) => ({ callId }))
        )
      )
    ),
    HttpRouter.post(
      "/api/calls/:callId/cancel",
      answer(
        Effect.flatMap(HttpRouter.schemaPathParams(Schema.Struct({ callId: Schema.String })), ({ callId }) =>
          calls.cancel(callId)
        )
      )
    )
  )
}

/** The requests sent to a server's client: tasks, skills, resources, prompts, completions, ping, log level. */
const clientRoutes = (parts: Parts) => {
  const client = clientOf(parts.host)
  return HttpRouter.empty.pipe(
    HttpRouter.get(
      "/api/servers/:server/tasks",
      answer(Effect.flatMap(client, (mcp) => Effect.map(mcp.tasks.list, (tasks) => ({ tasks }))))
    ),
    HttpRouter.post(
      "/api/servers/:server/tasks/cancel",
      answer(Effect.flatMap(Effect.zip(client, body(Api.CancelTask)), ([mcp, { taskId }]) => mcp.tasks.cancel(taskId)))
    ),
    HttpRouter.get(
      "/api/servers/:server/skills",
      answer(
        Effect.flatMap(client, (mcp) =>
          mcp.skills.list.pipe(
            Effect.map((skills) => ({
              skills: skills.map(({ uri, name, description, path }) => ({ uri, name, description, path }))
            })),
            // A server without the extension has no skills.
            Effect.catchTag("CapabilityNotSupported", () => Effect.succeed({ skills: [] }))
          )
        )
      )
    ),
    HttpRouter.post(
      "/api/servers/:server/skills/load",
      answer(
        Effect.flatMap(Effect.zip(client, body(Api.LoadSkill)), ([mcp, { skill }]) =>
          Effect.map(mcp.skills.load(skill), (loaded) => ({
            uri: loaded.skill.uri,
            name: loaded.skill.name,
            instructions: loaded.instructions,
            files: loaded.files
          }))
        )
      )
    ),
    HttpRouter.post(
      "/api/servers/:server/read",
      answer(Effect.flatMap(Effect.zip(client, body(Api.ReadResource)), ([mcp, { uri }]) => mcp.readResource(uri)))
    ),
    HttpRouter.post(
      "/api/servers/:server/subscribe",
      answer(
        Effect.flatMap(Effect.zip(client, body(Api.Subscribe)), ([mcp, { uri, on }]) =>
          on ? mcp.subscribe(uri) : mcp.unsubscribe(uri)
        )
      )
    ),
    HttpRouter.post(
      "/api/servers/:server/prompt",
      answer(
        Effect.flatMap(Effect.zip(client, body(Api.GetPrompt)), ([mcp, { name, arguments: args }]) =>
          mcp.getPrompt(name, args)
        )
      )
    ),
    HttpRouter.post(
      "/api/servers/:server/complete",
      answer(
        Effect.flatMap(Effect.zip(client, body(Api.Complete)), ([mcp, params]) =>
          Effect.map(
            mcp.complete({
              ref: params.ref,
              argument: params.argument,
              ...(params.context === undefined ? {} : { context: params.context })
            }),
            (completion) => ({ values: completion.values, hasMore: completion.hasMore === true })
          )
        )
      )
    ),
    HttpRouter.post(
      "/api/servers/:server/ping",
      answer(
        Effect.flatMap(client, (mcp) =>
          Effect.suspend(() => {
            const started = Date.now()
            return Effect.map(mcp.ping(), () => ({ ms: Date.now() - started }))
          })
        )
      )
    ),
    HttpRouter.post(
      "/api/servers/:server/log-level",
      answer(
        Effect.flatMap(Effect.zip(client, body(Api.SetLogLevel)), ([mcp, { level }]) => mcp.setLoggingLevel(level))
      )
    )
  )
}

/** The user's answers to a server's questions, the roots, the chat and the MCP Apps views. */
const userRoutes = (parts: Parts) => {
  const { inputs, chat } = parts
  return HttpRouter.empty.pipe(
    HttpRouter.post(
      "/api/input/:id",
      answer(
        Effect.flatMap(
          Effect.zip(HttpRouter.schemaPathParams(Schema.Struct({ id: Schema.String })), body(Api.InputAnswer)),
          ([{ id }, given]) => inputs.answer(id, given)
        )
      )
    ),
    HttpRouter.post("/api/roots", answer(Effect.flatMap(body(Api.SetRoots), ({ roots }) => inputs.setRoots(roots)))),
    HttpRouter.post(
      "/api/chat",
      answer(Effect.flatMap(body(Api.ChatSend), ({ text }) => Effect.map(chat.send(text), (turnId) => ({ turnId }))))
    ),
    HttpRouter.post(
      "/api/chat/ui-stream",
      Effect.gen(function* () {
        const text = UiStream.lastUserText(yield* body(UiStream.UiRequest))
        if (text === undefined) return failure(400, "the last user message has no text")
        const chunks = Stream.interruptWhen(
          yield* UiStream.stream(parts.events, chat, text),
          Deferred.await(parts.closing)
        )
        return HttpServerResponse.stream(chunks, {
          contentType: "text/event-stream",
          headers: { "cache-control": "no-store", "x-vercel-ai-ui-message-stream": "v1" }
        })
      }).pipe(Effect.catchAll((error) => Effect.succeed(failure(statusOf(error), error.message))))
    ),
    HttpRouter.post(
      "/api/chat/approve",
      answer(Effect.flatMap(body(Api.ChatApprove), ({ callId, allow }) => chat.approve(callId, allow)))
    ),
    HttpRouter.post("/api/chat/clear", answer(chat.clear)),
    HttpRouter.post("/api/apps/view", answer(Effect.flatMap(body(Api.AppOpen), parts.apps.open))),
    HttpRouter.post("/api/apps/rpc", answer(Effect.flatMap(body(Api.AppRpc), parts.apps.rpc)))
  )
}

/** The API's router. */
export const router = (parts: Parts) => HttpRouter.concatAll(pageRoutes(parts), clientRoutes(parts), userRoutes(parts))
