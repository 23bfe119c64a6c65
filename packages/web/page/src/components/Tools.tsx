/** The Tools pane: the list with annotations, a form per tool, the call with progress and result. */
import { useEffect, useId, useState } from "react"
import type { InputRequest } from "../../../src/Api.js"
import * as Api from "../api.js"
import { defined, isObject, pretty, readTool, type ToolInfo } from "../mcp.js"
import { shownKey, startCall, useStore } from "../store.js"
import { AppView } from "./AppView.js"
import { InputRequestView } from "./InputRequest.js"
import { ToolResult } from "./ResultView.js"
import { initialValue, SchemaForm } from "./SchemaForm.js"
import { CallTaskStatus, RunAsTask } from "./Tasks.js"

export function AnnotationBadges(props: { readonly tool: ToolInfo }) {
  const a = props.tool.annotations
  return (
    <span className="badges">
      {a.readOnlyHint === true ? <span className="badge hint-readonly">read-only</span> : null}
      {a.destructiveHint === true ? <span className="badge hint-destructive">destructive</span> : null}
      {a.destructiveHint === false && a.readOnlyHint !== true ? <span className="badge">non-destructive</span> : null}
      {a.idempotentHint === true ? <span className="badge hint-idempotent">idempotent</span> : null}
      {a.openWorldHint === true ? <span className="badge hint-openworld">open world</span> : null}
      {a.openWorldHint === false ? <span className="badge">closed world</span> : null}
    </span>
  )
}

export function ToolsPane(props: {
  readonly server: string
  readonly tools: ReadonlyArray<unknown>
  readonly selected: string | undefined
  readonly onSelect: (tool: string) => void
  readonly deepArgs: Record<string, unknown> | undefined
  readonly deepCall: boolean
  readonly onDeepCallDone: () => void
}) {
  const tools = props.tools.map(readTool).filter(defined)
  const [filter, setFilter] = useState("")
  const filterId = useId()
  const shown = tools.filter(
    (t) =>
      filter === "" || `${t.name} ${t.title ?? ""} ${t.description ?? ""}`.toLowerCase().includes(filter.toLowerCase())
  )
  const tool = tools.find((t) => t.name === props.selected)
  return (
    <div className="master-detail">
      <div className="master">
        <div className="master-filter">
          <label htmlFor={filterId} className="visually-hidden">
            Filter tools
          </label>
          <input
            id={filterId}
            type="search"
            placeholder={`Filter ${tools.length} tools`}
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
          />
        </div>
        <ul className="item-list" aria-label="Tool list">
          {shown.map((t) => (
            <li key={t.name} className={t.name === props.selected ? "item selected" : "item"}>
              {/* The button is the tool's name only (its accessible name); the card around it is clickable too. */}
              <button
                type="button"
                className="item-button stretched"
                aria-current={t.name === props.selected ? "true" : undefined}
                aria-describedby={t.description !== undefined ? `${filterId}-d-${t.name}` : undefined}
                onClick={() => props.onSelect(t.name)}
              >
                {t.name}
              </button>
              {t.title !== undefined && t.title !== t.name ? <span className="item-title">{t.title}</span> : null}
              {t.description !== undefined ? (
                <span className="item-desc" id={`${filterId}-d-${t.name}`}>
                  {t.description}
                </span>
              ) : null}
              <AnnotationBadges tool={t} />
            </li>
          ))}
          {shown.length === 0 ? (
            <li className="muted empty">{tools.length === 0 ? "No tools." : "No match."}</li>
          ) : null}
        </ul>
      </div>
      <div className="detail">
        {tool !== undefined ? (
          <ToolDetail
            key={tool.name}
            server={props.server}
            tool={tool}
            deepArgs={props.deepArgs}
            deepCall={props.deepCall}
            onDeepCallDone={props.onDeepCallDone}
          />
        ) : props.selected !== undefined && tools.length > 0 ? (
          <p className="muted">No tool named “{props.selected}” on this server.</p>
        ) : (
          <p className="muted">Choose a tool.</p>
        )}
      </div>
    </div>
  )
}

