/**
 * The page's one store: the host's state as the last `GET /api/state` gave it, updated by the
 * events of `/api/events`. Events are applied in batches, once per frame, so that a burst (a
 * server's trace at full speed) costs one render, not one per message.
 */
import { useSyncExternalStore } from "react"
import type {
  AuthorizationRequest,
  ChatInfo,
  ChatMessage,
  ConsoleLine,
  Event,
  ExchangeEntry,
  InputRequest,
  Lists,
  ServerView,
  State,
  TraceEntry
} from "../../src/Api.js"
import * as Api from "./api.js"

export type Root = State["roots"][number]
export type LogEntry = Extract<Event, { _tag: "Log" }> & { readonly n: number }
export type CallEnd = Extract<Event, { _tag: "CallEnded" }>
export interface Progress {
  readonly progress: number
  readonly total?: number | undefined
  readonly message?: string | undefined
}
/** A call started from a tool pane. */
export interface CallState {
  readonly callId: string
  readonly server: string
  readonly tool: string
  readonly arguments: Record<string, unknown>
  readonly startedAt: number
  readonly progress?: Progress
  /** Asked to run as a task (a tool that requires it runs as one anyway). */
  readonly asTask?: boolean
  /** The call's task as its last `CallTask` event gave it (a call run as a task). */
  readonly task?: unknown
  readonly end?: CallEnd
  /** The POST itself failed (the call never started). */
  readonly failed?: string
}
export type ListsState =
  | { readonly status: "loading"; readonly lists?: Lists }
  | { readonly status: "loaded"; readonly lists: Lists }
  | { readonly status: "error"; readonly error: string; readonly lists?: Lists }

export interface Snapshot {
  readonly connection: "connecting" | "open" | "lost"
  readonly loadError?: string
  readonly loaded: boolean
  readonly servers: ReadonlyArray<ServerView>
  readonly chat: ChatInfo
  readonly conversation: ReadonlyArray<ChatMessage>
  readonly pending: ReadonlyArray<InputRequest>
  /** Logins the servers wait for (OAuth). */
  readonly authorizations: ReadonlyArray<AuthorizationRequest>
  readonly configFiles: ReadonlyArray<string>
  /** The roots every server is offered. */
  readonly roots: ReadonlyArray<Root>
  readonly lists: Readonly<Record<string, ListsState>>
  readonly traces: Readonly<Record<string, ReadonlyArray<TraceEntry>>>
  readonly consoles: Readonly<Record<string, ReadonlyArray<ConsoleLine>>>
  /** The HTTP exchanges of servers reached over HTTP. */
  readonly exchanges: Readonly<Record<string, ReadonlyArray<ExchangeEntry>>>
  /** Counts the `CallTask` events per server, so that a tasks list knows to read again. */
  readonly taskChanges: Readonly<Record<string, number>>
  readonly logs: Readonly<Record<string, ReadonlyArray<LogEntry>>>
  readonly calls: Readonly<Record<string, CallState>>
  /** Resources a `notifications/resources/updated` named, with when. */
  readonly updated: Readonly<Record<string, Readonly<Record<string, number>>>>
  /** The call each tool pane shows, by `server\u0000tool`. */
  readonly shown: Readonly<Record<string, string>>
  /** The chat turn running, when one is. */
  readonly turn?: string
  /** The MCP Apps sandbox proxy's origin: views are drawn only with one. */
  readonly sandbox?: string
}

// Bounds, so that a chatty server cannot grow the page without end.
const MaxTrace = 50_000
const MaxConsole = 5_000
const MaxLogs = 5_000
const MaxExchanges = 5_000

let snapshot: Snapshot = {
  connection: "connecting",
  loaded: false,
  servers: [],
  chat: { available: false, maxToolCalls: 0 },
  conversation: [],
  pending: [],
  authorizations: [],
  configFiles: [],
  roots: [],
  lists: {},
  traces: {},
  consoles: {},
  exchanges: {},
  taskChanges: {},
  logs: {},
  calls: {},
  updated: {},
  shown: {}
}

const listeners = new Set<() => void>()
const subscribe = (listener: () => void) => {
  listeners.add(listener)
  return () => {
    listeners.delete(listener)
  }
}
const emit = () => {
  for (const listener of listeners) listener()
}
const set = (f: (s: Snapshot) => Snapshot) => {
  snapshot = f(snapshot)
  emit()
}

export const getSnapshot = (): Snapshot => snapshot

