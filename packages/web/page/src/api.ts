/** Typed fetch helpers over the routes of `src/Api.ts` (same origin: the launch cookie goes along). */
import type {
  AddServer,
  AppOpened,
  AppRpcAnswer,
  CallTool,
  ChatMessage,
  ConsoleLine,
  ExchangeEntry,
  InputAnswer,
  Lists,
  LoadedSkill,
  Skills,
  State,
  TraceEntry
} from "../../src/Api.js"

export class ApiFailure extends Error {
  readonly status: number
  constructor(status: number, message: string) {
    super(message)
    this.status = status
  }
}

const enc = encodeURIComponent

async function request<A>(method: "GET" | "POST", path: string, body?: unknown): Promise<A> {
  const init: RequestInit =
    method === "POST"
      ? { method, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body ?? {}) }
      : { method }
  const response = await fetch(path, init)
  const text = await response.text()
  let json: unknown
  try {
    json = text === "" ? {} : JSON.parse(text)
  } catch {
    json = undefined
  }
  if (!response.ok) {
    const message =
      typeof json === "object" && json !== null && "error" in json && typeof json.error === "string"
        ? json.error
        : `${response.status} ${response.statusText}`
    throw new ApiFailure(response.status, message)
  }
  return json as A
}

export const getState = () => request<State>("GET", "/api/state")
export const getLists = (server: string) => request<Lists>("GET", `/api/servers/${enc(server)}/lists`)
export const getTrace = (server: string) =>
  request<ReadonlyArray<TraceEntry>>("GET", `/api/servers/${enc(server)}/trace`)
export const getConsole = (server: string) =>
  request<ReadonlyArray<ConsoleLine>>("GET", `/api/servers/${enc(server)}/console`)
export const getExchanges = (server: string) =>
  request<ReadonlyArray<ExchangeEntry>>("GET", `/api/servers/${enc(server)}/exchanges`)
export const recordingUrl = (server: string) => `/api/servers/${enc(server)}/recording`

export const addServer = (body: AddServer) =>
  request<{ added: boolean; preview: string; savedTo?: string }>("POST", "/api/servers", body)
export const serverAction = (server: string, action: "connect" | "disconnect" | "restart" | "remove") =>
  request<object>("POST", `/api/servers/${enc(server)}/action`, { action })
export const replay = (name: string, recording: string) => request<object>("POST", "/api/replay", { name, recording })
export const callTool = (server: string, body: CallTool) =>
  request<{ callId: string }>("POST", `/api/servers/${enc(server)}/call`, body)
export const cancelCall = (callId: string) => request<object>("POST", `/api/calls/${enc(callId)}/cancel`)
export const getTasks = (server: string) =>
  request<{ readonly tasks: ReadonlyArray<unknown> }>("GET", `/api/servers/${enc(server)}/tasks`)
export const cancelTask = (server: string, taskId: string) =>
  request<unknown>("POST", `/api/servers/${enc(server)}/tasks/cancel`, { taskId })
export type SkillList = typeof Skills.Type
export type SkillInfo = SkillList["skills"][number]
export type Loaded = typeof LoadedSkill.Type
export const getSkills = (server: string) => request<SkillList>("GET", `/api/servers/${enc(server)}/skills`)
export const loadSkill = (server: string, skill: string) =>
  request<Loaded>("POST", `/api/servers/${enc(server)}/skills/load`, { skill })
export const readResource = (server: string, uri: string) =>
  request<unknown>("POST", `/api/servers/${enc(server)}/read`, { uri })
export const subscribe = (server: string, uri: string, on: boolean) =>
  request<object>("POST", `/api/servers/${enc(server)}/subscribe`, { uri, on })
export const getPrompt = (server: string, name: string, args: Record<string, string>) =>
  request<unknown>("POST", `/api/servers/${enc(server)}/prompt`, { name, arguments: args })

export type CompleteRef = { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string }
export const complete = (
  server: string,
  ref: CompleteRef,
  argument: { name: string; value: string },
  context?: Record<string, string>
) =>
  request<{ values: ReadonlyArray<string>; hasMore: boolean }>("POST", `/api/servers/${enc(server)}/complete`, {
    ref,
    argument,
    ...(context !== undefined ? { context: { arguments: context } } : {})
  })
export const ping = (server: string) => request<{ ms: number }>("POST", `/api/servers/${enc(server)}/ping`)
export const LogLevels = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const
export type LogLevel = (typeof LogLevels)[number]
export const setLogLevel = (server: string, level: LogLevel) =>
  request<object>("POST", `/api/servers/${enc(server)}/log-level`, { level })
export const answerInput = (id: string, answer: InputAnswer) => request<object>("POST", `/api/input/${enc(id)}`, answer)
export const setRoots = (roots: ReadonlyArray<{ uri: string; name?: string }>) =>
  request<object>("POST", "/api/roots", { roots })
export const chatSend = (text: string) => request<{ turnId: string }>("POST", "/api/chat", { text })
export const chatApprove = (callId: string, allow: boolean) =>
  request<object>("POST", "/api/chat/approve", { callId, allow })
export const chatClear = () => request<object>("POST", "/api/chat/clear")

export const openApp = (server: string, uri: string, tool: string) =>
  request<AppOpened>("POST", "/api/apps/view", { server, uri, tool })
export const appRpc = (view: string, message: unknown, from: "view" | "page" = "view") =>
  request<AppRpcAnswer>("POST", "/api/apps/rpc", { view, message, from })

/** A call id the page chooses, so that events can be matched before the POST answers. */
export const newCallId = (): string => crypto.randomUUID().replaceAll("-", "")

export const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e))

export type { ChatMessage }
