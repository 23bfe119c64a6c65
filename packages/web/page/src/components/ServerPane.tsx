/** One server: its header (status, ping), what it asks, and the inspector tabs. */
import { type KeyboardEvent, useId, useRef, useState } from "react"
import * as Api from "../api.js"
import { isObject } from "../mcp.js"
import { type Route, type Tab, Tabs } from "../route.js"
import { overHttp, shownKey, useStore } from "../store.js"
import { ConsolePane, LogsPane } from "./Console.js"
import { HttpPane } from "./Exchanges.js"
import { InputRequestView } from "./InputRequest.js"
import { LoginBanner } from "./Login.js"
import { PromptsPane } from "./Prompts.js"
import { ResourcesPane } from "./Resources.js"
import { StatusBadge } from "./ServerList.js"
import { declaresSkills, SkillsPane } from "./Skills.js"
import { declaresTasks, TasksPane } from "./Tasks.js"
import { ToolsPane } from "./Tools.js"
import { TracePane } from "./Trace.js"

export type ServerRoute = Extract<Route, { view: "server" }>

const tabLabel: Record<Tab, string> = {
  tools: "Tools",
  resources: "Resources",
  prompts: "Prompts",
  tasks: "Tasks",
  skills: "Skills",
  trace: "Trace",
  http: "HTTP",
  console: "Console",
  logs: "Logs"
}

