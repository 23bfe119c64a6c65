/**
 * How the CLI authorizes HTTP servers that ask for OAuth: the interactive step prints the
 * authorization URL on stderr (and opens a browser with `--open`), listens on a free
 * 127.0.0.1 port for the redirect back, and answers the browser with a short page; tokens
 * and registrations are kept in a 0600 file (`$EFFECT_MCP_TOKEN_FILE`, else
 * `$XDG_CONFIG_HOME/effect-mcp/oauth.json`, else `~/.config/effect-mcp/oauth.json`), so a
 * second run asks nothing.
 */
import { spawn } from "node:child_process"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { homedir } from "node:os"
import { join } from "node:path"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { AuthError, Authorizer, type OAuth, TokenStore } from "@effect-mcp/client"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { RunOptions } from "./CommonOptions.js"
import { Output } from "./Output.js"
import type { AuthSettings } from "./Session.js"

/** How long the CLI waits for the user to come back from the authorization page. */
const WAIT_FOR_USER = "5 minutes"

const PAGE = `<!doctype html><meta charset="utf-8"><title>effect-mcp</title><p>Authorization received. You can close this window and return to the terminal.</p>`

/** Opens a URL in the desktop's browser; failures are ignored (the URL is printed anyway). */
const openBrowser = (url: string) =>
  Effect.sync(() => {
    const command = process.platform === "darwin" ? "open" : process.platform === "win32" ? "cmd" : "xdg-open"
    const args = process.platform === "win32" ? ["/c", "start", "", url] : [url]
    try {
      spawn(command, args, { stdio: "ignore", detached: true })
        .on("error", () => {})
        .unref()
    } catch {
      // No browser here: the printed URL is the way.
    }
  })

/** The interactive authorizer: a loopback listener per authorization, the URL on stderr. */
export const loopback = (open: boolean): Layer.Layer<Authorizer.Authorizer, never, Output> =>
  Layer.effect(
    Authorizer.Authorizer,
    Effect.map(Output, (output) =>
      Authorizer.Authorizer.of({
        begin: (server) =>
          Effect.gen(function* () {
            const failed = (reason: string) =>
              new AuthError.AuthorizationError({ server, step: "authorization", reason })
            let arrived: ((params: URLSearchParams) => void) | undefined
            const received = new Promise<URLSearchParams>((resolve) => {
              arrived = resolve
            })
            const listener = yield* Effect.acquireRelease(
              Effect.async<ReturnType<typeof createServer>, AuthError.AuthorizationError>((resume) => {
                const http = createServer((request, response) => {
                  const url = new URL(request.url ?? "/", "http://127.0.0.1")
                  if (url.pathname !== "/callback") {
                    response.writeHead(404).end()
                    return
                  }
                  response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE)
                  arrived?.(url.searchParams)
                })
                http.once("error", (error) =>
                  resume(Effect.fail(failed(`could not listen for the redirect: ${error.message}`)))
                )
                http.listen(0, "127.0.0.1", () => resume(Effect.succeed(http)))
              }),
              (http) =>
                Effect.async<void>((resume) => {
                  http.closeAllConnections()
                  http.close(() => resume(Effect.void))
                })
            )
            const port = (listener.address() as AddressInfo).port
            return {
              redirectUri: `http://127.0.0.1:${port}/callback`,
              complete: (url: string) =>
                Effect.gen(function* () {
                  yield* output.note(
                    `${server} asks you to authorize effect-mcp. Open this URL in a browser:\n  ${url}`
                  )
                  if (open) yield* openBrowser(url)
                  return yield* Effect.promise(() => received).pipe(
                    Effect.timeoutFail({
                      duration: WAIT_FOR_USER,
                      onTimeout: () => failed(`nobody came back from the authorization page within ${WAIT_FOR_USER}`)
                    })
                  )
                })
            }
          })
      })
    )
  )

/** Where the CLI keeps tokens. */
export const tokenFile: Effect.Effect<string> = Effect.gen(function* () {
  const explicit = yield* Config.option(Config.string("EFFECT_MCP_TOKEN_FILE"))
  if (Option.isSome(explicit)) return explicit.value
  const xdg = yield* Config.option(Config.string("XDG_CONFIG_HOME"))
  return join(
    Option.getOrElse(xdg, () => join(homedir(), ".config")),
    "effect-mcp",
    "oauth.json"
  )
}).pipe(Effect.orElseSucceed(() => join(homedir(), ".config", "effect-mcp", "oauth.json")))

/** The CLI's authorization: options from the command line, the loopback authorizer and the token file. */
export const settings = (run: RunOptions) =>
  Effect.map(tokenFile, (file): AuthSettings => {
    const options: OAuth.OAuthOptions = Option.match(run.clientId, {
      onNone: () => ({ clientName: "effect-mcp" }),
      onSome: (clientId) => ({
        clientName: "effect-mcp",
        client: {
          clientId,
          ...Option.match(run.clientSecret, {
            onNone: () => ({}),
            onSome: (secret) => ({ clientSecret: Redacted.value(secret) })
          })
        }
      })
    })
    return {
      options,
      services: Layer.merge(loopback(run.open), TokenStore.layerFile(file).pipe(Layer.provide(NodeContext.layer)))
    }
  })
