/**
 * `effect-mcp auth login | status | logout`: OAuth authorizations managed explicitly, through
 * the client's `Authorizations` over the CLI's token file. `login` authorizes a server now
 * (`--no-browser`: the URL printed, the redirect taken on the loopback listener or pasted on
 * stdin), `status` describes what is stored without a secret, `logout` revokes at the
 * authorization server when it offers revocation and removes the tokens.
 */

import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as HttpClient from "@effect/platform/HttpClient"
import { Authorizations } from "@effect-mcp/client"
import { ServerEntry } from "@effect-mcp/host"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Authorization from "../Authorization.js"
import { NotAuthorized, RevocationFailed, UsageError } from "../CliError.js"
import * as CommonOptions from "../CommonOptions.js"
import { choose, isInteractive } from "../Connect.js"
import { bold, Output, styled, table } from "../Output.js"
import { describeRevocation, isAuthorized, summaryJson, summaryRows } from "./authRender.js"
import { runCommand } from "./shared.js"

/** The server as a word after the command (`auth login NAME`), the same as `--server NAME`. */
const serverName = Args.text({ name: "server" }).pipe(
  Args.withDescription("A server by name from a config file (or use --server NAME, or --url URL)"),
  Args.optional
)

/** The options of every `auth` command. */
const common = {
  server: CommonOptions.server,
  name: serverName,
  json: CommonOptions.json,
  verbose: CommonOptions.verbose
}

/** Whether the command line names a server at all. */
const named = (server: CommonOptions.ServerOptions, name: Option.Option<string>) =>
  Option.isSome(name) || Option.isSome(server.name) || Option.isSome(server.url) || Option.isSome(server.stdio)

/** The HTTP server the command line names (by the word after the command, `--server` or `--url`). */
const httpServer = (server: CommonOptions.ServerOptions, name: Option.Option<string>) =>
  Effect.gen(function* () {
    if (Option.isSome(name) && Option.isSome(server.name) && name.value !== server.name.value)
      return yield* new UsageError({ reason: `two servers named: ${name.value} and --server ${server.name.value}` })
    const chosen = yield* choose({ ...server, name: Option.orElse(name, () => server.name) }, isInteractive())
    if (chosen.target._tag !== "Http")
      return yield* new UsageError({
        reason: `${chosen.name} runs over stdio; OAuth authorizes HTTP servers only`,
        server: chosen.name
      })
    const target: ServerEntry.HttpTarget = chosen.target
    return { name: chosen.name, target, inline: chosen.inline }
  })

/** How to name a server in a command the user can run again. */
const commandFor = (
  verb: string,
  chosen: { readonly name: string; readonly inline: boolean; readonly target: ServerEntry.HttpTarget }
) => `effect-mcp auth ${verb} ${chosen.inline ? `--url ${chosen.target.url}` : chosen.name}`

/** `auth login`. */
export const login = Command.make(
  "login",
  {
    ...common,
    clientId: CommonOptions.clientId,
    clientSecret: CommonOptions.clientSecret,
    scope: Options.text("scope").pipe(
      Options.withDescription("The scopes to ask for, space-separated (default: what the server asks for)"),
      Options.optional
    ),
    noBrowser: Options.boolean("no-browser").pipe(
      Options.withDescription(
        "Print the authorization URL instead of opening a browser, and also take the address the browser was sent to (or the code the page shows) pasted here"
      )
    ),
    wait: Options.float("wait").pipe(
      Options.withDescription("Seconds to wait for the authorization in the browser (default 300)"),
      Options.withDefault(300)
    )
  },
  (options) =>
    runCommand(
      options,
      Effect.gen(function* () {
        const chosen = yield* httpServer(options.server, options.name)
        const open = !options.noBrowser
        const auth = yield* Authorization.settings(
          { clientId: options.clientId, clientSecret: options.clientSecret, open },
          { open, paste: options.noBrowser, wait: Duration.seconds(options.wait) }
        )
        const summary = yield* Authorizations.login(chosen.name, chosen.target.url, yield* HttpClient.HttpClient, {
          ...ServerEntry.oauthOptions(chosen.target.oauth),
          ...auth.options,
          ...Option.match(options.scope, { onNone: () => ({}), onSome: (scope) => ({ scope }) }),
          // Tokens for later runs: a DPoP key would not outlive this one.
          dpop: false,
          headers: chosen.target.headers,
          transport: chosen.target.transport
        }).pipe(Effect.provide(auth.services))
        const output = yield* Output
        const now = yield* Clock.currentTimeMillis
        if (output.json)
          return yield* output.printJson({ server: chosen.name, url: chosen.target.url, ...summaryJson(summary, now) })
        yield* output.line(styled`authorized with ${bold(output.color, chosen.name)} (${summary.resource})`)
        for (const line of table(summaryRows(summary, now), output.width)) yield* output.line(line)
      })
    )
).pipe(
  Command.withDescription(
    "Authorize effect-mcp with an HTTP server now (OAuth: discovery, registration, the browser, PKCE) and store the tokens for later commands. Exits 2 when the server needs no authorization, 4 when authorization fails.\n" +
      "Example: effect-mcp auth login --url https://mcp.example.com/mcp\n" +
      "Example: effect-mcp auth login --url https://mcp.example.com/mcp --no-browser"
  )
)

