/**
 * The HTTP exchanges of a server reached over HTTP: method, URL, status (or the failure), time,
 * the `Mcp-Session-Id` it was given and the `MCP-Protocol-Version` it sent; a row's request and
 * response headers on click (masked by the host before they reach the page).
 */
import { useId, useState } from "react"
import type { ExchangeEntry } from "../../../src/Api.js"
import { formatTime } from "../mcp.js"
import { useStore } from "../store.js"

/** The newest rows drawn (the store keeps more). */
const Shown = 500

const statusClass = (e: ExchangeEntry) =>
  e.status === undefined ? "badge bad" : e.status >= 400 ? "badge bad" : e.status >= 300 ? "badge warn" : "badge ok"

/** The URL's path and query (the origin is the server's, the same on every row). */
const shortUrl = (url: string) => {
  try {
    const u = new URL(url)
    return `${u.pathname}${u.search}`
  } catch {
    return url
  }
}

function Headers(props: { readonly label: string; readonly headers: Readonly<Record<string, string>> }) {
  const entries = Object.entries(props.headers)
  return (
    <section aria-label={props.label} className="headers">
      <h4>{props.label}</h4>
      {entries.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <dl className="header-list mono">
          {entries.map(([k, v]) => (
            <div key={k} className="header-row">
              <dt>{k}</dt>
              <dd>{v}</dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  )
}

export function HttpPane(props: { readonly server: string }) {
  const all = useStore((s) => s.exchanges[props.server]) ?? empty
  const [selectedSeq, setSelectedSeq] = useState<number | undefined>(undefined)
  const id = useId().replace(/:/g, "")
  const rows = all.length > Shown ? all.slice(all.length - Shown) : all
  const selected = selectedSeq === undefined ? undefined : all.find((e) => e.seq === selectedSeq)
  const sessions = new Set(all.flatMap((e) => (e.sessionId !== undefined ? [e.sessionId] : [])))
  const failed = all.filter((e) => e.status === undefined || e.status >= 400).length

  return (
    <div className="http-pane">
      <div className="toolbar">
        <span className="muted" aria-live="polite">
          {all.length} {all.length === 1 ? "exchange" : "exchanges"}
          {all.length > Shown ? ` (the last ${Shown} shown)` : ""}
          {failed > 0 ? `, ${failed} failed` : ""}
          {sessions.size > 0 ? ` · ${sessions.size} ${sessions.size === 1 ? "session" : "sessions"}` : ""}
        </span>
      </div>
      <div className="http-body">
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus */}
        <section className="http-list" tabIndex={0} aria-label="HTTP exchange table">
          <table className="http-table">
            <caption className="visually-hidden">HTTP exchanges</caption>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">time</th>
                <th scope="col">method</th>
                <th scope="col">URL</th>
                <th scope="col">status</th>
                <th scope="col">Mcp-Session-Id</th>
                <th scope="col">MCP-Protocol-Version</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((e) => (
                <tr key={e.seq} className={e.seq === selectedSeq ? "selected" : undefined}>
                  <td>
                    <button
                      type="button"
                      className="link-button"
                      aria-pressed={e.seq === selectedSeq}
                      aria-label={`Exchange ${e.seq}: ${e.method} ${e.status ?? "failed"}`}
                      onClick={() => setSelectedSeq(e.seq === selectedSeq ? undefined : e.seq)}
                    >
                      {e.seq}
                    </button>
                  </td>
                  <td className="mono">{formatTime(e.t)}</td>
                  <td className="mono">{e.method}</td>
                  <td className="mono ellipsis" title={e.url}>
                    {shortUrl(e.url)}
                  </td>
                  <td>
                    <span className={statusClass(e)} title={e.error}>
                      {e.status ?? "failed"}
                    </span>
                  </td>
                  <td className="mono ellipsis">{e.sessionId ?? ""}</td>
                  <td className="mono">{e.protocolVersion ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {all.length === 0 ? <p className="muted pad">No HTTP exchange yet.</p> : null}
        </section>
        <section className="http-detail" aria-labelledby={`${id}-h`}>
          <h3 id={`${id}-h`} className="visually-hidden">
            Exchange
          </h3>
          {selected === undefined ? (
            <p className="muted pad">Select an exchange to see its headers.</p>
          ) : (
            <div className="pad">
              <div className="detail-head">
                <strong className="mono">
                  {selected.method} {selected.url}
                </strong>
              </div>
              <p>
                <span className={statusClass(selected)}>{selected.status ?? "no answer"}</span>{" "}
                <span className="muted">
                  #{selected.seq} · {formatTime(selected.t)}
                  {selected.sessionId !== undefined ? ` · session ${selected.sessionId}` : ""}
                  {selected.protocolVersion !== undefined ? ` · MCP ${selected.protocolVersion}` : ""}
                </span>
              </p>
              {selected.error !== undefined ? <p className="error-text pre-wrap">{selected.error}</p> : null}
              <Headers label="Request headers" headers={selected.requestHeaders} />
              <Headers label="Response headers" headers={selected.responseHeaders} />
            </div>
          )}
        </section>
      </div>
    </div>
  )
}

const empty: ReadonlyArray<ExchangeEntry> = []
