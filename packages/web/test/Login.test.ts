/**
 * OAuth through the page: an HTTP server that asks for authorization waits for the user, the
 * page is given the authorization address, the authorization server sends the browser back to
 * the page's /oauth/callback, and the server becomes ready with the token. The callback needs no
 * launch token but only answers a login in progress, once, and only for its own Host.
 */

import { mkdtempSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { authorizationServer, resourceServer, TokenRegistry } from "../../client/test/support/authServers.js"
import type * as Api from "../src/Api.js"
import { http, type Started, start } from "./support/page.js"

const scope = Effect.runSync(Scope.make())
let page: Started
let mcpUrl = ""

beforeAll(async () => {
  mcpUrl = await Effect.runPromise(
    Scope.extend(
      Effect.gen(function* () {
        const registry = new TokenRegistry()
        const authorization = yield* authorizationServer(registry)
        const resource = yield* resourceServer(registry, { authorizationServer: () => authorization.origin })
        return `${resource.origin}/mcp`
      }),
      scope
    )
  )
  page = await start({ servers: [http("protected", mcpUrl)], stateDir: mkdtempSync(join(tmpdir(), "web-login-")) })
})
afterAll(async () => {
  await page?.stop()
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const state = async (): Promise<Api.State> =>
  (
    await fetch(`${page.origin}/api/state`, { headers: { authorization: `Bearer ${page.token}` } })
  ).json() as Promise<Api.State>

const until = async <A>(read: () => Promise<A | undefined>, ms = 20_000): Promise<A> => {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    const value = await read()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`not in ${ms} ms`)
}

/** A GET with exactly this Host (fetch will not send another). */
const getWithHost = (url: string, host: string) =>
  new Promise<number>((resolve, reject) => {
    const target = new URL(url)
    request(
      { host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, headers: { host } },
      (response) => {
        response.resume()
        resolve(response.statusCode ?? 0)
      }
    )
      .on("error", reject)
      .end()
  })

describe("logging in to an HTTP server from the page", () => {
  it("shows the authorization address, takes the redirect back, and the server becomes ready", async () => {
    const login = await until(async () => (await state()).authorizations[0])
    expect(login.server).toBe("protected")
    expect(new URL(login.url).searchParams.get("redirect_uri")).toBe(`${page.origin}/oauth/callback`)
    expect((await state()).servers[0]?.status).toBe("connecting")
    // The browser: the authorization server approves at once and sends it back to the page.
    const approved = await fetch(login.url, { redirect: "manual" })
    const back = approved.headers.get("location") ?? ""
    expect(back.startsWith(`${page.origin}/oauth/callback?`)).toBe(true)
    // A foreign Host is refused, and the login is still waiting.
    expect(await getWithHost(back, "evil.example")).toBe(403)
    const answered = await fetch(back)
    expect(answered.status).toBe(200)
    expect(await answered.text()).toMatch(/Logged in/)
    await until(async () => ((await state()).servers[0]?.status === "ready" ? true : undefined))
    expect((await state()).authorizations).toEqual([])
    // Used once.
    expect((await fetch(back)).status).toBe(400)
  })

  it("refuses a callback no login is waiting for", async () => {
    expect((await fetch(`${page.origin}/oauth/callback?code=x&state=made-up`)).status).toBe(400)
    expect((await fetch(`${page.origin}/oauth/callback`)).status).toBe(400)
  })
})
