/**
 * The page's budgets (`npm run bench:ui`): what a person waits for and what their browser loads.
 *
 * - **Page weight**: the page's JavaScript and CSS as served, gzipped (what the browser fetches;
 *   nothing else is fetched, from anywhere).
 * - **Start to toolset**: from spawning `effect-mcp ui --no-open` (a config with the reference server
 *   over stdio) to the page's API listing that server's tools: the command's start, the host's, the
 *   server's and the first `tools/list`, as the page's first view waits for them.
 * - **Trace with 10,000 messages**: 5,000 pings make 10,000 messages in the reference server's
 *   trace; Chromium (Debian's, through playwright-core) opens its Trace tab and scrolls the list
 *   a screen per frame for 300 frames: the time to draw the tab, and each frame's time (median,
 *   95th percentile, worst).
 *
 * Each start is measured `--runs` times (default 5); the figures are their min, median and max.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import { chromium } from "playwright-core"
import { effectMcpBin, everything } from "./cli.js"

const here = dirname(fileURLToPath(import.meta.url))
const pageDir = join(here, "..", "..", "web", "dist", "page")
const runs = Number(process.argv[process.argv.indexOf("--runs") + 1] ?? "") || 5

interface Started {
  readonly child: ChildProcess
  readonly origin: string
  readonly token: string
  readonly spawnedAt: number
}

/** Starts `effect-mcp ui` on the reference server in a fresh directory; resolves once it printed its address. */
const startUi = (): Promise<Started> =>
  new Promise((resolve, reject) => {
    const dir = mkdtempSync(join(tmpdir(), "bench-ui-"))
    writeFileSync(
      join(dir, ".mcp.json"),
      JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } } })
    )
    const spawnedAt = performance.now()
    const child = spawn(process.execPath, [effectMcpBin, "ui", "--no-open", "--state-dir", join(dir, "state")], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" }
    })
    let printed = ""
    const timer = setTimeout(() => reject(new Error(`no address in 60 s: ${printed}`)), 60_000)
    child.stdout?.on("data", (chunk: Buffer) => {
      printed += chunk.toString("utf8")
      const found = /http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/.exec(printed)
      if (found === null) return
      clearTimeout(timer)
      const url = new URL(found[0])
      resolve({ child, origin: url.origin, token: url.searchParams.get("token") ?? "", spawnedAt })
    })
    child.once("exit", (code) => reject(new Error(`ui exited ${code}: ${printed}`)))
  })

const stop = (started: Started) =>
  new Promise<void>((resolve) => {
    started.child.once("exit", () => resolve())
    started.child.kill("SIGTERM")
  })

const api = async (started: Started, path: string, method = "GET") =>
  fetch(`${started.origin}${path}`, { method, headers: { authorization: `Bearer ${started.token}` } })

/** Polls the server's lists until it has tools (bounded); the time since the spawn. */
const untilToolset = async (started: Started) => {
  for (let tries = 0; tries < 6_000; tries++) {
    const response = await api(started, "/api/servers/everything/lists")
    if (response.ok) {
      const lists = (await response.json()) as { tools: ReadonlyArray<unknown> }
      if (lists.tools.length > 0) return performance.now() - started.spawnedAt
    } else await response.body?.cancel()
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error("no toolset in 60 s")
}

const summary = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN
  return { min: sorted[0] ?? Number.NaN, median: at(0.5), p95: at(0.95), max: sorted.at(-1) ?? Number.NaN }
}

const pageWeight = () => {
  const assets = join(pageDir, "assets")
  const sizes = (ending: string) =>
    readdirSync(assets)
      .filter((name) => name.endsWith(ending))
      .reduce(
        (sum, name) => {
          const bytes = readFileSync(join(assets, name))
          return { raw: sum.raw + bytes.length, gzip: sum.gzip + gzipSync(bytes, { level: 9 }).length }
        },
        { raw: 0, gzip: 0 }
      )
  return { js: sizes(".js"), css: sizes(".css"), html: readFileSync(join(pageDir, "index.html")).length }
}

const startToToolset = async () => {
  const address: Array<number> = []
  const toolset: Array<number> = []
  for (let run = 0; run < runs; run++) {
    const started = await startUi()
    address.push(performance.now() - started.spawnedAt)
    toolset.push(await untilToolset(started))
    await stop(started)
  }
  return { address: summary(address), toolset: summary(toolset) }
}

const traceFrames = async () => {
  const started = await startUi()
  try {
    await untilToolset(started)
    // 5,000 pings, 20 at a time: 10,000 messages in the trace.
    let next = 0
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next < 5_000) {
          next += 1
          const response = await api(started, "/api/servers/everything/ping", "POST")
          await response.body?.cancel()
        }
      })
    )
    const traced = (await (await api(started, "/api/servers/everything/trace")).json()) as ReadonlyArray<unknown>
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
    })
    try {
      const tab = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage()
      await tab.goto(`${started.origin}/?token=${started.token}`)
      await tab
        .getByRole("navigation", { name: "Servers" })
        .getByRole("link", { name: "everything", exact: true })
        .click()
      const opened = performance.now()
      await tab.getByRole("region", { name: "Server everything" }).getByRole("tab", { name: "Trace" }).click()
      const list = tab.getByRole("listbox", { name: "Trace" })
      await list.getByRole("option").first().waitFor()
      const drawn = performance.now() - opened
      const frames = await list.evaluate(
        (element) =>
          new Promise<Array<number>>((resolve) => {
            // In the page (this package has no DOM types).
            const frame = (globalThis as unknown as { requestAnimationFrame: (next: () => void) => void })
              .requestAnimationFrame
            const times: Array<number> = []
            let last = performance.now()
            const step = () => {
              const now = performance.now()
              times.push(now - last)
              last = now
              element.scrollTop += element.clientHeight
              if (element.scrollTop + element.clientHeight >= element.scrollHeight) element.scrollTop = 0
              if (times.length < 300) frame(step)
              else resolve(times.slice(1))
            }
            frame(step)
          })
      )
      return { messages: traced.length, drawnMs: drawn, frameMs: summary(frames) }
    } finally {
      await browser.close()
    }
  } finally {
    await stop(started)
  }
}

const ms = (value: number) => `${value.toFixed(1)} ms`
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`

const weight = pageWeight()
const start = await startToToolset()
const trace = await traceFrames()
const results = { runs, weight, start, trace, node: process.version, at: new Date().toISOString() }
const out = join(here, "..", "..", "..", "bench-results")
mkdirSync(out, { recursive: true })
writeFileSync(join(out, "ui.json"), `${JSON.stringify(results, null, 2)}\n`)
console.log(
  [
    `| the page (effect-mcp ui), ${runs} starts, Node ${process.version} | figure |`,
    "| --- | ---: |",
    `| JavaScript, gzipped (raw) | ${kb(weight.js.gzip)} (${kb(weight.js.raw)}) |`,
    `| CSS, gzipped (raw) | ${kb(weight.css.gzip)} (${kb(weight.css.raw)}) |`,
    `| command to address printed (median; min-max) | ${ms(start.address.median)} (${ms(start.address.min)}-${ms(start.address.max)}) |`,
    `| command to the reference server's tools listed (median; min-max) | ${ms(start.toolset.median)} (${ms(start.toolset.min)}-${ms(start.toolset.max)}) |`,
    `| trace of ${trace.messages} messages: tab drawn | ${ms(trace.drawnMs)} |`,
    `| trace scrolled a screen a frame: frame time median / p95 / worst | ${ms(trace.frameMs.median)} / ${ms(trace.frameMs.p95)} / ${ms(trace.frameMs.max)} |`
  ].join("\n")
)
