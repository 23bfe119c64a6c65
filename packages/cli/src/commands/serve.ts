/**
 * `effect-mcp serve`: every configured server behind one MCP server (`@effect-mcp/gateway`), over
 * stdio for an editor or agent to launch, or with `--port` over Streamable HTTP. On stdio, stdout
 * carries only the protocol; notes and logs go to stderr. The servers' sampling, elicitation and
 * roots requests are asked of the client whose call caused them.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { McpGateway, NodeStreamableHttpServer, StdioServerTransport, StreamableHttpServer } from "@effect-mcp/gateway"
import { ConfigLoader, McpHost } from "@effect-mcp/host"
import { ProtocolVersion } from "@effect-mcp/protocol"
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { UsageError } from "../CliError.js"
import * as CommonOptions from "../CommonOptions.js"
import { clientInfo, expandContext, retrySettings } from "../Connect.js"
import { Output } from "../Output.js"
import { config, withHost } from "./host.js"
import { statusLine } from "./hostStatus.js"
import * as ServeAccess from "./serveAccess.js"
import * as ServeOps from "./serveOps.js"
import { runCommand } from "./shared.js"

/**
 * How each connection presents the gateway: with `--tool-search`, two tools instead of every tool.
 * A client's call lives as long as the client waits for it, bounded by `--max-time` when given.
 */
const gatewayOptions = (toolSearch: boolean, maxTime: Option.Option<number>): McpGateway.Options => ({
  serverInfo: { name: "effect-mcp-gateway", version: clientInfo.version },
  toolSearch,
  ...(Option.isSome(maxTime) ? { maxCallTime: () => Duration.seconds(maxTime.value) } : {})
})

/** Writes to stdout, waiting while the pipe is full so that a slow reader is not buffered without bound. */
const write = (text: string) =>
  Effect.async<void>((resume) => {
    if (process.stdout.write(text)) resume(Effect.void)
    else process.stdout.once("drain", () => resume(Effect.void))
  })

const stdio = (gateway: McpGateway.Options) =>
  Effect.gen(function* () {
    // Messages typed at a terminal are shown as typed: stdin is the input here.
    yield* Effect.flatMap(Output, (output) => output.hold)
    const transport = yield* StdioServerTransport.make({ input: NodeStream.stdin, write })
    yield* McpGateway.serve(transport, gateway)
  })

/**
 * Serves over Streamable HTTP until interrupted; `listening <url>` is printed once it listens. Its
 * callers are told apart as `access` says (API keys, OAuth), each seeing and calling what the policy lets it.
 */
const http = (
  host: string,
  port: number,
  gateway: McpGateway.Options,
  corsOrigins: ReadonlyArray<string>,
  access: ServeAccess.Access
) =>
  Effect.gen(function* () {
    const token = yield* Config.option(Config.redacted("EFFECT_MCP_GATEWAY_TOKEN")).pipe(Effect.orDie)
    if (
      Option.isNone(token) &&
      access.apiKeys === undefined &&
      access.oauth === undefined &&
      !NodeStreamableHttpServer.isLoopback(host)
    ) {
      return yield* new UsageError({
        reason: `listening on ${host} needs a token: set EFFECT_MCP_GATEWAY_TOKEN (clients send it as a bearer token), or give --api-keys or --oauth-issuer`
      })
    }
    const secrets = yield* Config.option(Config.redacted("EFFECT_MCP_GATEWAY_SECRETS")).pipe(Effect.orDie)
    const sealing = Option.isSome(secrets) ? yield* StreamableHttpServer.sealingKeys(Redacted.value(secrets.value)) : []
    // The instance's name in the rounds whose stateful servers' calls it holds (a retry elsewhere is refused naming it).
    const instance = yield* Config.option(Config.nonEmptyString("EFFECT_MCP_INSTANCE")).pipe(Effect.orDie)
    const { port: bound } = yield* NodeStreamableHttpServer.listen({
      host,
      port,
      gateway,
      sealing,
      ...(Option.isSome(instance) ? { instance: instance.value } : {}),
      corsOrigins,
      ...access,
      ...(Option.isSome(token) ? { token: Redacted.value(token.value) } : {})
    }).pipe(Effect.mapError((error) => new UsageError({ reason: error.message })))
    const output = yield* Output
    yield* output.line(`listening http://${host.includes(":") ? `[${host}]` : host}:${bound}/mcp`)
    return yield* Effect.never
  })

