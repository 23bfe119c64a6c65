/**
 * MCP Apps in a real browser (Debian's Chromium driven by playwright-core), with two fixture
 * servers whose views are written with the extension's own `App` class: in the tool pane, the
 * view is drawn in the sandbox proxy of another origin, initializes, receives the tool's input and
 * result, calls a tool of its own server and shows the answer, grows and gets its size, is refused
 * another server's tool and a model-only tool, is blocked by its CSP fetching an undeclared domain
 * (the page shows the violation), asks for fullscreen and gets it, asks to open a link (consent
 * asked), sends a `ui/message` that appears in the chat and a model context the next turn carries,
 * and is torn down cleanly; in the chat, the view of a tool the model called is drawn under the
 * call. Every wait is bounded.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import AxeBuilder from "@axe-core/playwright"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { Browser, FrameLocator, Page } from "playwright-core"
import { scriptedModel, userText } from "../../ai/test/support/scriptedModel.js"
import type * as Api from "../src/Api.js"
import { appsServers } from "./support/apps.js"
import { openPage } from "./support/browser.js"
import { type Started, start } from "./support/page.js"

const model = scriptedModel({
  turns: [
    // The view's ui/message starts a turn.
    () => ({ text: "Thanks, view." }),
    // The user's turn: the model calls the tool with a view.
    () => ({ text: "Showing it. ", calls: [{ name: "alpha__show", params: { note: "from the chat" } }] }),
    () => ({ text: "Shown." })
  ]
})

let page: Started
let browser: Browser
let tab: Page
let errors: Array<string> = []

beforeAll(async () => {
  page = await start({
    apps: true,
    servers: appsServers(),
    model: model.layer,
    stateDir: mkdtempSync(join(tmpdir(), "web-apps-"))
  })
  ;({ browser, tab, errors } = await openPage(page.url))
}, 120_000)

afterAll(async () => {
  await browser?.close()
  // The views' last requests are let end first: a stop that meets them has been seen to hang
  // (not understood yet; see the closing note of 2026-12-02). Bounded, so it cannot hold the run.
  await new Promise((resolve) => setTimeout(resolve, 3_000))
  await Promise.race([page?.stop(), new Promise((resolve) => setTimeout(resolve, 30_000))])
}, 60_000)

const servers = () => tab.getByRole("navigation", { name: "Servers" })
const pane = (name: string) => tab.getByRole("region", { name: `Server ${name}` })
/** The view's document: the proxy's frame, then its inner frame. */
const viewIn = (scope: Page | ReturnType<Page["getByRole"]>, tool = "show"): FrameLocator =>
  scope.frameLocator(`iframe[title="View of ${tool}"]`).frameLocator("iframe")
const output = (view: FrameLocator, id: string) => view.locator(`#${id}`)

const trace = async (server: string) => {
  const response = await fetch(`${page.origin}/api/servers/${server}/trace`, {
    headers: { authorization: `Bearer ${page.token}` }
  })
  return (await response.json()) as ReadonlyArray<Api.TraceEntry>
}
const method = (entry: Api.TraceEntry) => (entry.message as { method?: string }).method