/** `auth status`. */
export const status = Command.make("status", common, (options) =>
  runCommand(
    options,
    Effect.gen(function* () {
      const output = yield* Output
      const now = yield* Clock.currentTimeMillis
      if (!named(options.server, options.name)) {
        const all = yield* Authorizations.list
        if (output.json)
          return yield* output.printJson({ authorizations: all.map((summary) => summaryJson(summary, now)) })
        if (all.length === 0)
          return yield* output.note(`no stored authorizations (in ${yield* Authorization.tokenFile})`)
        for (const [index, summary] of all.entries()) {
          if (index > 0) yield* output.line("")
          yield* output.line(styled`${bold(output.color, summary.resource)}`)
          for (const line of table(summaryRows(summary, now), output.width)) yield* output.line(line)
        }
        return
      }
      const chosen = yield* httpServer(options.server, options.name)
      const found = yield* Authorizations.forServer(chosen.target.url)
      const authorized = found.some((summary) => isAuthorized(summary, now))
      if (output.json)
        yield* output.printJson({
          server: chosen.name,
          url: chosen.target.url,
          authorized,
          authorizations: found.map((summary) => summaryJson(summary, now))
        })
      if (!authorized)
        return yield* new NotAuthorized({
          server: chosen.name,
          url: chosen.target.url,
          reason:
            found.length === 0
              ? `no stored tokens for ${chosen.target.url}`
              : "its stored tokens have expired and cannot be refreshed",
          login: commandFor("login", chosen)
        })
      if (output.json) return
      yield* output.line(styled`${bold(output.color, chosen.name)} is authorized (${chosen.target.url})`)
      for (const summary of found)
        for (const line of table(summaryRows(summary, now), output.width)) yield* output.line(line)
    }).pipe(Effect.provide(Authorization.tokenStore))
  )
).pipe(
  Command.withDescription(
    "The stored OAuth authorizations (server, issuer, client, scopes, expiry, refresh token; never a token), or whether one server is authorized (exit 4 when it is not).\n" +
      "Example: effect-mcp auth status\n" +
      "Example: effect-mcp auth status --url https://mcp.example.com/mcp --json"
  )
)

/** `auth logout`. */
export const logout = Command.make(
  "logout",
  {
    ...common,
    clientId: CommonOptions.clientId,
    clientSecret: CommonOptions.clientSecret,
    all: Options.boolean("all").pipe(Options.withDescription("Every stored authorization")),
    keepClient: Options.boolean("keep-client").pipe(
      Options.withDescription("Keep the client registration with the authorization server (for the next login)")
    )
  },
  (options) =>
    runCommand(
      options,
      Effect.gen(function* () {
        const output = yield* Output
        if (options.all === named(options.server, options.name))
          return yield* new UsageError({ reason: "name one server (NAME, --server NAME or --url URL), or give --all" })
        const chosen = options.all ? undefined : yield* httpServer(options.server, options.name)
        const keys =
          chosen === undefined ? yield* Authorizations.list : yield* Authorizations.forServer(chosen.target.url)
        if (keys.length === 0)
          return yield* output.note(
            chosen === undefined
              ? "no stored authorizations"
              : `${chosen.name} has no stored authorization; nothing to do`
          )
        const configured = chosen === undefined ? {} : ServerEntry.oauthOptions(chosen.target.oauth)
        const done = yield* Authorizations.logout(keys, yield* HttpClient.HttpClient, {
          ...configured,
          ...Authorization.clientOptions(options),
          keepClient: options.keepClient
        })
        const now = yield* Clock.currentTimeMillis
        if (output.json)
          yield* output.printJson({
            loggedOut: done.map((entry) => ({
              ...summaryJson(entry.authorization, now),
              revocation: entry.revocation,
              clientRemoved: entry.clientRemoved
            }))
          })
        const failed: Array<{ resource: string; reason: string }> = []
        for (const entry of done) {
          const described = describeRevocation(entry)
          failed.push(...described.failures.map((reason) => ({ resource: entry.authorization.resource, reason })))
          if (output.json) continue
          yield* output.line(
            styled`logged out of ${bold(output.color, entry.authorization.resource)} (${entry.authorization.issuer})`
          )
          for (const line of described.lines) yield* output.line(`  ${line}`)
        }
        if (failed.length > 0) return yield* new RevocationFailed({ failed })
      }).pipe(Effect.provide(Authorization.tokenStore))
    )
).pipe(
  Command.withDescription(
    "Revoke a server's stored OAuth tokens at its authorization server (when it offers revocation: the refresh token, then the access token) and remove them, with the client registration unless --keep-client. Exits 4 when a revocation failed (the tokens are removed here all the same).\n" +
      "Example: effect-mcp auth logout --url https://mcp.example.com/mcp\n" +
      "Example: effect-mcp auth logout --all --keep-client"
  )
)

/** `effect-mcp auth`. */
export const auth = Command.make("auth").pipe(
  Command.withDescription("OAuth authorizations: log in to a server now, see what is stored, log out (revoking)."),
  Command.withSubcommands([login, status, logout])
)
