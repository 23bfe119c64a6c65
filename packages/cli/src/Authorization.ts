/**
 * How the CLI authorizes HTTP servers that ask for OAuth: the interactive step prints the
 * authorization URL on stderr (and opens a browser with `--open`), listens on a free
 * 127.0.0.1 port for the redirect back (a platform `HttpServer`, closed with the
 * authorization's scope), and answers the browser with a short page; `auth login --no-browser`
 * also takes the redirect's address pasted on stdin, whichever comes first; tokens and registrations
 * are kept in a 0600 file (`$EFFECT_MCP_TOKEN_FILE`, else
 * `$XDG_CONFIG_HOME/effect-mcp/oauth.json`, else `~/.config/effect-mcp/oauth.json`), so a
 * second run asks nothing.
 *
 * @since 0.1.0
 */
import { homedir } from "node:os"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Path from "@effect/platform/Path"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { AuthError, Authorizer, type OAuth, TokenStore } from "@effect-mcp/client"
import * as Config from "effect/Config"
import type * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type { RunOptions } from "./CommonOptions.js"
import { openBrowser } from "./internal/browser.js"
import { parsePasted } from "./internal/pastedRedirect.js"
import { Output } from "./Output.js"
import * as LineReader from "./shell/LineReader.js"

/**
 * How an HTTP server is authorized: the flow's options and the services it uses.
 *
 * @since 0.1.0
 * @category options
 */
export interface AuthSettings {
  readonly options: OAuth.OAuthOptions
  readonly services: Layer.Layer<Authorizer.Authorizer | TokenStore.TokenStore, never, HttpClient.HttpClient | Output>
}

/** How long the CLI waits for the user to come back from the authorization page, unless told. */
const WAIT_FOR_USER: Duration.DurationInput = "5 minutes"

/**
 * How the user is asked to authorize.
 *
 * @since 0.1.0
 * @category options
 */
export interface Interaction {
  /** Open the authorization page in the desktop's browser (the URL is printed either way). */
  readonly open: boolean
  /** Also take the redirect pasted on stdin, for a browser that cannot reach this machine's loopback. */
  readonly paste?: boolean
  /** How long to wait for the user. Default: 5 minutes. */
  readonly wait?: Duration.DurationInput
}

/**
 * A listener for the redirect back, and the parameters of the first one.
 *
 * @since 0.1.0
 * @category models
 */
export interface RedirectListener {
  /** `http://127.0.0.1:<port>/callback`. */
  readonly redirectUri: string
  /** The query parameters of the first request to `/callback`. */
  readonly received: Effect.Effect<URLSearchParams>
}

/**
 * Listens on a free port of 127.0.0.1 (never another interface) for the authorization
 * server's redirect back: `/callback` gets the page and its parameters are kept, anything
 * else a 404; every answer closes its connection. The scope closes the listener.
 *
 * @since 0.1.0
 * @category constructors
 */
export const listenForRedirect = (
  server: string
): Effect.Effect<RedirectListener, AuthError.AuthorizationError, Scope.Scope> =>
  // The HTTP server is loaded only when an authorization asks the user.
  Effect.flatMap(
    Effect.promise(() => import("./internal/redirectListener.js")),
    (listener) => listener.listen(server)
  )

/**
 * The redirect's parameters pasted on stdin (see `internal/pastedRedirect.ts`), refused when
 * their `state` is not the one of the authorization URL `url`; a code alone is taken as this
 * authorization's where `codeAlone` (PKCE binds it); a line that is neither is said and the next one read. At the end of input, never: the listener may still answer.
 */
const pasted = (server: string, url: string, output: Context.Tag.Service<Output>, codeAlone: boolean) =>
  Effect.scoped(
    Effect.gen(function* () {
      const expected = new URL(url).searchParams.get("state")
      const reader = yield* LineReader.lines((text) => output.note(text))
      while (true) {
        const line = yield* reader.read("")
        if (Option.isNone(line)) return yield* Effect.never
        if (line.value.trim() === "") continue
        const parsed = parsePasted(line.value)
        if (Either.isLeft(parsed)) {
          yield* output.note(parsed.left)
          continue
        }
        if (parsed.right._tag === "Code") {
          // Bound to this authorization by PKCE, where the flow says the server checks it.
          if (codeAlone)
            return new URLSearchParams({ code: parsed.right.code, ...(expected === null ? {} : { state: expected }) })
          yield* output.note(
            "this authorization server cannot be trusted with a code alone (no published PKCE support, or it sends iss); paste the whole address the browser was sent to"
          )
          continue
        }
        if (parsed.right.params.get("state") !== expected)
          return yield* new AuthError.AuthorizationError({
            server,
            step: "authorization",
            reason: "the pasted address answers another authorization (its state is not this one's); refused"
          })
        return parsed.right.params
      }
    })
  )