/** Reads a slice of the store; `select` must return a value kept in the snapshot (or a primitive). */
export const useStore = <A>(select: (s: Snapshot) => A): A => useSyncExternalStore(subscribe, () => select(snapshot))

// --- events, batched per frame -------------------------------------------------------------------

let queue: Array<Event> = []
let scheduled = false
let logCount = 0

const flush = () => {
  scheduled = false
  const events = queue
  queue = []
  if (events.length === 0) return
  const before = snapshot
  let s = snapshot
  const traceAdds = new Map<string, Array<TraceEntry>>()
  const consoleAdds = new Map<string, Array<ConsoleLine>>()
  const logAdds = new Map<string, Array<LogEntry>>()
  const exchangeAdds = new Map<string, Array<ExchangeEntry>>()
  const push = <A>(m: Map<string, Array<A>>, k: string, a: A) => {
    const l = m.get(k)
    if (l === undefined) m.set(k, [a])
    else l.push(a)
  }
  for (const e of events) {
    switch (e._tag) {
      case "Servers":
        s = { ...s, servers: e.servers }
        break
      case "ListChanged":
        void loadLists(e.server)
        break
      case "Trace":
        push(traceAdds, e.entry.server, e.entry)
        break
      case "Console":
        push(consoleAdds, e.line.server, e.line)
        break
      case "Exchange":
        push(exchangeAdds, e.exchange.server, e.exchange)
        break
      case "Log":
        push(logAdds, e.server, { ...e, n: logCount++ })
        break
      case "ResourceUpdated":
        s = {
          ...s,
          updated: { ...s.updated, [e.server]: { ...s.updated[e.server], [e.uri]: Date.now() } }
        }
        break
      case "CallProgress": {
        const call = s.calls[e.callId]
        if (call !== undefined && call.end === undefined) {
          const progress: Progress = { progress: e.progress, total: e.total, message: e.message }
          s = { ...s, calls: { ...s.calls, [e.callId]: { ...call, progress } } }
        }
        break
      }
      case "CallTask": {
        const call = s.calls[e.callId]
        if (call !== undefined) s = { ...s, calls: { ...s.calls, [e.callId]: { ...call, task: e.task } } }
        s = { ...s, taskChanges: { ...s.taskChanges, [e.server]: (s.taskChanges[e.server] ?? 0) + 1 } }
        break
      }
      case "CallEnded": {
        const call = s.calls[e.callId]
        if (call !== undefined) s = { ...s, calls: { ...s.calls, [e.callId]: { ...call, end: e } } }
        break
      }
      case "Input":
        s = { ...s, pending: [...s.pending.filter((p) => p.id !== e.request.id), e.request] }
        break
      case "Authorization":
        s = {
          ...s,
          authorizations: [...s.authorizations.filter((a) => a.id !== e.request.id), e.request]
        }
        break
      case "AuthorizationSettled":
        s = { ...s, authorizations: s.authorizations.filter((a) => a.id !== e.id) }
        break
      case "RootsChanged":
        s = { ...s, roots: e.roots }
        break
      case "InputSettled":
        s = { ...s, pending: s.pending.filter((p) => p.id !== e.id) }
        break
      case "Chat":
        s = { ...s, conversation: upsertMessage(s.conversation, e.message) }
        if ((e.message._tag === "Done" || e.message._tag === "Error") && s.turn === e.message.turnId) {
          const { turn: _, ...rest } = s
          s = rest
        }
        break
      case "ChatDelta":
        s = { ...s, conversation: appendDelta(s.conversation, e.turnId, e.part, e.text) }
        break
      case "ChatCleared": {
        const { turn: _, ...rest } = s
        s = { ...rest, conversation: [] }
        break
      }
    }
  }
  if (traceAdds.size > 0) {
    const traces = { ...s.traces }
    for (const [server, adds] of traceAdds) traces[server] = appendTrace(traces[server] ?? [], adds)
    s = { ...s, traces }
  }
  if (consoleAdds.size > 0) {
    const consoles = { ...s.consoles }
    for (const [server, adds] of consoleAdds) consoles[server] = capped(consoles[server] ?? [], adds, MaxConsole)
    s = { ...s, consoles }
  }
  if (exchangeAdds.size > 0) {
    const exchanges = { ...s.exchanges }
    for (const [server, adds] of exchangeAdds)
      exchanges[server] = appendBySeq(exchanges[server] ?? [], adds, MaxExchanges)
    s = { ...s, exchanges }
  }
  if (logAdds.size > 0) {
    const logs = { ...s.logs }
    for (const [server, adds] of logAdds) logs[server] = capped(logs[server] ?? [], adds, MaxLogs)
    s = { ...s, logs }
  }
  snapshot = s
  if (s.servers !== before.servers) onServersChanged(before.servers, s.servers)
  emit()
}

