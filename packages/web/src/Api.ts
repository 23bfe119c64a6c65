/**
 * What the page and the web host say to each other: the Schemas of every request body the page
 * sends and every event the host streams. The host decodes each body with these before it acts;
 * the page imports the types only (no `effect` in its bundle).
 *
 * Routes (every one needs the launch token: the `effect_mcp_ui` cookie that `GET /?token=…` sets,
 * or `Authorization: Bearer <token>`):
 *
 * | route | body | answer |
 * | --- | --- | --- |
 * | `GET /api/state` | | {@link State} |
 * | `GET /api/events` | | server-sent events, each `data:` one {@link Event} |
 * | `GET /api/servers/:server/lists` | | {@link Lists} |
 * | `GET /api/servers/:server/trace` | | `ReadonlyArray<`{@link TraceEntry}`>` |
 * | `GET /api/servers/:server/console` | | `ReadonlyArray<`{@link ConsoleLine}`>` |
 * | `GET /api/servers/:server/exchanges` | | `ReadonlyArray<`{@link ExchangeEntry}`>` |
 * | `GET /api/servers/:server/recording` | | the CLI's record file (newline JSON) |
 * | `POST /api/servers` | {@link AddServer} | {@link AddServerAnswer} |
 * | `POST /api/replay` | {@link Replay} | `{}` |
 * | `POST /api/servers/:server/action` | {@link ServerAction} | `{}` |
 * | `POST /api/servers/:server/call` | {@link CallTool} | {@link CallStarted} |
 * | `POST /api/calls/:callId/cancel` | | `{}` |
 * | `GET /api/servers/:server/tasks` | | {@link Tasks} |
 * | `POST /api/servers/:server/tasks/cancel` | {@link CancelTask} | the task |
 * | `GET /api/servers/:server/skills` | | {@link Skills} |
 * | `POST /api/servers/:server/skills/load` | {@link LoadSkill} | {@link LoadedSkill} |
 * | `POST /api/servers/:server/read` | {@link ReadResource} | the `resources/read` result |
 * | `POST /api/servers/:server/subscribe` | {@link Subscribe} | `{}` |
 * | `POST /api/servers/:server/prompt` | {@link GetPrompt} | the `prompts/get` result |
 * | `POST /api/servers/:server/complete` | {@link Complete} | {@link Completions} |
 * | `POST /api/servers/:server/ping` | | {@link Pinged} |
 * | `POST /api/servers/:server/log-level` | {@link SetLogLevel} | `{}` |
 * | `POST /api/input/:id` | {@link InputAnswer} | `{}` |
 * | `POST /api/roots` | {@link SetRoots} | `{}` |
 * | `POST /api/chat` | {@link ChatSend} | {@link ChatStarted} |
 * | `POST /api/chat/ui-stream` | the AI SDK's chat request (`{ messages }`) | the turn in the AI SDK's UI message stream format |
 * | `POST /api/chat/approve` | {@link ChatApprove} | `{}` |
 * | `POST /api/chat/clear` | | `{}` |
 * | `POST /api/apps/view` | {@link AppOpen} | {@link AppOpened} |
 * | `POST /api/apps/rpc` | {@link AppRpc} | {@link AppRpcAnswer} |
 *
 * `GET /oauth/callback` is where authorization servers send the browser back (see
 * {@link AuthorizationRequest}); it needs no token, only the `state` of a login in progress.
 *
 * A failed request answers with a non-2xx status and an {@link ApiError} body.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * Any JSON value, as the wire gave it (a tool's schema, a result).
 *
 * @since 0.1.0
 * @category models
 */
export const Json = Schema.Unknown

/**
 * A server's status, for a person.
 *
 * @since 0.1.0
 * @category models
 */
export const Status = Schema.Literal("connecting", "ready", "failed", "reconnecting", "stopped")

/**
 * @since 0.1.0
 * @category models
 */
export type Status = typeof Status.Type

/**
 * A server as the page shows it.
 *
 * @since 0.1.0
 * @category models
 */
