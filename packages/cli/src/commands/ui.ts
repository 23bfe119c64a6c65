/**
 * `effect-mcp ui`: the host in a web page (`@effect-mcp/web`). Every server of the config files
 * (or only `--server NAME`, or an inline `--stdio`/`--url` one) runs in a host served to a page on
 * `127.0.0.1`; the address printed carries the launch token, and the browser is opened on it
 * unless `--no-open`. The chat's model comes from the config's `llm` entry (the seed's format:
 * `type`, `model`, `system_prompt`, the key from `api_key_env` or the provider's variable,
 * `base_url` for an OpenAI-compatible server) or from the provider's key in the environment.
 */

import { createServer } from "node:http"
import { createRequire } from "node:module"
import { homedir } from "node:os"
import { dirname, join } from "node:path"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpServer from "@effect/platform/HttpServer"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import type * as Path from "@effect/platform/Path"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { ConfigLoader, ConfigWriter, McpHost } from "@effect-mcp/host"
import { WebUi } from "@effect-mcp/web"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { UsageError } from "../CliError.js"
import * as CommonOptions from "../CommonOptions.js"
import { expandContext } from "../Connect.js"
import { openBrowser } from "../internal/browser.js"
import { parse } from "../internal/recording.js"
import { changeFor } from "../internal/saving.js"
import { parseAssignment, parseHeader, splitCommandLine } from "../internal/words.js"
import { Output } from "../Output.js"
import * as Provider from "../Provider.js"
import { overNode } from "./chat.js"
import { config, hostLayer } from "./host.js"
import { runCommand } from "./shared.js"

/** The seed's `llm` entry and `max_tool_calls`, beside the servers of a config file. */
const ChatConfig = Schema.Struct({
  llm: Schema.optional(
    Schema.Struct({
      type: Schema.optional(Schema.Literal("claude", "anthropic", "openai", "openai-compatible")),
      model: Schema.optional(Schema.String),
      system_prompt: Schema.optional(Schema.String),
      api_key_env: Schema.optional(Schema.String),
      base_url: Schema.optional(Schema.String)
    })
  ),
  max_tool_calls: Schema.optional(Schema.Int.pipe(Schema.positive()))
})

const uiOptions = {
  config,
  run: CommonOptions.run,
  server: Options.text("server").pipe(Options.withDescription("Only this server of the config"), Options.optional),
  stdio: Options.text("stdio").pipe(
    Options.withDescription('Also run this server over stdio: "<command> <args…>" (quoted like a shell)'),
    Options.optional
  ),
  url: Options.text("url").pipe(Options.withDescription("Also connect to this server over HTTP"), Options.optional),
  env: Options.text("env").pipe(
    Options.withDescription("A variable K=V for the --stdio server (repeatable)"),
    Options.repeated
  ),
  headers: Options.text("header").pipe(
    Options.withDescription('An HTTP header "Name: value" for the --url server (repeatable)'),
    Options.repeated
  ),
  port: Options.integer("port").pipe(
    Options.withDescription("The port (default: any free one)"),
    Options.withDefault(0)
  ),
  host: Options.text("host").pipe(
    Options.withDescription(
      "The address to listen on (default 127.0.0.1; any address off this machine needs --expose-to-network)"
    ),
    Options.withDefault("127.0.0.1")
  ),
  exposeToNetwork: Options.boolean("expose-to-network").pipe(
    Options.withDescription(
      "DANGEROUS: let other machines reach the page (the token is still required; anyone with it can run commands here)"
    )
  ),
  noOpen: Options.boolean("no-open").pipe(
    Options.withDescription("Do not open the browser (the address is printed either way)")
  ),
  stateDir: Options.directory("state-dir").pipe(
    Options.withDescription("Where the conversation is kept (default: ~/.local/state/effect-mcp/ui)"),
    Options.optional
  )
}

/** Where the built page is: the web package's `dist/page`. */
const pageDir = () =>
  join(dirname(createRequire(import.meta.url).resolve("@effect-mcp/web/package.json")), "dist", "page")

