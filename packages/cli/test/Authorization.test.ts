/**
 * The binary against an MCP server protected by OAuth (the client tests' loopback
 * authorization and MCP servers): it prints the authorization URL, listens on 127.0.0.1 for
 * the redirect (the test plays the browser), lists the tools, and keeps the tokens in a
 * 0600 file, so the second run asks nothing. On a terminal, the live line of a running call
 * is not drawn while the authorization waits for the browser.
 */
import { mkdtempSync, readFileSync, statSync } from "node:fs"
import { connect } from "node:net"
import { networkInterfaces, tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { authorizationServer, resourceServer, TokenRegistry } from "../../client/test/support/authServers.js"
import { listenForRedirect } from "../src/Authorization.js"
import { eventually, start } from "./support/cli.js"
import { startOnTerminal } from "./support/pty.js"

/** Whether something accepts TCP connections at host:port. */
const accepts = (host: string, port: number) =>
  Effect.async<boolean>((resume) => {
    const socket = connect({ host, port })
    socket.once("connect", () => {
      socket.destroy()
      resume(Effect.succeed(true))
    })
    socket.once("error", () => resume(Effect.succeed(false)))
  })

describe("effect-mcp with an OAuth-protected server", () => {
  it.scopedLive("asks once through a loopback redirect, then reuses the stored token", () =>
    Effect.gen(function* () {
      const registry = new TokenRegistry()
      const authorization = yield* authorizationServer(registry)
      const resource = yield* resourceServer(registry, { authorizationServer: () => authorization.origin })
      const url = `${resource.origin}/mcp`
      const file = join(mkdtempSync(join(tmpdir(), "effect-mcp-oauth-")), "oauth.json")
      const env = { EFFECT_MCP_TOKEN_FILE: file }

      const first = yield* Effect.promise(async () => {
        const run = start(["tools", "list", "--url", url, "--transport", "http"], { env })
        await eventually(() => run.stderr().includes("/authorize?"), "the authorization URL")
        const link = /(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)/.exec(run.stderr())?.[1] ?? ""
        // The browser: follows the authorization server's redirect to the CLI's listener.
        const page = await fetch(link)
        return { page: await page.text(), finished: await run.finished }
      })
      expect(first.page).toContain("Authorization received")
      expect(first.finished.code).toBe(0)
      expect(first.finished.stdout).toContain("secret")
      expect(first.finished.stderr).toContain("asks you to authorize effect-mcp")
      const redirect = authorization.seen.find((entry) => entry.path === "/authorize")?.query.get("redirect_uri")
      expect(redirect).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/)
      expect(statSync(file).mode & 0o777).toBe(0o600)
      // Nothing secret on the terminal: no token, no code.
      const stored = JSON.parse(readFileSync(file, "utf8")) as { entries: Record<string, string> }
      const entry = Object.entries(stored.entries).find(([key]) => key.startsWith("tokens/"))?.[1]
      const token = (JSON.parse(entry ?? "{}") as { access_token?: string }).access_token ?? "missing"
      expect(token).toMatch(/^at-/)
      expect(`${first.finished.stdout}${first.finished.stderr}`).not.toContain(token)

      const second = yield* Effect.promise(
        () => start(["tools", "list", "--url", url, "--transport", "http"], { env }).finished
      )
      expect(second.code).toBe(0)
      expect(second.stdout).toContain("secret")
      expect(second.stderr).not.toContain("authorize")
      expect(authorization.seen.filter((entry) => entry.path === "/authorize")).toHaveLength(1)
    })
  )
})

/** A printed authorization URL, with the end of its line. */
const AUTHORIZATION_URL = /(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)\r?\n/

/** A frame of the live line (its spinner, or what it says runs). */
const LIVE_LINE = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]|calling secret/