/**
 * Keeps the host's servers as the config says, for as long as the gateway runs: on `SIGHUP`, and
 * when a config file changes (its directory watched, as editors replace a file when they save), the
 * config is read again and applied (only servers whose entries changed restart; a server that was
 * given up on starts again). Each restart and reload is noted on stderr.
 */
const followConfig = (
  configFile: Option.Option<string>,
  run: CommonOptions.RunOptions,
  protocolVersion: ProtocolVersion.ProtocolVersion | "auto"
) =>
  Effect.gen(function* () {
    const host = yield* McpHost.McpHost
    const output = yield* Output
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const location = yield* ConfigLoader.here(Option.getOrUndefined(configFile))
    const context = expandContext(false)
    const { files } = yield* McpHost.serversFromConfig(location, context).pipe(
      Effect.orElseSucceed(() => ({ files: [] as ReadonlyArray<string> }))
    )
    // The command line's settings, as the host was started with them.
    const options = (): McpHost.ServerOptions => ({
      ...(Option.isSome(run.timeout) ? { requestTimeout: Duration.seconds(run.timeout.value) } : {}),
      ...(Option.isSome(run.retry) ? { retry: retrySettings(run.retry.value) } : {}),
      protocolVersion
    })
    const reload = (why: string) =>
      McpHost.reloadConfig(host, location, context, options).pipe(
        Effect.matchEffect({
          onFailure: (error) => output.note(`config not reloaded (${why}): ${error.message}`),
          onSuccess: () => output.note(`config reloaded (${why})`)
        })
      )
    const hangups = Stream.async<string>((emit) => {
      const onHangup = () => void emit.single("SIGHUP")
      process.on("SIGHUP", onHangup)
      return Effect.sync(() => void process.off("SIGHUP", onHangup))
    })
    const watched = new Set(files.map((file) => path.resolve(file)))
    const edits = Stream.mergeAll(
      [...new Set([...watched].map((file) => path.dirname(file)))].map((directory) =>
        fs.watch(directory).pipe(
          Stream.filter((event) => watched.has(path.resolve(directory, path.basename(event.path)))),
          Stream.as("the config file changed"),
          Stream.catchAll(() => Stream.empty)
        )
      ),
      { concurrency: "unbounded" }
    )
    yield* Stream.merge(hangups, edits).pipe(
      // An editor's save is several events: one reload once they settle.
      Stream.debounce("200 millis"),
      Stream.runForEach(reload),
      Effect.forkScoped
    )
    // A server that cannot start, or is started again, is a warning in the words of its `host status` row.
    yield* host.statusChanges.pipe(
      Stream.filter(({ status }) => status._tag === "Reconnecting" || status._tag === "Failed"),
      Stream.runForEach(({ server, status }) =>
        Effect.flatMap(host.servers, (servers) => {
          const info = servers.find((known) => known.name === server)
          return info === undefined ? Effect.void : output.note(`warning: ${statusLine({ ...info, status })}`)
        })
      ),
      Effect.forkScoped
    )
  })

