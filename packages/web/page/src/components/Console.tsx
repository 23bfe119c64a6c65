/** A server's stderr (Console) and the log messages it sent (Logs, with the level to ask for). */
import { useId, useLayoutEffect, useRef, useState } from "react"
import type { ConsoleLine } from "../../../src/Api.js"
import * as Api from "../api.js"
import { formatTime, pretty } from "../mcp.js"
import { type LogEntry, useStore } from "../store.js"

const Shown = 2_000

/** Keeps a scrolled box at its bottom while the user has not scrolled up. */
function useStickToBottom(dep: unknown) {
  const ref = useRef<HTMLDivElement>(null)
  const atBottom = useRef(true)
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the content grows
  useLayoutEffect(() => {
    const el = ref.current
    if (el !== null && atBottom.current) el.scrollTop = el.scrollHeight
  }, [dep])
  const onScroll = () => {
    const el = ref.current
    if (el !== null) atBottom.current = el.scrollTop + el.clientHeight >= el.scrollHeight - 8
  }
  return { ref, onScroll }
}

export function ConsolePane(props: { readonly server: string }) {
  const lines = useStore((s) => s.consoles[props.server]) ?? emptyLines
  const shown = lines.length > Shown ? lines.slice(lines.length - Shown) : lines
  const { ref, onScroll } = useStickToBottom(lines)
  return (
    <div className="log-pane">
      <div className="toolbar">
        <span className="muted">
          {lines.length} lines{lines.length > Shown ? ` (the last ${Shown} shown)` : ""}
        </span>
      </div>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus */}
      <div ref={ref} onScroll={onScroll} className="console" role="log" aria-label="Console" tabIndex={0}>
        {shown.length === 0 ? <p className="muted">Nothing on stderr yet.</p> : null}
        {shown.map((l, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a line's place in the whole console is its identity
          <div key={lines.length - shown.length + i} className="console-line">
            <span className="t">{formatTime(l.t)}</span>
            <span className="line">{l.line}</span>
          </div>
        ))}
      </div>
    </div>
  )
}

export function LogsPane(props: { readonly server: string }) {
  const logs = useStore((s) => s.logs[props.server]) ?? emptyLogs
  const { ref, onScroll } = useStickToBottom(logs)
  const [level, setLevel] = useState<Api.LogLevel>("info")
  const [status, setStatus] = useState<string | undefined>(undefined)
  const id = useId()
  const shown = logs.length > Shown ? logs.slice(logs.length - Shown) : logs
  return (
    <div className="log-pane">
      <div className="toolbar">
        <label htmlFor={id}>Log level</label>
        <select
          id={id}
          value={level}
          onChange={(e) => {
            const next = e.target.value as Api.LogLevel
            setLevel(next)
            setStatus("setting…")
            Api.setLogLevel(props.server, next).then(
              () => setStatus(`level set to ${next}`),
              (err: unknown) => setStatus(`failed: ${Api.errorMessage(err)}`)
            )
          }}
        >
          {Api.LogLevels.map((l) => (
            <option key={l} value={l}>
              {l}
            </option>
          ))}
        </select>
        <output className="muted" aria-live="polite">
          {status ?? ""}
        </output>
        <span className="spacer" />
        <span className="muted">{logs.length} messages</span>
      </div>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus */}
      <div ref={ref} onScroll={onScroll} className="console" role="log" aria-label="Logs" tabIndex={0}>
        {shown.length === 0 ? <p className="muted">No log messages yet.</p> : null}
        {shown.map((l) => (
          <LogRow key={l.n} entry={l} />
        ))}
      </div>
    </div>
  )
}

function LogRow(props: { readonly entry: LogEntry }) {
  const l = props.entry
  return (
    <div className={`log-line level-${l.level}`}>
      <span className="t">{formatTime(l.t)}</span>
      <span className={`badge level level-${l.level}`}>{l.level}</span>
      {l.logger !== undefined ? <span className="logger">{l.logger}</span> : null}
      <span className="line">{typeof l.data === "string" ? l.data : pretty(l.data)}</span>
    </div>
  )
}

const emptyLines: ReadonlyArray<ConsoleLine> = []
const emptyLogs: ReadonlyArray<LogEntry> = []
