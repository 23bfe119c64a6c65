/**
 * The top-level commands, each imported when it runs. `main.ts` parses with a root that holds
 * only the command named first (`rootOf([command])`), so a run loads that command's module and
 * what it imports, nothing of the others: `conformance` or `tools` no gateway, web page server,
 * host or AI provider. `Cli.ts` builds the whole tree (help's data, the library's `root`) from
 * the same `rootOf` and the same commands (`Startup.test.ts` checks).
 */
import * as Command from "@effect/cli/Command"

/** Each top-level command by name, imported on demand. */
export const loaders = {
  inspect: () => import("../commands/server.js").then((module) => module.inspect),
  info: () => import("../commands/server.js").then((module) => module.info),
  ping: () => import("../commands/server.js").then((module) => module.ping),
  tools: () => import("../commands/tools.js").then((module) => module.tools),
  resources: () => import("../commands/resources.js").then((module) => module.resources),
  prompts: () => import("../commands/prompts.js").then((module) => module.prompts),
  skills: () => import("../commands/skills.js").then((module) => module.skills),
  complete: () => import("../commands/misc.js").then((module) => module.complete),
  logs: () => import("../commands/misc.js").then((module) => module.logs),
  shell: () => import("../commands/shell.js").then((module) => module.shell),
  servers: () => import("../commands/misc.js").then((module) => module.servers),
  config: () => import("../commands/config.js").then((module) => module.config),
  auth: () => import("../commands/auth.js").then((module) => module.auth),
  host: () => import("../commands/host.js").then((module) => module.host),
  serve: () => import("../commands/serve.js").then((module) => module.serve),
  ui: () => import("../commands/ui.js").then((module) => module.ui),
  chat: () => import("../commands/chat.js").then((module) => module.chat),
  generate: () => import("../commands/generate.js").then((module) => module.generate),
  replay: () => import("../commands/replay.js").then((module) => module.replay),
  conformance: () => import("../commands/conformance.js").then((module) => module.conformance)
}

/** The name of a top-level command. */
export type Name = keyof typeof loaders

/** Any top-level command. */
export type TopLevel = Awaited<ReturnType<(typeof loaders)[Name]>>

/** Whether `word` names a top-level command. */
export const isName = (word: string | undefined): word is Name => word !== undefined && Object.hasOwn(loaders, word)

/** `effect-mcp` with `subcommands`. */
export const rootOf = <const Subcommands extends readonly [TopLevel, ...Array<TopLevel>]>(subcommands: Subcommands) =>
  Command.make("effect-mcp").pipe(
    Command.withDescription(
      'Inspect and drive any MCP server. Choose it inline (--stdio "cmd args", -- cmd args, or --url URL) or by --server name from a config file.\n' +
        'Example: effect-mcp inspect --stdio "npx -y @modelcontextprotocol/server-everything"'
    ),
    Command.withSubcommands(subcommands)
  )

/**
 * The root to parse `words` (argv without node and the script) with: only the command they
 * start with, or every command when they start with none (`@effect/cli` then says what is missing).
 */
export const rootFor = async (words: ReadonlyArray<string>) => {
  const [first] = words
  if (isName(first)) return rootOf([await loaders[first]()])
  const [head, ...rest] = await Promise.all(Object.values(loaders).map((load) => load()))
  return rootOf([head as TopLevel, ...rest])
}
