/**
 * The `gateway` workloads: what a call costs through `effect-mcp serve --port` (the gateway,
 * `@effect-mcp/gateway`) against the same server reached directly, beside mcp-proxy (the most used
 * TypeScript proxy, `mcp-proxy` 6.x) on the same work.
 *
 * One client for all three routes, the official SDK v1 client over Streamable HTTP (the `sdk-v1`
 * worker), calling the benchmark server's `echo`:
 * - direct: the benchmark server itself over Streamable HTTP (`server.js http`), answering each
 *   call with JSON as the gateway does when the result comes first (mcp-proxy answers with event
 *   streams): the baseline is the cheapest wire the client can get;
 * - gateway: `effect-mcp serve --port 0 --namespace none` with the benchmark server over stdio as
 *   its one configured server (`--namespace none`: the tool keeps its name, `echo`);
 * - mcp-proxy: `mcp-proxy --port P --host 127.0.0.1 -- node server.js stdio`, with its defaults
 *   (sessions, event store), as its README starts it.
 * The gateway and mcp-proxy both hold one connection to the server for all their sessions. Each
 * measurement starts its route afresh (nothing left from an earlier one) and stops it after.
 *
 * Figures: calls/s, p50 and p99 sequentially and with 100 in flight; the CPU per call of the route's
 * serving processes (the gateway or mcp-proxy and the server under it; the server alone when
 * direct), from `/proc`; with 1,000 idle sessions open, the serving process's RSS per session.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { connect, createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { effectMcpBin } from "./cli.js"
import type { Target } from "./clients/Client.js"
import { processTree } from "./proc.js"
import type { Figures, WorkloadSpec } from "./workloads.js"

const here = dirname(fileURLToPath(import.meta.url))
const serverScript = join(here, "server.js")
const memoryProbe = join(here, "memoryProbe.js")
const mcpProxyBin = createRequire(import.meta.url).resolve("mcp-proxy/dist/bin/mcp-proxy.mjs")

/** The routes compared, in the table's order. */
export const gatewayRoutes = ["direct", "gateway", "mcp-proxy"] as const
export type GatewayRoute = (typeof gatewayRoutes)[number]

/** One `gateway` workload. */
export type GatewayWorkload = WorkloadSpec & { readonly label: string }

/** The `gateway` workloads of a full run, or of a smoke run. */
export const gatewayWorkloads = (smoke: boolean): ReadonlyArray<GatewayWorkload> => [
  { label: "gateway: sequential echo", name: "sequential", transport: "http", n: smoke ? 20 : 2000 },
  {
    label: "gateway: 100 in flight",
    name: "inflight",
    transport: "http",
    n: smoke ? 200 : 10_000,
    concurrency: 100
  },
  {
    label: "gateway: 1,000 idle sessions",
    name: "idle",
    transport: "http",
    n: smoke ? 20 : 1000,
    // A smoke run rests 1 s: the figure is only checked to be a number.
    ...(smoke ? { restMs: 1000 } : {})
  }
]

/** A route being served: where, by which process, and how to stop it. */
interface Served {
  readonly target: Target
  readonly stop: () => void
}

/** Spawns `args` with this Node; resolves once `ready` finds the URL in its stdout (or `poll` answers). */
const serve = (
  args: ReadonlyArray<string>,
  ready: (stdout: string) => Promise<string | undefined> | string | undefined,
  cleanup: () => void = () => {}
) =>
  new Promise<Served>((resolve, reject) => {
    // With the memory probe: `idle` reads what a route keeps after it collected its garbage.
    const env = {
      ...process.env,
      BENCH_MEMORY_PROBE: "1",
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --expose-gc --import ${pathToFileURL(memoryProbe).href}`.trim()
    }
    const child: ChildProcess = spawn(process.execPath, [...args], { stdio: ["ignore", "pipe", "pipe"], env })
    let out = ""
    let err = ""
    let settled = false
    // The route's server too: the gateway or mcp-proxy may be gone before it has stopped it.
    const stop = () => {
      for (const pid of child.pid === undefined ? [] : [...processTree(child.pid)].reverse()) {
        try {
          process.kill(pid)
        } catch {}
      }
      cleanup()
    }
    const check = async () => {
      const url = await ready(out)
      if (url === undefined || settled) return
      settled = true
      clearTimeout(timer)
      resolve({ target: { kind: "http", url, serverPid: child.pid ?? 0 }, stop })
    }
    const timer = setTimeout(() => {
      settled = true
      stop()
      reject(new Error(`${args.join(" ")} did not listen within 60 s: ${err.slice(-2000)}`))
    }, 60_000)
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      void check()
    })
    child.stderr?.on("data", (chunk: Buffer) => {
      err += chunk.toString()
    })
    child.once("exit", (code) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      cleanup()
      reject(new Error(`${args.join(" ")} exited with ${code}: ${err.slice(-2000)}`))
    })
    void check()
  })

/** A free loopback port (mcp-proxy prints none it listens on). */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject()))
    })
  })

/** Whether something accepts connections on the port. */
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

/** Polls the port until it accepts (mcp-proxy says nothing once it listens). */
const whenAccepting = (port: number) => {
  let polling: Promise<string | undefined> | undefined
  return () => {
    polling ??= (async () => {
      while (!(await accepts(port))) await new Promise((resolve) => setTimeout(resolve, 50))
      return `http://127.0.0.1:${port}/mcp`
    })()
    return polling
  }
}

/** Starts a route on a free loopback port. */
export const startRoute = async (route: GatewayRoute): Promise<Served> => {
  switch (route) {
    case "direct":
      return serve([serverScript, "http", "0"], (out) => {
        const port = /listening (\d+)/.exec(out)?.[1]
        return port === undefined ? undefined : `http://127.0.0.1:${port}/mcp`
      })
    case "gateway": {
      const directory = mkdtempSync(join(tmpdir(), "bench-gateway-"))
      const config = join(directory, "mcp.json")
      writeFileSync(
        config,
        JSON.stringify({ mcpServers: { bench: { command: process.execPath, args: [serverScript, "stdio"] } } })
      )
      return serve(
        [effectMcpBin, "serve", "--port", "0", "--namespace", "none", "--config", config],
        (out) => /listening (http:\/\/\S+)/.exec(out)?.[1],
        () => rmSync(directory, { recursive: true, force: true })
      )
    }
    case "mcp-proxy": {
      const port = await freePort()
      return serve(
        [mcpProxyBin, "--port", String(port), "--host", "127.0.0.1", "--", process.execPath, serverScript, "stdio"],
        whenAccepting(port)
      )
    }
  }
}

/** Measures on a fresh route, stopped after (`measure` runs the worker against its target). */
export const measureRoute = async (
  route: GatewayRoute,
  measure: (target: Target) => Promise<Figures>
): Promise<Figures> => {
  const served = await startRoute(route)
  try {
    return await measure(served.target)
  } finally {
    served.stop()
  }
}