// A deep link's call runs once per page load, whatever React re-runs.
const deepCallsDone = new Set<string>()

function ToolDetail(props: {
  readonly server: string
  readonly tool: ToolInfo
  readonly deepArgs: Record<string, unknown> | undefined
  readonly deepCall: boolean
  readonly onDeepCallDone: () => void
}) {
  const { tool, server } = props
  const schema = tool.inputSchema
  const fresh = () => {
    const init = initialValue(schema, schema, true)
    return { ...(isObject(init) ? init : {}), ...props.deepArgs }
  }
  const [value, setValue] = useState<unknown>(fresh)
  const [raw, setRaw] = useState(false)
  const [rawText, setRawText] = useState("")
  const [rawError, setRawError] = useState<string | undefined>(undefined)
  const [asTask, setAsTask] = useState(tool.taskSupport === "required")
  const callId = useStore((s) => s.shown[shownKey(server, tool.name)])
  const call = useStore((s) => (callId !== undefined ? s.calls[callId] : undefined))
  const running = call !== undefined && call.end === undefined && call.failed === undefined
  const id = useId().replace(/:/g, "")
  const deepArgsJson = props.deepArgs !== undefined ? JSON.stringify(props.deepArgs) : undefined

  // A new deep link on the tool already open fills the form again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on the arguments' JSON
  useEffect(() => {
    if (props.deepArgs !== undefined) setValue(fresh())
  }, [deepArgsJson])

  const args = (): Record<string, unknown> | undefined => {
    if (!raw) return isObject(value) ? { ...value } : {}
    try {
      const parsed: unknown = JSON.parse(rawText === "" ? "{}" : rawText)
      if (!isObject(parsed)) throw new Error("The arguments are a JSON object.")
      setRawError(undefined)
      return { ...parsed }
    } catch (e) {
      setRawError(Api.errorMessage(e))
      return undefined
    }
  }

  const call_ = () => {
    const a = args()
    if (a !== undefined) startCall(server, tool.name, a, asTask || tool.taskSupport === "required")
  }

  useEffect(() => {
    if (!props.deepCall) return
    const key = `${server}\u0000${tool.name}\u0000${deepArgsJson ?? ""}`
    if (deepCallsDone.has(key)) return
    deepCallsDone.add(key)
    const init = initialValue(schema, schema, true)
    startCall(server, tool.name, { ...(isObject(init) ? init : {}), ...props.deepArgs })
    props.onDeepCallDone()
  })

  return (
    <article className="tool-detail" aria-labelledby={`${id}-h`}>
      <header className="detail-head">
        <h3 id={`${id}-h`}>
          <code>{tool.name}</code>
          {tool.title !== undefined && tool.title !== tool.name ? <span className="title"> {tool.title}</span> : null}
        </h3>
        <AnnotationBadges tool={tool} />
      </header>
      {tool.description !== undefined ? <p className="description pre-wrap">{tool.description}</p> : null}
      <form
        className="tool-form"
        aria-label={`Arguments of ${tool.name}`}
        onSubmit={(e) => {
          e.preventDefault()
          call_()
        }}
      >
        <div className="form-toolbar">
          <label className="toggle">
            <input
              type="checkbox"
              checked={raw}
              onChange={(e) => {
                if (e.target.checked) {
                  setRawText(pretty(isObject(value) ? value : {}))
                  setRawError(undefined)
                  setRaw(true)
                } else {
                  try {
                    const parsed: unknown = JSON.parse(rawText === "" ? "{}" : rawText)
                    if (!isObject(parsed)) throw new Error("The arguments are a JSON object.")
                    setValue(parsed)
                    setRawError(undefined)
                    setRaw(false)
                  } catch (err) {
                    setRawError(Api.errorMessage(err))
                  }
                }
              }}
            />
            Raw JSON
          </label>
          <button
            type="button"
            className="small"
            onClick={() => (raw ? setRawText(pretty(fresh())) : setValue(fresh()))}
          >
            Reset
          </button>
        </div>
        {raw ? (
          <div className="field">
            <label htmlFor={`${id}-raw`}>Arguments (JSON)</label>
            <textarea
              id={`${id}-raw`}
              className="code"
              rows={Math.min(20, Math.max(4, rawText.split("\n").length + 1))}
              spellCheck={false}
              aria-invalid={rawError !== undefined}
              value={rawText}
              onChange={(e) => setRawText(e.target.value)}
            />
          </div>
        ) : (
          <SchemaForm schema={schema} value={value} onChange={setValue} idPrefix={`f${id}`} />
        )}
        <RunAsTask taskSupport={tool.taskSupport} checked={asTask} onChange={setAsTask} />
        {rawError !== undefined ? (
          <p className="error-text" role="alert">
            {rawError}
          </p>
        ) : null}
        <div className="button-row">
          <button type="submit" className="primary">
            Call
          </button>
          {running ? (
            <button type="button" onClick={() => void Api.cancelCall(call.callId).catch(() => undefined)}>
              Cancel
            </button>
          ) : null}
        </div>
      </form>
      {callId !== undefined ? <CallView callId={callId} view={tool.view} /> : null}
    </article>
  )
}

