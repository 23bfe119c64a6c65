/** Opening a URL in the desktop's browser (the URL is always printed too). */
import { spawn } from "node:child_process"
import * as Effect from "effect/Effect"

/** Opens `url` in the desktop's browser; failures are ignored (the printed URL is the way then). */
export const openBrowser = (url: string): Effect.Effect<void> =>
  Effect.sync(() => {
    const command = process.platform === "darwin" ? "open" : process.platform === "win32" ? "cmd" : "xdg-open"
    const args = process.platform === "win32" ? ["/c", "start", "", url] : [url]
    try {
      spawn(command, args, { stdio: "ignore", detached: true })
        .on("error", () => {})
        .unref()
    } catch {
      // No browser here.
    }
  })
