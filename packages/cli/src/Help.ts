/**
 * The CLI's help, printed at the edge instead of `@effect/cli`'s renderer (which repeats the
 * 18 shared connection options under every command with filler text, shows usage as
 * `$ call [...]` without the command's path, and wraps at a fixed width breaking words): a
 * short root help (one line per command), per-command help with the full path, its own
 * arguments and options, examples, the shared connection options described once
 * (`effect-mcp help connect`), "did you mean" for mistyped commands, and text wrapped to the
 * terminal's width (not at all off a terminal). The content still comes from the command
 * tree's descriptions, so nothing is written twice.
 *
 * @since 0.1.0
 */
import { closest } from "./internal/closest.js"
import type { Definition } from "./internal/helpDoc.js"
import { padEnd, width as widthOf } from "./internal/textWidth.js"
import { wrap } from "./internal/wrap.js"

/**
 * One command of the tree, read from its descriptor.
 *
 * @since 0.1.0
 * @category models
 */
export interface Entry {
  readonly path: ReadonlyArray<string>
  readonly description: ReadonlyArray<string>
  readonly examples: ReadonlyArray<string>
  readonly arguments: ReadonlyArray<Definition>
  /** Its own options (the shared connection options left out). */
  readonly options: ReadonlyArray<Definition>
  /** It takes the shared connection options. */
  readonly connects: boolean
  /** The shared options it takes (described by `help connect`). */
  readonly shared: ReadonlyArray<string>
  readonly children: ReadonlyArray<Entry>
}

/**
 * What to print instead of running, and the exit code.
 *
 * @since 0.1.0
 * @category models
 */
export interface Intercepted {
  readonly text: string
  readonly toStderr: boolean
  readonly code: number
}

/**
 * Everything help prints, as plain data (no `@effect/cli` needed to print it): the command
 * tree and the shared connection options. `internal/helpCatalogue.ts` reads it from the command
 * tree; the build embeds it in the bundled binary, so `--help` loads no command.
 *
 * @since 0.1.0
 * @category models
 */
export interface Catalogue {
  readonly tree: Entry
  /** The options that choose a server (`--server`, `--stdio`, `--url`, …). */
  readonly server: ReadonlyArray<Definition>
  /** The options of every run (`--json`, `--timeout`, …). */
  readonly run: ReadonlyArray<Definition>
}

const firstSentence = (lines: ReadonlyArray<string>) => {
  const text = lines.join(" ")
  const end = text.search(/\.(\s|$)/)
  return end === -1 ? text : text.slice(0, end + 1)
}

const TERM_COLUMNS = 28

/** The term column of a page: its widest term (as the terminal counts), at most 28 columns. */
const termColumn = (...sections: ReadonlyArray<ReadonlyArray<Definition>>): number =>
  Math.min(TERM_COLUMNS, Math.max(0, ...sections.flat().map((definition) => widthOf(definition.term))))

/**
 * Lines of `term  text` pairs, the texts wrapped to `width` and starting in one column: `column`,
 * shared by every section of a page, so that they line up from one to the next.
 */
const definitionLines = (
  definitions: ReadonlyArray<Definition>,
  width: number,
  column = termColumn(definitions),
  indent = "  "
): Array<string> => {
  const room = Math.max(24, width - indent.length - column - 2)
  const under = `${indent}${" ".repeat(column)}  `
  return definitions.flatMap(({ term, text }) => {
    const wrapped = wrap(text, room)
    if (widthOf(term) > column)
      return [
        ...wrap(term, Math.max(20, width - indent.length)).map(
          (line, index) => `${indent}${index === 0 ? "" : "  "}${line}`
        ),
        ...wrapped.map((line) => `${under}${line}`)
      ]
    const [first = "", ...rest] = wrapped
    return [`${indent}${padEnd(term, column)}  ${first}`.trimEnd(), ...rest.map((line) => `${under}${line}`)]
  })
}

const paragraph = (text: string, width: number, indent = "") =>
  wrap(text, width - indent.length).map((line) => `${indent}${line}`)

const CONNECT_LINE =
  'Server: --server NAME (a config file\'s), --stdio "CMD ARGS", --url URL, or -- CMD ARGS; more: effect-mcp help connect'

const usageOf = (entry: Entry): string => {
  const words = ["effect-mcp", ...entry.path]
  if (entry.children.length > 0) return `${words.join(" ")} <command>`
  const args = entry.arguments.map((argument) => argument.term)
  return [
    ...words,
    ...args,
    ...(entry.options.length > 0 ? ["[options]"] : []),
    ...(entry.connects ? ["[server]"] : [])
  ].join(" ")
}

/**
 * The root help: one line per command.
 *
 * @since 0.1.0
 * @category rendering
 */
export const rootHelp = (tree: Entry, version: string, width: number): string =>
  [
    ...paragraph(`effect-mcp ${version}: inspect and drive any MCP server from the terminal.`, width),
    "",
    "Usage: effect-mcp <command> [arguments] [options] [server]",
    "",
    "Commands:",
    ...definitionLines(
      tree.children.map((child) => ({ term: child.path.join(" "), text: firstSentence(child.description) })),
      width
    ),
    "",
    ...paragraph(CONNECT_LINE, width),
    ...paragraph("Details of a command: effect-mcp help <command> (or <command> --help).", width),
    "",
    "Examples:",
    '  effect-mcp inspect --stdio "npx -y @modelcontextprotocol/server-everything"',
    "  effect-mcp tools call get-sum a=2 b:=3 -- npx -y @modelcontextprotocol/server-everything",
    "  effect-mcp shell -- npx -y @modelcontextprotocol/server-everything"
  ].join("\n")

