/**
 * The `effect-mcp` command tree.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import { clientInfo } from "./Connect.js"
import { auth } from "./commands/auth.js"
import { chat } from "./commands/chat.js"
import { config } from "./commands/config.js"
import { conformance } from "./commands/conformance.js"
import { generate } from "./commands/generate.js"
import { host } from "./commands/host.js"
import { complete, logs, servers } from "./commands/misc.js"
import { prompts } from "./commands/prompts.js"
import { replay } from "./commands/replay.js"
import { resources } from "./commands/resources.js"
import { serve } from "./commands/serve.js"
import { info, inspect, ping } from "./commands/server.js"
import { shell } from "./commands/shell.js"
import { skills } from "./commands/skills.js"
import { tools } from "./commands/tools.js"
import { ui } from "./commands/ui.js"
import type * as Help from "./Help.js"
import { rootOf } from "./internal/commandTable.js"
import { catalogue } from "./internal/helpCatalogue.js"

/**
 * `effect-mcp` and its subcommands.
 *
 * @since 0.1.0
 * @category constants
 */
export const root = rootOf([
  inspect,
  info,
  ping,
  tools,
  resources,
  prompts,
  skills,
  complete,
  logs,
  shell,
  servers,
  config,
  auth,
  host,
  serve,
  ui,
  chat,
  generate,
  replay,
  conformance
])

/**
 * The command tree as help shows it (see {@link Help}): a command with subcommands is listed
 * here too. The build embeds this in the bundled binary (`scripts/bundle.mjs`).
 *
 * @since 0.1.0
 * @category help
 */
export const helpCatalogue = (): Help.Catalogue =>
  catalogue(root, {
    tools: Command.getSubcommands(tools),
    resources: Command.getSubcommands(resources),
    prompts: Command.getSubcommands(prompts),
    skills: Command.getSubcommands(skills),
    host: Command.getSubcommands(host),
    config: Command.getSubcommands(config),
    auth: Command.getSubcommands(auth)
  })

/**
 * Parses `argv` (without the node and script words) and runs the chosen command.
 *
 * @since 0.1.0
 * @category running
 */
export const run = Command.run(root, { name: "effect-mcp", version: clientInfo.version })