export function ServerPane(props: {
  readonly route: ServerRoute
  readonly onNavigate: (route: ServerRoute, replace?: boolean) => void
  readonly chatVisible: boolean
  readonly onClose?: () => void
}) {
  const { route } = props
  const name = route.server
  const view = useStore((s) => s.servers.find((v) => v.name === name))
  const lists = useStore((s) => s.lists[name])
  const pending = useStore((s) => s.pending)
  const authorizations = useStore((s) => s.authorizations)
  const calls = useStore((s) => s.calls)
  const shown = useStore((s) => s.shown)
  const conversation = useStore((s) => s.conversation)
  const loaded = useStore((s) => s.loaded)
  const [ping, setPing] = useState<string | undefined>(undefined)
  const id = useId().replace(/:/g, "")
  const tabRefs = useRef<Partial<Record<Tab, HTMLButtonElement | null>>>({})

  if (view === undefined)
    return (
      <section className="pane" aria-label={`Server ${name}`}>
        <div className="pane-head">
          <h2>{name}</h2>
          {props.onClose !== undefined ? (
            <button type="button" className="small" onClick={props.onClose} aria-label="Close pane">
              Close
            </button>
          ) : null}
        </div>
        <p className="muted pad">{loaded ? `No server named “${name}”.` : "Loading…"}</p>
      </section>
    )

  // What is drawn inline elsewhere (under its call here, or in the visible chat) is not repeated.
  const selectedCall = route.tool !== undefined ? shown[shownKey(name, route.tool)] : undefined
  const inChat = (callId: string) => conversation.some((m) => m._tag === "Tool" && m.callId === callId)
  const banner = pending.filter(
    (p) =>
      p.server === name &&
      !(
        p.callId !== undefined &&
        route.tab === "tools" &&
        p.callId === selectedCall &&
        calls[p.callId] !== undefined
      ) &&
      !(p.callId !== undefined && props.chatVisible && inChat(p.callId))
  )

  const select = (tab: Tab) => {
    const { tool: _t, args: _a, call: _c, ...rest } = route
    props.onNavigate(tab === "tools" && route.tool !== undefined ? route : { ...rest, tab })
  }
  const caps = isObject(view.capabilities) ? view.capabilities : undefined
  // Tasks, Skills and HTTP only for a server that has them (or when the address asks for one).
  const has: Partial<Record<Tab, boolean>> = {
    tasks: declaresTasks(caps),
    skills: declaresSkills(caps),
    http: overHttp(view)
  }
  const tabs = Tabs.filter((t) => has[t] !== false || t === route.tab)
  const onTabKey = (e: KeyboardEvent<HTMLButtonElement>) => {
    const i = tabs.indexOf(route.tab)
    const to =
      e.key === "ArrowRight"
        ? tabs[(i + 1) % tabs.length]
        : e.key === "ArrowLeft"
          ? tabs[(i - 1 + tabs.length) % tabs.length]
          : e.key === "Home"
            ? tabs[0]
            : e.key === "End"
              ? tabs[tabs.length - 1]
              : undefined
    if (to === undefined) return
    e.preventDefault()
    select(to)
    tabRefs.current[to]?.focus()
  }

  const info = view.serverInfo
  const l = lists !== undefined && "lists" in lists ? lists.lists : undefined

  return (
    <section className="pane" aria-label={`Server ${name}`}>
      <div className="pane-head">
        <h2>{name}</h2>
        <StatusBadge status={view.status} />
        <span className="muted ellipsis" title={view.target}>
          {info !== undefined ? `${info.name} ${info.version}` : view.detail}
          {view.protocolVersion !== undefined ? ` · MCP ${view.protocolVersion}` : ""}
          {view.pid !== undefined ? ` · pid ${view.pid}` : ""}
        </span>
        <span className="spacer" />
        <button
          type="button"
          className="small"
          disabled={view.status !== "ready"}
          onClick={() => {
            setPing("…")
            Api.ping(name).then(
              (r) => setPing(`${r.ms.toFixed(1)} ms`),
              (e: unknown) => setPing(`failed: ${Api.errorMessage(e)}`)
            )
          }}
        >
          Ping
        </button>
        <output className="ping" aria-live="polite" aria-label="Ping time">
          {ping ?? ""}
        </output>
        {props.onClose !== undefined ? (
          <button type="button" className="small" onClick={props.onClose} aria-label="Close pane">
            Close
          </button>
        ) : null}
      </div>
      {view.status === "failed" && view.error !== undefined ? (
        <div className="pane-error pre-wrap" role="alert">
          {view.error}
        </div>
      ) : null}
      <LoginBanner requests={authorizations.filter((a) => a.server === name)} />
      {banner.length > 0 ? (
        <section className="banner" aria-label={`Requests from ${name}`}>
          {banner.map((r) => (
            <InputRequestView key={r.id} request={r} />
          ))}
        </section>
      ) : null}
      <div role="tablist" aria-label={`${name} views`} className="tabs">
        {tabs.map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            id={`${id}-tab-${t}`}
            aria-selected={route.tab === t}
            aria-controls={`${id}-panel`}
            tabIndex={route.tab === t ? 0 : -1}
            ref={(el) => {
              tabRefs.current[t] = el
            }}
            onClick={() => select(t)}
            onKeyDown={onTabKey}
          >
            {tabLabel[t]}
            {t === "tools" && l !== undefined ? <span className="count">{l.tools.length}</span> : null}
            {t === "resources" && l !== undefined ? (
              <span className="count">{l.resources.length + l.resourceTemplates.length}</span>
            ) : null}
            {t === "prompts" && l !== undefined ? <span className="count">{l.prompts.length}</span> : null}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${id}-panel`} aria-labelledby={`${id}-tab-${route.tab}`} className="tabpanel">
        {route.tab === "trace" ? (
          <TracePane server={name} />
        ) : route.tab === "console" ? (
          <ConsolePane server={name} />
        ) : route.tab === "logs" ? (
          <LogsPane server={name} />
        ) : route.tab === "http" ? (
          <HttpPane server={name} />
        ) : route.tab === "tasks" || route.tab === "skills" ? (
          view.status !== "ready" ? (
            <p className="muted pad">The server is {view.status}.</p>
          ) : route.tab === "tasks" ? (
            <TasksPane key={name} server={name} />
          ) : (
            <SkillsPane key={name} server={name} />
          )
        ) : l === undefined ? (
          <p className="muted pad">
            {lists?.status === "error"
              ? `The lists could not be read: ${lists.error}`
              : view.status === "ready"
                ? "Loading…"
                : `The server is ${view.status}.`}
          </p>
        ) : (
          <>
            {listError(l.errors, route.tab) !== undefined ? (
              <p className="error-text pad">{listError(l.errors, route.tab)}</p>
            ) : null}
            {route.tab === "tools" ? (
              <ToolsPane
                server={name}
                tools={l.tools}
                selected={route.tool}
                onSelect={(tool) => props.onNavigate({ view: "server", server: name, tab: "tools", tool })}
                deepArgs={route.args}
                deepCall={route.call === true}
                onDeepCallDone={() => {
                  const { call: _, ...rest } = route
                  props.onNavigate(rest, true)
                }}
              />
            ) : route.tab === "resources" ? (
              <ResourcesPane
                server={name}
                resources={l.resources}
                templates={l.resourceTemplates}
                canSubscribe={caps !== undefined && isObject(caps.resources) && caps.resources.subscribe === true}
              />
            ) : (
              <PromptsPane server={name} prompts={l.prompts} />
            )}
          </>
        )}
      </div>
    </section>
  )
}

const listError = (errors: Readonly<Record<string, string>>, tab: Tab): string | undefined => {
  const keys = tab === "tools" ? ["tools"] : tab === "resources" ? ["resources", "resourceTemplates"] : ["prompts"]
  const found = keys.map((k) => errors[k]).filter((e): e is string => e !== undefined)
  return found.length > 0 ? found.join("; ") : undefined
}