/**
 * The help of one command or group, with its full path.
 *
 * @since 0.1.0
 * @category rendering
 */
export const commandHelp = (entry: Entry, width: number): string => {
  const lines = [`Usage: ${usageOf(entry)}`, ""]
  for (const text of entry.description) lines.push(...paragraph(text, width))
  const commands = entry.children.map((child) => ({
    term: child.path.join(" "),
    text: firstSentence(child.description)
  }))
  const column = termColumn(commands, entry.arguments, entry.options)
  if (commands.length > 0) lines.push("", "Commands:", ...definitionLines(commands, width, column))
  if (entry.arguments.length > 0) lines.push("", "Arguments:", ...definitionLines(entry.arguments, width, column))
  if (entry.options.length > 0) lines.push("", "Options:", ...definitionLines(entry.options, width, column))
  if (entry.connects) lines.push("", ...paragraph(CONNECT_LINE, width))
  else if (entry.shared.length > 0)
    lines.push("", ...paragraph(`Shared options: ${entry.shared.join(", ")}; see effect-mcp help connect`, width))
  const examples = [...entry.examples, ...entry.children.flatMap((child) => child.examples.slice(0, 1))]
  if (examples.length > 0)
    lines.push("", examples.length === 1 ? "Example:" : "Examples:", ...examples.map((e) => `  ${e}`))
  return lines.join("\n")
}

/**
 * `effect-mcp help connect`: choosing a server, and the options every server command shares.
 *
 * @since 0.1.0
 * @category rendering
 */
export const connectHelp = ({ server, run }: Catalogue, width: number): string =>
  [
    ...paragraph(
      "Choosing a server (every command that talks to one takes these, after the command's own words):",
      width
    ),
    "",
    ...paragraph('Inline: --stdio "CMD ARGS" or -- CMD ARGS (a process over stdio), or --url URL (HTTP).', width, "  "),
    ...paragraph(
      "By name: --server NAME from a config file: the project's ./.mcp.json, ./mcp.json, ./.vscode/mcp.json, ./.cursor/mcp.json, then the user's (effect-mcp's own, Claude Desktop's and Claude Code's, Cursor's, Windsurf's, VS Code's, Gemini's, Codex's, Zed's); the first file that defines NAME wins; or --config FILE. effect-mcp config list shows them all.",
      width,
      "  "
    ),
    "",
    "Server options:",
    ...definitionLines(server, width, termColumn(server, run)),
    "",
    "Run options:",
    ...definitionLines(run, width, termColumn(server, run)),
    "",
    "Examples:",
    '  effect-mcp tools list --stdio "npx -y @modelcontextprotocol/server-everything"',
    "  effect-mcp ping --url http://127.0.0.1:3001/mcp --header 'Authorization: Bearer …'",
    "  effect-mcp info --server github --config ~/.codex/config.toml"
  ].join("\n")

const isHelpFlag = (word: string) => word === "--help" || word === "-h"

/**
 * What to print instead of running `words` (argv without node, the script and what follows
 * `--`): help when asked (`--help`, `-h`, `help …`, no words at all, a group without its
 * subcommand), a "did you mean" for a command that does not exist, or the version
 * (`--version`, as `@effect/cli` takes it: anywhere). `undefined`: run it.
 *
 * @since 0.1.0
 * @category parsing
 */
export const intercept = (
  catalogue: Catalogue,
  words: ReadonlyArray<string>,
  version: string,
  width: number
): Intercepted | undefined => {
  const { tree } = catalogue
  const help = (text: string): Intercepted => ({ text, toStderr: false, code: 0 })
  const asked = words[0] === "help"
  const rest = asked ? words.slice(1) : words
  if (rest.length === 0) return asked || words.length === 0 ? help(rootHelp(tree, version, width)) : undefined
  if (asked && rest[0] === "connect") return help(connectHelp(catalogue, width))
  if (asked && rest[0] === "help") return help(rootHelp(tree, version, width))
  let node = tree
  for (const word of rest) {
    if (word.startsWith("-")) break
    const child = node.children.find((candidate) => candidate.path.at(-1) === word)
    if (child !== undefined) {
      node = child
      continue
    }
    if (node.children.length === 0) break
    const names = node.children.map((candidate) => candidate.path.at(-1) ?? "")
    // At the top, `version` is --version (as `help` is --help, which it takes already).
    const close = [
      ...closest(word, names).map((name) => `"${[...node.path, name].join(" ")}"`),
      ...(node === tree ? closest(word, ["version"]).map(() => "--version") : [])
    ]
    const where = ["effect-mcp", ...node.path].join(" ")
    const message = `${where} has no command "${word}"${close.length === 0 ? "" : `; did you mean ${close.join(" or ")}?`}`
    return {
      toStderr: true,
      code: 2,
      text: words.includes("--json")
        ? JSON.stringify({ error: { kind: "UsageError", message, exitCode: 2 } })
        : [`error: ${message}`, `Commands: ${names.join(", ")}. See ${where} --help.`].join("\n")
    }
  }
  if (asked || rest.some(isHelpFlag) || (node.children.length > 0 && node !== tree))
    return help(node === tree ? rootHelp(tree, version, width) : commandHelp(node, width))
  if (words.includes("--version")) return help(version)
  return undefined
}
