/** Hash routes: `#/chat`, `#/server/NAME[/TAB]`, `#/server/NAME/tool/TOOL[?args=<JSON>&call=1]`. */
import { useSyncExternalStore } from "react"

export const Tabs = ["tools", "resources", "prompts", "tasks", "skills", "trace", "http", "console", "logs"] as const
export type Tab = (typeof Tabs)[number]

export type Route =
  | { readonly view: "home" }
  | { readonly view: "chat" }
  | {
      readonly view: "server"
      readonly server: string
      readonly tab: Tab
      readonly tool?: string
      readonly args?: Record<string, unknown>
      readonly call?: boolean
    }

const isTab = (s: string | undefined): s is Tab => Tabs.some((t) => t === s)

export const parseRoute = (hash: string): Route => {
  const raw = hash.replace(/^#/, "")
  const q = raw.indexOf("?")
  const path = q === -1 ? raw : raw.slice(0, q)
  const query = new URLSearchParams(q === -1 ? "" : raw.slice(q + 1))
  const parts = path
    .split("/")
    .filter((p) => p !== "")
    .map((p) => {
      try {
        return decodeURIComponent(p)
      } catch {
        return p
      }
    })
  if (parts[0] === "chat") return { view: "chat" }
  if (parts[0] === "server" && parts[1] !== undefined) {
    const server = parts[1]
    if (parts[2] === "tool" && parts[3] !== undefined) {
      let args: Record<string, unknown> | undefined
      const rawArgs = query.get("args")
      if (rawArgs !== null) {
        try {
          const parsed: unknown = JSON.parse(rawArgs)
          if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
            args = parsed as Record<string, unknown>
        } catch {
          args = undefined
        }
      }
      return {
        view: "server",
        server,
        tab: "tools",
        tool: parts[3],
        ...(args !== undefined ? { args } : {}),
        ...(query.get("call") === "1" ? { call: true } : {})
      }
    }
    return { view: "server", server, tab: isTab(parts[2]) ? parts[2] : "tools" }
  }
  return { view: "home" }
}

export const formatRoute = (route: Route): string => {
  switch (route.view) {
    case "home":
      return "#/"
    case "chat":
      return "#/chat"
    case "server": {
      const base = `#/server/${encodeURIComponent(route.server)}`
      if (route.tool !== undefined) return `${base}/tool/${encodeURIComponent(route.tool)}`
      return route.tab === "tools" ? base : `${base}/${route.tab}`
    }
  }
}

const subscribe = (f: () => void) => {
  window.addEventListener("hashchange", f)
  return () => window.removeEventListener("hashchange", f)
}

export const useHash = () => useSyncExternalStore(subscribe, () => window.location.hash)

export const navigate = (route: Route) => {
  const hash = formatRoute(route)
  if (window.location.hash !== hash) window.location.hash = hash
}

/** Drops `&call=1` once the call ran, so that a reload does not call again. */
export const replaceRoute = (route: Route) => {
  history.replaceState(null, "", formatRoute(route))
  window.dispatchEvent(new HashChangeEvent("hashchange"))
}