export const ServerView = Schema.Struct({
  name: Schema.String,
  /** `stdio`, `http`, `sse` or `auto`. */
  transport: Schema.String,
  /** The command line exactly as it runs, or the URL. */
  target: Schema.String,
  enabled: Schema.Boolean,
  status: Status,
  /** One line: `ready (everything 2.0.0)`, `failed: …`. */
  detail: Schema.String,
  /** The failure's message when failed or reconnecting. */
  error: Schema.optional(Schema.String),
  serverInfo: Schema.optional(Schema.Struct({ name: Schema.String, version: Schema.String })),
  protocolVersion: Schema.optional(Schema.String),
  pid: Schema.optional(Schema.Number),
  /** The server's capabilities (from the handshake or `server/discover`). */
  capabilities: Schema.optional(Json),
  instructions: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ServerView = typeof ServerView.Type

/**
 * Whether chat can run, and if not, how to configure it.
 *
 * @since 0.1.0
 * @category models
 */
export const ChatInfo = Schema.Struct({
  available: Schema.Boolean,
  /** `anthropic claude-sonnet-4-5`, … */
  model: Schema.optional(Schema.String),
  /** Without a model: what to set. */
  hint: Schema.optional(Schema.String),
  maxToolCalls: Schema.Number
})

/**
 * @since 0.1.0
 * @category models
 */
export type ChatInfo = typeof ChatInfo.Type

/**
 * A message of the conversation as kept (and persisted) by the host.
 *
 * @since 0.1.0
 * @category models
 */
export const ChatMessage = Schema.Union(
  Schema.TaggedStruct("User", {
    turnId: Schema.String,
    text: Schema.String,
    /** Sent by a server's view (`ui/message`): the server's name. */
    view: Schema.optional(Schema.String)
  }),
  /** One stretch of the model's answer; `part` counts them within the turn (text before a tool call, after it). */
  Schema.TaggedStruct("Assistant", { turnId: Schema.String, part: Schema.Number, text: Schema.String }),
  Schema.TaggedStruct("Tool", {
    turnId: Schema.String,
    callId: Schema.String,
    /** The host-wide tool name. */
    name: Schema.String,
    server: Schema.optional(Schema.String),
    arguments: Json,
    /** Absent while running. */
    result: Schema.optional(Schema.String),
    isError: Schema.optional(Schema.Boolean),
    /** The call's MCP content blocks, when it has them. */
    content: Schema.optional(Json),
    progress: Schema.optional(
      Schema.Struct({
        progress: Schema.Number,
        total: Schema.optional(Schema.Number),
        message: Schema.optional(Schema.String)
      })
    ),
    /** Waiting for the user's approval. */
    awaitingApproval: Schema.optional(Schema.Boolean),
    /** The tool's name on its server. */
    tool: Schema.optional(Schema.String),
    /** The tool's view (MCP Apps), its `ui://` address. */
    view: Schema.optional(Schema.String)
  }),
  Schema.TaggedStruct("Error", { turnId: Schema.String, message: Schema.String }),
  Schema.TaggedStruct("Done", { turnId: Schema.String, toolCalls: Schema.Number, limitReached: Schema.Boolean })
)

/**
 * @since 0.1.0
 * @category models
 */
export type ChatMessage = typeof ChatMessage.Type

/**
 * A request from a server waiting for the user (elicitation, sampling, roots).
 *
 * @since 0.1.0
 * @category models
 */
export const InputRequest = Schema.Struct({
  id: Schema.String,
  server: Schema.String,
  kind: Schema.Literal("elicitation-form", "elicitation-url", "sampling"),
  /** The request's params as the server sent them. */
  params: Json,
  /** The page's call (tool pane) or chat tool call it came during, when known. */
  callId: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type InputRequest = typeof InputRequest.Type

/**
 * An HTTP server asks the user to log in (OAuth): open `url`; the authorization server sends the
 * browser back to the page, which completes the flow.
 *
 * @since 0.1.0
 * @category models
 */
export const AuthorizationRequest = Schema.Struct({ id: Schema.String, server: Schema.String, url: Schema.String })

/**
 * @since 0.1.0
 * @category models
 */
export type AuthorizationRequest = typeof AuthorizationRequest.Type

/**
 * A root offered to the servers (`file://` URI).
 *
 * @since 0.1.0
 * @category models
 */
export const Root = Schema.Struct({
  uri: Schema.String.pipe(Schema.pattern(/^file:\/\//)),
  name: Schema.optionalWith(Schema.String, { exact: true })
})

/**
 * Everything the page needs when it (re)connects.
 *
 * @since 0.1.0
 * @category models
 */
export const State = Schema.Struct({
  servers: Schema.Array(ServerView),
  chat: ChatInfo,
  conversation: Schema.Array(ChatMessage),
  pending: Schema.Array(InputRequest),
  /** Logins the servers are waiting for. */
  authorizations: Schema.Array(AuthorizationRequest),
  /** The roots every server is offered (the page edits them). */
  roots: Schema.Array(Root),
  /** Config files a server may be saved to. */
  configFiles: Schema.Array(Schema.String),
  /** The MCP Apps sandbox proxy's origin (views are drawn only when there is one). */
  sandbox: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type State = typeof State.Type

/**
 * One server's lists; a list that failed has its error instead.
 *
 * @since 0.1.0
 * @category models
 */
export const Lists = Schema.Struct({
  tools: Schema.Array(Json),
  resources: Schema.Array(Json),
  resourceTemplates: Schema.Array(Json),
  prompts: Schema.Array(Json),
  errors: Schema.Record({ key: Schema.String, value: Schema.String })
})

/**
 * @since 0.1.0
 * @category models
 */
export type Lists = typeof Lists.Type

/**
 * One JSON-RPC message of a server's traffic.
 *
 * @since 0.1.0
 * @category models
 */
export const TraceEntry = Schema.Struct({
  server: Schema.String,
  /** Counts from 1 per host. */
  seq: Schema.Number,
  /** Milliseconds since the epoch. */
  t: Schema.Number,
  /** `send`: to the server; `receive`: from it. */
  dir: Schema.Literal("send", "receive"),
  /** The message, secrets masked. */
  message: Json,
  /** Its size in bytes (UTF-8 JSON). */
  size: Schema.Number,
  /** For a response: the milliseconds since its request. */
  latency: Schema.optional(Schema.Number),
  /**
   * Set on a view's traffic (MCP Apps): the view's id. Then `receive` is from the view and `send`
   * to it; such entries are not part of the server's recording.
   */
  view: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type TraceEntry = typeof TraceEntry.Type

/**
 * One HTTP exchange with a server reached over HTTP: the request, its answer's status and
 * headers (secrets masked), the session id and protocol version it carried.
 *
 * @since 0.1.0
 * @category models
 */
export const ExchangeEntry = Schema.Struct({
  server: Schema.String,
  seq: Schema.Number,
  t: Schema.Number,
  method: Schema.String,
  url: Schema.String,
  /** Absent when no answer came (`error` says why). */
  status: Schema.optional(Schema.Number),
  error: Schema.optional(Schema.String),
  requestHeaders: Schema.Record({ key: Schema.String, value: Schema.String }),
  responseHeaders: Schema.Record({ key: Schema.String, value: Schema.String }),
  sessionId: Schema.optional(Schema.String),
  protocolVersion: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ExchangeEntry = typeof ExchangeEntry.Type

/**
 * A line a stdio server wrote to stderr, or a note of the host about it.
 *
 * @since 0.1.0
 * @category models
 */
export const ConsoleLine = Schema.Struct({
  server: Schema.String,
  t: Schema.Number,
  line: Schema.String
})

/**
 * @since 0.1.0
 * @category models
 */
export type ConsoleLine = typeof ConsoleLine.Type

/**
 * What the host streams, as it happens.
 *
 * @since 0.1.0
 * @category models
 */
export const Event = Schema.Union(
  /** The servers, whole, on any change of one. */
  Schema.TaggedStruct("Servers", { servers: Schema.Array(ServerView) }),
  /** A server's tools, resources or prompts changed: fetch its lists again. */
  Schema.TaggedStruct("ListChanged", { server: Schema.String }),
  Schema.TaggedStruct("Trace", { entry: TraceEntry }),
  Schema.TaggedStruct("Exchange", { exchange: ExchangeEntry }),
  Schema.TaggedStruct("Console", { line: ConsoleLine }),
  /** A log message a server sent (`notifications/message`). */
  Schema.TaggedStruct("Log", {
    server: Schema.String,
    t: Schema.Number,
    level: Schema.String,
    logger: Schema.optional(Schema.String),
    data: Json
  }),
  Schema.TaggedStruct("ResourceUpdated", { server: Schema.String, uri: Schema.String }),
  /** A call from a tool pane. */
  Schema.TaggedStruct("CallProgress", {
    callId: Schema.String,
    progress: Schema.Number,
    total: Schema.optional(Schema.Number),
    message: Schema.optional(Schema.String)
  }),
  /** A call run as a task: its task as it changes. */
  Schema.TaggedStruct("CallTask", { callId: Schema.String, server: Schema.String, task: Json }),
  Schema.TaggedStruct("CallEnded", {
    callId: Schema.String,
    outcome: Schema.Literal("result", "error", "cancelled"),
    /** The `tools/call` result (outcome `result`; `isError` may be set in it). */
    result: Schema.optional(Json),
    /** What went wrong (outcome `error`). */
    error: Schema.optional(Schema.String),
    /** The `outputSchema` check of `structuredContent`: `valid`, or why not; absent without a schema. */
    outputCheck: Schema.optional(Schema.String),
    durationMs: Schema.Number
  }),
  Schema.TaggedStruct("Input", { request: InputRequest }),
  Schema.TaggedStruct("InputSettled", { id: Schema.String }),
  Schema.TaggedStruct("Authorization", { request: AuthorizationRequest }),
  Schema.TaggedStruct("AuthorizationSettled", { id: Schema.String }),
  Schema.TaggedStruct("RootsChanged", { roots: Schema.Array(Root) }),
  /** A message of the conversation was added or replaced (same `turnId`, `_tag`, and `callId` or `part`). */
  Schema.TaggedStruct("Chat", { message: ChatMessage }),
  /** An answer's text grew: `text` is appended to the turn's `Assistant` message of this `part`. */
  Schema.TaggedStruct("ChatDelta", { turnId: Schema.String, part: Schema.Number, text: Schema.String }),
  Schema.TaggedStruct("ChatCleared", {})
)

/**
 * @since 0.1.0
 * @category models
 */
export type Event = typeof Event.Type

/**
 * Adds a server. Without `confirm` a stdio server is not started: the answer shows the command
 * line as it would run.
 *
 * @since 0.1.0
 * @category requests
 */
export const AddServer = Schema.Struct({
  name: Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_.-]{1,64}$/)),
  target: Schema.Union(
    Schema.TaggedStruct("Stdio", {
      command: Schema.NonEmptyString,
      args: Schema.Array(Schema.String),
      env: Schema.Record({ key: Schema.String, value: Schema.String })
    }),
    Schema.TaggedStruct("Http", {
      url: Schema.String.pipe(Schema.pattern(/^https?:\/\//)),
      headers: Schema.Record({ key: Schema.String, value: Schema.String })
    })
  ),
  confirm: Schema.Boolean,
  /** Also write it to this config file (one of {@link State}'s `configFiles`, or a new `.mcp.json`). */
  saveTo: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category requests
 */
export type AddServer = typeof AddServer.Type

/**
 * @since 0.1.0
 * @category requests
 */
export const AddServerAnswer = Schema.Struct({
  /** Whether it was added (only with `confirm`). */
  added: Schema.Boolean,
  /** The command line exactly as it runs, or the URL. */
  preview: Schema.String,
  savedTo: Schema.optional(Schema.String)
})

/**
 * Adds a server that plays a recording back (the CLI's record file, `--record FILE` or the
 * trace's Save recording): its answers are the recorded ones.
 *
 * @since 0.1.0
 * @category requests
 */
export const Replay = Schema.Struct({
  name: Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_.-]{1,64}$/)),
  /** The record file's text (newline JSON: a header line, then one line per message). */
  recording: Schema.String.pipe(Schema.maxLength(64 * 1024 * 1024))
})

/**
 * @since 0.1.0
 * @category requests
 */
export type Replay = typeof Replay.Type

/**
 * @since 0.1.0
 * @category requests
 */
export const ServerAction = Schema.Struct({ action: Schema.Literal("connect", "disconnect", "restart", "remove") })

/**
 * @since 0.1.0
 * @category requests
 */
export const CallTool = Schema.Struct({
  tool: Schema.String,
  arguments: Schema.Record({ key: Schema.String, value: Json }),
  /** Run it as a task (a tool that requires it always is). */
  asTask: Schema.optional(Schema.Boolean),
  /** The page's own id for the call (so that events can be matched before the answer arrives). */
  callId: Schema.optional(Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{1,64}$/)))
})

/**
 * @since 0.1.0
 * @category requests
 */
export type CallTool = typeof CallTool.Type

/**
 * @since 0.1.0
 * @category requests
 */
export const CallStarted = Schema.Struct({ callId: Schema.String })

/**
 * The tasks a server keeps for this host (`tasks/list`).
 *
 * @since 0.1.0
 * @category requests
 */
export const Tasks = Schema.Struct({ tasks: Schema.Array(Json) })

/**
 * @since 0.1.0
 * @category requests
 */
export const CancelTask = Schema.Struct({ taskId: Schema.String })

/**
 * A server's skills (the skills extension), from its listing.
 *
 * @since 0.1.0
 * @category requests
 */
export const Skills = Schema.Struct({
  skills: Schema.Array(
    Schema.Struct({ uri: Schema.String, name: Schema.String, description: Schema.String, path: Schema.String })
  )
})

/**
 * Loads a skill by its name, path or `SKILL.md` URI (verified against the listing).
 *
 * @since 0.1.0
 * @category requests
 */
export const LoadSkill = Schema.Struct({ skill: Schema.String })

/**
 * A loaded skill: its instructions and the files it has.
 *
 * @since 0.1.0
 * @category requests
 */
export const LoadedSkill = Schema.Struct({
  uri: Schema.String,
  name: Schema.String,
  instructions: Schema.String,
  files: Schema.Array(Schema.String)
})

/**
 * @since 0.1.0
 * @category requests
 */
export const ReadResource = Schema.Struct({ uri: Schema.String })

/**
 * @since 0.1.0
 * @category requests
 */
export const Subscribe = Schema.Struct({ uri: Schema.String, on: Schema.Boolean })

/**
 * @since 0.1.0
 * @category requests
 */
export const GetPrompt = Schema.Struct({
  name: Schema.String,
  arguments: Schema.Record({ key: Schema.String, value: Schema.String })
})

/**
 * `completion/complete`: `ref` is `{ type: "ref/prompt", name }` or `{ type: "ref/resource", uri }`.
 *
 * @since 0.1.0
 * @category requests
 */
export const Complete = Schema.Struct({
  ref: Schema.Union(
    Schema.Struct({ type: Schema.Literal("ref/prompt"), name: Schema.String }),
    Schema.Struct({ type: Schema.Literal("ref/resource"), uri: Schema.String })
  ),
  argument: Schema.Struct({ name: Schema.String, value: Schema.String }),
  context: Schema.optional(Schema.Struct({ arguments: Schema.Record({ key: Schema.String, value: Schema.String }) }))
})

/**
 * @since 0.1.0
 * @category requests
 */
export const Completions = Schema.Struct({ values: Schema.Array(Schema.String), hasMore: Schema.Boolean })

/**
 * @since 0.1.0
 * @category requests
 */
export const Pinged = Schema.Struct({ ms: Schema.Number })

/**
 * @since 0.1.0
 * @category requests
 */
export const SetLogLevel = Schema.Struct({
  level: Schema.Literal("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
})

/**
 * The user's answer to an {@link InputRequest}: the result to send (an elicitation's
 * `{ action, content }`, a sampling `CreateMessageResult`, roots' `{ roots }`), or a refusal.
 *
 * @since 0.1.0
 * @category requests
 */
export const InputAnswer = Schema.Union(
  Schema.TaggedStruct("Result", { result: Json }),
  Schema.TaggedStruct("Refuse", { message: Schema.String }),
  /** A sampling request answered by the chat's model (404 when there is none). */
  Schema.TaggedStruct("AskModel", {})
)

/**
 * @since 0.1.0
 * @category requests
 */
export type InputAnswer = typeof InputAnswer.Type

/**
 * Replaces the roots every server is offered.
 *
 * @since 0.1.0
 * @category requests
 */
export const SetRoots = Schema.Struct({ roots: Schema.Array(Root) })

/**
 * @since 0.1.0
 * @category requests
 */
export const ChatSend = Schema.Struct({ text: Schema.NonEmptyString })

/**
 * @since 0.1.0
 * @category requests
 */
export const ChatStarted = Schema.Struct({ turnId: Schema.String })

/**
 * @since 0.1.0
 * @category requests
 */
export const ChatApprove = Schema.Struct({ callId: Schema.String, allow: Schema.Boolean })

/**
 * The body of a failed request.
 *
 * @since 0.1.0
 * @category errors
 */
export const ApiError = Schema.Struct({ error: Schema.String })

/**
 * Opens a tool's view (MCP Apps): the host reads the `ui://` resource from the server (cached per
 * server and address) and gives the page an id for the view's messages.
 *
 * @since 0.1.0
 * @category requests
 */
export const AppOpen = Schema.Struct({
  server: Schema.String,
  uri: Schema.String.pipe(Schema.startsWith("ui://")),
  /** The tool the view is shown for. */
  tool: Schema.String
})

/**
 * @since 0.1.0
 * @category requests
 */
export type AppOpen = typeof AppOpen.Type

/**
 * An opened view: its id, its HTML (for the sandbox proxy only, never the page's DOM) and what its
 * resource declares.
 *
 * @since 0.1.0
 * @category requests
 */
export const AppOpened = Schema.Struct({
  view: Schema.String,
  html: Schema.String,
  /** The declared CSP domains (`_meta.ui.csp`). */
  csp: Schema.optional(Json),
  permissions: Schema.optional(Json),
  prefersBorder: Schema.optional(Schema.Boolean),
  /** The Content-Security-Policy the view is loaded under. */
  policy: Schema.String
})

/**
 * @since 0.1.0
 * @category requests
 */
export type AppOpened = typeof AppOpened.Type

/**
 * One JSON-RPC message of a view: `from: "view"` (the default) what the view sent, which the host
 * decodes with the extension's Schemas, records in the server's trace and executes; `from: "page"`
 * what the page sent the view, recorded only.
 *
 * @since 0.1.0
 * @category requests
 */
export const AppRpc = Schema.Struct({
  view: Schema.String,
  message: Json,
  from: Schema.optional(Schema.Literal("view", "page"))
})

/**
 * @since 0.1.0
 * @category requests
 */
export type AppRpc = typeof AppRpc.Type

/**
 * What to do with a view's message: `Response`, send this JSON-RPC response to the view (the host
 * executed the request, or refused it); `Page`, the page handles it (the handshake, display modes,
 * sizes, links after consent, answers to the page's own requests), `message` as decoded; `Done`,
 * nothing more.
 *
 * @since 0.1.0
 * @category requests
 */
export const AppRpcAnswer = Schema.Union(
  Schema.TaggedStruct("Response", { response: Json }),
  Schema.TaggedStruct("Page", { message: Json }),
  Schema.TaggedStruct("Done", {})
)

/**
 * @since 0.1.0
 * @category requests
 */
export type AppRpcAnswer = typeof AppRpcAnswer.Type
