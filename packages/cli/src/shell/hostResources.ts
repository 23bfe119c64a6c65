/**
 * Resources in `effect-mcp host shell`: every ready server's resources and templates, each
 * labelled by its server (a URI that two servers list is shown for both), and the server a URI is
 * read from: the one that lists it, else the one whose template matches it; when several do, the
 * one named by `--server NAME` (the option that names a server everywhere else), or on a terminal
 * the one the user picks. A subscription is made where the URI would be read from.
 */
import * as Prompt from "@effect/cli/Prompt"
import { Aggregate, type McpHost, ServerStatus } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { UsageError } from "../CliError.js"
import { isInteractive } from "../Connect.js"
import { printRead } from "../commands/resources.js"
import { printList } from "../commands/shared.js"
import { closest } from "../internal/closest.js"
import { Output } from "../Output.js"
import type { HostSessions } from "./hostSessions.js"
import { takeFlags } from "./ServerShell.js"

const usage = (reason: string) => new UsageError({ reason })

/** Every ready server's own resources, each with its server, in configuration order. */
export const listed = (host: McpHost.McpHostService): Effect.Effect<ReadonlyArray<Aggregate.HostResource>> =>
  Effect.flatMap(host.servers, (servers) =>
    Effect.forEach(
      servers.filter((server) => server.status._tag === "Ready"),
      (server) =>
        host.client(server.name).pipe(
          // The client's list is the one the host keeps (cached); a server without resources has none.
          Effect.flatMap((client) =>
            client.serverCapabilities.resources === undefined ? Effect.succeed([]) : client.resources
          ),
          Effect.map((resources) => resources.map((resource) => ({ server: server.name, resource }))),
          Effect.orElseSucceed(() => [])
        ),
      { concurrency: "unbounded" }
    )
  ).pipe(Effect.map((perServer) => perServer.flat()))

const unique = (names: ReadonlyArray<string>) => [...new Set(names)]

/** The servers that can read `uri`: those that list it, else those with a template that matches it. */
const ownersOf = (host: McpHost.McpHostService, uri: string, resources: ReadonlyArray<Aggregate.HostResource>) =>
  Effect.map(host.resourceTemplates, (templates) => {
    const listing = unique(resources.filter((entry) => entry.resource.uri === uri).map((entry) => entry.server))
    return listing.length > 0
      ? listing
      : unique(
          templates
            .filter((entry) => Aggregate.templateMatches(entry.template.uriTemplate, uri))
            .map((entry) => entry.server)
        )
  })

/** Asks which of `servers` to read `uri` from; Ctrl-C (a key to the prompt) ends the line and cancels the command. */
const ask = (uri: string, servers: ReadonlyArray<string>) =>
  Prompt.run(
    Prompt.select({
      message: `${uri} can be read from ${servers.length} servers; read it from`,
      choices: servers.map((server) => ({ title: server, value: server }))
    })
  ).pipe(
    Effect.catchTag("QuitException", () =>
      Effect.zipRight(
        Effect.sync(() => process.stdout.write("\n")),
        Effect.interrupt
      )
    )
  )

/** The server to read `uri` from (see the module's rule); `given` is `--server NAME`. */
export const ownerOf = (host: McpHost.McpHostService, uri: string, given: string | undefined) =>
  Effect.gen(function* () {
    if (given !== undefined) {
      const server = (yield* host.servers).find((candidate) => candidate.name === given)
      if (server === undefined) return yield* usage(`--server ${given}: no such server (status lists them)`)
      if (server.status._tag !== "Ready")
        return yield* usage(`--server ${given}: it is not ready (${ServerStatus.describe(server.status)})`)
      return given
    }
    const resources = yield* listed(host)
    const owners = yield* ownersOf(host, uri, resources)
    const [only] = owners
    if (only === undefined) {
      const close = closest(uri, unique(resources.map((entry) => entry.resource.uri)))
      return yield* usage(
        `no ready server lists ${uri} or has a template that matches it${close.length === 0 ? " (resources list, resources templates)" : ` (did you mean ${close.join(", ")}?)`}`
      )
    }
    if (owners.length === 1) return only
    if (isInteractive()) return yield* ask(uri, owners)
    return yield* usage(`${uri} can be read from ${owners.join(" and ")}: add --server ${owners.join(" or --server ")}`)
  })

/** The server an existing subscription to `uri` is on: `given`, or the only one subscribed. */
const subscribedOn = (sessions: HostSessions, uri: string, given: string | undefined) =>
  Effect.gen(function* () {
    if (given !== undefined) return given
    const servers = yield* sessions.subscribers(uri)
    const [only] = servers
    if (only === undefined) return yield* usage(`not subscribed to ${uri}`)
    if (servers.length > 1)
      return yield* usage(
        `subscribed to ${uri} on ${servers.join(" and ")}: add --server ${servers.join(" or --server ")}`
      )
    return only
  })

/** `resources list | templates | read URI | subscribe URI | unsubscribe URI` (the words after `resources`). */
export const run = (host: McpHost.McpHostService, sessions: HostSessions, words: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const output = yield* Output
    const [sub, uri, ...rest] = words
    if (sub === "list")
      return yield* printList("resources", yield* listed(host), (entry) => [
        entry.resource.uri,
        `${entry.resource.name} (${entry.server})`
      ])
    if (sub === "templates")
      return yield* printList("resourceTemplates", yield* host.resourceTemplates, (entry) => [
        entry.template.uriTemplate,
        `${entry.template.description ?? entry.template.name} (${entry.server})`
      ])
    if (uri !== undefined && (sub === "read" || sub === "subscribe" || sub === "unsubscribe")) {
      const flags = yield* takeFlags(rest, sub === "read" ? ["out", "server"] : ["server"], [])
      const given = flags.values.get("server")
      if (sub === "unsubscribe") {
        const server = yield* subscribedOn(sessions, uri, given)
        yield* sessions.unsubscribe(server, uri)
        return yield* output.note(`unsubscribed from ${uri} on ${server}`)
      }
      const server = yield* ownerOf(host, uri, given)
      if (sub === "read")
        return yield* printRead(yield* host.client(server), uri, Option.fromNullable(flags.values.get("out")))
      yield* sessions.subscribe(server, uri)
      return yield* output.note(`subscribed to ${uri} on ${server}; its updates are shown as they come`)
    }
    return yield* usage("resources list | templates | read URI | subscribe URI | unsubscribe URI [--server NAME]")
  })
