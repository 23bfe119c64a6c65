/**
 * `resources list`, `resources templates`, `resources read <uri>` and
 * `resources subscribe <uri>` (prints each update, re-reading the resource, until interrupted).
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as CommonOptions from "../CommonOptions.js"
import { withClient } from "../Connect.js"
import { dim, Output, styled } from "../Output.js"
import { outOption, payloadOf, save } from "./binary.js"
import { resourceContents } from "./render.js"
import { listCommand, runCommand } from "./shared.js"

/** `resources list`. */
export const list = listCommand(
  "list",
  "List the server's resources.\nExample: effect-mcp resources list --server everything",
  "resources",
  (client) => client.resources,
  (resource) => [resource.uri, `${resource.name}${resource.mimeType === undefined ? "" : ` (${resource.mimeType})`}`]
)

/** `resources templates`. */
export const templates = listCommand(
  "templates",
  "List the server's resource templates.\nExample: effect-mcp resources templates --server everything",
  "resourceTemplates",
  (client) => client.resourceTemplates,
  (template) => [template.uriTemplate, template.description ?? template.name]
)

const uriArg = Args.text({ name: "uri" }).pipe(Args.withDescription("The resource's URI"))

/** Reads a resource and prints its contents (saved into `out` when given). */
export const printRead = (
  client: Parameters<Parameters<typeof withClient>[2]>[0],
  uri: string,
  out: Option.Option<string>
) =>
  Effect.gen(function* () {
    const output = yield* Output
    const result = yield* client.readResource(uri)
    if (output.json) return yield* output.printJson(result)
    for (const contents of result.contents) {
      if (result.contents.length > 1) yield* output.line(dim(output.color, `— ${contents.uri}`))
      yield* output.line(resourceContents(contents))
      const payload = Option.isSome(out) ? payloadOf({ type: "resource", resource: contents }, "resource") : undefined
      if (Option.isSome(out) && payload !== undefined)
        yield* output.line(styled`  saved to ${yield* save(out.value, payload)}`)
    }
  })

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
    "Read a resource and print its contents.\nExample: effect-mcp resources read demo://resource/static/document/architecture.md --server everything"
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
    "Subscribe to a resource and print each update until interrupted.\nExample: effect-mcp resources subscribe demo://resource/static/document/architecture.md --server everything"
  )
)

/** `effect-mcp resources`. */
export const resources = Command.make("resources").pipe(
  Command.withDescription("List, read and subscribe to resources."),
  Command.withSubcommands([list, templates, read, subscribe])
)
