/** The page: the sidebar of servers, and one or two panes (a server's views, or the chat). */
import { useEffect, useState } from "react"
import { AddServerDialog } from "./components/AddServer.js"
import { ChatPane } from "./components/Chat.js"
import { ServerList } from "./components/ServerList.js"
import { ServerPane, type ServerRoute } from "./components/ServerPane.js"
import { navigate, parseRoute, type Route, replaceRoute, useHash } from "./route.js"
import { useStore } from "./store.js"

export function App() {
  const route = parseRoute(useHash())
  const [second, setSecond] = useState<Route | undefined>(undefined)
  const [adding, setAdding] = useState(false)
  const connection = useStore((s) => s.connection)
  const loadError = useStore((s) => s.loadError)
  const firstServer = useStore((s) => s.servers[0]?.name)

  // The bare address opens the first server.
  useEffect(() => {
    if (route.view === "home" && firstServer !== undefined)
      replaceRoute({ view: "server", server: firstServer, tab: "tools" })
  }, [route.view, firstServer])

  const open = [route, second].flatMap((r) => (r?.view === "server" ? [r.server] : []))
  const chatVisible = route.view === "chat" || second?.view === "chat"

  return (
    <div className="app">
      <header className="topbar">
        <h1>
          effect-mcp <span className="muted">host</span>
        </h1>
        <span className="spacer" />
        <span className={`conn conn-${connection}`} role="status">
          {connection === "open" ? "live" : connection === "connecting" ? "connecting…" : "disconnected"}
        </span>
      </header>
      {loadError !== undefined ? (
        <div className="load-error" role="alert">
          The state could not be read: {loadError}
        </div>
      ) : null}
      <div className="body">
        <aside className="sidebar">
          <ServerList
            current={open}
            chatCurrent={route.view === "chat"}
            onAdd={() => setAdding(true)}
            onOpenBeside={(server) => setSecond({ view: "server", server, tab: "tools" })}
          />
          {second?.view !== "chat" ? (
            <button type="button" className="small split-chat" onClick={() => setSecond({ view: "chat" })}>
              Open chat beside
            </button>
          ) : null}
        </aside>
        <main className={second !== undefined ? "panes split" : "panes"}>
          <PaneFor
            route={route}
            chatVisible={chatVisible}
            onNavigate={(r, replace) => (replace === true ? replaceRoute(r) : navigate(r))}
          />
          {second !== undefined ? (
            <PaneFor
              route={second}
              chatVisible={chatVisible}
              onNavigate={(r) => setSecond(r)}
              onClose={() => setSecond(undefined)}
            />
          ) : null}
        </main>
      </div>
      <AddServerDialog
        open={adding}
        onClose={() => setAdding(false)}
        onAdded={(name) => navigate({ view: "server", server: name, tab: "tools" })}
      />
    </div>
  )
}

function PaneFor(props: {
  readonly route: Route
  readonly chatVisible: boolean
  readonly onNavigate: (route: ServerRoute, replace?: boolean) => void
  readonly onClose?: () => void
}) {
  const r = props.route
  if (r.view === "chat") return <ChatPane {...(props.onClose !== undefined ? { onClose: props.onClose } : {})} />
  if (r.view === "home")
    return (
      <section className="pane" aria-label="Start">
        <p className="muted pad">Add a server, or open the chat.</p>
      </section>
    )
  return (
    <ServerPane
      key={r.server}
      route={r}
      chatVisible={props.chatVisible}
      onNavigate={props.onNavigate}
      {...(props.onClose !== undefined ? { onClose: props.onClose } : {})}
    />
  )
}
