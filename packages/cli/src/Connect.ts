/**
 * From the command line to a connected client: resolve which server (inline or from a
 * config file), check that a stdio command exists, pick the transport, provide the CLI's
 * handlers, and run a command with the `McpClient` in scope. Server log messages are shown on
 * stderr while the command runs.
 *
 * @since 0.1.0
 */

import { homedir } from "node:os"
import { delimiter, sep } from "node:path"
import * as Prompt from "@effect/cli/Prompt"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as Path from "@effect/platform/Path"
import type * as Terminal from "@effect/platform/Terminal"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import { McpClient, type Retry, Transport, type Transports } from "@effect-mcp/client"
import type { Expand, ServerEntry } from "@effect-mcp/host"
import { ServerTransport } from "@effect-mcp/host"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { AuthSettings } from "./Authorization.js"
import * as Authorization from "./Authorization.js"
import { type CliFailure, CommandNotFound, ConfigError, UsageError } from "./CliError.js"
import { type RunOptions, type ServerOptions, TrailingCommand } from "./CommonOptions.js"
import { logLine } from "./commands/render.js"
import * as Handlers from "./Handlers.js"
import { labelOf } from "./internal/serverLabel.js"
import { version } from "./internal/version.js"
import { which } from "./internal/which.js"
import { parseAssignment, parseHeader, splitCommandLine } from "./internal/words.js"
import { Output } from "./Output.js"
import * as ProgressLine from "./ProgressLine.js"
import { ServerNames } from "./ServerNames.js"

/** The type lives with the CLI's authorization; re-exported for the commands that build their own settings. */

/**
 * This program's name and version, sent as `clientInfo`.
 *
 * @since 0.1.0
 * @category constants
 */
export const clientInfo = { name: "effect-mcp", title: "effect-mcp CLI", version } as const

/**
 * `--retry N`: reads, and tools that say they may be repeated, up to N more times.
 *
 * @since 0.1.0
 * @category constructors
 */
export const retrySettings = (times: number): Retry.RetrySettings => ({ reads: { times }, tools: { times } })

/**
 * A server chosen for this run: its name for messages, where it is, and whether the user named it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Chosen {
  readonly name: string
  readonly target: ServerEntry.Target
  /** Chosen inline (`--stdio`, `--url`, a command after `--`): the name is made up until the handshake. */
  readonly inline: boolean
  /** The config entry's `"retry": N` (`--retry` wins). */
  readonly retry?: number
  /**
   * The command, its arguments or the URL hold values of variables the config entry named (which
   * may be secrets), so they are not to be written anywhere.
   */
  readonly expanded?: boolean
}

/** Whether expanding a config entry changed the words of its command line or its URL. */
const wordsExpanded = (written: ServerEntry.Target, target: ServerEntry.Target) =>
  written._tag === "Stdio" && target._tag === "Stdio"
    ? written.command !== target.command || written.args.join("\u0000") !== target.args.join("\u0000")
    : written._tag === "Http" && target._tag === "Http"
      ? written.url !== target.url
      : true

const collect = <A>(
  items: ReadonlyArray<string>,
  parse: (item: string) => Either.Either<readonly [string, string], string>,
  flag: string
) =>
  Effect.forEach(items, (item) =>
    Either.match(parse(item), {
      onLeft: (reason) => Effect.fail(new UsageError({ reason: `${flag}: ${reason}` })),
      onRight: Effect.succeed
    })
  ).pipe(Effect.map((pairs) => Object.fromEntries(pairs) as A))

/**
 * The environment and prompts config expansion uses.
 *
 * @since 0.1.0
 * @category constructors
 */
