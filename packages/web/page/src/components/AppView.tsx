/**
 * A tool's view (MCP Apps), drawn as the extension requires of a web host: the sandbox proxy is a
 * frame from another origin (the host's sandbox server), given the view's HTML and declared
 * domains once it says it is ready; the view runs in the proxy's inner frame under the policy the
 * host built. Every message is checked for its sender (the proxy's window and origin) and goes to
 * the host (`POST /api/apps/rpc`), which decodes it, records it in the server's trace and executes
 * it or hands it back for the page: the handshake (`ui/initialize` answered with the host's
 * capabilities and context; nothing is sent before `ui/notifications/initialized`), then the
 * tool's input, its result or cancellation; sizes followed; display modes (inline, fullscreen,
 * picture-in-picture) honoured; the theme followed with `host-context-changed`; links opened after
 * the user's consent; the policy's violations shown; `ui/resource-teardown` answered before the
 * frame goes. The view's HTML never enters this page's DOM: it is only passed to the proxy.
 */
import { useCallback, useEffect, useId, useMemo, useRef, useState } from "react"
import type { AppOpened } from "../../../src/Api.js"
import * as Api from "../api.js"
import { isObject, isWebUrl, type JsonObject, num, str } from "../mcp.js"
import { useStore } from "../store.js"

type Mode = "inline" | "fullscreen" | "pip"
const MODES: ReadonlyArray<Mode> = ["inline", "fullscreen", "pip"]
const isMode = (u: unknown): u is Mode => u === "inline" || u === "fullscreen" || u === "pip"

const PROTOCOL_VERSION = "2026-01-26"
const MAX_HEIGHT = 2000
const MIN_HEIGHT = 40
/** How long a view has to answer its teardown before its frame goes anyway. */
const TEARDOWN_MS = 3000

/** The standard style variables, from the page's own palette (light and dark). */
const STYLE_VARIABLES: Readonly<Record<string, string>> = {
  "--color-background-primary": "light-dark(#ffffff, #0f1216)",
  "--color-background-secondary": "light-dark(#f5f6f8, #161b22)",
  "--color-background-tertiary": "light-dark(#eceef2, #1f2630)",
  "--color-background-info": "light-dark(#f0e8ff, #2a1f45)",
  "--color-background-danger": "light-dark(#ffebe9, #3a1715)",
  "--color-background-success": "light-dark(#dafbe1, #12301b)",
  "--color-background-warning": "light-dark(#fff4d4, #33290f)",
  "--color-text-primary": "light-dark(#1b1f24, #e6edf3)",
  "--color-text-secondary": "light-dark(#57606a, #9da7b3)",
  "--color-text-info": "light-dark(#5a32a3, #c4a6ff)",
  "--color-text-danger": "light-dark(#b3261e, #ff7b72)",
  "--color-text-success": "light-dark(#116329, #56d364)",
  "--color-text-warning": "light-dark(#7a4d00, #e3b341)",
  "--color-border-primary": "light-dark(#d0d7de, #30363d)",
  "--color-ring-primary": "light-dark(#0a58ca, #79b8ff)",
  "--font-sans": 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  "--font-mono": 'ui-monospace, "SF Mono", "Cascadia Mono", Menlo, Consolas, "Liberation Mono", monospace',
  "--font-text-sm-size": "13px",
  "--border-radius-sm": "4px",
  "--border-radius-md": "6px"
}

const darkQuery = () => window.matchMedia("(prefers-color-scheme: dark)")
const themeNow = (): "light" | "dark" => (darkQuery().matches ? "dark" : "light")

const PERMISSIONS: Readonly<Record<string, string>> = {
  camera: "camera",
  microphone: "microphone",
  geolocation: "geolocation",
  clipboardWrite: "clipboard-write"
}
const allowOf = (permissions: unknown) =>
  isObject(permissions)
    ? Object.keys(PERMISSIONS)
        .filter((key) => permissions[key] !== undefined)
        .map((key) => PERMISSIONS[key])
        .join("; ")
    : ""

interface Violation {
  readonly directive: string
  readonly blockedUri: string
}

export interface AppViewProps {
  readonly server: string
  /** The tool's name on its server. */
  readonly tool: string
  /** The view's `ui://` address. */
  readonly uri: string
  readonly arguments: Record<string, unknown>
  /** The call's `tools/call` result, once it has one. */
  readonly result?: unknown
  /** Why the call ended without a result, once it did. */
  readonly cancelled?: string
}

