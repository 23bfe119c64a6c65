/**
 * A recorded server played back: given the requests a client sends, the answers the recording
 * holds. Each recorded request the client sent is an exchange: its answer, the server's messages
 * recorded while it was outstanding (progress, logs; sent before the answer), and those recorded
 * after it until the client's next request (sent after). An incoming request takes the first
 * unused exchange of the same method and target (tool, prompt or resource; none for the others),
 * else the last one used again; answers carry the incoming id, progress the incoming progress
 * token. A request the recording does not hold is answered `-32601` (the era probe of a recording
 * without one so: a legacy server), `ping` always `{}`.
 */
import { JsonRpc } from "@effect-mcp/protocol"
import type { Line } from "./recording.js"

/** One recorded request and what the server said around it. */
interface Exchange {
  readonly method: string
  readonly target: string | undefined
  readonly progressToken: unknown
  readonly before: ReadonlyArray<JsonRpc.JSONRPCMessage>
  readonly answer: JsonRpc.JSONRPCResultResponse | JsonRpc.JSONRPCErrorResponse
  readonly after: ReadonlyArray<JsonRpc.JSONRPCMessage>
  used: boolean
}

const isObject = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** What a request is about, beyond its method: a tool's or prompt's name, a resource's URI. */
const targetOf = (params: unknown): string | undefined => {
  if (!isObject(params)) return undefined
  const target = params.name ?? params.uri
  return typeof target === "string" ? target : undefined
}

const progressTokenOf = (params: unknown): unknown =>
  isObject(params) && isObject(params._meta) ? params._meta.progressToken : undefined

const isAnswer = (message: JsonRpc.JSONRPCMessage) =>
  JsonRpc.isResultResponse(message) || JsonRpc.isErrorResponse(message)

/** The exchanges of a recording, in order. */
export const exchangesOf = (lines: ReadonlyArray<Line>): Array<Exchange> => {
  const exchanges: Array<Exchange> = []
  lines.forEach((line, index) => {
    const request = line.message
    if (line.dir !== "send" || !JsonRpc.isRequest(request)) return
    const rest = lines.slice(index + 1)
    const answered = rest.findIndex(
      (later) =>
        later.dir === "receive" && isAnswer(later.message) && "id" in later.message && later.message.id === request.id
    )
    const answerLine = rest[answered]
    if (answerLine === undefined || !isAnswer(answerLine.message)) return
    const fromServer = (slice: ReadonlyArray<Line>) =>
      slice.filter((later) => later.dir === "receive" && !isAnswer(later.message)).map((later) => later.message)
    const nextRequest = rest.findIndex(
      (later, at) => at > answered && later.dir === "send" && JsonRpc.isRequest(later.message)
    )
    exchanges.push({
      method: request.method,
      target: targetOf(request.params),
      progressToken: progressTokenOf(request.params),
      before: fromServer(rest.slice(0, answered)),
      answer: answerLine.message,
      after: fromServer(rest.slice(answered + 1, nextRequest === -1 ? undefined : nextRequest)),
      used: false
    })
  })
  return exchanges
}

/** `message` with `from`'s progress token replaced by `to` (a progress notification of the recording). */
const withProgressToken = (message: JsonRpc.JSONRPCMessage, from: unknown, to: unknown): JsonRpc.JSONRPCMessage =>
  JsonRpc.isNotification(message) &&
  message.method === "notifications/progress" &&
  isObject(message.params) &&
  from !== undefined &&
  message.params.progressToken === from
    ? { ...message, params: { ...message.params, progressToken: to } }
    : message

/** The player: what to write for each message the client sends. */
export const player = (lines: ReadonlyArray<Line>) => {
  const exchanges = exchangesOf(lines)
  return (message: JsonRpc.JSONRPCMessage): ReadonlyArray<JsonRpc.JSONRPCMessage> => {
    if (!JsonRpc.isRequest(message)) return []
    const { id, method } = message
    const target = targetOf(message.params)
    const matching = exchanges.filter((one) => one.method === method && one.target === target)
    const exchange = matching.find((one) => !one.used) ?? matching.at(-1)
    if (exchange === undefined) {
      if (method === "ping") return [{ jsonrpc: "2.0", id, result: {} }]
      return [
        {
          jsonrpc: "2.0",
          id,
          error: { code: JsonRpc.ErrorCode.MethodNotFound, message: `${method} is not in the recording` }
        }
      ]
    }
    exchange.used = true
    const token = progressTokenOf(message.params)
    const retoken = (one: JsonRpc.JSONRPCMessage) => withProgressToken(one, exchange.progressToken, token)
    return [...exchange.before.map(retoken), { ...exchange.answer, id }, ...exchange.after.map(retoken)]
  }
}
