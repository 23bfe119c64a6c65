/**
 * Server targets for host tests: a Node script over stdio, the reference server over stdio,
 * and the reference server over Streamable HTTP (started once per test file, stopped after).
 */
import { afterAll, beforeAll } from "@effect/vitest"
import { type RunningServer, startEverything } from "../../../client/test/support/httpServers.js"
import { everythingServer } from "../../../client/test/support/processes.js"
import type { ServerEntry } from "../../src/index.js"

/** A Node script (with arguments) as a stdio server. */
export const stdio = (...args: ReadonlyArray<string>): ServerEntry.StdioTarget => ({
  _tag: "Stdio",
  command: process.execPath,
  args,
  env: {}
})

/** The reference server over stdio. */
export const everything = stdio(everythingServer, "stdio")

/** Starts the reference server over Streamable HTTP for this file's tests; the target of its `/mcp`. */
export const everythingOverHttp = (): (() => ServerEntry.Target) => {
  let web: RunningServer | undefined
  beforeAll(async () => {
    web = await startEverything("streamableHttp")
  })
  afterAll(async () => {
    await web?.stop()
  })
  return () => ({ _tag: "Http", url: `${web?.origin ?? ""}/mcp`, transport: "http", headers: {} })
}