/** `effect-mcp serve`. */
export const serve = Command.make(
  "serve",
  {
    config,
    run: CommonOptions.run,
    port: Options.integer("port").pipe(
      Options.withDescription("Serve over Streamable HTTP on this port (0: any free port) instead of stdio"),
      Options.optional
    ),
    host: Options.text("host").pipe(
      Options.withDescription(
        "The address to listen on with --port (default 127.0.0.1; any other needs EFFECT_MCP_GATEWAY_TOKEN). Instances behind one balancer share EFFECT_MCP_GATEWAY_SECRETS (id:secret[,id:secret…], the first seals)"
      ),
      Options.withDefault("127.0.0.1")
    ),
    corsOrigin: Options.text("cors-origin").pipe(
      Options.withDescription(
        "A browser origin whose pages may call the gateway over HTTP (CORS; repeat for more; default none), e.g. https://app.example"
      ),
      Options.repeated
    ),
    namespace: Options.choice("namespace", ["server", "none"]).pipe(
      Options.withDescription(
        "Names of tools and prompts: server (default: server__tool) or none (as each server names them; the first server keeps a name two share)"
      ),
      Options.withDefault("server" as const)
    ),
    protocolVersion: Options.choice("protocol-version", ["auto", ...ProtocolVersion.SUPPORTED]).pipe(
      Options.withDescription("The revision the gateway speaks to every server (default: auto, each server's newest)"),
      Options.withDefault("auto" as const)
    ),
    access: ServeAccess.options,
    ops: ServeOps.options,
    toolSearch: Options.boolean("tool-search").pipe(
      Options.withDescription(
        "List two tools instead of every tool: search_tools (ranks the tools by name, title and description; an empty query lists them all) and call_tool (calls one by name). Every tool stays callable by name"
      )
    )
  },
  ({ access, ops, config, run, port, host, corsOrigin, namespace, protocolVersion, toolSearch }) =>
    runCommand(
      run,
      Effect.gen(function* () {
        // Who may call, read before any server starts: a bad file or option is said at once.
        const accessOptions = Option.isSome(port)
          ? // Its HTTP client (token introspection) lives as long as the command.
            yield* ServeAccess.read(access).pipe(Effect.provide(yield* Layer.build(NodeHttpClient.layer)))
          : ServeAccess.given(access).length > 0
            ? yield* new UsageError({
                reason: `${ServeAccess.given(access).join(", ")} needs --port (over stdio there is one caller)`
              })
            : {}
        // The limits, /metrics' token, the audit log and the OTLP exporter, read before any server starts too.
        const opsOptions = Option.isSome(port)
          ? yield* ServeOps.httpOptions(ops, host, NodeStreamableHttpServer.isLoopback(host))
          : ServeOps.httpOnly(ops).length > 0
            ? yield* new UsageError({ reason: `${ServeOps.httpOnly(ops).join(", ")} needs --port` })
            : {}
        const services = yield* Layer.build(yield* ServeOps.layer(ops))
        const attachments = yield* Layer.build(McpGateway.layerAttachments)
        const handlers = McpGateway.handlers.pipe(Layer.provide(Layer.succeedContext(attachments)))
        yield* withHost(
          config,
          run,
          (mcpHost) =>
            Effect.zipRight(
              followConfig(config, run, protocolVersion),
              Option.isSome(port)
                ? http(host, port.value, gatewayOptions(toolSearch, run.maxTime), corsOrigin, {
                    ...accessOptions,
                    ...opsOptions
                  })
                : stdio(gatewayOptions(toolSearch, run.maxTime))
            ).pipe(Effect.scoped, Effect.provideService(McpHost.McpHost, mcpHost), Effect.provide(attachments)),
          {
            handlers,
            protocolVersion,
            // Its clients cannot answer a browser flow: a server that needs one fails, saying to log in.
            unattended: true,
            // The servers' views pass through to the clients that declare MCP Apps themselves.
            mcpApps: true,
            // A server that keeps crashing is tried again for as long as the gateway runs.
            restart: McpHost.restartForever,
            ...(namespace === "none" ? { namespace: (_server: string, name: string) => name } : {})
          }
        ).pipe(Effect.provide(services))
      }).pipe(Effect.scoped)
    )
).pipe(
  Command.withDescription(
    "Every configured server behind one MCP server: over stdio for an editor or agent to launch, or with --port over Streamable HTTP. Namespaced tools (server__tool), resources, prompts; calls routed with the host's policies; the servers' sampling, elicitation and roots requests asked of the calling client.\n" +
      "Example: effect-mcp serve --config .mcp.json --tool-search"
  )
)
