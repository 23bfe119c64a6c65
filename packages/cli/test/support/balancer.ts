/**
 * Gateway instances (`effect-mcp serve --port 0`) and an HAProxy in front of them, for the tests of
 * more than one instance. HAProxy is required: `.ci/run` installs it; without it the caller fails.
 */
import { execFileSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
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

/** The README's sample configuration (`docs/haproxy.cfg`). */
export const sampleConfig = fileURLToPath(new URL("../../../../docs/haproxy.cfg", import.meta.url))

/**
 * Starts HAProxy with the sample configuration in front of `instances`, listening on a free port: its
 * bind and server lines replaced by theirs (checked every 100 ms, down at the first failure), its
 * stickiness on `Mcp-Session-Id` kept when `sticky`, dropped otherwise (round robin alone).
 */
export const startBalancer = async (
  name: string,
  instances: ReadonlyArray<Instance>,
  sticky: boolean,
  cwd: string
): Promise<Balancer> => {
  const port = await freePort()
  const file = join(cwd, `${name}.cfg`)
  const lines = readFileSync(sampleConfig, "utf8").split("\n")
  const servers = instances.map(
    (instance) => `  server ${instance.name} ${instance.url.host} check inter 100ms fall 1 rise 1`
  )
  const config = lines.flatMap((line) => {
    const trimmed = line.trim()
    if (trimmed.startsWith("bind ")) return [`  bind 127.0.0.1:${port}`]
    if (trimmed.startsWith("stick")) return sticky ? [line] : []
    if (trimmed.startsWith("server ")) return line === lines.find((l) => l.trim().startsWith("server ")) ? servers : []
    return [line]
  })
  if (!config.some((line) => line.includes("http-check expect status 200"))) {
    throw new Error(`${sampleConfig} lost its readiness check`)
  }
  writeFileSync(file, config.join("\n"))
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