/** The tool as its server listed it, for the view's `toolInfo` (its MCP fields only). */
const toolOf = (tools: ReadonlyArray<unknown> | undefined, name: string): JsonObject | undefined => {
  const tool = tools?.find((one) => isObject(one) && one.name === name)
  if (!isObject(tool) || !isObject(tool.inputSchema)) return undefined
  const keys = ["name", "title", "description", "inputSchema", "outputSchema", "annotations", "icons", "_meta"]
  return Object.fromEntries(keys.filter((key) => tool[key] !== undefined).map((key) => [key, tool[key]]))
}

export function AppView(props: AppViewProps) {
  const sandbox = useStore((s) => s.sandbox)
  const tools = useStore((s) => s.lists[props.server]?.lists?.tools)
  const [opened, setOpened] = useState<AppOpened | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const [closed, setClosed] = useState(false)
  const [closing, setClosing] = useState(false)
  const [initialized, setInitialized] = useState(false)
  const [mode, setMode] = useState<Mode>("inline")
  const [height, setHeight] = useState(160)
  const [violations, setViolations] = useState<ReadonlyArray<Violation>>([])
  const [link, setLink] = useState<{ readonly id: string | number; readonly url: string } | undefined>(undefined)
  const frame = useRef<HTMLIFrameElement>(null)
  const initializedRef = useRef(false)
  const modeRef = useRef<Mode>("inline")
  const viewModes = useRef<ReadonlyArray<Mode> | undefined>(undefined)
  const sent = useRef({ input: false, result: false })
  const nextId = useRef(1)
  const waiting = useRef(new Map<string | number, () => void>())
  const records = useRef<Promise<unknown>>(Promise.resolve())
  const headingId = useId()

  useEffect(() => {
    let live = true
    Api.openApp(props.server, props.uri, props.tool).then(
      (view) => {
        if (live) setOpened(view)
      },
      (e: unknown) => {
        if (live) setError(Api.errorMessage(e))
      }
    )
    return () => {
      live = false
    }
  }, [props.server, props.uri, props.tool])

  const viewId = opened?.view

  /** Posts to the proxy (only ever to the sandbox's origin); recorded in the trace unless it is the proxy's own. */
  const post = useCallback(
    (message: JsonObject, record = true) => {
      const target = frame.current?.contentWindow
      if (target === undefined || target === null || sandbox === undefined || viewId === undefined) return
      target.postMessage(message, sandbox)
      // Recorded one after the other, so the trace has them in the order they were sent.
      if (record)
        records.current = records.current.catch(() => undefined).then(() => Api.appRpc(viewId, message, "page"))
    },
    [sandbox, viewId]
  )

  const tool = useMemo(() => toolOf(tools, props.tool), [tools, props.tool])
  const hostContext = useCallback(
    () => ({
      ...(tool === undefined ? {} : { toolInfo: { tool } }),
      theme: themeNow(),
      styles: { variables: STYLE_VARIABLES },
      displayMode: modeRef.current,
      availableDisplayModes: MODES,
      containerDimensions: { width: frame.current?.clientWidth ?? 600, maxHeight: MAX_HEIGHT },
      locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      platform: "web",
      deviceCapabilities: { hover: window.matchMedia("(hover: hover)").matches, touch: navigator.maxTouchPoints > 0 }
    }),
    [tool]
  )

  const changeMode = useCallback(
    (next: Mode) => {
      modeRef.current = next
      setMode(next)
      if (initializedRef.current)
        post({ jsonrpc: "2.0", method: "ui/notifications/host-context-changed", params: { displayMode: next } })
    },
    [post]
  )

  const teardown = useCallback(() => {
    if (closing) return
    setClosing(true)
    if (!initializedRef.current) {
      setClosed(true)
      return
    }
    const id = `teardown-${nextId.current++}`
    const done = () => {
      waiting.current.delete(id)
      setClosed(true)
    }
    waiting.current.set(id, done)
    setTimeout(done, TEARDOWN_MS)
    post({ jsonrpc: "2.0", id, method: "ui/resource-teardown", params: {} })
  }, [closing, post])

  // What the view sends, through the proxy, checked for its sender, then decided by the host.
  useEffect(() => {
    if (opened === undefined || sandbox === undefined || closed) return
    const respond = (id: unknown, result: JsonObject) => {
      if (typeof id === "string" || typeof id === "number") post({ jsonrpc: "2.0", id, result })
    }
    const fail = (id: unknown, message: string) => {
      if (typeof id === "string" || typeof id === "number")
        post({ jsonrpc: "2.0", id, error: { code: -32000, message } })
    }
    const onPage = (message: JsonObject) => {
      const params = isObject(message.params) ? message.params : {}
      switch (message.method) {
        case "ui/initialize": {
          const capabilities = isObject(params.appCapabilities) ? params.appCapabilities : {}
          viewModes.current = Array.isArray(capabilities.availableDisplayModes)
            ? capabilities.availableDisplayModes.filter(isMode)
            : undefined
          respond(message.id, {
            protocolVersion: PROTOCOL_VERSION,
            hostInfo: { name: "effect-mcp web", version: "0.1.0" },
            hostCapabilities: {
              openLinks: {},
              serverTools: {},
              serverResources: {},
              logging: {},
              message: { text: {} },
              updateModelContext: { text: {}, structuredContent: {} },
              sandbox: {
                ...(isObject(opened.csp) ? { csp: opened.csp } : {}),
                ...(isObject(opened.permissions) ? { permissions: opened.permissions } : {})
              }
            },
            hostContext: hostContext()
          })
          return
        }
        case "ui/notifications/initialized":
          initializedRef.current = true
          setInitialized(true)
          return
        case "ui/notifications/size-changed": {
          const h = num(params.height)
          if (h !== undefined && Number.isFinite(h)) setHeight(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, Math.ceil(h))))
          return
        }
        case "ui/request-display-mode": {
          const asked = params.mode
          const allowed = isMode(asked) && (viewModes.current === undefined || viewModes.current.includes(asked))
          if (allowed && asked !== modeRef.current) changeMode(asked)
          respond(message.id, { mode: allowed ? asked : modeRef.current })
          return
        }
        case "ui/open-link": {
          const url = str(params.url)
          if (url === undefined || !isWebUrl(url)) fail(message.id, "Invalid URL")
          else if (typeof message.id === "string" || typeof message.id === "number") setLink({ id: message.id, url })
          return
        }
        case "ui/notifications/request-teardown":
          teardown()
          return
        case "ui/notifications/sandbox-csp-violation":
          setViolations((list) =>
            list.length >= 50
              ? list
              : [...list, { directive: str(params.directive) ?? "?", blockedUri: str(params.blockedUri) ?? "" }]
          )
          return
        default:
          // The answer to the page's own request (the teardown).
          if (message.method === undefined && (typeof message.id === "string" || typeof message.id === "number"))
            waiting.current.get(message.id)?.()
      }
    }
    const onMessage = (event: MessageEvent) => {
      const target = frame.current?.contentWindow
      if (target === undefined || target === null || event.source !== target || event.origin !== sandbox) return
      const data: unknown = event.data
      if (!isObject(data) || data.jsonrpc !== "2.0") return
      if (data.method === "ui/notifications/sandbox-proxy-ready") {
        post(
          {
            jsonrpc: "2.0",
            method: "ui/notifications/sandbox-resource-ready",
            params: {
              html: opened.html,
              ...(isObject(opened.csp) ? { csp: opened.csp } : {}),
              ...(isObject(opened.permissions) ? { permissions: opened.permissions } : {})
            }
          },
          false
        )
        return
      }
      Api.appRpc(opened.view, data).then(
        (answer) => {
          if (answer._tag === "Response" && isObject(answer.response)) post(answer.response, false)
          else if (answer._tag === "Page" && isObject(answer.message)) onPage(answer.message)
        },
        (e: unknown) => {
          if (typeof data.id === "string" || typeof data.id === "number")
            post({ jsonrpc: "2.0", id: data.id, error: { code: -32603, message: Api.errorMessage(e) } }, false)
        }
      )
    }
    window.addEventListener("message", onMessage)
    return () => window.removeEventListener("message", onMessage)
  }, [opened, sandbox, closed, post, hostContext, changeMode, teardown])

  // The tool's input once the view is initialized, then its result or its end.
  useEffect(() => {
    if (!initialized || closed) return
    if (!sent.current.input) {
      sent.current.input = true
      post({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: props.arguments } })
    }
    if (sent.current.result) return
    if (isObject(props.result)) {
      sent.current.result = true
      post({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: props.result })
    } else if (props.cancelled !== undefined) {
      sent.current.result = true
      post({ jsonrpc: "2.0", method: "ui/notifications/tool-cancelled", params: { reason: props.cancelled } })
    }
  }, [initialized, closed, props.arguments, props.result, props.cancelled, post])

  // The theme and the container's width followed.
  useEffect(() => {
    if (!initialized || closed) return
    const query = darkQuery()
    const changed = () =>
      post({ jsonrpc: "2.0", method: "ui/notifications/host-context-changed", params: { theme: themeNow() } })
    query.addEventListener("change", changed)
    let width = frame.current?.clientWidth ?? 0
    let timer: ReturnType<typeof setTimeout> | undefined
    const resized = new ResizeObserver(() => {
      clearTimeout(timer)
      timer = setTimeout(() => {
        const now = frame.current?.clientWidth ?? 0
        if (now === width || now === 0) return
        width = now
        post({
          jsonrpc: "2.0",
          method: "ui/notifications/host-context-changed",
          params: { containerDimensions: { width: now, maxHeight: MAX_HEIGHT } }
        })
      }, 200)
    })
    if (frame.current !== null) resized.observe(frame.current)
    return () => {
      query.removeEventListener("change", changed)
      resized.disconnect()
      clearTimeout(timer)
    }
  }, [initialized, closed, post])

  // Leaving fullscreen with Escape.
  useEffect(() => {
    if (mode === "inline") return
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") changeMode("inline")
    }
    window.addEventListener("keydown", onKey)
    return () => window.removeEventListener("keydown", onKey)
  }, [mode, changeMode])

  // Removed without Close (the pane went away): the view is told, as far as it still can be.
  const postRef = useRef(post)
  postRef.current = post
  useEffect(
    () => () => {
      if (initializedRef.current)
        postRef.current({ jsonrpc: "2.0", id: "teardown-unmount", method: "ui/resource-teardown", params: {} })
    },
    []
  )

  if (sandbox === undefined) return null
  if (error !== undefined)
    return (
      <p className="error-text" role="alert">
        The view {props.uri} could not be opened: {error}
      </p>
    )
  if (closed)
    return (
      <p className="muted" role="status">
        View closed.
      </p>
    )
  const answerLink = (open: boolean) => {
    if (link === undefined) return
    if (open) {
      window.open(link.url, "_blank", "noopener,noreferrer")
      post({ jsonrpc: "2.0", id: link.id, result: {} })
    } else post({ jsonrpc: "2.0", id: link.id, error: { code: -32000, message: "Link opening denied by user" } })
    setLink(undefined)
  }
  const allow = allowOf(opened?.permissions)
  return (
    <section
      className={`app-view mode-${mode}${opened?.prefersBorder === false ? "" : " bordered"}`}
      aria-labelledby={headingId}
    >
      <header className="app-view-head">
        <span id={headingId} className="app-view-title">
          View <code>{props.uri}</code>
        </span>
        <span className="badge">{initialized ? "ready" : "loading"}</span>
        <span className="spacer" />
        {mode !== "inline" ? (
          <button type="button" className="small" onClick={() => changeMode("inline")}>
            Inline
          </button>
        ) : null}
        <button type="button" className="small" disabled={closing} onClick={teardown}>
          Close view
        </button>
      </header>
      {link !== undefined ? (
        <div className="app-consent" role="alertdialog" aria-label="The view asks to open a link">
          <p>
            The view asks to open <code className="break">{link.url}</code>
          </p>
          <div className="button-row">
            <button type="button" className="primary" onClick={() => answerLink(true)}>
              Open link
            </button>
            <button type="button" onClick={() => answerLink(false)}>
              Refuse
            </button>
          </div>
        </div>
      ) : null}
      {opened !== undefined ? (
        <iframe
          ref={frame}
          className="app-frame"
          title={`View of ${props.tool}`}
          src={`${sandbox}/proxy?host=${encodeURIComponent(window.location.origin)}`}
          sandbox="allow-scripts allow-same-origin allow-forms"
          referrerPolicy="no-referrer"
          {...(allow === "" ? {} : { allow })}
          style={mode === "inline" ? { height: `${height}px` } : undefined}
        />
      ) : (
        <p className="muted">Loading the view…</p>
      )}
      {violations.length > 0 ? (
        <div className="app-violations" role="status">
          <strong>Blocked by the view's policy</strong>
          <ul aria-label="Blocked by the view's policy">
            {violations.map((v, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a list that only grows
              <li key={i}>
                <code>{v.directive}</code> {v.blockedUri}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  )
}
