/**
 * The binary against an MCP server protected by OAuth (the client tests' loopback
 * authorization and MCP servers): it prints the authorization URL, listens on 127.0.0.1 for
 * the redirect (the test plays the browser), lists the tools, and keeps the tokens in a
 * 0600 file, so the second run asks nothing.
 */
import { mkdtempSync, readFileSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { authorizationServer, resourceServer, TokenRegistry } from "../../client/test/support/authServers.js"
import { eventually, start } from "./support/cli.js"

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
      const stored = JSON.parse(readFileSync(file, "utf8")) as { tokens: Array<{ tokens: { access_token: string } }> }
      const token = stored.tokens[0]?.tokens.access_token ?? "missing"
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
