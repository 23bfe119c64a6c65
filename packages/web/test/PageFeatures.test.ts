/**
 * The page's Tasks, Skills, HTTP, Login and Replay views in a real browser (Debian's Chromium
 * driven by playwright-core), as a person uses them: the reference server over stdio (it declares
 * tasks) runs its research tool as a task, whose status is drawn live under the call, then its
 * result; a task waiting for input is cancelled from the Tasks tab; a skills server's skill is
 * loaded (instructions as markdown, its files); the reference server over HTTP shows its exchanges
 * (status, session id, protocol version, headers on click, masked); an OAuth server's banner
 * opens the login in a new tab that comes back to the page, and the server becomes ready; a
 * recording made with the CLI is replayed from the Add server dialog (and a text that is no
 * recording refused). axe-core finds nothing serious on each new view.
 */
import { execFile } from "node:child_process"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import AxeBuilder from "@axe-core/playwright"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { authorizationServer, resourceServer, TokenRegistry } from "../../client/test/support/authServers.js"
import { type RunningServer, startEverything } from "../../client/test/support/httpServers.js"
import { skillsServer } from "../../client/test/support/skillsServer.js"
import { openPage } from "./support/browser.js"
import { everything, everythingStdio, http, type Started, start } from "./support/page.js"

const cli = fileURLToPath(new URL("../../cli/bin/effect-mcp.js", import.meta.url))
const dir = mkdtempSync(join(tmpdir(), "web-features-"))
const scope = Effect.runSync(Scope.make())
const shots = fileURLToPath(new URL("../build/screenshots/", import.meta.url))

let remote: RunningServer
let page: Started
let browser: Browser
let context: BrowserContext
let tab: Page
let errors: Array<string> = []

