/**
 * `effect-mcp auth login | status | logout` on the built binary, against the client tests'
 * loopback OAuth world (an authorization server with a revocation endpoint, and a protected
 * MCP server): login with `--no-browser` completed by the loopback redirect (the test is the
 * browser) and by an address pasted on stdin, a pasted address of another authorization
 * refused, status before and after without a token in the output, a later command on the
 * stored tokens, logout revoking at the authorization server (and a revocation that fails),
 * and the failures: a server that needs no authorization, an unknown server, an authorization
 * server that refuses, the wait's bound and Ctrl-C.
 */
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import {
  type AuthorizationServerOptions,
  authorizationServer,
  resourceServer,
  TokenRegistry
} from "../../client/test/support/authServers.js"
import { eventually, type Started, start } from "./support/cli.js"

/** An authorization server issuing refreshable tokens and offering revocation, a protected MCP server, a token file. */
const world = (options: AuthorizationServerOptions = {}) =>
  Effect.gen(function* () {
    const registry = new TokenRegistry()
    const authorization = yield* authorizationServer(registry, { expiresIn: 3600, revocation: {}, ...options })
    const resource = yield* resourceServer(registry, { authorizationServer: () => authorization.origin })
    const file = join(mkdtempSync(join(tmpdir(), "effect-mcp-auth-")), "oauth.json")
    return { authorization, url: `${resource.origin}/mcp`, file, env: { EFFECT_MCP_TOKEN_FILE: file } }
  })

/** The tokens stored in the token file, if any. */
const storedTokens = (file: string): ReadonlyArray<{ access_token: string; refresh_token?: string }> => {
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch {
    return []
  }
  const entries = (JSON.parse(text) as { entries: Record<string, string> }).entries
  return Object.entries(entries)
    .filter(([key]) => key.startsWith("tokens/"))
    .map(([, value]) => JSON.parse(value) as { access_token: string; refresh_token?: string })
}

/** Waits for the authorization URL the run prints, and returns it. */
const printedUrl = async (run: Started): Promise<string> => {
  const pattern = /(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)/
  await eventually(() => pattern.test(run.stderr()), "the authorization URL")
  return pattern.exec(run.stderr())?.[1] ?? ""
}

/** `auth login --url URL --no-browser`, completed as a browser would: the authorization server redirects to the listener. */
const browserLogin = async (url: string, env: Record<string, string>) => {
  const run = start(["auth", "login", "--url", url, "--no-browser"], { env })
  const page = await fetch(await printedUrl(run))
  return { page: await page.text(), finished: await run.finished }
}

/** {@link browserLogin} as an effect. */
const loginThroughBrowser = (url: string, env: Record<string, string>) => Effect.promise(() => browserLogin(url, env))

/** Starts `auth login --url URL --no-browser` and reads where the authorization server would send the browser. */
const redirectOf = async (url: string, env: Record<string, string>) => {
  const run = start(["auth", "login", "--url", url, "--no-browser"], { env, keepStdinOpen: true })
  const answer = await fetch(await printedUrl(run), { redirect: "manual" })
  return { run, location: answer.headers.get("location") ?? "" }
}

