/**
 * The host in a browser page (`effect-mcp ui`): a host of many servers served to a page on this
 * machine, with typed endpoints and one live stream of server-sent events carrying the servers'
 * states, the protocol trace, their consoles and logs, tool calls, what servers ask of the user,
 * and the chat. The page talks only to this server, never to MCP servers: every MCP message goes
 * through the host, so the trace sees all of it and tokens stay here.
 *
 * Why server-sent events and not a WebSocket: everything live flows one way, and the page's
 * intents are plain POSTs with Schema-decoded bodies. The event source reconnects by itself, and on
 * every (re)connection the page fetches `GET /api/state` whole, so nothing depends on replaying
 * events.
 *
 * **When to use**: to give a person a page over the host: an inspector of every server at once,
 * and a chat with a model over all their tools.
 *
 * **Gotchas**:
 * - Provide the HTTP server (`NodeHttpServer.layer(createServer, { host: "127.0.0.1", port })`):
 *   this module never binds by itself, and the guard answers only to the bound name and port.
 * - The host is built here (its transports are observed for the trace, its sampling, elicitation
 *   and roots are answered in the page): give a function from {@link HostParts} to the host's layer.
 * - MCP Apps views are drawn only with `sandbox`: a second HTTP server on another port (so another
 *   origin) for the sandbox proxy; with it the host is told to declare the extension
 *   ({@link HostParts} `mcpApps`), and the page's `frame-src` is that origin.
 * - The page's files are read once, at start, from `pageDir` (the package's `dist/page`, built by
 *   `npm run build`).
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import type { Authorizer, Capabilities, Transports } from "@effect-mcp/client"
import { McpHost } from "@effect-mcp/host"
import type { McpSchema } from "@effect-mcp/protocol"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import type * as Api from "./Api.js"
import * as Apps from "./internal/apps.js"
import * as Authorize from "./internal/authorize.js"
import * as Calls from "./internal/calls.js"
import * as Chat from "./internal/chat.js"
import * as Guard from "./internal/guard.js"
import * as Inputs from "./internal/inputs.js"
import * as Routes from "./internal/routes.js"
import * as Running from "./internal/running.js"
import * as Sandbox from "./internal/sandbox.js"
import * as Servers from "./internal/servers.js"
import * as Trace from "./internal/trace.js"

export type {
  /**
   * The model of the chat, with its name for the page.
   *
   * @since 0.1.0
   * @category models
   */
  ChatModel,
  /**
   * How the chat runs.
   *
   * @since 0.1.0
   * @category options
   */
  ChatOptions
} from "./internal/chat.js"

/**
 * What the host must be built with, for the page to see and answer it.
 *
 * @since 0.1.0
 * @category models
 */
export interface HostParts {
  /** The platform's transports, observed: provide over the platform's own `Transports`. */
  readonly transports: Layer.Layer<Transports.Transports, never, Transports.Transports | HttpClient.HttpClient>
  /** OAuth's interactive step: the user logs in from the page (it must win over any other `Authorizer`). */
  readonly authorizer: Layer.Layer<Authorizer.Authorizer>
  /** The handler services: each server request is answered in the page. */
  readonly handlers: Layer.Layer<Capabilities.Sampling | Capabilities.Elicitation | Capabilities.Roots>
  /**
   * The MCP Apps declaration to give the host (`HostOptions.mcpApps`): set when the page draws
   * views (a sandbox server was given), absent otherwise.
   */
  readonly mcpApps?: true
  /** Give the host `awaitServers: false`: the page comes up while servers connect (or wait for a login). */
  readonly awaitServers: false
}

/**
 * Options of the page's server.
 *
 * @since 0.1.0
 * @category options
 */