const isLoopback = (host: string) => host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host)

/** The servers given inline. */
const inlineServers = (options: {
  readonly stdio: Option.Option<string>
  readonly url: Option.Option<string>
  readonly env: ReadonlyArray<string>
  readonly headers: ReadonlyArray<string>
}) =>
  Effect.gen(function* () {
    const servers: Array<McpHost.ServerConfig> = []
    const usage = (reason: string) => new UsageError({ reason })
    if (Option.isSome(options.stdio)) {
      const words = yield* Either.mapLeft(splitCommandLine(options.stdio.value), usage)
      const [command, ...args] = words
      if (command === undefined) return yield* usage("--stdio needs a command")
      const env = Object.fromEntries(
        yield* Effect.forEach(options.env, (text) => Either.mapLeft(parseAssignment(text), usage))
      )
      servers.push({ name: "stdio", target: { _tag: "Stdio", command, args, env } })
    }
    if (Option.isSome(options.url)) {
      const headers = Object.fromEntries(
        yield* Effect.forEach(options.headers, (text) => Either.mapLeft(parseHeader(text), usage))
      )
      servers.push({ name: "http", target: { _tag: "Http", url: options.url.value, transport: "auto", headers } })
    }
    return servers
  })

/** The values given as secrets: headers' and environment variables' values. */
const secretsOf = (servers: ReadonlyArray<McpHost.ServerConfig>) =>
  servers.flatMap((server) => Object.values(server.target._tag === "Stdio" ? server.target.env : server.target.headers))

/** The chat's settings from the config's `llm` entry, else the environment. */
const chatOptions = (files: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    let settings: typeof ChatConfig.Type = {}
    for (const file of files) {
      const text = yield* fs.readFileString(file).pipe(Effect.orElseSucceed(() => ""))
      const parsed = Schema.decodeUnknownEither(Schema.parseJson(ChatConfig))(text)
      if (Either.isRight(parsed) && (parsed.right.llm !== undefined || parsed.right.max_tool_calls !== undefined)) {
        settings = parsed.right
        break
      }
    }
    const llm = settings.llm
    const provider =
      llm?.type === undefined
        ? Option.none()
        : Option.some(llm.type === "claude" || llm.type === "anthropic" ? ("anthropic" as const) : ("openai" as const))
    const chosen = yield* Effect.either(
      Provider.choose({
        provider,
        model: Option.fromNullable(llm?.model),
        apiUrl: Option.fromNullable(llm?.base_url),
        ...(llm?.api_key_env === undefined ? {} : { keyVariable: llm.api_key_env })
      })
    )
    const model = Either.match(chosen, {
      onLeft: () => Option.none<WebUi.ChatModel>(),
      onRight: (found) =>
        Option.some({
          name: `${found.provider} ${found.model}`,
          layer: overNode(found)
        })
    })
    return {
      model,
      hint: Either.match(chosen, {
        onLeft: (error) =>
          `${error.reason}, or add an "llm" entry to the config file: { "llm": { "type": "anthropic" | "openai" | "openai-compatible", "model": "…", "api_key_env": "VARIABLE", "base_url": "http://127.0.0.1:8080/v1" } }`,
        onRight: () => ""
      }),
      ...(llm?.system_prompt === undefined ? {} : { system: llm.system_prompt }),
      ...(settings.max_tool_calls === undefined ? {} : { maxToolCalls: settings.max_tool_calls })
    } satisfies WebUi.ChatOptions
  })

