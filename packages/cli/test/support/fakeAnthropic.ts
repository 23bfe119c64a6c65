/**
 * A loopback server speaking the Anthropic Messages API (streaming), scripted like the
 * bridge's scripted model: each `POST /v1/messages` takes the next step, which sees the
 * request (headers and body) and answers with text and tool uses, sent as the API's
 * server-sent events. Lets the real `@effect/ai-anthropic` provider run in tests without a
 * network.
 */
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"

/** A request the server received. */
export interface MessagesRequest {
  readonly headers: IncomingHttpHeaders
  readonly body: {
    readonly model: string
    readonly messages: ReadonlyArray<{ readonly role: string; readonly content: unknown }>
    readonly tools?: ReadonlyArray<{
      readonly name: string
      readonly description?: string
      readonly input_schema: unknown
    }>
    readonly stream?: boolean
  }
}

/** One answer: text, tool uses, or both. */
export interface Answer {
  readonly text?: string
  readonly calls?: ReadonlyArray<{ readonly name: string; readonly input: object }>
}

/** A running fake. */
export interface FakeAnthropic {
  readonly url: string
  readonly requests: Array<MessagesRequest>
  /** Failures of the steps' own checks (a step that throws), reported to the test. */
  readonly problems: Array<string>
  readonly stop: () => Promise<void>
}

const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`

const eventsOf = (answer: Answer, n: number): string => {
  const blocks: Array<string> = []
  let index = 0
  if (answer.text !== undefined) {
    blocks.push(event("content_block_start", { index, content_block: { type: "text", text: "" } }))
    for (const word of answer.text.split(/(?<= )/))
      blocks.push(event("content_block_delta", { index, delta: { type: "text_delta", text: word } }))
    blocks.push(event("content_block_stop", { index }))
    index += 1
  }
  for (const [i, call] of (answer.calls ?? []).entries()) {
    const id = `toolu_${n}_${i}`
    blocks.push(
      event("content_block_start", { index, content_block: { type: "tool_use", id, name: call.name, input: {} } })
    )
    blocks.push(
      event("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(call.input) }
      })
    )
    blocks.push(event("content_block_stop", { index }))
    index += 1
  }
  const usage = { input_tokens: 10, output_tokens: 5 }
  return [
    event("message_start", {
      message: {
        id: `msg_${n}`,
        type: "message",
        role: "assistant",
        content: [],
        model: "fake",
        stop_reason: null,
        usage
      }
    }),
    ...blocks,
    event("message_delta", {
      delta: { stop_reason: (answer.calls ?? []).length > 0 ? "tool_use" : "end_turn" },
      usage: { output_tokens: 5 }
    }),
    event("message_stop", {})
  ].join("")
}

/** Starts the fake on a free loopback port. */
export const fakeAnthropic = (steps: ReadonlyArray<(request: MessagesRequest) => Answer>): Promise<FakeAnthropic> => {
  const requests: Array<MessagesRequest> = []
  const problems: Array<string> = []
  const server = createServer((incoming, response) => {
    let raw = ""
    incoming.setEncoding("utf8").on("data", (chunk: string) => {
      raw += chunk
    })
    incoming.on("end", () => {
      const request: MessagesRequest = { headers: incoming.headers, body: JSON.parse(raw) }
      requests.push(request)
      const step = steps[requests.length - 1]
      let answer: Answer
      try {
        if (incoming.url !== "/v1/messages") throw new Error(`unexpected path ${incoming.url}`)
        if (step === undefined) throw new Error(`no step ${requests.length}`)
        answer = step(request)
      } catch (error) {
        problems.push(String(error))
        response.writeHead(400, { "content-type": "application/json" })
        response.end(
          JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: String(error) } })
        )
        return
      }
      response.writeHead(200, { "content-type": "text/event-stream" })
      response.end(eventsOf(answer, requests.length))
    })
  })
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        requests,
        problems,
        stop: () => new Promise((done) => server.close(() => done()))
      })
    )
  )
}