export const expandContext = (interactive: boolean): Expand.ExpandContext => {
  const asked = new Map<string, string>()
  return {
    env: process.env,
    home: homedir(),
    workspaceFolder: process.cwd(),
    pathSeparator: sep,
    ask: (input: ServerEntry.Input, entry: ServerEntry.ServerEntry) => {
      const known = asked.get(input.id)
      if (known !== undefined) return Effect.succeed(known)
      if (!interactive)
        return Effect.fail(
          new ConfigError({
            file: entry.file,
            entry: entry.name,
            reason: `input "${input.id}" must be asked, but there is no terminal to ask on`
          })
        )
      const message = input.description ?? input.id
      const prompt = input.password
        ? Prompt.hidden({ message }).pipe(Prompt.map(Redacted.value))
        : Prompt.text({ message, ...(input.default === undefined ? {} : { default: input.default }) })
      return Prompt.run(prompt).pipe(
        Effect.tap((value) => Effect.sync(() => asked.set(input.id, value))),
        Effect.mapError(
          () => new ConfigError({ file: entry.file, entry: entry.name, reason: `input "${input.id}" was not given` })
        ),
        Effect.provide(Layer.mergeAll(NodeTerminal.layer, NodeFileSystem.layer, NodePath.layer))
      )
    }
  }
}

/**
 * Which server the options name.
 *
 * @since 0.1.0
 * @category constructors
 */
export const choose = (options: ServerOptions, interactive: boolean) =>
  Effect.gen(function* () {
    const trailing = yield* TrailingCommand
    const given = [
      Option.isSome(options.stdio) || trailing.length > 0,
      Option.isSome(options.url),
      Option.isSome(options.name)
    ]
    if (given.filter(Boolean).length > 1)
      return yield* new UsageError({ reason: "name one server: --stdio (or a command after --), --url or --server" })
    if (Option.isSome(options.stdio) && trailing.length > 0)
      return yield* new UsageError({
        reason: "name one server: --stdio or a command after --, not both (both were given; which to run?)"
      })
    const env = yield* collect<Record<string, string>>(options.env, parseAssignment, "--env")
    const headers = yield* collect<Record<string, string>>(options.headers, parseHeader, "--header")
    if (trailing.length > 0 || Option.isSome(options.stdio)) {
      const words =
        trailing.length > 0
          ? trailing
          : yield* Either.match(splitCommandLine(Option.getOrThrow(options.stdio)), {
              onLeft: (reason) => Effect.fail(new UsageError({ reason: `--stdio: ${reason}` })),
              onRight: Effect.succeed
            })
      const [command, ...args] = words
      if (command === undefined) return yield* new UsageError({ reason: "--stdio needs a command" })
      return {
        name: yield* labelOf(
          command,
          args,
          Option.getOrElse(options.cwd, () => process.cwd())
        ),
        inline: true,
        target: {
          _tag: "Stdio",
          command,
          args,
          env,
          ...Option.match(options.cwd, { onNone: () => ({}), onSome: (cwd) => ({ cwd }) })
        }
      } satisfies Chosen
    }
    if (Option.isSome(options.url)) {
      const url = options.url.value
      if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
        return yield* new UsageError({ reason: `--url needs an http:// or https:// URL, got "${url}"` })
      return {
        name: new URL(url).host,
        inline: true,
        target: { _tag: "Http", url, transport: options.transport, headers }
      } satisfies Chosen
    }
    if (Option.isNone(options.name))
      return yield* new UsageError({
        reason:
          'which server? Give --stdio "<command>", --url <url>, --server <name> (see `effect-mcp servers`), or a command after --'
      })
    // The config files' readers are loaded only for a server chosen by name.
    const { ConfigLoader } = yield* Effect.promise(() => import("./internal/configLoader.js"))
    const loaded = yield* ConfigLoader.load(yield* ConfigLoader.here(Option.getOrUndefined(options.config)))
    const output = yield* Output
    for (const warning of loaded.warnings) yield* output.note(`warning: ${warning}`)
    const entry = yield* ConfigLoader.find(loaded, options.name.value)
    const target = yield* ConfigLoader.resolve(entry, expandContext(interactive))
    // Inline flags add to (and win over) the entry's own.
    const merged: ServerEntry.Target =
      target._tag === "Stdio"
        ? {
            ...target,
            env: { ...target.env, ...env },
            ...Option.match(options.cwd, { onNone: () => ({}), onSome: (cwd) => ({ cwd }) })
          }
        : { ...target, headers: { ...target.headers, ...headers } }
    return {
      name: entry.name,
      target: merged,
      inline: false,
      expanded: wordsExpanded(entry.target, target),
      ...(entry.retry === undefined ? {} : { retry: entry.retry })
    } satisfies Chosen
  })

