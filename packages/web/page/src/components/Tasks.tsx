/**
 * Tasks (the 2025-11-25 `tasks` capability): a server's tasks listed with their status, times,
 * time to live and poll interval, read again while one is running and on every change of a call's
 * task; each running one can be cancelled. `TaskLine` is also what a call run as a task shows.
 */
import { useCallback, useEffect, useId, useState } from "react"
import * as Api from "../api.js"
import { formatTime, isObject, num, str } from "../mcp.js"
import { useStore } from "../store.js"

export interface TaskInfo {
  readonly taskId: string
  readonly status: string
  readonly statusMessage?: string | undefined
  readonly createdAt?: string | undefined
  readonly lastUpdatedAt?: string | undefined
  /** Milliseconds; `null` is unlimited. */
  readonly ttl?: number | null | undefined
  readonly pollInterval?: number | undefined
}

export const readTask = (u: unknown): TaskInfo | undefined => {
  if (!isObject(u) || typeof u.taskId !== "string") return undefined
  return {
    taskId: u.taskId,
    status: str(u.status) ?? "unknown",
    statusMessage: str(u.statusMessage),
    createdAt: str(u.createdAt),
    lastUpdatedAt: str(u.lastUpdatedAt),
    ttl: u.ttl === null ? null : num(u.ttl),
    pollInterval: num(u.pollInterval)
  }
}

/** Whether a task may still change (and be cancelled). */
export const isRunning = (task: TaskInfo) => task.status === "working" || task.status === "input_required"

/** Whether the server takes `tools/call` as a task (`capabilities.tasks`). */
export const declaresTasks = (capabilities: unknown) => isObject(capabilities) && isObject(capabilities.tasks)

const badgeClass = (status: string) =>
  status === "completed"
    ? "badge ok"
    : status === "failed"
      ? "badge bad"
      : status === "cancelled"
        ? "badge warn"
        : status === "working" || status === "input_required"
          ? "badge running"
          : "badge"

const duration = (ms: number) =>
  ms < 1000 ? `${ms} ms` : ms < 120_000 ? `${Math.round(ms / 100) / 10} s` : `${Math.round(ms / 60_000)} min`

function When(props: { readonly label: string; readonly iso: string | undefined }) {
  if (props.iso === undefined) return null
  const t = Date.parse(props.iso)
  return (
    <span>
      {props.label} <time dateTime={props.iso}>{Number.isNaN(t) ? props.iso : formatTime(t)}</time>
    </span>
  )
}

/** One task: its id, status and message, times, ttl and poll interval. */
export function TaskLine(props: { readonly task: TaskInfo }) {
  const { task } = props
  return (
    <div className="task-line">
      <span className={badgeClass(task.status)}>{task.status.replace("_", " ")}</span>
      <code className="task-id">{task.taskId}</code>
      {task.statusMessage !== undefined ? <span className="task-message">{task.statusMessage}</span> : null}
      <span className="muted task-meta">
        <When label="created" iso={task.createdAt} />
        <When label="updated" iso={task.lastUpdatedAt} />
        {task.ttl === null ? <span>ttl unlimited</span> : null}
        {typeof task.ttl === "number" ? <span>ttl {duration(task.ttl)}</span> : null}
        {task.pollInterval !== undefined ? <span>poll every {duration(task.pollInterval)}</span> : null}
      </span>
    </div>
  )
}

/** What a call run as a task shows under it: its task as it changes. */
export function CallTaskStatus(props: { readonly task: unknown; readonly asked: boolean }) {
  const task = readTask(props.task)
  return (
    <section className="call-task" aria-label="Task status">
      {task === undefined ? (
        <p className="muted" role="status">
          {props.asked ? "Run as a task: waiting for the server to create it…" : "Running as a task…"}
        </p>
      ) : (
        <div role="status" aria-live="polite">
          <TaskLine task={task} />
        </div>
      )}
    </section>
  )
}

type Loaded =
  | { readonly status: "loading"; readonly tasks?: ReadonlyArray<TaskInfo> }
  | { readonly status: "loaded"; readonly tasks: ReadonlyArray<TaskInfo>; readonly at: number }
  | { readonly status: "error"; readonly error: string; readonly tasks?: ReadonlyArray<TaskInfo> }

