/** Reference servers over Streamable HTTP that a test starts, stops and starts again on the same port. */
import { afterEach } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { type RunningServer, startEverything } from "./httpServers.js"

/**
 * `start` (on a port, to restart one), `stop`, and the servers `running`; every server still
 * running is stopped after each test.
 */
export const restartableServers = () => {
  const running = new Set<RunningServer>()
  afterEach(async () => {
    await Promise.all([...running].map((server) => server.stop()))
    running.clear()
  })
  const start = (port?: number) =>
    Effect.promise(async () => {
      const server = await startEverything("streamableHttp", port)
      running.add(server)
      return server
    })
  const stop = (server: RunningServer) =>
    Effect.promise(async () => {
      await server.stop()
      running.delete(server)
    })
  const view: ReadonlySet<RunningServer> = running
  return { start, stop, running: view }
}

/** A tool result's text blocks, one per line (other blocks by their type). */
export const textOf = (result: { readonly content: ReadonlyArray<{ readonly type: string }> }) =>
  result.content.map((block) => ("text" in block ? String(block.text) : block.type)).join("\n")
