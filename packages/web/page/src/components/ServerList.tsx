/** The sidebar: the Chat view and every server with its status and actions. */
import { useState } from "react"
import type { ServerView } from "../../../src/Api.js"
import * as Api from "../api.js"
import { useStore } from "../store.js"
import { RootsEditor } from "./Roots.js"

export function StatusBadge(props: { readonly status: ServerView["status"] }) {
  return <span className={`status status-${props.status}`}>{props.status}</span>
}

type Action = "connect" | "disconnect" | "restart" | "remove"

const actionsFor = (s: ServerView["status"]): ReadonlyArray<Action> =>
  s === "ready" || s === "connecting" || s === "reconnecting"
    ? ["disconnect", "restart", "remove"]
    : ["connect", "remove"]

const actionLabel: Record<Action, string> = {
  connect: "Connect",
  disconnect: "Disconnect",
  restart: "Restart",
  remove: "Remove"
}

export function ServerList(props: {
  readonly current: ReadonlyArray<string>
  readonly chatCurrent: boolean
  readonly onOpenBeside: (server: string) => void
  readonly onAdd: () => void
}) {
  const servers = useStore((s) => s.servers)
  const pending = useStore((s) => s.pending)
  const loaded = useStore((s) => s.loaded)
  const [errors, setErrors] = useState<Readonly<Record<string, string>>>({})
  const act = (server: string, action: Action) => {
    setErrors(({ [server]: _, ...rest }) => rest)
    Api.serverAction(server, action).catch((e: unknown) =>
      setErrors((r) => ({ ...r, [server]: `${actionLabel[action]}: ${Api.errorMessage(e)}` }))
    )
  }
  return (
    <div className="sidebar-inner">
      <nav aria-label="Views" className="views-nav">
        <a href="#/chat" className="nav-chat" aria-current={props.chatCurrent ? "page" : undefined}>
          Chat
        </a>
      </nav>
      <div className="sidebar-head">
        <h2 id="servers-heading">Servers</h2>
        <button type="button" className="small" onClick={props.onAdd}>
          Add server
        </button>
      </div>
      <nav aria-label="Servers" className="servers-nav">
        {servers.length === 0 ? <p className="muted">{loaded ? "No servers yet." : "Loading…"}</p> : null}
        <ul>
          {servers.map((v) => {
            const requests = pending.filter((p) => p.server === v.name).length
            const current = props.current.includes(v.name)
            return (
              <li key={v.name} className={current ? "server-item current" : "server-item"}>
                <div className="server-row">
                  <a
                    href={`#/server/${encodeURIComponent(v.name)}`}
                    className="server-link"
                    aria-current={current ? "page" : undefined}
                  >
                    {v.name}
                  </a>
                  <StatusBadge status={v.status} />
                  {requests > 0 ? (
                    <span className="badge attention" title="requests waiting for you">
                      {requests} waiting
                    </span>
                  ) : null}
                </div>
                <div className="server-detail" title={v.target}>
                  {v.detail}
                </div>
                {v.error !== undefined && (v.status === "failed" || v.status === "reconnecting") ? (
                  <div className="server-error pre-wrap">{v.error}</div>
                ) : null}
                <div className="server-actions">
                  {actionsFor(v.status).map((a) => (
                    <button
                      key={a}
                      type="button"
                      className={a === "remove" ? "small danger" : "small"}
                      aria-label={`${actionLabel[a]} ${v.name}`}
                      onClick={() => act(v.name, a)}
                    >
                      {actionLabel[a]}
                    </button>
                  ))}
                  <button
                    type="button"
                    className="small"
                    aria-label={`Open ${v.name} beside`}
                    title="Open in a second pane"
                    onClick={() => props.onOpenBeside(v.name)}
                  >
                    Beside
                  </button>
                </div>
                {errors[v.name] !== undefined ? (
                  <div className="server-error" role="alert">
                    {errors[v.name]}
                  </div>
                ) : null}
              </li>
            )
          })}
        </ul>
      </nav>
      <RootsEditor />
    </div>
  )
}
