/**
 * `resources list`, `resources templates`, `resources read <uri>` and
 * `resources subscribe <uri>` (prints each update, re-reading the resource, until interrupted).
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import type { McpClient } from "@effect-mcp/client"
import { Aggregate } from "@effect-mcp/host"
import { McpApps, type McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { UsageError } from "../CliError.js"
import * as CommonOptions from "../CommonOptions.js"
import { withClient } from "../Connect.js"
import { closest } from "../internal/closest.js"
import { dim, Output, styled } from "../Output.js"
import { display } from "../ServerNames.js"
import { outOption, payloadOf, save } from "./binary.js"
import { resourceContents } from "./render.js"
import { listCommand, runCommand } from "./shared.js"
import { resourceMetaOf, viewDeclaration } from "./toolView.js"

/** `resources list`. */
export const list = listCommand(
  "list",
  "List the server's resources.\nExample: effect-mcp resources list -- npx -y @modelcontextprotocol/server-everything",
  "resources",
  (client) => client.resources,
  (resource) => [resource.uri, `${resource.name}${resource.mimeType === undefined ? "" : ` (${resource.mimeType})`}`]
)

/** `resources templates`. */
export const templates = listCommand(
  "templates",
  "List the server's resource templates.\nExample: effect-mcp resources templates -- npx -y @modelcontextprotocol/server-everything",
  "resourceTemplates",
  (client) => client.resourceTemplates,
  (template) => [template.uriTemplate, template.description ?? template.name]
)

const uriArg = Args.text({ name: "uri" }).pipe(Args.withDescription("The resource's URI"))

/**
 * After a server refused to read `uri`: a usage error naming the closest listed URIs when the
 * URI is neither listed nor matched by a template (the user's mistake), else nothing (the
 * server's refusal stands).
 */
const unknownUri = (client: McpClient.McpClientService, uri: string) =>
  Effect.gen(function* () {
    const listed = yield* Effect.orElseSucceed(client.resources, () => [])
    const templates = yield* Effect.orElseSucceed(client.resourceTemplates, () => [])
    const known =
      listed.some((resource) => resource.uri === uri) ||
      templates.some((template) => Aggregate.templateMatches(template.uriTemplate, uri))
    if (known || (listed.length === 0 && templates.length === 0)) return
    const close = closest(
      uri,
      listed.map((resource) => resource.uri)
    )
    return yield* new UsageError({
      server: client.name,
      method: "resources/read",
      reason: `${yield* display(client.name)} lists no resource ${uri}${close.length === 0 ? " (see effect-mcp resources list and resources templates)" : ` (did you mean ${close.join(", ")}?)`}`
    })
  })

/** Reads a resource and prints its contents (saved into `out` when given). */
export const printRead = (client: McpClient.McpClientService, uri: string, out: Option.Option<string>) =>
  Effect.gen(function* () {
    const output = yield* Output
    const result = yield* client
      .readResource(uri)
      .pipe(
        Effect.catchTag("RpcError", (refused) => Effect.flatMap(unknownUri(client, uri), () => Effect.fail(refused)))
      )
    if (output.json) return yield* output.printJson(result)
    for (const contents of result.contents) {
      if (result.contents.length > 1) yield* output.line(dim(output.color, `— ${contents.uri}`))
      // An MCP Apps view is a document to open, not text to read: it is saved (into --out, else
      // the working directory) with what it declares.
      const view = isView(contents)
      if (!view) yield* output.line(resourceContents(contents))
      const dir = Option.isSome(out) ? out.value : view ? "." : undefined
      const payload = dir === undefined ? undefined : payloadOf({ type: "resource", resource: contents }, "view")
      if (dir !== undefined && payload !== undefined)
        yield* output.line(styled`${view ? "" : "  "}saved to ${yield* save(dir, payload)}`)
      if (view) for (const line of viewDeclaration(resourceMetaOf(contents._meta))) yield* output.line(`  ${line}`)
    }
  })

/** Whether contents are an MCP Apps view (a `ui://` address with the extension's MIME type). */
const isView = (contents: McpSchema.TextResourceContents | McpSchema.BlobResourceContents) =>
  McpApps.isUiUri(contents.uri) && contents.mimeType?.split(";")[0]?.trim().toLowerCase() === "text/html"

/** `resources read <uri>`. */
export const read = Command.make(
  "read",
  { ...CommonOptions.connection, uri: uriArg, out: outOption },
  ({ server, run, uri, out }) =>
    runCommand(
      run,
      withClient(server, run, (client) => printRead(client, uri, out))
    )
).pipe(
  Command.withDescription(
    "Read a resource and print its contents; an MCP Apps view (ui://…) is saved as HTML (into --out, else here).\nExample: effect-mcp resources read demo://resource/static/document/architecture.md -- npx -y @modelcontextprotocol/server-everything"
  )
)

/** `resources subscribe <uri>`. */
export const subscribe = Command.make(
  "subscribe",
  { ...CommonOptions.connection, uri: uriArg },
  ({ server, run, uri }) =>
    runCommand(
      run,
      withClient(server, run, (client) =>
        Effect.gen(function* () {
          const output = yield* Output
          const updates = client.resourceUpdates.pipe(Stream.filter((update) => update.uri === uri))
          // Listen before subscribing, so that no update is missed.
          const fiber = yield* updates.pipe(
            Stream.runForEach((update) =>
              output.json ? output.printJson({ updated: update.uri }) : output.line(`updated: ${update.uri}`)
            ),
            Effect.forkScoped
          )
          yield* client.subscribe(uri)
          yield* output.note(`subscribed to ${uri}; Ctrl-C to stop`)
          yield* fiber.await
        }).pipe(Effect.scoped)
      )
    )
).pipe(
  Command.withDescription(
    "Subscribe to a resource and print each update until interrupted.\nExample: effect-mcp resources subscribe demo://resource/static/document/architecture.md -- npx -y @modelcontextprotocol/server-everything"
  )
)

/** `effect-mcp resources`. */
export const resources = Command.make("resources").pipe(
  Command.withDescription("List, read and subscribe to resources."),
  Command.withSubcommands([list, templates, read, subscribe])
)