describe("a tool's view in the tool pane", () => {
  it("is drawn from the sandbox's origin, initializes, and receives the tool's input and result", async () => {
    await expect.poll(() => servers().getByText("ready", { exact: true }).count(), { timeout: 30_000 }).toBe(2)
    await servers().getByRole("link", { name: "alpha", exact: true }).click()
    await pane("alpha")
      .getByRole("tab", { name: /^Tools/ })
      .click()
    await pane("alpha").getByRole("button", { name: "show", exact: true }).click()
    await pane("alpha").getByLabel(/^note/).fill("hello view")
    await pane("alpha").getByRole("button", { name: "Call", exact: true }).click()
    const proxy = pane("alpha").locator('iframe[title="View of show"]')
    await expect.poll(() => proxy.getAttribute("src"), { timeout: 10_000 }).toContain(page.sandboxOrigin ?? "?")
    expect(page.sandboxOrigin).not.toBe(page.origin)
    const view = viewIn(pane("alpha"))
    setTimeout(
      async () => console.log("TRACE", JSON.stringify((await trace("alpha")).filter((e) => e.view)).slice(0, 3000)),
      6000
    )
    await expect.poll(() => output(view, "status").textContent(), { timeout: 20_000 }).toBe("initialized")
    await expect.poll(() => output(view, "input").textContent(), { timeout: 10_000 }).toBe('{"note":"hello view"}')
    await expect.poll(() => output(view, "result").textContent(), { timeout: 10_000 }).toBe("shown: hello view")
    expect(["light", "dark"]).toContain(await output(view, "theme").textContent())
    // The handshake in order, in the trace, marked as the view's.
    const views = (await trace("alpha")).filter((entry) => entry.view !== undefined)
    const order = views.map((entry) => `${entry.dir} ${method(entry) ?? "response"}`)
    const initialized = order.indexOf("receive ui/notifications/initialized")
    expect(order.indexOf("receive ui/initialize")).toBeGreaterThanOrEqual(0)
    expect(initialized).toBeGreaterThan(order.indexOf("receive ui/initialize"))
    expect(order.indexOf("send ui/notifications/tool-input")).toBeGreaterThan(initialized)
    expect(order.indexOf("send ui/notifications/tool-result")).toBeGreaterThan(
      order.indexOf("send ui/notifications/tool-input")
    )
    // No notification went to the view before it said it was initialized (only the answer to
    // ui/initialize may have, whose record can arrive either side of it).
    expect(order.slice(0, initialized).filter((line) => line.startsWith("send ui/"))).toEqual([])
    expect(order.filter((line) => line === "send response").length).toBeGreaterThan(0)
    const answer = views.find(
      (entry) =>
        entry.dir === "send" && method(entry) === undefined && JSON.stringify(entry.message).includes("hostContext")
    )
    expect(answer?.message).toMatchObject({
      result: {
        protocolVersion: "2026-01-26",
        hostCapabilities: { serverTools: {}, openLinks: {} },
        hostContext: { toolInfo: { tool: { name: "show" } }, displayMode: "inline", platform: "web" }
      }
    })
  })

  it("has no serious accessibility finding around the view (the view's own document is the server's)", async () => {
    const results = await new AxeBuilder({ page: tab }).include(".app-view").exclude(".app-frame").analyze()
    const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
    expect(serious.map((v) => v.id)).toEqual([])
  })

  it("calls a tool of its own server and shows the answer", async () => {
    const view = viewIn(pane("alpha"))
    await view.getByRole("button", { name: "Call echo" }).click()
    await expect.poll(() => output(view, "answer").textContent(), { timeout: 10_000 }).toBe("echo: from the view")
  })

  it("is refused another server's tool and a model-only tool", async () => {
    const view = viewIn(pane("alpha"))
    await view.getByRole("button", { name: "Call beta-only" }).click()
    await expect.poll(() => output(view, "other").textContent(), { timeout: 10_000 }).toMatch(/^refused: .*own server/)
    await view.getByRole("button", { name: "Call secret" }).click()
    await expect.poll(() => output(view, "secret").textContent(), { timeout: 10_000 }).toMatch(/^refused: .*visibility/)
    const calls = (await trace("alpha")).filter((entry) => entry.view === undefined && method(entry) === "tools/call")
    expect(calls.map((entry) => (entry.message as { params: { name: string } }).params.name)).not.toContain("secret")
  })

  it("asks for a new size and gets it", async () => {
    const proxy = pane("alpha").locator('iframe[title="View of show"]')
    const before = (await proxy.boundingBox())?.height ?? 0
    await viewIn(pane("alpha")).getByRole("button", { name: "Grow" }).click()
    await expect
      .poll(async () => (await proxy.boundingBox())?.height ?? 0, { timeout: 10_000 })
      .toBeGreaterThan(before + 400)
    const sizes = (await trace("alpha")).filter((entry) => method(entry) === "ui/notifications/size-changed")
    expect(sizes.length).toBeGreaterThan(0)
  })

  it("is blocked by its CSP fetching an undeclared domain, and the page shows the violation", async () => {
    const view = viewIn(pane("alpha"))
    await view.getByRole("button", { name: "Fetch undeclared" }).click()
    await expect.poll(() => output(view, "fetched").textContent(), { timeout: 10_000 }).toMatch(/^blocked: /)
    const blocked = pane("alpha").getByRole("list", { name: "Blocked by the view's policy" })
    await expect.poll(() => blocked.textContent(), { timeout: 10_000 }).toContain("https://undeclared.example")
    expect(await blocked.textContent()).toContain("connect-src")
  })

  it("asks for fullscreen and gets it, then goes back inline", async () => {
    const view = viewIn(pane("alpha"))
    await view.getByRole("button", { name: "Fullscreen" }).click()
    await expect.poll(() => output(view, "mode").textContent(), { timeout: 10_000 }).toBe("fullscreen")
    const section = pane("alpha").locator(".app-view")
    await expect.poll(async () => (await section.boundingBox())?.height ?? 0, { timeout: 5_000 }).toBe(900)
    await pane("alpha").getByRole("button", { name: "Inline", exact: true }).click()
    await expect.poll(() => output(view, "mode").textContent(), { timeout: 10_000 }).toBe("inline")
  })

  it("is refused a display mode it did not declare (picture-in-picture), and keeps its own", async () => {
    const view = viewIn(pane("alpha"))
    await view.getByRole("button", { name: "Picture in picture" }).click()
    await expect.poll(() => output(view, "mode").textContent(), { timeout: 10_000 }).toBe("answered inline")
  })

  it("follows the page's theme (host-context-changed)", async () => {
    const view = viewIn(pane("alpha"))
    await tab.emulateMedia({ colorScheme: "dark" })
    await expect.poll(() => output(view, "theme").textContent(), { timeout: 10_000 }).toBe("dark")
    await tab.emulateMedia({ colorScheme: "light" })
    await expect.poll(() => output(view, "theme").textContent(), { timeout: 10_000 }).toBe("light")
  })

  it("asks to open a link, which waits for the user's consent", async () => {
    const view = viewIn(pane("alpha"))
    await view.getByRole("button", { name: "Open link" }).click()
    const consent = pane("alpha").getByRole("alertdialog", { name: "The view asks to open a link" })
    await expect.poll(() => consent.textContent(), { timeout: 10_000 }).toContain("https://example.com/")
    await consent.getByRole("button", { name: "Refuse" }).click()
    await expect.poll(() => output(view, "link").textContent(), { timeout: 10_000 }).toMatch(/^refused: .*denied/)
  })

  it("is torn down cleanly when closed", async () => {
    await pane("alpha").getByRole("button", { name: "Close view" }).click()
    await expect.poll(() => pane("alpha").getByText("View closed.").count(), { timeout: 10_000 }).toBe(1)
    expect(await pane("alpha").locator('iframe[title="View of show"]').count()).toBe(0)
    const views = (await trace("alpha")).filter((entry) => entry.view !== undefined)
    const teardown = views.findIndex((entry) => entry.dir === "send" && method(entry) === "ui/resource-teardown")
    expect(teardown).toBeGreaterThanOrEqual(0)
    const id = ((views[teardown]?.message ?? {}) as { id?: unknown }).id
    const answer = views.find(
      (entry) => entry.dir === "receive" && method(entry) === undefined && (entry.message as { id?: unknown }).id === id
    )
    expect(answer?.message).toMatchObject({ result: {} })
  })
  it("is told when its call is cancelled (tool-cancelled)", async () => {
    await pane("alpha").getByRole("button", { name: "wait", exact: true }).click()
    await pane("alpha").getByRole("button", { name: "Call", exact: true }).click()
    const view = viewIn(pane("alpha"), "wait")
    await expect.poll(() => output(view, "status").textContent(), { timeout: 20_000 }).toBe("initialized")
    await expect.poll(() => output(view, "input").textContent(), { timeout: 10_000 }).toBe("{}")
    await pane("alpha").getByRole("button", { name: "Cancel", exact: true }).click()
    await expect.poll(() => output(view, "result").textContent(), { timeout: 10_000 }).toMatch(/^cancelled: /)
    await pane("alpha").getByRole("button", { name: "show", exact: true }).click()
  })

  it("sends a ui/message that appears in the chat, and a model context the next turn carries", async () => {
    // A new call, a new view (the last one was closed).
    await pane("alpha").getByRole("button", { name: "Call", exact: true }).click()
    const view = viewIn(pane("alpha"))
    await expect.poll(() => output(view, "status").textContent(), { timeout: 20_000 }).toBe("initialized")
    await view.getByRole("button", { name: "Set context" }).click()
    await expect.poll(() => output(view, "sent").textContent(), { timeout: 10_000 }).toBe("context set")
    await view.getByRole("button", { name: "Send message" }).click()
    await expect.poll(() => output(view, "sent").textContent(), { timeout: 10_000 }).toBe("sent")
    await tab.getByRole("navigation", { name: "Views" }).getByRole("link", { name: "Chat" }).click()
    const conversation = tab.getByRole("log", { name: "Conversation" })
    await expect.poll(() => conversation.textContent(), { timeout: 10_000 }).toContain("hello from the alpha view")
    expect(await conversation.textContent()).toContain("from the view of alpha")
    await expect.poll(() => conversation.textContent(), { timeout: 10_000 }).toContain("Thanks, view.")
    const first = model.received.find((received) => received.mode === "stream")
    expect(first === undefined ? "" : userText(first.request.prompt)).toContain("the alpha view's context")
  })
})

describe("a tool's view in the chat", () => {
  it("is drawn under the tool call the model made, with its input and result", async () => {
    const chat = tab.getByRole("region", { name: "Chat" })
    const composer = chat.getByRole("textbox", { name: "Message" })
    await composer.fill("show a note")
    await chat.getByRole("button", { name: "Send", exact: true }).click()
    const card = tab.getByRole("article", { name: "Tool call alpha__show" })
    // The tool says nothing of being safe, so the call waits for approval.
    await card.getByRole("button", { name: "Allow" }).click({ timeout: 20_000 })
    const view = viewIn(card)
    await expect.poll(() => output(view, "status").textContent(), { timeout: 20_000 }).toBe("initialized")
    await expect.poll(() => output(view, "input").textContent(), { timeout: 10_000 }).toBe('{"note":"from the chat"}')
    await expect.poll(() => output(view, "result").textContent(), { timeout: 10_000 }).toBe("shown: from the chat")
    await expect
      .poll(() => tab.getByRole("log", { name: "Conversation" }).textContent(), { timeout: 10_000 })
      .toContain("Shown.")
    expect(errors).toEqual([])
  })
})
