/**
 * What the gateway answers an HTTP request with, independent of the HTTP server that writes it
 * (`@effect/platform`'s, or Node's own): a JSON body, a text body, no body, or an event stream.
 */
import type { Events } from "./events.js"

/** Response headers, lower-case names. */
export type Headers = Readonly<Record<string, string>>

/** An answer to an HTTP request. */
export type Reply =
  | { readonly _tag: "Json"; readonly status: number; readonly headers: Headers; readonly body: unknown }
  | { readonly _tag: "Empty"; readonly status: number; readonly headers: Headers }
  | { readonly _tag: "Text"; readonly status: number; readonly headers: Headers; readonly body: string }
  | { readonly _tag: "Events"; readonly headers: Headers; readonly events: Events }

/** A JSON body. */
export const json = (body: unknown, status = 200, headers: Headers = {}): Reply => ({
  _tag: "Json",
  status,
  headers,
  body
})

/** A text body; its `content-type` in `headers` (default `text/plain; charset=utf-8`). */
export const text = (body: string, status = 200, headers: Headers = {}): Reply => ({
  _tag: "Text",
  status,
  headers: { "content-type": "text/plain; charset=utf-8", ...headers },
  body
})

/** No body. */
export const empty = (status: number, headers: Headers = {}): Reply => ({ _tag: "Empty", status, headers })

/** The headers of every event stream. */
const eventStream: Headers = { "content-type": "text/event-stream", "cache-control": "no-cache" }

/** An event stream (status 200), with `headers` besides its own. */
export const events = (events: Events, headers: Headers = {}): Reply => ({
  _tag: "Events",
  headers: { ...eventStream, ...headers },
  events
})

/** A JSON-RPC error as an HTTP answer. */
export const refuse = (status: number, code: number, message: string, headers: Headers = {}): Reply =>
  json({ jsonrpc: "2.0", error: { code, message } }, status, headers)