/**
 * How long a stdio server has to exit once its stdin is closed, before SIGTERM: a user waits for
 * the prompt, so shorter than a host's (a server whose task keeps it alive held it for 2 s).
 */
const STDIO_EXIT_WAIT = "500 millis"

/** The chosen server's transport, by the host's one mapping, over the program's `Transports` (Node's). */
const transportLayer = (chosen: Chosen, inheritEnv: boolean, auth: AuthSettings | undefined) =>
  ServerTransport.layer(chosen.name, chosen.target, {
    inheritEnv: inheritEnv ? "all" : "safe",
    shutdown: { afterStdin: STDIO_EXIT_WAIT },
    ...(auth === undefined ? {} : { auth: auth.options })
  }).pipe(Layer.provide(auth === undefined ? Layer.empty : auth.services))

/**
 * The transport, its traffic written to the file `--record` names when there is one, with every
 * secret the run gives the server masked: its environment and headers as given and expanded, the
 * client secret, and the OAuth tokens the token store gives or takes.
 */
const recordedTransport = (
  record: Option.Option<string>,
  chosen: Chosen,
  inheritEnv: boolean,
  auth: AuthSettings,
  clientSecret: Option.Option<Redacted.Redacted>
) =>
  Option.match(record, {
    onNone: () => Effect.succeed(transportLayer(chosen, inheritEnv, auth)),
    onSome: (path) =>
      Effect.gen(function* () {
        // Loaded only to record.
        const Recording = yield* Effect.promise(() => import("./internal/recording.js"))
        const secrets = yield* Ref.make<ReadonlyArray<string>>([
          ...Recording.secretValues({
            ...(chosen.target._tag === "Stdio" ? { env: chosen.target.env } : { headers: chosen.target.headers }),
            inherited: process.env
          }),
          ...Option.toArray(Option.map(clientSecret, Redacted.value))
        ])
        return Layer.provideMerge(
          Layer.scoped(
            Transport.Transport,
            Effect.flatMap(Transport.Transport, (inner) =>
              Recording.recorded(inner, path, chosen.name, Ref.get(secrets))
            )
          ),
          transportLayer(chosen, inheritEnv, {
            ...auth,
            services: Layer.provideMerge(
              Recording.notingTokens((values) => Ref.update(secrets, (known) => [...known, ...values])),
              auth.services
            )
          })
        )
      })
  })

/**
 * Runs `connecting` (the server's start and the handshake) under a live line on a terminal,
 * `starting <command>…` for a process and `connecting to <url>…` over HTTP, from the first
 * moment (a server fetched by `npx -y` can take many seconds); the line goes when it ends.
 */