/** `effect-mcp ui`. */
export const ui = Command.make("ui", uiOptions, (options) =>
  runCommand(
    options.run,
    Effect.gen(function* () {
      const output = yield* Output
      if (!isLoopback(options.host) && !options.exposeToNetwork)
        return yield* new UsageError({
          reason: `--host ${options.host} would let other machines reach the page, which can run commands here: add --expose-to-network if that is what you want`
        })
      const location = yield* ConfigLoader.here(Option.getOrUndefined(options.config))
      const loaded = yield* McpHost.serversFromConfig(location, expandContext(false))
      for (const warning of loaded.warnings) yield* output.note(`warning: ${warning}`)
      for (const problem of loaded.problems) yield* output.note(`warning: ${problem.message} (server left out)`)
      const configured = Option.match(options.server, {
        onNone: () => loaded.servers,
        onSome: (name) => loaded.servers.filter((server) => server.name === name)
      })
      if (Option.isSome(options.server) && configured.length === 0)
        return yield* new UsageError({
          reason: `no server "${options.server.value}" in ${loaded.files.join(", ") || "any config file"}`
        })
      const servers = [...configured, ...(yield* inlineServers(options))]
      const stateDir = Option.getOrElse(options.stateDir, () => join(homedir(), ".local", "state", "effect-mcp", "ui"))
      const chat = yield* chatOptions(loaded.files)
      const files = yield* Effect.context<FileSystem.FileSystem | Path.Path>()
      // Built in this command's scope: the page is served until the command ends.
      const platform = yield* Layer.build(
        Layer.mergeAll(
          NodeHttpServer.layer(() => createServer(), { host: options.host, port: options.port }),
          KeyValueStore.layerFileSystem(stateDir)
        )
      ).pipe(Effect.mapError((error) => new UsageError({ reason: `the page could not start: ${error.message}` })))
      // The MCP Apps sandbox proxy: the same address on another free port, so another origin.
      const sandbox = yield* Layer.build(
        NodeHttpServer.layer(() => createServer(), { host: options.host, port: 0 })
      ).pipe(
        Effect.map((context) => Context.get(context, HttpServer.HttpServer)),
        Effect.mapError((error) => new UsageError({ reason: `the views' sandbox could not start: ${error.message}` }))
      )
      const page = yield* WebUi.make({
        sandbox,
        pageDir: pageDir(),
        chat,
        secrets: secretsOf(servers),
        configFiles: loaded.files,
        roots: [{ uri: `file://${process.cwd()}`, name: "working directory" }],
        save: (server, file) =>
          Effect.gen(function* () {
            const [result] = yield* ConfigWriter.write(file, [yield* changeFor(file, server.name, server.target)], {
              force: false
            })
            if (result?.outcome === "clash")
              return yield* new UsageError({ reason: `${file} already has a server "${server.name}"` })
          }).pipe(Effect.provide(files)),
        replay: (name, text) =>
          Effect.gen(function* () {
            yield* Either.mapLeft(parse(text), (reason) => new UsageError({ reason }))
            const fs = yield* FileSystem.FileSystem
            const dir = join(stateDir, "recordings")
            yield* fs.makeDirectory(dir, { recursive: true })
            const file = join(dir, `${name}.jsonl`)
            yield* fs.writeFileString(file, text)
            const bin = process.argv[1] ?? ""
            return {
              name,
              target: { _tag: "Stdio" as const, command: process.execPath, args: [bin, "replay", file], env: {} }
            } satisfies McpHost.ServerConfig
          }).pipe(Effect.provide(files)),
        host: (parts) =>
          Layer.unwrapEffect(
            hostLayer(servers, options.run, false, {
              handlers: parts.handlers,
              transports: parts.transports,
              authorizer: parts.authorizer,
              awaitServers: parts.awaitServers,
              ...(parts.mcpApps === undefined ? {} : { mcpApps: parts.mcpApps })
            })
          )
      }).pipe(Effect.provide(platform))
      yield* output.line(`effect-mcp ui: ${page.url}`)
      if (!options.noOpen) yield* openBrowser(page.url)
      return yield* Effect.never
    }).pipe(Effect.scoped)
  )
).pipe(
  Command.withDescription(
    "The host in a web page: every configured server side by side (tools, resources, prompts, the protocol trace, consoles), what servers ask answered in the page, and a chat with a model over all their tools. Serves on 127.0.0.1 and opens the browser.\n" +
      "Example: effect-mcp ui --config .mcp.json"
  )
)
