/**
 * The browser the page's tests drive: Debian's Chromium (no download), headless, through
 * playwright-core, and a tab on the page whose errors are kept.
 */
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"

/** Chromium, headless, from the system (`CHROMIUM` or /usr/bin/chromium). */
export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run"
    ]
  })

/** A browser with one tab open on `url` (a fresh context, as axe-core wants), and the page's errors. */
export const openPage = async (
  url: string
): Promise<{ browser: Browser; context: BrowserContext; tab: Page; errors: Array<string> }> => {
  const browser = await launchChromium()
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } })
  const tab = await context.newPage()
  const errors: Array<string> = []
  tab.on("pageerror", (error) => errors.push(error.message))
  await tab.goto(url)
  return { browser, context, tab, errors }
}