describe("effect-mcp auth", () => {
  it.scopedLive(
    "login --no-browser through the loopback redirect, status without secrets, a later command on the stored tokens, logout revoking them",
    () =>
      Effect.gen(function* () {
        const { authorization, url, file, env } = yield* world()
        const login = yield* loginThroughBrowser(url, env)
        expect(login.page).toContain("Authorization received")
        expect(login.finished.code, login.finished.stderr).toBe(0)
        expect(login.finished.stdout).toContain(`authorized with 127.0.0.1`)
        expect(login.finished.stdout).toMatch(new RegExp(`issuer +${authorization.origin}`))
        expect(login.finished.stdout).toMatch(/expires +in 60 min/)
        expect(login.finished.stdout).toMatch(/refresh token +yes/)
        const [tokens] = storedTokens(file)
        const secrets = [tokens?.access_token ?? "missing", tokens?.refresh_token ?? "missing"]
        expect(secrets[0]).toMatch(/^at-/)
        expect(secrets[1]).toMatch(/^rt-/)

        // Three readers of the stored tokens at once: status, one server's status, and a command that uses them.
        const [status, one, listed] = yield* Effect.promise(() =>
          Promise.all([
            start(["auth", "status"], { env }).finished,
            start(["auth", "status", "--url", url, "--json"], { env }).finished,
            start(["tools", "list", "--url", url, "--transport", "http"], { env }).finished
          ])
        )
        expect(status.code, status.stderr).toBe(0)
        expect(status.stdout).toContain(url)
        expect(status.stdout).toMatch(/client +client-1-/)
        expect(one.code, one.stderr).toBe(0)
        expect(JSON.parse(one.stdout)).toMatchObject({
          url,
          authorized: true,
          authorizations: [{ resource: url, issuer: authorization.origin, expired: false, refreshToken: true }]
        })
        for (const output of [login.finished, status, one])
          for (const secret of secrets) expect(`${output.stdout}${output.stderr}`).not.toContain(secret)

        expect(listed.code, listed.stderr).toBe(0)
        expect(listed.stdout).toContain("secret")
        expect(authorization.seen.filter((entry) => entry.path === "/authorize")).toHaveLength(1)

        const logout = yield* Effect.promise(() => start(["auth", "logout", "--url", url], { env }).finished)
        expect(logout.code, logout.stderr).toBe(0)
        expect(logout.stdout).toContain("refresh token revoked\n  access token revoked")
        expect(logout.stdout).toContain("client registration removed")
        const revoked = authorization.seen
          .filter((entry) => entry.path === "/revoke")
          .map((entry) => new URLSearchParams(entry.body))
        expect(revoked.map((form) => [form.get("token"), form.get("token_type_hint")])).toStrictEqual([
          [secrets[1], "refresh_token"],
          [secrets[0], "access_token"]
        ])
        expect(storedTokens(file)).toStrictEqual([])
        const after = yield* Effect.promise(() => start(["auth", "status", "--url", url], { env }).finished)
        expect(after.code).toBe(4)
        expect(after.stderr).toContain(`127.0.0.1`)
        expect(after.stderr).toContain(`is not authorized: no stored tokens for ${url}`)
      }),
    // Seven runs of the binary, each bounded by itself (start's 30 s, then killed and shown): the
    // test's own bound only catches a hang, so it is generous (on a loaded machine the runs took
    // 8.3 s; 3.4 s at load average 5).
    120_000
  )

  it.scopedLive(
    "login --no-browser takes the address the browser was sent to, or the code alone, pasted; another authorization's is refused",
    () =>
      Effect.gen(function* () {
        const { authorization, url, file, env } = yield* world()
        const pasted = yield* Effect.promise(async () => {
          const { run, location } = await redirectOf(url, env)
          expect(location).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?code=/)
          run.child.stdin?.write("not an address\n")
          await eventually(() => run.stderr().includes("no code in it"), "the hint for a line that is no address")
          run.child.stdin?.end(`${location}\n`)
          return run.finished
        })
        expect(pasted.code, pasted.stderr).toBe(0)
        expect(pasted.stdout).toMatch(/refresh token +yes/)
        expect(storedTokens(file)).toHaveLength(1)
        expect(authorization.seen.filter((entry) => entry.path === "/token")).toHaveLength(1)

        const other = join(mkdtempSync(join(tmpdir(), "effect-mcp-auth-")), "oauth.json")
        const refused = yield* Effect.promise(async () => {
          const { run, location } = await redirectOf(url, { EFFECT_MCP_TOKEN_FILE: other })
          const forged = new URL(location)
          forged.searchParams.set("state", "someone-elses")
          run.child.stdin?.end(`${forged.href}\n`)
          return run.finished
        })
        expect(refused.code).toBe(4)
        expect(refused.stderr).toContain("the pasted address answers another authorization")
        expect(storedTokens(other)).toStrictEqual([])
        expect(authorization.seen.filter((entry) => entry.path === "/token")).toHaveLength(1)

        // A code alone is taken as this authorization's: another one's fails at the token endpoint (PKCE).
        const [mineFile, theirsFile] = [0, 1].map(() =>
          join(mkdtempSync(join(tmpdir(), "effect-mcp-auth-")), "oauth.json")
        )
        const [own, foreign] = yield* Effect.promise(async () => {
          const mine = await redirectOf(url, { EFFECT_MCP_TOKEN_FILE: mineFile ?? "" })
          const theirs = await redirectOf(url, { EFFECT_MCP_TOKEN_FILE: theirsFile ?? "" })
          const code = new URL(mine.location).searchParams.get("code") ?? ""
          theirs.run.child.stdin?.end(`${code}\n`)
          const foreign = await theirs.run.finished
          mine.run.child.stdin?.end(`  ${code}  \n`)
          return [await mine.run.finished, foreign] as const
        })
        expect(foreign.code, foreign.stderr).toBe(4)
        expect(foreign.stderr).toContain("PKCE verification failed")
        expect(storedTokens(theirsFile ?? "")).toStrictEqual([])
        expect(own.code, own.stderr).toBe(0)
        expect(storedTokens(mineFile ?? "")).toHaveLength(1)
      })
  )

  it.scopedLive(
    "a code alone is not taken from a server that promises iss (RFC 9207): the whole address is asked for",
    () =>
      Effect.gen(function* () {
        const { url, file, env } = yield* world({ issSupported: true })
        const finished = yield* Effect.promise(async () => {
          const { run, location } = await redirectOf(url, env)
          run.child.stdin?.write(`${new URL(location).searchParams.get("code") ?? ""}\n`)
          await eventually(
            () => run.stderr().includes("cannot be trusted with a code alone"),
            "the refusal of a code alone"
          )
          run.child.stdin?.end(`${location}\n`)
          return run.finished
        })
        expect(finished.code, finished.stderr).toBe(0)
        expect(storedTokens(file)).toHaveLength(1)
      })
  )

  it.scopedLive("logout with a revocation endpoint that fails: said, exit 4, the tokens removed all the same", () =>
    Effect.gen(function* () {
      const { authorization, url, file, env } = yield* world({
        revocation: { fails: { status: 503, error: "temporarily_unavailable" } }
      })
      const login = yield* loginThroughBrowser(url, env)
      expect(login.finished.code, login.finished.stderr).toBe(0)
      const logout = yield* Effect.promise(() => start(["auth", "logout", "--all"], { env }).finished)
      expect(logout.code).toBe(4)
      expect(logout.stdout).toContain("refresh token not revoked")
      expect(logout.stdout).toContain("503 temporarily_unavailable")
      expect(logout.stderr).toContain(`error: revocation failed for ${url}; the tokens were removed here`)
      expect(authorization.seen.filter((entry) => entry.path === "/revoke")).toHaveLength(2)
      expect(storedTokens(file)).toStrictEqual([])
    })
  )

  it.scopedLive(
    "refusals: a server that needs no authorization (2), an unknown server (2), an authorization server that refuses (4)",
    () =>
      Effect.gen(function* () {
        const registry = new TokenRegistry()
        const open = yield* resourceServer(registry, { authorizationServer: () => "http://127.0.0.1:1", open: true })
        const refusing = yield* world({ tokenError: { status: 400, error: "access_denied", description: "not you" } })
        const empty = mkdtempSync(join(tmpdir(), "effect-mcp-auth-"))
        const env = { EFFECT_MCP_TOKEN_FILE: join(empty, "oauth.json"), HOME: empty }
        const [needsNone, unknown, refused] = yield* Effect.promise(() =>
          Promise.all([
            start(["auth", "login", "--url", `${open.origin}/mcp`, "--no-browser"], { env }).finished,
            start(["auth", "login", "nowhere"], { env, cwd: empty }).finished,
            browserLogin(refusing.url, refusing.env).then((result) => result.finished)
          ])
        )
        expect(needsNone.code).toBe(2)
        expect(needsNone.stderr).toContain(
          `error: 127.0.0.1:${new URL(open.origin).port} needs no authorization: ${open.origin}/mcp answered 200`
        )
        expect(unknown.code).toBe(2)
        expect(unknown.stderr).toContain('no server named "nowhere"')
        expect(refused.code).toBe(4)
        expect(refused.stderr).toContain("400 access_denied: not you")
        expect(storedTokens(refusing.file)).toStrictEqual([])
      })
  )

  it.scopedLive("waiting for the browser is bounded (--wait) and Ctrl-C cancels it; no token is written", () =>
    Effect.gen(function* () {
      const { file, url, env } = yield* world()
      const [timedOut, interrupted] = yield* Effect.promise(() =>
        Promise.all([
          start(["auth", "login", "--url", url, "--no-browser", "--wait", "1"], { env }).finished,
          (async () => {
            const run = start(["auth", "login", "--url", url, "--no-browser"], { env, keepStdinOpen: true })
            await printedUrl(run)
            run.child.kill("SIGINT")
            return run.finished
          })()
        ])
      )
      expect(timedOut.code).toBe(4)
      expect(timedOut.stderr).toContain("nobody came back from the authorization page within 1s")
      expect(interrupted.code).toBe(130)
      expect(interrupted.stderr).toContain("cancelled: auth login")
      expect(storedTokens(file)).toStrictEqual([])
    })
  )
})