const schedule = () => {
  if (scheduled) return
  scheduled = true
  // A hidden tab gets no animation frames; a timer still runs (throttled).
  if (document.hidden) setTimeout(flush, 50)
  else requestAnimationFrame(flush)
}

/** Trace entries, in `seq` order, each once (the fetched history and live events may overlap). */
const appendTrace = (current: ReadonlyArray<TraceEntry>, adds: ReadonlyArray<TraceEntry>) =>
  appendBySeq(current, adds, MaxTrace)

/** Entries with a `seq` (trace, exchanges), in order, each once: a history read, then what came live after it. */
const appendBySeq = <A extends { readonly seq: number }>(
  current: ReadonlyArray<A>,
  adds: ReadonlyArray<A>,
  max: number
): ReadonlyArray<A> => {
  const last = current.length > 0 ? (current[current.length - 1]?.seq ?? 0) : 0
  const fresh = adds.filter((e) => e.seq > last)
  return fresh.length === 0 ? current : capped(current, fresh, max)
}

const capped = <A>(current: ReadonlyArray<A>, adds: ReadonlyArray<A>, max: number): ReadonlyArray<A> => {
  const next = current.concat(adds)
  return next.length > max ? next.slice(next.length - max) : next
}

const messageKey = (m: ChatMessage) =>
  `${m.turnId}\u0000${m._tag}\u0000${m._tag === "Tool" ? m.callId : m._tag === "Assistant" ? m.part : ""}`

/** Adds a message, or replaces the one of the same (turnId, _tag, callId or part). */
const upsertMessage = (list: ReadonlyArray<ChatMessage>, m: ChatMessage) => {
  const key = messageKey(m)
  for (let i = list.length - 1; i >= 0; i--) {
    const item = list[i]
    if (item !== undefined && messageKey(item) === key) {
      const next = list.slice()
      next[i] = m
      return next
    }
  }
  return [...list, m]
}

/** Appends to the turn's `Assistant` message of this part (made when the delta comes first). */
const appendDelta = (list: ReadonlyArray<ChatMessage>, turnId: string, part: number, text: string) => {
  for (let i = list.length - 1; i >= 0; i--) {
    const item = list[i]
    if (item !== undefined && item._tag === "Assistant" && item.turnId === turnId && item.part === part) {
      const next = list.slice()
      next[i] = { ...item, text: item.text + text }
      return next
    }
  }
  return [...list, { _tag: "Assistant" as const, turnId, part, text }]
}

// --- loading -------------------------------------------------------------------------------------

export const loadLists = async (server: string) => {
  const prev = snapshot.lists[server]
  const kept = prev !== undefined && "lists" in prev && prev.lists !== undefined ? { lists: prev.lists } : {}
  set((s) => ({ ...s, lists: { ...s.lists, [server]: { status: "loading", ...kept } } }))
  try {
    const lists = await Api.getLists(server)
    set((s) => ({ ...s, lists: { ...s.lists, [server]: { status: "loaded", lists } } }))
  } catch (e) {
    set((s) => ({ ...s, lists: { ...s.lists, [server]: { status: "error", error: Api.errorMessage(e), ...kept } } }))
  }
}

const loadTrace = async (server: string) => {
  try {
    const history = await Api.getTrace(server)
    set((s) => ({ ...s, traces: { ...s.traces, [server]: appendBySeq(history, s.traces[server] ?? [], MaxTrace) } }))
  } catch {
    // A trace that cannot be read leaves the live one.
  }
}

const loadConsole = async (server: string) => {
  try {
    const history = await Api.getConsole(server)
    set((s) => {
      const live = s.consoles[server] ?? []
      const lastT = history.length > 0 ? (history[history.length - 1]?.t ?? 0) : 0
      return {
        ...s,
        consoles: {
          ...s.consoles,
          [server]: capped(
            history,
            live.filter((l) => l.t > lastT),
            MaxConsole
          )
        }
      }
    })
  } catch {
    // As for the trace.
  }
}

