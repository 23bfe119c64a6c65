/** The protocol trace of one server: every JSON-RPC message, filtered, with its JSON on click. */
import { useId, useMemo, useRef, useState } from "react"
import type { TraceEntry } from "../../../src/Api.js"
import * as Api from "../api.js"
import { formatBytes, formatTime, isObject, pretty } from "../mcp.js"
import { useStore } from "../store.js"
import { VirtualList } from "./VirtualList.js"

type Kind = "request" | "response" | "notification" | "error"

interface Row {
  readonly entry: TraceEntry
  readonly kind: Kind
  /** The method, or `response to <method>`. */
  readonly method: string
  readonly id: string
}

const idOf = (m: Record<string, unknown>): string | undefined =>
  typeof m.id === "string" || typeof m.id === "number" ? String(m.id) : undefined

/**
 * Rows for entries, computed once per entry: the trace only grows (or is replaced whole), so the
 * cache goes on from where it stopped; responses find their request's method by direction and id.
 */
function useRows(entries: ReadonlyArray<TraceEntry>): ReadonlyArray<Row> {
  const cache = useRef<{ source: ReadonlyArray<TraceEntry>; rows: Array<Row>; methods: Map<string, string> }>({
    source: [],
    rows: [],
    methods: new Map()
  })
  return useMemo(() => {
    const c = cache.current
    const continues =
      c.rows.length <= entries.length &&
      entries[0] === c.source[0] &&
      entries[c.rows.length - 1] === c.source[c.rows.length - 1]
    if (!continues) {
      c.rows = []
      c.methods = new Map()
    }
    const rows = c.rows.slice()
    for (let i = rows.length; i < entries.length; i++) {
      const entry = entries[i]
      if (entry === undefined) continue
      const m = isObject(entry.message) ? entry.message : {}
      const id = idOf(m)
      let kind: Kind
      let method: string
      if (typeof m.method === "string") {
        kind = id !== undefined ? "request" : "notification"
        method = m.method
        if (id !== undefined) c.methods.set(`${entry.view ?? ""}\u0000${entry.dir}\u0000${id}`, m.method)
      } else {
        const asked =
          id !== undefined
            ? c.methods.get(`${entry.view ?? ""}\u0000${entry.dir === "send" ? "receive" : "send"}\u0000${id}`)
            : undefined
        kind = "error" in m ? "error" : "response"
        method = kind === "error" ? `error${asked !== undefined ? ` (${asked})` : ""}` : `response to ${asked ?? "?"}`
      }
      rows.push({ entry, kind, method, id: id ?? "" })
    }
    c.source = entries
    c.rows = rows
    return rows
  }, [entries])
}

const RowHeight = 26

