/**
 * Gateway instances (`effect-mcp serve --port 0`) and an HAProxy in front of them, for the tests of
 * more than one instance. HAProxy is required: `.ci/run` installs it; without it the caller fails.
 */
import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { canConnect, freePort } from "../../../client/test/support/httpServers.js"
import { eventually, type Started, start, startCommand } from "./cli.js"

/** Why HAProxy cannot be used here, or `undefined` when it can. */
export const haproxyMissing = (() => {
  try {
    execFileSync("haproxy", ["-v"], { stdio: "ignore" })
    return undefined
  } catch (error) {
    return `haproxy is needed by this test and could not be run (${String(error)}): install it (Debian: apt-get install haproxy; .ci/run does)`
  }
})()

/** A gateway instance: its process and its own (not balanced) URL. */
export interface Instance {
  readonly name: string
  readonly started: Started
  readonly url: URL
}

/** An HAProxy in front of instances. */
export interface Balancer {
  readonly started: Started
  readonly url: URL
}

/** Starts `serve --port 0` with `args` and waits (bounded) until it listens. */
export const startInstance = async (
  name: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env?: Record<string, string> }
): Promise<Instance> => {
  const started = start(["serve", ...args, "--port", "0"], { ...options, timeoutMs: 600_000 })
  started.finished.catch(() => undefined)
  const listening = () => /listening (http:\/\/\S+)/.exec(started.stdout())?.[1]
  await eventually(() => listening() !== undefined, `gateway ${name} to listen`)
  return { name, started, url: new URL(listening() ?? "") }
}

/** Starts HAProxy (round robin, plus `stickiness` lines) in front of `instances`, listening on a free port. */
export const startBalancer = async (
  name: string,
  instances: ReadonlyArray<Instance>,
  stickiness: ReadonlyArray<string>,
  cwd: string
): Promise<Balancer> => {
  const port = await freePort()
  const file = join(cwd, `${name}.cfg`)
  writeFileSync(
    file,
    [
      "defaults",
      "  mode http",
      "  timeout connect 2s",
      "  timeout client 30s",
      "  timeout server 30s",
      "frontend mcp",
      `  bind 127.0.0.1:${port}`,
      "  default_backend gateways",
      "backend gateways",
      "  balance roundrobin",
      ...stickiness,
      // A TCP check every 100 ms: an instance that is gone is marked down at the first failure.
      ...instances.map((instance) => `  server ${instance.name} ${instance.url.host} check inter 100ms fall 1 rise 1`),
      ""
    ].join("\n")
  )
  const started = startCommand("haproxy", ["-f", file, "-db"], { cwd, timeoutMs: 600_000 })
  started.finished.catch(() => undefined)
  // Bounded: 200 probes, 50 ms apart.
  for (let probes = 0; !(await canConnect(port)); probes++) {
    if (started.child.exitCode !== null) throw new Error(`haproxy (${name}) ended: ${started.stderr()}`)
    if (probes === 200) throw new Error(`haproxy (${name}) is not listening on ${port}: ${started.stderr()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return { started, url: new URL(`http://127.0.0.1:${port}/mcp`) }
}
