/**
 * The commands of `effect-mcp host shell`: every configured server in one session, tools and
 * prompts under their namespaced names (`server__tool`), resources by server and read by URI
 * (`hostResources.ts`), log messages and subscriptions (`hostSessions.ts`), and `status`; server
 * status, list changes, log messages and resource updates are printed as they come.
 */
import type * as Prompt from "@effect/cli/Prompt"
import { McpError } from "@effect-mcp/client"
import type { McpHost } from "@effect-mcp/host"
import { ServerStatus } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { UsageError } from "../CliError.js"
import { failuresOf, statusRows } from "../commands/hostStatus.js"
import { whyNot } from "../commands/hostTools.js"
import { printPrompt } from "../commands/prompts.js"
import { printList } from "../commands/shared.js"
import { callAndPrint, callArguments, showTool } from "../commands/tools.js"
import { signature, summary } from "../commands/toolView.js"
import { closest } from "../internal/closest.js"
import { Output, table } from "../Output.js"
import type { ServerNames } from "../ServerNames.js"
import { promptArguments, schemaArguments, type Vocabulary } from "./Completion.js"
import * as HostResources from "./hostResources.js"
import * as HostSessions from "./hostSessions.js"
import type { Target } from "./Repl.js"
import { levelOf, takeFlags } from "./ServerShell.js"

const COMMANDS: { readonly [command: string]: ReadonlyArray<string> } = {
  tools: ["list", "show", "call"],
  resources: ["list", "templates", "read", "subscribe", "unsubscribe"],
  prompts: ["list", "get"],
  logs: ["on", "off"],
  subscribe: [],
  unsubscribe: [],
  status: [],
  help: [],
  exit: []
}

const HELP: ReadonlyArray<readonly [string, string]> = [
  ["status", "every server and its status"],
  ["tools list", "every ready server's tools, as server__tool"],
  ["tools show server__tool", "one tool in full"],
  ["tools call server__tool k=v … [--task] [--out DIR] [--args JSON]", "call a tool (Ctrl-C cancels it)"],
  ["resources list | templates", "every server's resources, templates (by server)"],
  [
    "resources read URI [--server NAME] [--out DIR]",
    "read one (from the server that lists it, or whose template matches)"
  ],
  [
    "resources subscribe | unsubscribe URI [--server NAME]",
    "follow a resource's updates (printed as they come); also subscribe URI"
  ],
  ["prompts list | get server__prompt k=v", "every server's prompts; get one"],
  ["logs on [LEVEL] | off", "show every server's log messages (from LEVEL up) or hide them"],
  ["exit (or Ctrl-D)", "close the session"]
]

const usage = (reason: string) => Effect.fail(new UsageError({ reason }))

/**
 * A server's stderr's last lines, said once: a session that died is said in its status line and
 * in the error of the command that was running on it, and a server that crashes again leaves the
 * same lines. A failure whose lines were the last said for its server comes back without them.
 */
const tailSaidOnce = () => {
  const said = new Map<string, string>()
  return (server: string, failure: McpError.TransportError): McpError.TransportError => {
    if (failure.stderr === undefined || failure.stderr.trim() === "") return failure
    if (said.get(server) !== failure.stderr) {
      said.set(server, failure.stderr)
      return failure
    }
    const { stderr: _said, ...rest } = failure
    return new McpError.TransportError(rest)
  }
}

/** A status line's status, its cause's stderr said once. */
const saidOnce = (
  once: ReturnType<typeof tailSaidOnce>,
  server: string,
  status: ServerStatus.ServerStatus
): ServerStatus.ServerStatus => {
  if ((status._tag !== "Reconnecting" && status._tag !== "Failed") || status.cause._tag !== "TransportError")
    return status
  const cause = once(server, status.cause)
  return status._tag === "Failed"
    ? ServerStatus.ServerStatus.Failed({ cause })
    : ServerStatus.ServerStatus.Reconnecting({ attempt: status.attempt, cause })
}