export function TracePane(props: { readonly server: string }) {
  const entries = useStore((s) => s.traces[props.server]) ?? empty
  const rows = useRows(entries)
  const [dir, setDir] = useState<"all" | "send" | "receive">("all")
  const [kind, setKind] = useState<"all" | Kind>("all")
  const [method, setMethod] = useState("")
  const [selectedSeq, setSelectedSeq] = useState<number | undefined>(undefined)
  const id = useId().replace(/:/g, "")
  const needle = method.trim().toLowerCase()
  const filtered = useMemo(
    () =>
      dir === "all" && kind === "all" && needle === ""
        ? rows
        : rows.filter(
            (r) =>
              (dir === "all" || r.entry.dir === dir) &&
              (kind === "all" || r.kind === kind) &&
              (needle === "" || r.method.toLowerCase().includes(needle))
          ),
    [rows, dir, kind, needle]
  )
  const selectedIndex = selectedSeq === undefined ? -1 : filtered.findIndex((r) => r.entry.seq === selectedSeq)
  const selected = selectedIndex === -1 ? undefined : filtered[selectedIndex]

  return (
    <div className="trace">
      <div className="toolbar">
        <label htmlFor={`${id}-dir`}>Direction</label>
        <select id={`${id}-dir`} value={dir} onChange={(e) => setDir(e.target.value as typeof dir)}>
          <option value="all">both</option>
          <option value="send">→ sent</option>
          <option value="receive">← received</option>
        </select>
        <label htmlFor={`${id}-kind`}>Kind</label>
        <select id={`${id}-kind`} value={kind} onChange={(e) => setKind(e.target.value as typeof kind)}>
          <option value="all">all</option>
          <option value="request">request</option>
          <option value="response">response</option>
          <option value="notification">notification</option>
          <option value="error">error</option>
        </select>
        <label htmlFor={`${id}-method`}>Method</label>
        <input
          id={`${id}-method`}
          type="search"
          value={method}
          placeholder="tools/call"
          onChange={(e) => setMethod(e.target.value)}
        />
        <span className="muted" aria-live="polite">
          {filtered.length === rows.length ? `${rows.length} messages` : `${filtered.length} of ${rows.length}`}
        </span>
        <span className="spacer" />
        <a className="button small" href={Api.recordingUrl(props.server)} download={`${props.server}.record.jsonl`}>
          Save recording
        </a>
      </div>
      <div className="trace-body">
        <div className="trace-list">
          <div className="trace-row trace-header" aria-hidden="true">
            <span className="c-seq">#</span>
            <span className="c-time">time</span>
            <span className="c-dir" />
            <span className="c-method">method</span>
            <span className="c-id">id</span>
            <span className="c-lat">latency</span>
            <span className="c-size">size</span>
          </div>
          <VirtualList
            items={filtered}
            rowHeight={RowHeight}
            label="Trace"
            selected={selectedIndex === -1 ? undefined : selectedIndex}
            onSelect={(i) => setSelectedSeq(filtered[i]?.entry.seq)}
            rowId={(i) => `${id}-r${i}`}
            follow
            renderRow={(r) => (
              <div className={`trace-row kind-${r.kind}`}>
                <span className="c-seq">{r.entry.seq}</span>
                <span className="c-time">{formatTime(r.entry.t)}</span>
                {r.entry.view !== undefined ? (
                  <span
                    className={`c-dir dir-${r.entry.dir} dir-view`}
                    title={r.entry.dir === "send" ? "sent to the server's view" : "received from the server's view"}
                  >
                    {r.entry.dir === "send" ? "▷" : "◁"}
                    <span className="visually-hidden">
                      {r.entry.dir === "send" ? " sent to the view" : " from the view"}
                    </span>
                  </span>
                ) : (
                  <span
                    className={`c-dir dir-${r.entry.dir}`}
                    title={r.entry.dir === "send" ? "sent to the server" : "received from the server"}
                  >
                    {r.entry.dir === "send" ? "→" : "←"}
                    <span className="visually-hidden">{r.entry.dir === "send" ? " sent" : " received"}</span>
                  </span>
                )}
                <span className="c-method">{r.method}</span>
                <span className="c-id">{r.id}</span>
                <span className="c-lat">
                  {r.entry.latency !== undefined ? `${Math.round(r.entry.latency)} ms` : ""}
                </span>
                <span className="c-size">{formatBytes(r.entry.size)}</span>
              </div>
            )}
          />
        </div>
        <section className="trace-detail" aria-label="Message">
          {selected === undefined ? (
            <p className="muted pad">Select a message to see its JSON.</p>
          ) : (
            <>
              <div className="detail-head">
                <strong>
                  {selected.entry.dir === "send" ? "→ sent" : "← received"} · {selected.method}
                </strong>
                <span className="muted">
                  #{selected.entry.seq} · {formatTime(selected.entry.t)} · {formatBytes(selected.entry.size)}
                  {selected.entry.latency !== undefined ? ` · ${Math.round(selected.entry.latency)} ms` : ""}
                </span>
              </div>
              <pre className="json">{pretty(selected.entry.message)}</pre>
            </>
          )}
        </section>
      </div>
    </div>
  )
}

const empty: ReadonlyArray<TraceEntry> = []