describe("effect-mcp with an OAuth-protected server, on a terminal", () => {
  it.scopedLive("holds the live line of a running call while the authorization waits for the browser", () =>
    Effect.gen(function* () {
      const registry = new TokenRegistry()
      const authorization = yield* authorizationServer(registry)
      // tools/call needs a scope the first authorization did not ask for: the call, its live
      // line turning, is answered 403 insufficient_scope and the authorization starts again.
      const resource = yield* resourceServer(registry, {
        authorizationServer: () => authorization.origin,
        scopesFor: (method) => (method === "tools/call" ? ["mcp:call"] : [])
      })
      const file = join(mkdtempSync(join(tmpdir(), "effect-mcp-oauth-")), "oauth.json")
      const terminal = startOnTerminal(
        ["tools", "call", "secret", "--url", `${resource.origin}/mcp`, "--transport", "http"],
        { env: { EFFECT_MCP_TOKEN_FILE: file }, columns: 200 }
      )
      /** Waits for the next authorization URL after `from`: the URL and where its line ends. */
      const nextUrl = async (from: number) => {
        const end = await terminal.waitFor(AUTHORIZATION_URL, from)
        return { url: AUTHORIZATION_URL.exec(terminal.screen().slice(from))?.[1] ?? "", end }
      }
      const seen = yield* Effect.promise(async () => {
        // Connecting: the first authorization (no live line yet); the test is the browser.
        const first = await nextUrl(0)
        await fetch(first.url)
        // The call: its live line turns until the step-up prints a second URL.
        const second = await nextUrl(first.end)
        const before = terminal.screen().slice(first.end, second.end)
        // The person is in the browser for a while, long enough for ten redraws of the line.
        await new Promise((resolve) => setTimeout(resolve, 1_000))
        const during = terminal.screen().slice(second.end)
        const page = await fetch(second.url)
        return { before, during, page: await page.text(), finished: await terminal.finished }
      })
      expect(seen.before).toMatch(LIVE_LINE)
      expect(seen.before).toContain("asks you to authorize effect-mcp")
      expect(seen.during).not.toMatch(LIVE_LINE)
      expect(seen.page).toContain("Authorization received")
      expect(seen.finished.code, seen.finished.screen).toBe(0)
      expect(seen.finished.screen).toContain("the secret")
      const asked = authorization.seen.filter((entry) => entry.path === "/authorize")
      expect(asked.map((entry) => entry.query.get("scope") ?? "")).toStrictEqual(["", "mcp:call"])
    })
  )
})

describe("the redirect listener", () => {
  it.live("listens on 127.0.0.1 only, takes the first /callback's parameters, and closes with its scope", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const listener = yield* listenForRedirect("server").pipe(Scope.extend(scope))
      const { hostname, pathname, port: portText } = new URL(listener.redirectUri)
      const port = Number(portText)
      expect(hostname).toBe("127.0.0.1")
      expect(pathname).toBe("/callback")
      const elsewhere = yield* Effect.promise(() => fetch(`http://127.0.0.1:${port}/favicon.ico`))
      expect(elsewhere.status).toBe(404)
      const page = yield* Effect.promise(() => fetch(`${listener.redirectUri}?code=c&state=s`))
      expect(page.headers.get("content-type")).toContain("text/html")
      expect(yield* Effect.promise(() => page.text())).toContain("Authorization received")
      const received = yield* listener.received
      expect([received.get("code"), received.get("state")]).toStrictEqual(["c", "s"])
      // Loopback only: not on the machine's other addresses.
      const others = Object.values(networkInterfaces())
        .flat()
        .filter((address) => address !== undefined && !address.internal)
        .map((address) => address?.address ?? "")
      for (const address of [...others, "::1"]) expect(yield* accepts(address, port)).toBe(false)
      yield* Scope.close(scope, Exit.void)
      expect(yield* accepts("127.0.0.1", port)).toBe(false)
    })
  )

  it.live("waiting for the redirect is interruptible, and the listener closes", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const listener = yield* listenForRedirect("server").pipe(Scope.extend(scope))
      const port = Number(new URL(listener.redirectUri).port)
      const waited = yield* listener.received.pipe(Effect.timeout("50 millis"), Effect.exit)
      expect(Exit.isFailure(waited)).toBe(true)
      yield* Scope.close(scope, Exit.void)
      expect(yield* accepts("127.0.0.1", port)).toBe(false)
    })
  )
})
