/**
 * Help's data read from the command tree (`@effect/cli`'s own help documents, see
 * `helpDoc.ts`): run by the build, which embeds the result in the bundled binary, and by
 * `bin.ts` when it runs unbundled. `Help.ts` prints it without loading `@effect/cli`.
 */
import type * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as Descriptor from "@effect/cli/CommandDescriptor"
import * as Options from "@effect/cli/Options"
import * as HashMap from "effect/HashMap"
import * as CommonOptions from "../CommonOptions.js"
import type { Catalogue, Entry } from "../Help.js"
import { type Definition, type Section, sections } from "./helpDoc.js"

// Any `@effect/cli` config: only the descriptor's structure is read, not its rendering.
const config: CliConfig.CliConfig = {
  isCaseSensitive: false,
  autoCorrectLimit: 2,
  finalCheckBuiltIn: false,
  showAllNames: true,
  showBuiltIns: false,
  showTypes: true
}

// The order help lists commands in (most used first); others follow.
const ORDER = [
  "inspect",
  "info",
  "ping",
  "tools",
  "resources",
  "prompts",
  "skills",
  "complete",
  "logs",
  "shell",
  "servers",
  "config",
  "auth",
  "host"
]
const LEAF_ORDER = [
  "list",
  "show",
  "call",
  "templates",
  "read",
  "subscribe",
  "get",
  "login",
  "status",
  "logout",
  "tools",
  "shell",
  "add",
  "remove",
  "import"
]
const rank = (order: ReadonlyArray<string>, name: string) => {
  const index = order.indexOf(name)
  return index === -1 ? order.length : index
}

const optionName = (term: string) => term.split(/[ ,]/)[0] ?? term

const definitionsOf = <A>(options: Options.Options<A>): ReadonlyArray<Definition> =>
  sections(Options.getHelp(options)).flatMap((section) => section.definitions)

const sectionOf = (all: ReadonlyArray<Section>, title: string) => all.find((section) => section.title === title)

const entryOf = (
  path: ReadonlyArray<string>,
  descriptor: Descriptor.Command<unknown>,
  children: ReadonlyArray<Entry>,
  shared: ReadonlySet<string>
): Entry => {
  const all = sections(Descriptor.getHelp(descriptor, config))
  const lines = (sectionOf(all, "DESCRIPTION")?.paragraphs ?? []).flatMap((paragraph) => paragraph.split("\n"))
  const options = sectionOf(all, "OPTIONS")?.definitions ?? []
  return {
    path,
    description: lines.filter((line) => !line.startsWith("Example: ")),
    examples: lines.filter((line) => line.startsWith("Example: ")).map((line) => line.slice("Example: ".length)),
    arguments: sectionOf(all, "ARGUMENTS")?.definitions ?? [],
    options: options.filter((option) => !shared.has(optionName(option.term))),
    connects: options.some((option) => optionName(option.term) === "--server"),
    shared: options.map((option) => optionName(option.term)).filter((name) => shared.has(name)),
    children
  }
}

/**
 * Help's data for the command tree of `root`: `groups` are the subcommands of the commands that
 * have them (`Command.getSubcommands(tools)`), since `@effect/cli` lists one level only.
 */
export const catalogue = <Name extends string, R, E, A>(
  root: Command.Command<Name, R, E, A>,
  groups: { readonly [name: string]: HashMap.HashMap<string, Descriptor.Command<unknown>> }
): Catalogue => {
  const server = definitionsOf(CommonOptions.server)
  const run = definitionsOf(CommonOptions.run)
  const shared = new Set([...server, ...run].map((definition) => optionName(definition.term)))
  const children = [...HashMap.entries(Command.getSubcommands(root))].map(([name, descriptor]) => {
    const group = groups[name]
    const leaves =
      group === undefined
        ? []
        : [...HashMap.entries(group)]
            .sort(([a], [b]) => rank(LEAF_ORDER, a) - rank(LEAF_ORDER, b))
            .map(([leaf, child]) => entryOf([name, leaf], child, [], shared))
    return entryOf([name], descriptor, leaves, shared)
  })
  const tree: Entry = {
    path: [],
    description: [],
    examples: [],
    arguments: [],
    options: [],
    connects: false,
    shared: [],
    children: [...children].sort((a, b) => rank(ORDER, a.path[0] ?? "") - rank(ORDER, b.path[0] ?? ""))
  }
  return { tree, server, run }
}