/**
 * The interactive authorizer: a loopback listener per authorization, the URL on stderr, and
 * with `paste` the redirect pasted on stdin too, whichever comes first.
 *
 * @since 0.1.0
 * @category layers
 */
export const loopback = (interaction: Interaction): Layer.Layer<Authorizer.Authorizer, never, Output> =>
  Layer.effect(
    Authorizer.Authorizer,
    Effect.map(Output, (output) =>
      Authorizer.Authorizer.of({
        begin: (server) =>
          Effect.map(listenForRedirect(server), ({ redirectUri, received }) => ({
            redirectUri,
            // The live progress line is paused while the user is away in the browser.
            complete: (url: string, options?: Authorizer.CompleteOptions) =>
              output.paused(
                Effect.gen(function* () {
                  const wait = Duration.decode(interaction.wait ?? WAIT_FOR_USER)
                  yield* output.note(
                    `${server} asks you to authorize effect-mcp. Open this URL in a browser:\n  ${url}` +
                      (interaction.paste === true
                        ? "\nThen wait here, or paste the address the browser was sent to and press Enter."
                        : "")
                  )
                  if (interaction.open) yield* openBrowser(url)
                  const back =
                    interaction.paste === true
                      ? Effect.raceFirst(received, pasted(server, url, output, options?.codeAlone === true))
                      : received
                  return yield* back.pipe(
                    Effect.timeoutFail({
                      duration: wait,
                      onTimeout: () =>
                        new AuthError.AuthorizationError({
                          server,
                          step: "authorization",
                          reason: `nobody came back from the authorization page within ${Duration.format(wait)}`
                        })
                    })
                  )
                })
              )
          }))
      })
    )
  )

/**
 * An authorizer that asks nobody, for `serve`: its clients cannot answer a browser flow, and a
 * call must not wait minutes for one. An authorization that needs a user fails at once, naming
 * the server and saying to run `effect-mcp auth login` (stored tokens, refreshed, are still used).
 *
 * @since 0.1.0
 * @category layers
 */
export const unattended: Layer.Layer<Authorizer.Authorizer> = Layer.succeed(
  Authorizer.Authorizer,
  Authorizer.Authorizer.of({
    begin: (server) =>
      Effect.fail(
        new AuthError.AuthorizationError({
          server,
          step: "authorization",
          reason:
            "a user must authorize this server, which the gateway cannot ask for: run `effect-mcp auth login` for it; the gateway then uses the stored tokens"
        })
      )
  })
)

/**
 * Where the CLI keeps tokens: `$EFFECT_MCP_TOKEN_FILE`, else `effect-mcp/oauth.json` under `$XDG_CONFIG_HOME` or `~/.config`.
 *
 * @since 0.1.0
 * @category configuration
 */
export const tokenFile: Effect.Effect<string, never, Path.Path> = Effect.gen(function* () {
  const path = yield* Path.Path
  const home = yield* Config.withDefault(Config.string("XDG_CONFIG_HOME"), path.join(homedir(), ".config"))
  return yield* Config.withDefault(Config.string("EFFECT_MCP_TOKEN_FILE"), path.join(home, "effect-mcp", "oauth.json"))
}).pipe(Effect.orDie)

/**
 * The token file as the `TokenStore`.
 *
 * @since 0.1.0
 * @category layers
 */
export const tokenStore: Layer.Layer<TokenStore.TokenStore> = Layer.unwrapEffect(
  Effect.map(tokenFile, (file) => TokenStore.layerFile(file))
).pipe(Layer.provide(Layer.merge(NodeFileSystem.layer, NodePath.layer)))

/**
 * The OAuth options of `--client-id` and `--client-secret`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const clientOptions = (run: Pick<RunOptions, "clientId" | "clientSecret">): OAuth.OAuthOptions =>
  Option.match(run.clientId, {
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

/**
 * The CLI's authorization: options from the command line, the loopback authorizer and the
 * token file; `interaction` overrides how the user is asked (default: `--open`'s choice).
 *
 * @since 0.1.0
 * @category constructors
 */
export const settings = (
  run: Pick<RunOptions, "clientId" | "clientSecret" | "open">,
  interaction: Interaction = { open: run.open }
): Effect.Effect<AuthSettings> =>
  Effect.succeed({
    options: clientOptions(run),
    services: Layer.merge(loopback(interaction), tokenStore)
  })
