/** Requests to the gateway's HTTP core (`internal/httpCore.ts`) as an adapter hands them over. */
import * as Effect from "effect/Effect"
import type * as HttpCore from "../../src/internal/httpCore.js"
import type * as Reply from "../../src/internal/reply.js"

/** A POST of `body` (already JSON) with `headers` besides the content type and accept. */
export const postTo = (handle: HttpCore.Handler, body: unknown, headers: Record<string, string> = {}) =>
  handle({
    method: "POST",
    url: "/mcp",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    json: Effect.succeed(body)
  })

/** A reply's HTTP status (an event stream is 200). */
export const statusOf = (reply: Reply.Reply) => (reply._tag === "Events" ? 200 : reply.status)

/** What a 2026-07-28 tools/call is answered with, as the tests read it. */
export interface CallAnswer {
  readonly result?: {
    readonly resultType?: string
    readonly requestState?: string
    readonly inputRequests?: Record<string, { readonly method: string }>
    readonly content?: ReadonlyArray<{ readonly text?: string }>
  }
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown }
}

/**
 * A 2026-07-28 `tools/call` of `tool` with `args` (declaring elicitation) over `handle`, with
 * `extra` params (a retry's `inputResponses` and `requestState`) and `headers` besides its own;
 * its JSON answer (none for an event stream).
 */
export const callTool = (
  handle: HttpCore.Handler,
  tool: string,
  args: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {}
) =>
  Effect.map(
    postTo(
      handle,
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: tool,
          arguments: args,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": { elicitation: {} }
          },
          ...extra
        }
      },
      { ...headers, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": tool }
    ),
    (reply): CallAnswer => (reply._tag === "Json" ? (reply.body as CallAnswer) : {})
  )
