/**
 * `effect-mcp host status | tools | call`: every server of the config at once, through
 * `@effect-mcp/host`'s `McpHost`: their statuses, the aggregated namespaced toolset, and a call
 * routed by namespaced name.
 */

import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import type * as HttpClient from "@effect/platform/HttpClient"
import type { Authorizer, Capabilities, Transports } from "@effect-mcp/client"
import { type Aggregate, ConfigLoader, McpHost, ServerEntry, ServerStatus } from "@effect-mcp/host"
import type { ProtocolVersion } from "@effect-mcp/protocol"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Authorization from "../Authorization.js"
import { Exit, exitCodeOf, ServersFailed, UsageError } from "../CliError.js"
import * as CommonOptions from "../CommonOptions.js"
import { clientInfo, expandContext, isInteractive, retrySettings } from "../Connect.js"
import * as Handlers from "../Handlers.js"
import * as Logging from "../Logging.js"
import { dim, Output, table } from "../Output.js"
import * as HostShell from "../shell/HostShell.js"
import * as ShellSession from "../shell/Repl.js"
import { outOption } from "./binary.js"
import { failIfAnyFailed, statusRows } from "./hostStatus.js"
import { whyNot } from "./hostTools.js"
import { runCommand } from "./shared.js"
import { argumentOptions, callAndPrint, callArguments } from "./tools.js"

/** `--config FILE`. */
export const config = Options.file("config").pipe(
  Options.withDescription(
    "The config file (default: ./.mcp.json, ./mcp.json, ./.vscode/mcp.json, ./.cursor/mcp.json, Claude's)"
  ),
  Options.optional
)

/** What a command may add to the host: its own handlers, how names are made, the servers' revision. */
export interface HostExtras<RO, RH> {
  /** Replace the command-line handlers they provide. */
  readonly handlers?: Layer.Layer<RO, never, RH>
  readonly namespace?: Aggregate.Namespace
  /** The revision every server is spoken to in (default: each server's own choice). */
  readonly protocolVersion?: ProtocolVersion.ProtocolVersion | "auto"
  /** Never ask the user to authorize a server (the gateway): stored tokens only, refreshed when they can be. */
  readonly unattended?: boolean
  /** OAuth's interactive step, over the command line's (the web page's login). */
  readonly authorizer?: Layer.Layer<Authorizer.Authorizer>
  /** The transports, over the platform's (the web page observes them). */
  readonly transports?: Layer.Layer<Transports.Transports, never, Transports.Transports | HttpClient.HttpClient>
  /** Declare MCP Apps to every server (the web page, which draws their views). */
  readonly mcpApps?: McpHost.HostOptions["mcpApps"]
  /** `false`: the host is there at once, its servers connecting behind it (the web page). */
  readonly awaitServers?: boolean
  /** How a server that died is restarted (default: the host's, which gives up after 5 in a row). */
  readonly restart?: McpHost.HostOptions["restart"]
}

/**
 * Runs `use` with a host of every configured server; closes them all after. `handlers`
 * replace the command-line handlers they provide (chat serves sampling by its model; serve asks
 * its own client).
 */
export const withHost = <
  A,
  E,
  R,
  RH = never,
  RO extends Capabilities.Sampling | Capabilities.Elicitation | Capabilities.Roots = never
>(
  configFile: Option.Option<string>,
  run: CommonOptions.RunOptions,
  use: (host: McpHost.McpHostService) => Effect.Effect<A, E, R>,
  extras: HostExtras<RO, RH> = {}
) =>
  Effect.gen(function* () {
    const interactive = isInteractive()
    const output = yield* Output
    const location = yield* ConfigLoader.here(Option.getOrUndefined(configFile))
    const { servers, problems, warnings, files } = yield* McpHost.serversFromConfig(
      location,
      expandContext(interactive)
    )
    for (const warning of warnings) yield* output.note(`warning: ${warning}`)
    for (const problem of problems) yield* output.note(`warning: ${problem.message} (server left out)`)
    if (servers.length === 0)
      return yield* new UsageError({
        reason:
          files.length === 0
            ? "no config file was found (give --config FILE)"
            : `no usable server in ${files.join(", ")}`
      })
    const host = yield* hostLayer(servers, run, interactive, extras)
    return yield* Effect.flatMap(McpHost.McpHost, use).pipe(Effect.provide(host))
  })