const loadExchanges = async (server: string) => {
  try {
    const history = await Api.getExchanges(server)
    set((s) => ({
      ...s,
      exchanges: { ...s.exchanges, [server]: appendBySeq(history, s.exchanges[server] ?? [], MaxExchanges) }
    }))
  } catch {
    // As for the trace.
  }
}

/** Whether the server is reached over HTTP (so has exchanges to show). */
export const overHttp = (view: ServerView) => view.transport !== "stdio"

const onServersChanged = (before: ReadonlyArray<ServerView>, after: ReadonlyArray<ServerView>) => {
  const was = new Map(before.map((v) => [v.name, v] as const))
  for (const view of after) {
    const old = was.get(view.name)
    if (view.status === "ready" && old?.status !== "ready") void loadLists(view.name)
    if (old === undefined) {
      void loadTrace(view.name)
      void loadConsole(view.name)
      if (overHttp(view)) void loadExchanges(view.name)
    }
  }
}

const loadState = async () => {
  try {
    const state = await Api.getState()
    set((s) => ({
      ...s,
      loaded: true,
      servers: state.servers,
      chat: state.chat,
      conversation: state.conversation,
      pending: state.pending,
      authorizations: state.authorizations,
      configFiles: state.configFiles,
      roots: state.roots,
      ...(state.sandbox === undefined ? {} : { sandbox: state.sandbox })
    }))
    const names = new Set(state.servers.map((v) => v.name))
    for (const view of state.servers) {
      if (view.status === "ready") void loadLists(view.name)
      void loadTrace(view.name)
      void loadConsole(view.name)
      if (overHttp(view)) void loadExchanges(view.name)
    }
    set((s) => {
      const { loadError: _, ...rest } = s
      return { ...rest, lists: keep(s.lists, names) }
    })
  } catch (e) {
    set((s) => ({ ...s, loadError: Api.errorMessage(e) }))
  }
}

const keep = <A>(r: Readonly<Record<string, A>>, names: ReadonlySet<string>) =>
  Object.fromEntries(Object.entries(r).filter(([k]) => names.has(k)))

let source: EventSource | undefined

/** Opens the live stream; on every (re)open the state is fetched again and rebuilt from it. */
export const start = () => {
  if (source !== undefined) return
  source = new EventSource("/api/events")
  source.onopen = () => {
    set((s) => ({ ...s, connection: "open" }))
    void loadState()
  }
  source.onerror = () => {
    set((s) => ({ ...s, connection: source?.readyState === EventSource.CLOSED ? "lost" : "connecting" }))
  }
  source.onmessage = (message: MessageEvent<string>) => {
    try {
      queue.push(JSON.parse(message.data) as Event)
    } catch {
      return
    }
    schedule()
  }
}

// --- intents -------------------------------------------------------------------------------------

export const shownKey = (server: string, tool: string) => `${server}\u0000${tool}`

/** Starts a tool call; its id is known at once, so the pane can follow it before the POST answers. */
export const startCall = (server: string, tool: string, args: Record<string, unknown>, asTask = false): string => {
  const callId = Api.newCallId()
  const call: CallState = {
    callId,
    server,
    tool,
    arguments: args,
    startedAt: Date.now(),
    ...(asTask ? { asTask } : {})
  }
  set((s) => ({ ...s, calls: { ...s.calls, [callId]: call }, shown: { ...s.shown, [shownKey(server, tool)]: callId } }))
  Api.callTool(server, { tool, arguments: args, callId, ...(asTask ? { asTask } : {}) }).catch((e: unknown) => {
    set((s) => {
      const c = s.calls[callId]
      return c === undefined ? s : { ...s, calls: { ...s.calls, [callId]: { ...c, failed: Api.errorMessage(e) } } }
    })
  })
  return callId
}

export const sendChat = async (text: string) => {
  const { turnId } = await Api.chatSend(text)
  // The turn may already be done (events travel faster than the POST's answer).
  const done = snapshot.conversation.some((m) => m.turnId === turnId && (m._tag === "Done" || m._tag === "Error"))
  if (!done) set((s) => ({ ...s, turn: turnId }))
}

/** The page's own clock for the "updated" marker: cleared when the resource is read again. */
export const clearUpdated = (server: string, uri: string) =>
  set((s) => {
    const forServer = s.updated[server]
    if (forServer === undefined || !(uri in forServer)) return s
    const { [uri]: _, ...rest } = forServer
    return { ...s, updated: { ...s.updated, [server]: rest } }
  })
