/**
 * `info`, `ping` and `inspect`: what the server is, whether it answers, and one readable
 * overview of everything it offers.
 */

import * as Command from "@effect/cli/Command"
import type { McpClient } from "@effect-mcp/client"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CommonOptions from "../CommonOptions.js"
import { withClient } from "../Connect.js"
import { bold, dim, Output, styled, table, wrap } from "../Output.js"
import { display } from "../ServerNames.js"
import { promptSignature } from "./render.js"
import { runCommand } from "./shared.js"
import { signature, summary } from "./toolView.js"

const describeCapabilities = (capabilities: object): string =>
  Object.entries(capabilities)
    .map(([name, value]) => {
      const flags =
        typeof value === "object" && value !== null ? Object.keys(value).filter((key) => key !== "_meta") : []
      return flags.length === 0 ? name : `${name} (${flags.join(", ")})`
    })
    .join(", ")

const infoJson = (client: McpClient.McpClientService) => ({
  serverInfo: client.serverInfo,
  protocolVersion: client.protocolVersion,
  era: client.era,
  capabilities: client.serverCapabilities,
  ...Option.match(client.instructions, { onNone: () => ({}), onSome: (instructions) => ({ instructions }) })
})

/** Prints what the server is: name, version, protocol, capabilities, instructions. */
export const printInfo = (client: McpClient.McpClientService) =>
  Effect.gen(function* () {
    const output = yield* Output
    const info = client.serverInfo
    yield* output.line(
      styled`${bold(output.color, info.title ?? info.name)} ${info.version}${info.title === undefined ? "" : dim(output.color, ` (${info.name})`)}`
    )
    // The capabilities wrap between words, under themselves.
    for (const line of table(
      [
        ["protocol", `${client.protocolVersion} (${client.era})`],
        ["capabilities", describeCapabilities(client.serverCapabilities) || "(none)"]
      ],
      output.width,
      ""
    ))
      yield* output.line(line)
    if (Option.isSome(client.instructions)) {
      yield* output.line("instructions")
      for (const paragraph of client.instructions.value.split("\n"))
        for (const line of paragraph.trim() === "" ? [""] : wrap(paragraph, output.width - 2))
          yield* output.line(`  ${line}`.trimEnd())
    }
  })

/** `effect-mcp info`. */
export const info = Command.make("info", CommonOptions.connection, ({ server, run }) =>
  runCommand(
    run,
    withClient(server, run, (client) =>
      Effect.gen(function* () {
        const output = yield* Output
        if (output.json) return yield* output.printJson(infoJson(client))
        yield* printInfo(client)
      })
    )
  )
).pipe(
  Command.withDescription(
    "Show the server's name, version, negotiated protocol revision, capabilities and instructions.\n" +
      'Example: effect-mcp info --stdio "npx -y @modelcontextprotocol/server-everything"'
  )
)

/** `effect-mcp ping`. */
export const ping = Command.make("ping", CommonOptions.connection, ({ server, run }) =>
  runCommand(
    run,
    withClient(server, run, (client) =>
      Effect.gen(function* () {
        const output = yield* Output
        const started = performance.now()
        yield* client.ping()
        const ms = Math.round((performance.now() - started) * 10) / 10
        yield* output.json
          ? output.printJson({ ok: true, ms })
          : output.line(`pong from ${yield* display(client.name)} in ${ms} ms`)
      })
    )
  )
).pipe(
  Command.withDescription("Check that the server answers.\nExample: effect-mcp ping --url http://127.0.0.1:3001/mcp")
)

/** Prints one overview of everything the server offers. */
export const printInspect = (client: McpClient.McpClientService) =>
  Effect.gen(function* () {
    const output = yield* Output
    const caps = client.serverCapabilities
    const tools = caps.tools === undefined ? [] : yield* client.tools
    const resources = caps.resources === undefined ? [] : yield* client.resources
    const templates = caps.resources === undefined ? [] : yield* client.resourceTemplates
    const prompts = caps.prompts === undefined ? [] : yield* client.prompts
    if (output.json)
      return yield* output.printJson({
        ...infoJson(client),
        tools,
        resources,
        resourceTemplates: templates,
        prompts
      })
    yield* printInfo(client)
    const section = (title: string, rows: ReadonlyArray<readonly [string, string | undefined]>) =>
      Effect.gen(function* () {
        yield* output.line("")
        yield* output.line(bold(output.color, `${title} (${rows.length})`))
        for (const line of table(rows, output.width)) yield* output.line(line)
      })
    if (caps.tools !== undefined)
      yield* section(
        "tools",
        tools.map((tool) => [signature(tool), summary(tool)])
      )
    if (caps.resources !== undefined) {
      yield* section(
        "resources",
        resources.map((resource) => [resource.uri, resource.name])
      )
      yield* section(
        "resource templates",
        templates.map((template) => [template.uriTemplate, template.name])
      )
    }
    if (caps.prompts !== undefined)
      yield* section(
        "prompts",
        prompts.map((prompt) => [promptSignature(prompt), prompt.description])
      )
  })

/** `effect-mcp inspect`. */
export const inspect = Command.make("inspect", CommonOptions.connection, ({ server, run }) =>
  runCommand(
    run,
    withClient(server, run, (client) => printInspect(client))
  )
).pipe(
  Command.withDescription(
    "One readable overview of everything the server offers: info, tools, resources, templates and prompts.\n" +
      "Example: effect-mcp inspect -- npx -y @modelcontextprotocol/server-everything"
  )
)