const startingLine = <A, E, R>(
  chosen: Chosen,
  connecting: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R | Output | Scope.Scope> =>
  Effect.gen(function* () {
    const output = yield* Output
    if (!output.interactive || output.json) return yield* connecting
    const label =
      chosen.target._tag === "Stdio"
        ? `starting ${[chosen.target.command, ...chosen.target.args].join(" ")}`
        : `connecting to ${chosen.target.url}`
    const line = yield* Scope.make()
    yield* Scope.extend(ProgressLine.start(label), line)
    return yield* connecting.pipe(Effect.ensuring(Scope.close(line, Exit.void)))
  })

/** Fails with {@link CommandNotFound} when a stdio server's command cannot be found. */
const checkCommand = (chosen: Chosen) =>
  Effect.gen(function* () {
    const target = chosen.target
    if (target._tag !== "Stdio") return
    const searchPath = target.env.PATH ?? process.env.PATH ?? ""
    const found = yield* which(target.command, searchPath, target.cwd ?? process.cwd())
    if (Option.isNone(found))
      return yield* new CommandNotFound({
        server: chosen.name,
        command: target.command,
        searched: searchPath.split(delimiter).filter((entry) => entry !== "")
      })
  })

/**
 * How the run interacts: whether prompts can be shown.
 *
 * @since 0.1.0
 * @category guards
 */
export const isInteractive = () => process.stdin.isTTY === true && process.stderr.isTTY === true

/**
 * What a connection needs from the run besides the client's own services.
 *
 * @since 0.1.0
 * @category models
 */
export type ConnectionRequirements =
  | Output
  | ServerNames
  | TrailingCommand
  | CommandExecutor.CommandExecutor
  | FileSystem.FileSystem
  | Path.Path
  | Terminal.Terminal
  | HttpClient.HttpClient
  | Transports.Transports

/**
 * Chooses the server (and checks that a stdio command exists), then gives it and the connection:
 * an effect that starts the server and connects, in its scope, as often as it is run (the shell's
 * `reconnect`). `showServerLogs` prints the server's log messages on stderr while connected.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connector = (
  server: ServerOptions,
  run: RunOptions,
  settings: { readonly showServerLogs?: boolean; readonly auth?: AuthSettings } = {}
) =>
  Effect.gen(function* () {
    const interactive = isInteractive()
    const chosen: Chosen = yield* choose(server, interactive)
    // Saved once, at the first connection (the shell's reconnect connects again).
    const save = yield* Effect.once(
      Option.isNone(server.persist)
        ? Effect.void
        : yield* Effect.flatMap(
            // The config writer is loaded only to save.
            Effect.promise(() => import("./internal/saving.js")),
            (Saving) => Saving.persistence(server.persist, server.config, chosen)
          )
    )
    yield* checkCommand(chosen)
    const handlers = Handlers.layer({
      interactive,
      acceptDefaults: run.acceptDefaults,
      samplingCommand: Option.getOrUndefined(run.samplingCommand),
      roots: run.roots
    })
    const auth = settings.auth ?? (yield* Authorization.settings(run))
    const client = McpClient.layer({
      name: chosen.name,
      clientInfo,
      protocolVersion: server.protocolVersion,
      ...Option.match(run.timeout, {
        onNone: () => ({}),
        onSome: (seconds) => ({ requestTimeout: Duration.seconds(seconds) })
      }),
      ...Option.match(
        Option.orElse(run.retry, () => Option.fromNullable(chosen.retry)),
        {
          onNone: () => ({}),
          onSome: (times) => ({ retry: retrySettings(times) })
        }
      )
    }).pipe(
      Layer.provide(yield* recordedTransport(run.record, chosen, server.inheritEnv, auth, run.clientSecret)),
      Layer.provide(handlers)
    )
    const output = yield* Output
    const names = yield* ServerNames
    const connect = Effect.gen(function* () {
      const context = yield* startingLine(chosen, Layer.build(client))
      // Connected: a server to --persist is saved now.
      yield* save
      const mcp = Context.get(context, McpClient.McpClient)
      // From here on, a server the user did not name is called by the name it reports.
      if (chosen.inline) yield* names.learn(chosen.name, mcp.serverInfo.name)
      if (settings.showServerLogs !== false)
        yield* mcp.logMessages.pipe(
          Stream.runForEach((log) => output.note(logLine(log))),
          Effect.forkScoped
        )
      return context
    })
    // A recording is of one connection: it is written when that connection closes.
    const reconnectable = Option.isNone(run.record)
    return { chosen, connect, reconnectable }
  })

/**
 * Connects to the chosen server and runs `use` with its client (and which server it is); closes
 * everything after. `showServerLogs` prints the server's log messages on stderr while `use` runs.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withClient = <A, E, R>(
  server: ServerOptions,
  run: RunOptions,
  use: (client: McpClient.McpClientService, chosen: Chosen) => Effect.Effect<A, E, R>,
  settings: { readonly showServerLogs?: boolean; readonly auth?: AuthSettings } = {}
): Effect.Effect<A, E | CliFailure, Exclude<R, McpClient.McpClient> | ConnectionRequirements> =>
  Effect.flatMap(connector(server, run, settings), ({ chosen, connect }) =>
    Effect.scoped(
      Effect.flatMap(connect, (context) =>
        Effect.provide(use(Context.get(context, McpClient.McpClient), chosen), context)
      )
    )
  )