/**
 * The host layer of these servers with the command line's settings (timeout, retry, OAuth, the
 * terminal's handlers unless `extras.handlers` replaces them, `extras.transports` over the platform's).
 */
export const hostLayer = <
  RH = never,
  RO extends Capabilities.Sampling | Capabilities.Elicitation | Capabilities.Roots = never
>(
  servers: ReadonlyArray<McpHost.ServerConfig>,
  run: CommonOptions.RunOptions,
  interactive: boolean,
  extras: HostExtras<RO, RH>
) =>
  Effect.gen(function* () {
    const timeout = Option.map(run.timeout, (seconds) => Duration.seconds(seconds))
    const retry = Option.map(run.retry, retrySettings)
    // HTTP servers that ask for OAuth are authorized like the single-server commands do.
    const auth = yield* Authorization.settings(run)
    return McpHost.layer({
      clientInfo,
      ...(extras.namespace === undefined ? {} : { namespace: extras.namespace }),
      ...(extras.mcpApps === undefined ? {} : { mcpApps: extras.mcpApps }),
      ...(extras.awaitServers === undefined ? {} : { awaitServers: extras.awaitServers }),
      ...(extras.restart === undefined ? {} : { restart: extras.restart }),
      servers: servers.map((server) => ({
        ...server,
        options: {
          ...server.options,
          ...(Option.isSome(timeout) ? { requestTimeout: timeout.value } : {}),
          ...(Option.isSome(retry) ? { retry: retry.value } : {}),
          ...(extras.protocolVersion === undefined ? {} : { protocolVersion: extras.protocolVersion })
        }
      }))
    }).pipe(
      Layer.provide(extras.transports ?? Layer.empty),
      Layer.provide(extras.handlers ?? Layer.empty),
      Layer.provide(extras.authorizer ?? Layer.empty),
      Layer.provide(
        extras.unattended === true ? Layer.merge(Authorization.unattended, Authorization.tokenStore) : auth.services
      ),
      Layer.provide(
        Handlers.layer({
          interactive,
          acceptDefaults: run.acceptDefaults,
          samplingCommand: Option.getOrUndefined(run.samplingCommand),
          roots: run.roots
        })
      )
    )
  })

/** `host status`'s options for scripts. */
const healthOptions = {
  quiet: Options.boolean("quiet").pipe(
    Options.withDescription("Print nothing: the exit code says it (0 every server ready, 3 not)")
  ),
  exitCode: Options.boolean("exit-code").pipe(
    Options.withDescription(
      "Exit 3 unless every server is ready (without it only a server that failed to start counts)"
    )
  )
}

/** `host status`. */
export const status = Command.make(
  "status",
  { config, run: CommonOptions.run, ...healthOptions },
  ({ config, run, quiet, exitCode }) =>
    quiet
      ? Effect.flatMap(quietly(config, run, exitCode), (code) => (code === 0 ? Effect.void : new Exit({ code })))
      : runCommand(
          run,
          withHost(config, run, (host) =>
            Effect.gen(function* () {
              const output = yield* Output
              const servers = yield* host.servers
              if (output.json)
                yield* output.printJson({
                  servers: servers.map((server) => ({
                    name: server.name,
                    transport: ServerEntry.transportOf(server.config.target),
                    status: server.status._tag,
                    detail: ServerStatus.describe(server.status)
                  }))
                })
              for (const line of table(output.json ? [] : statusRows(servers), output.width, ""))
                yield* output.line(line)
              // The table (and the JSON's detail) has each failure's reason.
              yield* failIfAnyFailed(host, true)
              if (exitCode) yield* failIfNotReady(servers)
            })
          )
        )
).pipe(
  Command.withDescription(
    "Connect every configured server at once and show each one's status. Exits 3 when one failed to start (with --exit-code, unless every one is ready).\n" +
      "Example: effect-mcp host status --config .mcp.json\n" +
      "Example: effect-mcp host status --quiet --exit-code --config .mcp.json && echo healthy"
  )
)

/** Fails with {@link ServersFailed} unless every server is ready (a script's health check). */
const failIfNotReady = (servers: ReadonlyArray<McpHost.ServerInfo>) => {
  const notReady = servers
    .filter((server) => server.status._tag !== "Ready")
    .map((server) => ({ server: server.name, reason: `${server.name}: ${ServerStatus.describe(server.status)}` }))
  return notReady.length === 0
    ? Effect.void
    : Effect.fail(new ServersFailed({ failed: notReady, total: servers.length, listed: true }))
}

