/**
 * One measurement in its own process: `node --expose-gc worker.js <client> <spec-json> <target-json>`.
 * Prints one line `RESULT <json>` with the figures (other output, such as logs, is ignored).
 */
import type { Client, Session, Target } from "./clients/Client.js"
import { type Figures, gc, measure, measureIdle, type WorkloadSpec } from "./workloads.js"

const [clientName = "raw", specJson = "{}", targetJson = "{}"] = process.argv.slice(2)
const spec = JSON.parse(specJson) as WorkloadSpec
const given = JSON.parse(targetJson) as Target
const target: Target = spec.limit === undefined ? given : { ...given, maxInFlight: spec.limit }

const load = async (): Promise<Client> => {
  switch (clientName) {
    case "effect-mcp":
      return (await import("./clients/promise.js")).client
    case "effect-mcp-effects":
      return (await import("./clients/effect.js")).effectClient
    case "effect-floor":
      return (await import("./clients/floor.js")).floorClient
    case "effect-program":
      return (await import("./clients/program.js")).programClient
    case "program-floor":
      return (await import("./clients/program.js")).programFloorClient
    case "sdk-v1":
      return (await import("./clients/sdk.js")).client
    case "sdk-v2":
      return (await import("./clients/sdkV2.js")).client
    default:
      return (await import("./clients/raw.js")).client
  }
}

/** What an Effect program has loaded before it imports an MCP client. */
const effectAndPlatform = () =>
  Promise.all([
    import("effect/Effect"),
    import("effect/Layer"),
    import("effect/Schema"),
    import("effect/Stream"),
    import("@effect/platform/HttpClient"),
    import("@effect/platform/FileSystem")
  ])

const main = async (): Promise<Figures> => {
  if (spec.name === "import") {
    // The client's modules and its transport's, on top of effect and @effect/platform.
    await effectAndPlatform()
    const started = performance.now()
    const client = await load()
    await client.prepare?.(target)
    return { importMs: performance.now() - started }
  }
  const client = await load()
  // A transport's modules load here, not inside a measurement (cold start counts them either way).
  await client.prepare?.(target)
  if (spec.name === "sessions") {
    const before = process.memoryUsage()
    gc()
    const heapBefore = process.memoryUsage().heapUsed
    const started = performance.now()
    const sessions: Array<Session> = await Promise.all(
      Array.from({ length: spec.n }, async () => {
        const session = await client.connect(target)
        await session.list()
        return session
      })
    )
    const elapsed = performance.now() - started
    gc()
    const heapAfter = process.memoryUsage().heapUsed
    await Promise.all(sessions.map((session) => session.close()))
    return {
      sessionsMs: elapsed,
      heapKBPerSession: (heapAfter - heapBefore) / spec.n / 1024,
      rssMB: before.rss / 2 ** 20
    }
  }
  if (spec.name === "idle") return measureIdle(spec, client, target)
  const session = await client.connect(target)
  await session.list()
  // Process start → imported, connected, listed.
  const figures = spec.name === "cold" ? { coldMs: performance.now() } : await measure(spec, session, target)
  await session.close()
  return figures
}

main().then(
  (figures) => {
    process.stdout.write(`RESULT ${JSON.stringify(figures)}\n`)
    process.exit(0)
  },
  (error: unknown) => {
    process.stderr.write(`worker failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
    process.exit(1)
  }
)