export interface WebUiOptions<E, R> {
  /** The host, built with the parts. */
  readonly host: (parts: HostParts) => Layer.Layer<McpHost.McpHost, E, R>
  /** Where the built page is (`index.html`, `assets/`). */
  readonly pageDir: string
  readonly chat: Chat.ChatOptions
  /** Values never shown in the trace or the consoles (headers' and environment variables' values, tokens). */
  readonly secrets?: ReadonlyArray<string>
  /** The roots the roots editor starts with. Default: none. */
  readonly roots?: ReadonlyArray<McpSchema.Root>
  /** Config files a server added in the page may be saved to. */
  readonly configFiles?: ReadonlyArray<string>
  /** Saves a server added in the page to a config file. Default: saving is refused. */
  readonly save?: (config: McpHost.ServerConfig, file: string) => Effect.Effect<void, { readonly message: string }>
  /**
   * The server that plays a recording back (the CLI runs `effect-mcp replay FILE`), refusing a text
   * that is not a recording. Default: replay is refused.
   */
  readonly replay?: (
    name: string,
    recording: string
  ) => Effect.Effect<McpHost.ServerConfig, { readonly message: string }>
  /** The token (default: a new random one). */
  readonly token?: string
  /** Origins the page may frame, beside the sandbox's. */
  readonly frameOrigins?: ReadonlyArray<string>
  /**
   * A second HTTP server, on another port (so another origin), for the MCP Apps sandbox proxy.
   * With it the host declares the extension and the page draws the servers' views; without it
   * views are not drawn.
   */
  readonly sandbox?: HttpServer.HttpServer
}

/**
 * The running page server.
 *
 * @since 0.1.0
 * @category models
 */
export interface WebUi {
  /** The address to open, with its token. */
  readonly url: string
  readonly token: string
  readonly port: number
  readonly host: McpHost.McpHostService
  /** The sandbox proxy's origin, when there is one. */
  readonly sandboxOrigin?: string
}

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
  json: "application/json",
  woff2: "font/woff2"
}

/** The page's files, read once: path (`/index.html`, `/assets/…`) to type and bytes. */
const readPage = (dir: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const files = new Map<string, { readonly type: string; readonly body: Uint8Array }>()
    if (!(yield* fs.exists(dir))) {
      yield* Effect.logWarning(`the page is not built (no ${dir}): run npm run build`)
      return files
    }
    const names = yield* fs.readDirectory(dir, { recursive: true })
    for (const name of names) {
      const path = `${dir}/${name}`
      if ((yield* fs.stat(path)).type !== "File") continue
      const extension = name.slice(name.lastIndexOf(".") + 1)
      files.set(`/${name.replace(/\\/g, "/")}`, {
        type: TYPES[extension] ?? "application/octet-stream",
        body: yield* fs.readFile(path)
      })
    }
    return files
  }).pipe(Effect.orDie)

const refusal = (status: number, error: string, html: boolean) =>
  html
    ? HttpServerResponse.text(`${error}\n`, { status, contentType: "text/plain; charset=utf-8" })
    : HttpServerResponse.unsafeJson({ error }, { status })