/** `host status --quiet`: the exit code alone (a config that cannot be read is still reported). */
const quietly = (config: Option.Option<string>, run: CommonOptions.RunOptions, strict: boolean) =>
  Effect.gen(function* () {
    const code = yield* Ref.make(0)
    yield* runCommand(
      run,
      withHost(config, run, (host) =>
        Effect.flatMap(host.servers, (servers) => (strict ? failIfNotReady(servers) : failIfAnyFailed(host, true)))
      ).pipe(Effect.catchTag("ServersFailed", (failed) => Ref.set(code, exitCodeOf(failed))))
    )
    return yield* Ref.get(code)
  })

/** `host tools`. */
export const tools = Command.make("tools", { config, run: CommonOptions.run }, ({ config, run }) =>
  runCommand(
    run,
    withHost(config, run, (host) =>
      Effect.gen(function* () {
        const output = yield* Output
        const view = yield* host.aggregate
        if (output.json) {
          yield* output.printJson({ tools: view.tools, collisions: view.collisions })
          return yield* failIfAnyFailed(host, false)
        }
        for (const line of table(
          view.tools.map((entry) => [entry.name, entry.tool.description] as const),
          output.width,
          ""
        ))
          yield* output.line(line)
        for (const collision of view.collisions.filter((entry) => entry.kind === "tool"))
          yield* output.note(
            dim(
              output.color,
              `note: ${collision.name} is ${collision.kept}'s; also wanted by ${collision.others.map((other) => `${other.server} (now ${other.name})`).join(", ")}`
            )
          )
        // The tools of the servers that started are printed; those that did not are named, with why.
        return yield* failIfAnyFailed(host, false)
      })
    )
  )
).pipe(
  Command.withDescription(
    "The tools of every configured server as one list, named <server>__<tool>. A server that failed to start is named on stderr with its reason, after the others' tools, and the command exits 3.\n" +
      "Example: effect-mcp host tools --config .mcp.json"
  )
)

/** `host call <server__tool>`. */
export const call = Command.make(
  "call",
  {
    config,
    run: CommonOptions.run,
    name: Args.text({ name: "server__tool" }).pipe(Args.withDescription("The tool's namespaced name")),
    out: outOption,
    ...argumentOptions
  },
  ({ config, run, args, name, pairs, out }) =>
    runCommand(
      run,
      withHost(config, run, (host) =>
        Effect.gen(function* () {
          const found = (yield* host.tools).find((entry) => entry.name === name)
          if (found === undefined) return yield* whyNot(host, name)
          const input = yield* callArguments(args, pairs, found.tool)
          const client = yield* host.client(found.server)
          return yield* callAndPrint(client, found.tool.name, input, false, out)
        })
      )
    )
).pipe(
  Command.withDescription(
    "Call a tool of any configured server by its namespaced name. Exits 1 when the tool reports an error.\n" +
      "Example: effect-mcp host call everything__echo message=hi --config .mcp.json"
  )
)

/**
 * The host's warning that a server's session ended (`<server>: the session ended (<why>);
 * restarting …`, or `not restarting …`): the host shell says each status change itself, the
 * cause and its stderr's last lines included; the warning would say them again.
 */
const sessionEnded = ({ logLevel, message }: { readonly logLevel: LogLevel.LogLevel; readonly message: unknown }) => {
  const [first] = Array.isArray(message) ? message : [message]
  return logLevel._tag === "Warning" && typeof first === "string" && first.includes(": the session ended (")
}

/** `host shell`. */
export const shell = Command.make("shell", { config, run: CommonOptions.run }, ({ config, run }) =>
  runCommand(
    run,
    withHost(config, run, (host) =>
      ShellSession.run(HostShell.target(host), {
        reconnect: false,
        why: "the host starts its servers again itself (host status shows them)"
      })
    ).pipe(Logging.dropping(sessionEnded))
  )
).pipe(
  Command.withDescription(
    "An interactive session on every configured server at once: namespaced tools (server__tool), resources and prompts, logs and subscriptions by server, status; Ctrl-C cancels a running command, Ctrl-D leaves.\n" +
      "Example: effect-mcp host shell --config .mcp.json"
  )
)

/** `effect-mcp host`. */
export const host = Command.make("host").pipe(
  Command.withDescription("Every configured server at once: statuses, one namespaced toolset, routed calls."),
  Command.withSubcommands([status, tools, call, shell])
)