export function TasksPane(props: { readonly server: string }) {
  const { server } = props
  const changes = useStore((s) => s.taskChanges[server] ?? 0)
  const [state, setState] = useState<Loaded>({ status: "loading" })
  const [cancelling, setCancelling] = useState<Readonly<Record<string, string>>>({})
  const [note, setNote] = useState<string | undefined>(undefined)
  const id = useId().replace(/:/g, "")

  // A poll reads quietly (no "Reading…" announced every second); a person's Refresh says so.
  const read = useCallback(
    (quiet: boolean) => {
      if (!quiet) setState((s) => ({ status: "loading", ...(s.tasks !== undefined ? { tasks: s.tasks } : {}) }))
      Api.getTasks(server).then(
        (r) =>
          setState({
            status: "loaded",
            tasks: r.tasks.map(readTask).filter((t): t is TaskInfo => t !== undefined),
            at: Date.now()
          }),
        (e: unknown) =>
          setState((s) => ({
            status: "error",
            error: Api.errorMessage(e),
            ...(s.tasks !== undefined ? { tasks: s.tasks } : {})
          }))
      )
    },
    [server]
  )
  const load = useCallback(() => read(false), [read])
  const poll = useCallback(() => read(true), [read])

  // Read again on a change of a call's task (coalesced), and at the first read.
  useEffect(() => {
    const timer = changes === 0 ? setTimeout(load, 0) : setTimeout(poll, 150)
    return () => clearTimeout(timer)
  }, [load, poll, changes])

  // While a task runs, poll at its interval (one to five seconds).
  const tasks = state.tasks ?? []
  const running = tasks.filter(isRunning)
  const interval = Math.min(5000, Math.max(1000, ...running.map((t) => t.pollInterval ?? 1000)))
  useEffect(() => {
    if (state.status !== "loaded" || running.length === 0) return
    const timer = setTimeout(poll, interval)
    return () => clearTimeout(timer)
  }, [state, running.length, interval, poll])

  const cancel = (task: TaskInfo) => {
    setCancelling((c) => ({ ...c, [task.taskId]: "…" }))
    setNote(undefined)
    Api.cancelTask(server, task.taskId).then(
      (answer) => {
        const updated = readTask(answer)
        setCancelling(({ [task.taskId]: _, ...rest }) => rest)
        setNote(`Task ${task.taskId} is ${updated?.status ?? "cancelled"}.`)
        if (updated !== undefined)
          setState((s) =>
            s.status === "loaded" ? { ...s, tasks: s.tasks.map((t) => (t.taskId === updated.taskId ? updated : t)) } : s
          )
        load()
      },
      (e: unknown) => {
        setCancelling(({ [task.taskId]: _, ...rest }) => rest)
        setNote(`Task ${task.taskId} could not be cancelled: ${Api.errorMessage(e)}`)
      }
    )
  }

  return (
    <div className="tasks-pane pad">
      <div className="toolbar">
        <button type="button" className="small" onClick={load} disabled={state.status === "loading"}>
          Refresh
        </button>
        <span className="muted" aria-live="polite">
          {state.status === "loading"
            ? "Reading…"
            : `${tasks.length} ${tasks.length === 1 ? "task" : "tasks"}${running.length > 0 ? `, ${running.length} running` : ""}`}
        </span>
      </div>
      {state.status === "error" ? (
        <p className="error-text" role="alert">
          The tasks could not be read: {state.error}
        </p>
      ) : null}
      {note !== undefined ? (
        <p className="muted" role="status">
          {note}
        </p>
      ) : null}
      <ul className="item-list task-list" aria-label="Task list">
        {tasks.map((t) => (
          <li key={t.taskId} className="item task-item" aria-labelledby={`${id}-${t.taskId}`}>
            <span id={`${id}-${t.taskId}`} className="visually-hidden">
              Task {t.taskId}, {t.status.replace("_", " ")}
            </span>
            <TaskLine task={t} />
            {isRunning(t) ? (
              <div className="button-row">
                <button
                  type="button"
                  className="small"
                  disabled={cancelling[t.taskId] !== undefined}
                  onClick={() => cancel(t)}
                >
                  Cancel task
                </button>
              </div>
            ) : null}
          </li>
        ))}
        {state.status !== "loading" && tasks.length === 0 ? (
          <li className="muted empty">No tasks. A tool called as a task (Run as a task) is listed here.</li>
        ) : null}
      </ul>
    </div>
  )
}

/**
 * The tool form's "Run as a task" choice, for a tool that may run as one (`execution.taskSupport`
 * `optional`); one that must (`required`) always does, so the box is checked and fixed.
 */
export function RunAsTask(props: {
  readonly taskSupport: string | undefined
  readonly checked: boolean
  readonly onChange: (checked: boolean) => void
}) {
  const id = useId().replace(/:/g, "")
  if (props.taskSupport !== "optional" && props.taskSupport !== "required") return null
  const required = props.taskSupport === "required"
  return (
    <div className="form-toolbar">
      <label className="toggle">
        <input
          type="checkbox"
          checked={required || props.checked}
          disabled={required}
          aria-describedby={`${id}-d`}
          onChange={(e) => props.onChange(e.target.checked)}
        />
        Run as a task
      </label>
      <span id={`${id}-d`} className="muted">
        {required
          ? "This tool always runs as a task: its status is shown under the call."
          : "The server keeps the call as a task (listed in Tasks); its status is shown under the call."}
      </span>
    </div>
  )
}