beforeAll(async () => {
  mkdirSync(shots, { recursive: true })
  remote = await startEverything("streamableHttp")
  const { docs, protectedUrl } = await Effect.runPromise(
    Scope.extend(
      Effect.gen(function* () {
        const docs = yield* skillsServer()
        const registry = new TokenRegistry()
        const authorization = yield* authorizationServer(registry)
        const resource = yield* resourceServer(registry, { authorizationServer: () => authorization.origin })
        return { docs: docs.url, protectedUrl: `${resource.origin}/mcp` }
      }),
      scope
    )
  )
  page = await start({
    servers: [
      everythingStdio("everything"),
      http("remote", `${remote.origin}/mcp`, { "X-Api-Key": "sekrit-header-value" }),
      http("docs", docs),
      http("protected", protectedUrl)
    ],
    secrets: ["sekrit-header-value"],
    stateDir: mkdtempSync(join(tmpdir(), "web-features-state-")),
    // As effect-mcp ui does it: a text that is no recording is refused (here by its header line
    // alone; the CLI's Ui.test checks its own refusal), else `effect-mcp replay FILE` plays it.
    replay: (name, text) =>
      Effect.suspend(() => {
        if (!isRecording(text))
          return Effect.fail({ message: "this is not an effect-mcp recording (its first line is not the header)" })
        const file = join(dir, `${name}.jsonl`)
        writeFileSync(file, text)
        return Effect.succeed({
          name,
          target: { _tag: "Stdio" as const, command: process.execPath, args: [cli, "replay", file], env: {} }
        })
      })
  })
  ;({ browser, context, tab, errors } = await openPage(page.url))
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await page?.stop()
  await remote?.stop()
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

/** Whether the text's first line is a recording's header (`{"recording":"effect-mcp","version":1,…}`). */
const isRecording = (text: string) => {
  try {
    const header: unknown = JSON.parse(text.split("\n")[0] ?? "")
    return typeof header === "object" && header !== null && "recording" in header && header.recording === "effect-mcp"
  } catch {
    return false
  }
}

const servers = () => tab.getByRole("navigation", { name: "Servers" })
const pane = (name: string) => tab.getByRole("region", { name: `Server ${name}` })
const shoot = (name: string) => tab.screenshot({ path: join(shots, `ui-${name}.png`) })

/** Opens a server (once it is ready) on one of its tabs. */
const openTab = async (server: string, name: string | RegExp) => {
  await expect
    .poll(() => servers().getByRole("link", { name: server, exact: true }).count(), { timeout: 30_000 })
    .toBe(1)
  await servers().getByRole("link", { name: server, exact: true }).click()
  const tabButton = pane(server).getByRole("tab", { name })
  await expect.poll(() => tabButton.count(), { timeout: 30_000 }).toBe(1)
  await tabButton.click()
}

const openTool = async (server: string, tool: string) => {
  await openTab(server, /^Tools/)
  const button = pane(server).getByRole("button", { name: tool, exact: true })
  await expect.poll(() => button.count(), { timeout: 30_000 }).toBe(1)
  await button.click()
}

const seriousFindings = async () => {
  const results = await new AxeBuilder({ page: tab }).analyze()
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`)
}

describe("the page's tasks, skills, HTTP, login and replay", () => {
  it("runs a tool that requires a task as one: its status live under the call, then its result", async () => {
    await openTool("everything", "simulate-research-query")
    const p = pane("everything")
    const box = p.getByRole("checkbox", { name: "Run as a task" })
    expect(await box.isChecked()).toBe(true)
    expect(await box.isDisabled()).toBe(true)
    await p.getByLabel(/^topic/).fill("tide pools")
    await p.getByRole("button", { name: "Call", exact: true }).click()
    const status = p.getByRole("region", { name: "Task status" })
    // A stage of the research, as the server's status message says it.
    await expect
      .poll(() => status.textContent(), { timeout: 20_000 })
      .toMatch(/working.*(Gathering|Analyzing|Synthesizing|Generating)/)
    const result = p.getByRole("region", { name: "Result" })
    await expect.poll(() => result.textContent(), { timeout: 30_000 }).toMatch(/tide pools/i)
    expect(await status.textContent()).toMatch(/completed/)
  })

  it("lists the server's tasks and cancels one that waits for input", async () => {
    // An ambiguous query waits (input_required) for an answer that does not come.
    await openTool("everything", "simulate-research-query")
    const p = pane("everything")
    await p.getByLabel(/^topic/).fill("python")
    await p.getByLabel(/^ambiguous/).check()
    await p.getByRole("button", { name: "Call", exact: true }).click()
    const status = p.getByRole("region", { name: "Task status" })
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toMatch(/input required/)
    const taskId = (await status.locator(".task-id").textContent()) ?? ""
    expect(taskId).not.toBe("")

    await p.getByRole("tab", { name: "Tasks" }).click()
    const list = p.getByRole("list", { name: "Task list" })
    const item = list.getByRole("listitem").filter({ hasText: taskId })
    await expect.poll(() => item.count(), { timeout: 20_000 }).toBe(1)
    expect(await item.textContent()).toMatch(/input required/)
    // The first task, done, is listed too, with its times and ttl.
    await expect.poll(() => list.getByRole("listitem").filter({ hasText: "completed" }).count()).toBeGreaterThan(0)
    expect(await item.textContent()).toMatch(/created .*ttl 5 min.*poll every 1 s/)
    await shoot("tasks")
    expect(await seriousFindings()).toEqual([])
    await item.getByRole("button", { name: "Cancel task" }).click()
    await expect.poll(() => item.textContent(), { timeout: 20_000 }).toMatch(/cancelled/)
    expect(await item.getByRole("button", { name: "Cancel task" }).count()).toBe(0)
    await p.getByRole("button", { name: "Refresh" }).click()
    await expect.poll(() => item.textContent(), { timeout: 20_000 }).toMatch(/cancelled/)
  })

  it("shows no Tasks or Skills tab for a server that declares neither, and an HTTP tab only over HTTP", async () => {
    await openTab("remote", /^Tools/)
    await expect.poll(() => pane("remote").getByRole("tab", { name: "HTTP" }).count()).toBe(1)
    expect(await pane("remote").getByRole("tab", { name: "Skills" }).count()).toBe(0)
    await openTab("everything", /^Tools/)
    expect(await pane("everything").getByRole("tab", { name: "HTTP" }).count()).toBe(0)
    expect(await pane("everything").getByRole("tab", { name: "Skills" }).count()).toBe(0)
  })

  it("lists a server's skills and loads one: its instructions as markdown, its files", async () => {
    await openTab("docs", "Skills")
    const p = pane("docs")
    const list = p.getByRole("list", { name: "Skill list" })
    const skill = list.getByRole("listitem").filter({ hasText: "pdf-processing" })
    await expect.poll(() => skill.count(), { timeout: 20_000 }).toBe(1)
    expect(await skill.textContent()).toContain("Extract, fill, and assemble PDF documents")
    expect(await list.getByRole("listitem").filter({ hasText: "refunds" }).count()).toBe(1)
    await skill.getByRole("button", { name: "Load" }).click()
    const instructions = p.getByRole("region", { name: "Instructions" })
    await expect.poll(() => instructions.textContent(), { timeout: 20_000 }).toContain("Fill forms as")
    // Markdown drawn (the heading), the frontmatter not part of the instructions.
    expect(await instructions.getByRole("heading", { name: "PDF processing" }).count()).toBe(1)
    expect(await instructions.textContent()).not.toContain("license:")
    const files = p.getByRole("list", { name: "Skill files" })
    expect(await files.textContent()).toContain("references/FORMS.md")
    await files.getByRole("button", { name: "Read references/FORMS.md" }).click()
    await expect
      .poll(() => p.getByRole("region", { name: /^File / }).textContent(), { timeout: 20_000 })
      .toContain("Forms: fill every field.")
    await shoot("skills")
    expect(await seriousFindings()).toEqual([])
  })

  it("shows an HTTP server's exchanges, live, with their headers (masked) on click", async () => {
    await openTab("remote", "HTTP")
    const p = pane("remote")
    const table = p.getByRole("table", { name: "HTTP exchanges" })
    const rows = table.locator("tbody tr")
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBeGreaterThan(1)
    const before = await rows.count()
    // A ping from the page is one more POST, drawn as it happens.
    await p.getByRole("button", { name: "Ping", exact: true }).click()
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBeGreaterThan(before)
    const post = rows.filter({ hasText: "POST" }).filter({ hasText: "2025-11-25" }).last()
    expect(await post.textContent()).toMatch(/\/mcp.*200/)
    await post.getByRole("button").click()
    const request = p.getByRole("region", { name: "Request headers" })
    await expect.poll(() => request.textContent()).toMatch(/mcp-protocol-version\s*2025-11-25/i)
    expect(await request.textContent()).toMatch(/x-api-key/i)
    expect(await request.textContent()).not.toContain("sekrit-header-value")
    expect(await p.getByRole("region", { name: "Response headers" }).textContent()).toMatch(/content-type/i)
    expect(await p.textContent()).toMatch(/session [0-9a-f-]{8,}/)
    await shoot("http")
    expect(await seriousFindings()).toEqual([])
  })

  it("asks to log in with a banner whose link opens the login in a new tab; the server becomes ready", async () => {
    await openTab("protected", "HTTP")
    const banner = tab.getByRole("region", { name: "protected asks you to log in" })
    await expect.poll(() => banner.count(), { timeout: 20_000 }).toBe(1)
    const link = banner.getByRole("link", { name: "Log in" })
    expect(await link.getAttribute("target")).toBe("_blank")
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer")
    expect(await link.getAttribute("href")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//)
    await shoot("login")
    expect(await seriousFindings()).toEqual([])
    const [login] = await Promise.all([context.waitForEvent("page", { timeout: 20_000 }), link.click()])
    // The authorization server approves at once and sends the new tab back to the page's callback.
    await login.waitForURL(/\/oauth\/callback\?/, { timeout: 20_000 })
    await expect.poll(() => login.textContent("body"), { timeout: 20_000 }).toMatch(/Logged in/)
    await login.close()
    await expect.poll(() => banner.count(), { timeout: 20_000 }).toBe(0)
    await expect
      .poll(() => servers().getByRole("listitem").filter({ hasText: "protected" }).textContent(), { timeout: 20_000 })
      .toMatch(/ready/)
  })

  it("replays a recording added from the dialog, and refuses a text that is no recording", async () => {
    const recording = join(dir, "session.jsonl")
    await new Promise<void>((resolve, reject) =>
      execFile(
        process.execPath,
        [
          cli,
          "tools",
          "call",
          "echo",
          "message=recorded",
          "--record",
          recording,
          "--",
          process.execPath,
          everything,
          "stdio"
        ],
        { timeout: 60_000 },
        (error) => (error === null ? resolve() : reject(error))
      )
    )
    const bogus = join(dir, "bogus.txt")
    writeFileSync(bogus, "hello, not a recording\n")

    await tab.getByRole("button", { name: "Add server", exact: true }).click()
    const dialog = tab.getByRole("dialog", { name: "Add a server" })
    await dialog.getByRole("radio", { name: "Replay a recording" }).check()
    await dialog.getByLabel("Server name").fill("bogus")
    await dialog.getByLabel("Recording", { exact: true }).setInputFiles(bogus)
    await dialog.getByRole("button", { name: "Replay", exact: true }).click()
    await expect
      .poll(() => dialog.getByRole("alert").textContent(), { timeout: 20_000 })
      .toMatch(/refused: .*not an effect-mcp recording/)
    expect(await seriousFindings()).toEqual([])
    await shoot("replay")

    await dialog.getByLabel("Server name").fill("played")
    await dialog.getByLabel("Recording", { exact: true }).setInputFiles(recording)
    await expect.poll(() => dialog.textContent()).toMatch(/Read session\.jsonl: \d+ lines/)
    await dialog.getByRole("button", { name: "Replay", exact: true }).click()
    await expect.poll(() => dialog.isVisible(), { timeout: 20_000 }).toBe(false)
    await openTool("played", "echo")
    await pane("played")
      .getByLabel(/^message/)
      .fill("recorded")
    await pane("played").getByRole("button", { name: "Call", exact: true }).click()
    await expect
      .poll(() => pane("played").getByRole("region", { name: "Result" }).textContent(), { timeout: 20_000 })
      .toContain("Echo: recorded")
  })

  it("raised no error in the page", () => {
    expect(errors).toEqual([])
  })
})