/** A session target on a host of every configured server. */
export const target = (
  host: McpHost.McpHostService
): Effect.Effect<Target<Output | ServerNames | Prompt.Prompt.Environment>, never, Output> =>
  Effect.gen(function* () {
    const output = yield* Output
    const vocabulary: Effect.Effect<Vocabulary> = Effect.gen(function* () {
      const tools = yield* host.tools
      const resources = yield* HostResources.listed(host)
      const prompts = yield* host.prompts
      return {
        commands: COMMANDS,
        tools: tools.map((entry) => ({ name: entry.name, args: schemaArguments(entry.tool.inputSchema) })),
        resources: [...new Set(resources.map((entry) => entry.resource.uri))],
        templates: [],
        prompts: prompts.map((entry) => ({ name: entry.name, args: promptArguments(entry.prompt.arguments) }))
      }
    })
    const sessions = yield* HostSessions.make(host)
    const once = tailSaidOnce()
    const notifications = host.changes.pipe(
      Stream.map((change) =>
        change._tag === "Status"
          ? `${change.server}: ${ServerStatus.describe(saidOnce(once, change.server, change.status))}`
          : `${change.server}: its ${change.list} changed`
      ),
      Stream.merge(sessions.lines)
    )
    const findTool = (name: string) =>
      Effect.flatMap(host.tools, (tools) => {
        const found = tools.find((entry) => entry.name === name)
        return found === undefined ? whyNot(host, name) : Effect.succeed(found)
      })

    const run = (words: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const [command = "", sub, ...rest] = words
        switch (command) {
          case "help":
            for (const line of table(HELP, output.width)) yield* output.line(line)
            return
          case "status": {
            for (const line of table(statusRows(yield* host.servers), output.width, "")) yield* output.line(line)
            return
          }
          case "tools": {
            if (sub === "list")
              return yield* printList("tools", yield* host.tools, (entry) => [
                signature({ ...entry.tool, name: entry.name }),
                summary(entry.tool)
              ])
            const name = rest[0]
            if (sub === "show" && name !== undefined) {
              const found = yield* findTool(name)
              return yield* showTool(yield* host.client(found.server), found.tool.name)
            }
            if (sub === "call" && name !== undefined) {
              const found = yield* findTool(name)
              const flags = yield* takeFlags(rest.slice(1), ["out", "args"], ["task"])
              const input = yield* callArguments(Option.fromNullable(flags.values.get("args")), flags.rest, found.tool)
              return yield* callAndPrint(
                yield* host.client(found.server),
                found.tool.name,
                input,
                flags.set.has("task"),
                Option.fromNullable(flags.values.get("out"))
              )
            }
            return yield* usage("tools list | tools show server__tool | tools call server__tool k=v …")
          }
          case "resources":
            return yield* HostResources.run(host, sessions, words.slice(1))
          case "subscribe":
          case "unsubscribe":
            // Short for `resources subscribe URI` and `resources unsubscribe URI`.
            return yield* HostResources.run(host, sessions, words)
          case "logs": {
            if (sub === "off") {
              yield* sessions.logsOff
              return yield* output.note("log messages hidden")
            }
            if (sub === "on") {
              const level = yield* levelOf(rest[0])
              const servers = yield* sessions.logsOn(level)
              return yield* output.note(
                `showing log messages at ${level} and above${servers.length === 0 ? " (no ready server logs)" : ` from ${servers.join(", ")}`}`
              )
            }
            return yield* usage("logs on [LEVEL] | logs off")
          }
          case "prompts": {
            const prompts = yield* host.prompts
            if (sub === "list")
              return yield* printList("prompts", prompts, (entry) => [entry.name, entry.prompt.description])
            const name = rest[0]
            if (sub === "get" && name !== undefined) {
              const found = prompts.find((entry) => entry.name === name)
              if (found === undefined) {
                const close = closest(
                  name,
                  prompts.map((entry) => entry.name)
                )
                return yield* usage(
                  `no ready server offers the prompt "${name}"${close.length === 0 ? "" : ` (did you mean ${close.join(", ")}?)`}`
                )
              }
              const flags = yield* takeFlags(rest.slice(1), ["out"], [])
              return yield* printPrompt(
                yield* host.client(found.server),
                found.prompt.name,
                flags.rest,
                Option.fromNullable(flags.values.get("out"))
              )
            }
            return yield* usage("prompts list | prompts get server__prompt k=v …")
          }
          default: {
            const close = closest(command, Object.keys(COMMANDS))
            return yield* usage(
              `"${command}" is not a command${close.length === 0 ? "" : `; did you mean ${close.join(" or ")}?`} (help lists them)`
            )
          }
        }
      })

    // Said when the session starts: the servers that are not there, and why.
    const warnings = Effect.map(host.servers, (servers) =>
      failuresOf(servers).map(({ server, why }) => `${server} failed to start: ${why} (status shows every server)`)
    )
    return {
      name: "host",
      vocabulary,
      changes: host.changes,
      notifications,
      warnings,
      run: (words) =>
        Effect.mapError(run(words), (failure) =>
          failure._tag === "TransportError" ? once(failure.server, failure) : failure
        )
    }
  })