/**
 * Starts the host and serves the page on the context's HTTP server until the scope closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <E, R>(
  options: WebUiOptions<E, R>
): Effect.Effect<
  WebUi,
  E,
  R | Scope.Scope | HttpServer.HttpServer | FileSystem.FileSystem | KeyValueStore.KeyValueStore
> =>
  Effect.gen(function* () {
    const server = yield* HttpServer.HttpServer
    const address = server.address
    const bound = address._tag === "TcpAddress" ? address : { hostname: "127.0.0.1", port: 0 }
    const token = options.token ?? Guard.newToken()
    const guard = Guard.make(token, bound.hostname, bound.port)
    const page = yield* readPage(options.pageDir)

    const events = yield* PubSub.unbounded<Api.Event>()
    const running = yield* Running.make
    const trace = yield* Trace.make(events, options.secrets ?? [])
    // The chat's model, built once: it answers the chat and, when asked, sampling.
    const model = yield* Effect.transposeOption(Option.map(options.chat.model, (chosen) => Layer.build(chosen.layer)))
    const inputs = yield* Inputs.make(events, running.only, options.roots ?? [], model)
    const sandbox = options.sandbox === undefined ? undefined : yield* Sandbox.serve(options.sandbox, guard.origins)
    const shown = bound.hostname.includes(":") ? `[${bound.hostname}]` : bound.hostname
    const origin = `http://${shown}:${bound.port}`
    const authorizations = yield* Authorize.make(events, `${origin}/oauth/callback`)
    const hostContext = yield* Layer.build(
      options.host({
        transports: trace.transports,
        authorizer: authorizations.layer,
        handlers: inputs.handlers,
        awaitServers: false,
        ...(sandbox === undefined ? {} : { mcpApps: true as const })
      })
    )
    const host = Context.get(hostContext, McpHost.McpHost)
    const calls = yield* Calls.make(host, events, running)
    const chat = yield* Chat.make(host, events, running, options.chat, model)
    const apps = yield* Apps.make(host, events, trace, chat)
    yield* Servers.follow(host, events)

    const addServer = (request: Api.AddServer) =>
      Effect.gen(function* () {
        const target: McpHost.ServerConfig["target"] =
          request.target._tag === "Stdio"
            ? { _tag: "Stdio", command: request.target.command, args: request.target.args, env: request.target.env }
            : { _tag: "Http", url: request.target.url, transport: "auto", headers: request.target.headers }
        const preview = Servers.describeTarget(target)
        if (!request.confirm) return { added: false, preview }
        const config: McpHost.ServerConfig = { name: request.name, target }
        if (request.saveTo !== undefined) {
          if (options.save === undefined)
            return yield* Effect.fail({ _tag: "RequestError", message: "saving servers is not offered here" })
          yield* options.save(config, request.saveTo)
        }
        yield* host.add(config)
        return { added: true, preview, ...(request.saveTo === undefined ? {} : { savedTo: request.saveTo }) }
      })

    const replay = (request: Api.Replay) =>
      options.replay === undefined
        ? Effect.fail({ _tag: "RequestError", message: "replaying recordings is not offered here" })
        : options.replay(request.name, request.recording).pipe(
            // What the recording is refused for is the page's input.
            Effect.mapError((error) => ({ _tag: "RequestError", message: error.message })),
            Effect.flatMap(host.add)
          )

    const closing = yield* Deferred.make<void>()
    const api = Routes.router({
      closing,
      replay,
      host,
      events,
      trace,
      inputs,
      calls,
      chat,
      apps,
      sandbox,
      authorizations,
      configFiles: options.configFiles ?? [],
      addServer
    })
    const policy = Guard.contentSecurityPolicy([
      ...(options.frameOrigins ?? []),
      ...(sandbox === undefined ? [] : [sandbox])
    ])
    const secured = (response: HttpServerResponse.HttpServerResponse) =>
      HttpServerResponse.setHeaders(response, {
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
        "x-frame-options": "DENY",
        "content-security-policy": policy
      })

    // The authorization server's redirect back: no token (a cross-site redirect carries no
    // SameSite=Strict cookie), only the state of a login in progress.
    const callback = (request: HttpServerRequest.HttpServerRequest, url: URL) =>
      Effect.gen(function* () {
        const wrongHost = Guard.checkHost(guard, request)
        if (wrongHost !== undefined) return refusal(wrongHost.status, wrongHost.error, true)
        return (yield* authorizations.callback(url.searchParams))
          ? HttpServerResponse.text("Logged in: go back to the page.\n", { contentType: "text/plain; charset=utf-8" })
          : refusal(400, "no login is waiting for this answer (it was used, or it is not this page's)", true)
      })

    const app = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const url = new URL(request.url, "http://page")
      if (url.pathname === "/oauth/callback") return yield* callback(request, url)
      const given = url.pathname === "/" ? (url.searchParams.get("token") ?? undefined) : undefined
      const refused = Guard.check(guard, request, given)
      if (refused !== undefined) return refusal(refused.status, refused.error, !url.pathname.startsWith("/api/"))
      if (given !== undefined)
        return HttpServerResponse.redirect("/", { status: 303 }).pipe(
          HttpServerResponse.unsafeSetCookie(guard.cookie, token, { httpOnly: true, sameSite: "strict", path: "/" })
        )
      if (url.pathname.startsWith("/api/"))
        return yield* api.pipe(
          Effect.catchTag("RouteNotFound", () =>
            Effect.succeed(refusal(404, `no route ${request.method} ${url.pathname}`, false))
          ),
          Effect.map(HttpServerResponse.setHeader("cache-control", "no-store"))
        )
      const file = page.get(url.pathname === "/" ? "/index.html" : url.pathname)
      // Browsers ask for an icon the page does not have.
      if (file === undefined && url.pathname === "/favicon.ico") return HttpServerResponse.empty({ status: 204 })
      if (file === undefined) return refusal(404, "not found", true)
      return HttpServerResponse.uint8Array(file.body, { contentType: file.type })
    }).pipe(Effect.map(secured))

    yield* server.serve(app)
    // Added last, run first when the scope closes: the event streams end, so the HTTP server can close.
    yield* Effect.addFinalizer(() => Deferred.succeed(closing, undefined))
    return {
      url: `${origin}/?token=${token}`,
      token,
      port: bound.port,
      host,
      ...(sandbox === undefined ? {} : { sandboxOrigin: sandbox })
    }
  })
