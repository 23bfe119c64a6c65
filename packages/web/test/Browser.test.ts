/**
 * The page in a real browser (Debian's Chromium driven by playwright-core), as a person uses it,
 * against the reference server over stdio and over Streamable HTTP and a third, hostile server at
 * once: both reference servers listed with their tools; the echo form filled and called; the long
 * operation's progress drawn live, then cancelled; the elicitation form answered; a chat turn
 * with a scripted model that calls a tool, drawn event by event; the trace with the `tools/call`
 * request and its response; a deep link that calls a tool; a reload that keeps the conversation;
 * server-supplied HTML shown as text, never run; the main views free of serious accessibility
 * findings (axe-core) and usable from the keyboard. Screenshots of each main view are written to
 * build/screenshots (to docs/ with EFFECT_MCP_SCREENSHOTS=docs).
 */
import { mkdirSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import AxeBuilder from "@axe-core/playwright"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { Browser, Page } from "playwright-core"
import { scriptedModel } from "../../ai/test/support/scriptedModel.js"
import { type RunningServer, startEverything } from "../../client/test/support/httpServers.js"
import { openPage } from "./support/browser.js"
import { everythingStdio, http, type Started, start } from "./support/page.js"

const hostile = fileURLToPath(new URL("fixtures/hostile-server.mjs", import.meta.url))
const shots =
  process.env.EFFECT_MCP_SCREENSHOTS === "docs"
    ? fileURLToPath(new URL("../../../docs/", import.meta.url))
    : fileURLToPath(new URL("../build/screenshots/", import.meta.url))

const model = scriptedModel({
  turns: [
    () => ({
      text: "Let me echo that. ",
      calls: [{ name: "everything__echo", params: { message: "from the model" } }]
    }),
    () => ({ text: "The server said **Echo: from the model**." })
  ],
  samples: [() => ({ text: "a haiku from the model" })]
})

let remote: RunningServer
let page: Started
let browser: Browser
let tab: Page
let errors: Array<string> = []

beforeAll(async () => {
  mkdirSync(shots, { recursive: true })
  remote = await startEverything("streamableHttp")
  page = await start({
    servers: [
      everythingStdio("everything"),
      http("remote", `${remote.origin}/mcp`),
      { name: "hostile", target: { _tag: "Stdio", command: process.execPath, args: [hostile], env: {} } }
    ],
    model: model.layer,
    stateDir: mkdtempSync(join(tmpdir(), "web-browser-"))
  })
  ;({ browser, tab, errors } = await openPage(page.url))
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await page?.stop()
  await remote?.stop()
})

const servers = () => tab.getByRole("navigation", { name: "Servers" })
const pane = (name: string) => tab.getByRole("region", { name: `Server ${name}` })
const shoot = (name: string) => tab.screenshot({ path: join(shots, `ui-${name}.png`) })

/** Opens a server's tool from the sidebar. */
const openTool = async (server: string, tool: string) => {
  await servers().getByRole("link", { name: server, exact: true }).click()
  await pane(server)
    .getByRole("tab", { name: /^Tools/ })
    .click()
  await pane(server).getByRole("button", { name: tool, exact: true }).click()
}

const seriousFindings = async () => {
  const results = await new AxeBuilder({ page: tab }).analyze()
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`)
}

describe("the page", () => {
  it("lists every server, ready, and both reference servers' tools", async () => {
    for (const name of ["everything", "remote", "hostile"]) {
      await expect.poll(() => servers().getByRole("link", { name, exact: true }).count(), { timeout: 30_000 }).toBe(1)
    }
    await expect.poll(() => servers().getByText("ready", { exact: true }).count(), { timeout: 30_000 }).toBe(3)
    for (const name of ["everything", "remote"]) {
      await servers().getByRole("link", { name, exact: true }).click()
      await expect.poll(() => pane(name).getByRole("button", { name: "echo", exact: true }).count()).toBe(1)
      await expect.poll(() => pane(name).getByRole("button", { name: "get-sum", exact: true }).count()).toBe(1)
    }
    await shoot("servers")
  })

  it("calls echo from its form and shows the result", async () => {
    await openTool("remote", "echo")
    await pane("remote")
      .getByLabel(/^message/)
      .fill("hello from the page")
    await pane("remote").getByRole("button", { name: "Call", exact: true }).click()
    const result = pane("remote").getByRole("region", { name: "Result" })
    await expect.poll(() => result.textContent(), { timeout: 20_000 }).toContain("Echo: hello from the page")
    await shoot("tools")
  })

  it("draws the long operation's progress as it comes, then cancels it", async () => {
    await openTool("everything", "trigger-long-running-operation")
    const form = pane("everything")
    await form.getByLabel(/^duration/).fill("30")
    await form.getByLabel(/^steps/).fill("30")
    await form.getByRole("button", { name: "Call", exact: true }).click()
    const progress = form.getByRole("progressbar", { name: "Progress" })
    await expect.poll(() => progress.getAttribute("value"), { timeout: 20_000 }).not.toBeNull()
    const first = Number(await progress.getAttribute("value"))
    await expect
      .poll(async () => Number(await progress.getAttribute("value")), { timeout: 20_000 })
      .toBeGreaterThan(first)
    await form.getByRole("button", { name: "Cancel", exact: true }).click()
    await expect
      .poll(() => form.getByRole("region", { name: "Result" }).textContent(), { timeout: 20_000 })
      .toContain("Cancelled.")
  })

  it("shows the elicitation form under its call and sends what was typed", async () => {
    await openTool("everything", "trigger-elicitation-request")
    await pane("everything").getByRole("button", { name: "Call", exact: true }).click()
    const request = tab.getByRole("region", { name: "everything asks for input" })
    await expect.poll(() => request.count(), { timeout: 20_000 }).toBe(1)
    await shoot("elicitation")
    await request
      .getByLabel(/^String\b/)
      .first()
      .fill("Ada Lovelace")
    await request.getByRole("button", { name: "Accept", exact: true }).click()
    await expect
      .poll(() => pane("everything").getByRole("region", { name: "Result" }).textContent(), { timeout: 20_000 })
      .toContain("Ada Lovelace")
    expect(await request.count()).toBe(0)
  })

  it("answers a sampling request with the chat's model at the user's word", async () => {
    await openTool("everything", "trigger-sampling-request")
    await pane("everything")
      .getByLabel(/^prompt/)
      .fill("write a haiku")
    await pane("everything").getByRole("button", { name: "Call", exact: true }).click()
    const request = tab.getByRole("region", { name: "everything asks for a model answer (sampling)" })
    await expect.poll(() => request.count(), { timeout: 20_000 }).toBe(1)
    expect(await request.textContent()).toContain("write a haiku")
    await request.getByRole("button", { name: "Ask scripted model" }).click()
    await expect
      .poll(() => pane("everything").getByRole("region", { name: "Result" }).textContent(), { timeout: 20_000 })
      .toContain("a haiku from the model")
  })

  it("shows the tools/call request and its response in the trace, and a message's JSON on click", async () => {
    await servers().getByRole("link", { name: "remote", exact: true }).click()
    await pane("remote").getByRole("tab", { name: "Trace" }).click()
    const trace = pane("remote").getByRole("listbox", { name: "Trace" })
    const calls = trace.getByRole("option").filter({ hasText: "tools/call" })
    await expect.poll(() => calls.count(), { timeout: 20_000 }).toBeGreaterThanOrEqual(2)
    await calls.first().click()
    await expect
      .poll(() => pane("remote").getByRole("region", { name: "Message" }).textContent())
      .toContain('"method": "tools/call"')
    await shoot("trace")
  })

  it("runs a chat turn, drawing the tool call and the answer as they come", async () => {
    await tab.getByRole("navigation", { name: "Views" }).getByRole("link", { name: "Chat" }).click()
    const chat = tab.getByRole("region", { name: "Chat" })
    await chat.getByRole("textbox", { name: "Message" }).fill("please echo something")
    await chat.getByRole("button", { name: "Send", exact: true }).click()
    const call = chat.getByRole("article", { name: "Tool call everything__echo" })
    await expect.poll(() => call.textContent(), { timeout: 20_000 }).toContain("Echo: from the model")
    const conversation = chat.getByRole("log", { name: "Conversation" })
    await expect.poll(() => conversation.textContent(), { timeout: 20_000 }).toContain("The server said")
    await expect.poll(() => conversation.textContent()).toMatch(/Done · 1 tool call/)
    // Markdown from the model is drawn, not shown raw.
    expect(await conversation.locator("strong").filter({ hasText: "Echo: from the model" }).count()).toBe(1)
    await shoot("chat")
  })

  it("keeps the conversation across a reload", async () => {
    await tab.reload()
    const conversation = tab.getByRole("log", { name: "Conversation" })
    await expect.poll(() => conversation.textContent(), { timeout: 20_000 }).toContain("please echo something")
    expect(await conversation.textContent()).toContain("The server said")
  })

  it("opens a deep link that fills a tool's form and calls it", async () => {
    const args = encodeURIComponent(JSON.stringify({ message: "from a deep link" }))
    await tab.goto(`${page.origin}/#/server/everything/tool/echo?args=${args}&call=1`)
    await expect
      .poll(() => pane("everything").getByRole("region", { name: "Result" }).textContent(), { timeout: 20_000 })
      .toContain("Echo: from a deep link")
  })

  it("shows server-supplied HTML as text and never runs it", async () => {
    await openTool("hostile", "inject")
    await expect.poll(() => pane("hostile").textContent()).toContain("<script>window.__pwned = 'script'</script>")
    await pane("hostile").getByRole("button", { name: "Call", exact: true }).click()
    const result = pane("hostile").getByRole("region", { name: "Result" })
    await expect.poll(() => result.textContent(), { timeout: 20_000 }).toContain(`Result <img src=x onerror=`)
    // No link to a javascript: address was drawn, nothing ran.
    expect(await tab.locator('a[href^="javascript:"]').count()).toBe(0)
    expect(await tab.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined()
    expect(await tab.locator("img[src='x']").count()).toBe(0)
  })

  it("has no serious or critical accessibility finding on its main views", async () => {
    await servers().getByRole("link", { name: "everything", exact: true }).click()
    await pane("everything")
      .getByRole("tab", { name: /^Tools/ })
      .click()
    expect(await seriousFindings()).toEqual([])
    await pane("everything").getByRole("tab", { name: "Trace" }).click()
    expect(await seriousFindings()).toEqual([])
    await pane("everything")
      .getByRole("tab", { name: /^Resources/ })
      .click()
    expect(await seriousFindings()).toEqual([])
    await pane("everything")
      .getByRole("tab", { name: /^Prompts/ })
      .click()
    expect(await seriousFindings()).toEqual([])
    await tab.getByRole("navigation", { name: "Views" }).getByRole("link", { name: "Chat" }).click()
    expect(await seriousFindings()).toEqual([])
  })

  it("calls a tool with the keyboard alone", async () => {
    await tab.goto(`${page.origin}/#/server/remote/tool/echo`)
    const field = pane("remote").getByLabel(/^message/)
    await expect.poll(() => field.count(), { timeout: 20_000 }).toBe(1)
    await field.focus()
    await tab.keyboard.type("typed with keys")
    // Tab moves on to the Call button (past the field's own help), Enter presses it.
    for (let step = 0; step < 6; step++) {
      const focused = await tab.evaluate(() => document.activeElement?.textContent ?? "")
      if (focused === "Call") break
      await tab.keyboard.press("Tab")
    }
    expect(await tab.evaluate(() => document.activeElement?.textContent)).toBe("Call")
    await tab.keyboard.press("Enter")
    await expect
      .poll(() => pane("remote").getByRole("region", { name: "Result" }).textContent(), { timeout: 20_000 })
      .toContain("Echo: typed with keys")
  })

  it("raised no error in the page", () => {
    expect(errors).toEqual([])
  })
})