const byCall = (callId: string) => (p: InputRequest) => p.callId === callId

export function CallView(props: { readonly callId: string; readonly view?: string | undefined }) {
  const call = useStore((s) => s.calls[props.callId])
  const pending = useStore((s) => s.pending)
  if (call === undefined) return null
  const inputs = pending.filter(byCall(props.callId))
  const end = call.end
  const p = call.progress
  return (
    <section className="call" aria-label="Result" aria-busy={end === undefined && call.failed === undefined}>
      <div className="call-head">
        {call.failed !== undefined ? (
          <span className="badge bad">not started</span>
        ) : end === undefined ? (
          <span className="badge running">running</span>
        ) : end.outcome === "result" ? (
          isObject(end.result) && end.result.isError === true ? (
            <span className="badge bad">isError</span>
          ) : (
            <span className="badge ok">result</span>
          )
        ) : end.outcome === "error" ? (
          <span className="badge bad">error</span>
        ) : (
          <span className="badge warn">cancelled</span>
        )}
        <span className="muted">
          {end !== undefined ? `${Math.round(end.durationMs)} ms` : "…"} · <code>{call.callId.slice(0, 8)}</code>
        </span>
      </div>
      {end === undefined && call.failed === undefined ? (
        <div className="progress-row">
          {p?.total !== undefined ? (
            <progress value={p.progress} max={p.total} aria-label="Progress" />
          ) : (
            <progress aria-label="Progress" />
          )}
          <span className="progress-text" aria-live="polite">
            {p === undefined
              ? "Running…"
              : `${p.progress}${p.total !== undefined ? ` / ${p.total}` : ""}${p.message !== undefined ? ` — ${p.message}` : ""}`}
          </span>
        </div>
      ) : null}
      {call.asTask === true || call.task !== undefined ? (
        <CallTaskStatus task={call.task} asked={call.asTask === true} />
      ) : null}
      {inputs.map((r) => (
        <InputRequestView key={r.id} request={r} />
      ))}
      {call.failed !== undefined ? <p className="error-text">{call.failed}</p> : null}
      {end?.outcome === "result" ? (
        <ToolResult result={end.result} outputCheck={end.outputCheck} server={call.server} />
      ) : null}
      {end?.outcome === "error" ? <p className="error-text pre-wrap">{end.error ?? "The call failed."}</p> : null}
      {end?.outcome === "cancelled" ? <p className="muted">Cancelled.</p> : null}
      {props.view !== undefined && call.failed === undefined ? (
        <AppView
          key={call.callId}
          server={call.server}
          tool={call.tool}
          uri={props.view}
          arguments={call.arguments}
          {...(end?.outcome === "result" ? { result: end.result } : {})}
          {...(end !== undefined && end.outcome !== "result" ? { cancelled: end.error ?? end.outcome } : {})}
        />
      ) : null}
    </section>
  )
}
