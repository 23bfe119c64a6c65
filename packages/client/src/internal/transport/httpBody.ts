/**
 * Responses as the HTTP transports read them (`Answer`, whichever client brought them); bodies
 * read with a size limit, so a huge or endless body is an error, not memory; HTTP client
 * errors in one clause; the endpoint URL checked before anything is sent; the platform
 * client's span per request only when someone traces.
 */

import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Tracing from "@effect-mcp/jsonrpc/Tracing"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { AuthorizationError } from "../../auth/AuthError.js"
import { TransportError } from "../../McpError.js"

/**
 * `client`, making its span per request (and sending that span's trace headers) only when
 * someone traces: a parent span, or a tracer other than Effect's default.
 */
export const tracedWhenTracing = <E, R>(client: HttpClient.HttpClient.With<E, R>): HttpClient.HttpClient.With<E, R> =>
  HttpClient.transform(client, Tracing.onlyWhenTraced)

/** What a body read that broke off says: the server (or the network) closed the connection mid-body. */
export const CONNECTION_CLOSED = "the connection closed before the response was complete"

/**
 * The endpoint as a `URL`; an invalid one is a `TransportError` naming it (`server` defaults to
 * the text given, since there is no host to name).
 */
export const parseEndpoint = (url: string, name: string | undefined): Effect.Effect<URL, TransportError> =>
  URL.canParse(url)
    ? Effect.succeed(new URL(url))
    : Effect.fail(new TransportError({ server: name ?? url, reason: `invalid URL: ${JSON.stringify(url)}` }))

/** What a bounded body read got: at most the limit, and whether the body had more. */
export interface Collected {
  readonly text: string
  readonly over: boolean
}

/**
 * A response as the HTTP transports read it: an `HttpClientResponse` (through `fromResponse`) or
 * one that came over a faster route (Node's own client). Header names are lower case. The body
 * is read once, chunk by chunk or collected; a body cut short fails with a clause saying so.
 */
export interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string | undefined>>
  /** Hands each chunk of the body to `f` as it arrives, until the end or until `f` says `false`. */
  readonly forEachChunk: (f: (chunk: Uint8Array) => boolean) => Effect.Effect<void, string>
  readonly collect: (maxBytes: number) => Effect.Effect<Collected, string>
}

const decoder = new TextDecoder()

/** The text of `size` bytes in `chunks` (UTF-8, a byte-order mark dropped as `TextDecoder` does). */
export const decodeChunks = (chunks: ReadonlyArray<Uint8Array>, size: number): string => {
  let bytes: Uint8Array
  if (chunks.length === 1 && chunks[0] !== undefined) bytes = chunks[0]
  else {
    bytes = new Uint8Array(size)
    let offset = 0
    for (const chunk of chunks) {
      bytes.set(chunk, offset)
      offset += chunk.length
    }
  }
  return decoder.decode(bytes)
}

/** What a body read that broke off after `received` bytes says, with its cause when there is one. */
export const cutShort = (received: number, cause: unknown): string => {
  const detail = describeCause(cause)
  return `${CONNECTION_CLOSED} (${received} bytes of the body received${detail === undefined ? "" : `; ${detail}`})`
}

const collect = (response: HttpClientResponse.HttpClientResponse, maxBytes: number) =>
  Effect.suspend(() => {
    const chunks: Array<Uint8Array> = []
    let size = 0
    let over = false
    return response.stream.pipe(
      Stream.mapError((error) => cutShort(size, error.cause)),
      Stream.runForEachWhile((chunk) => {
        const room = maxBytes - size
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room))
          size = maxBytes
          over = true
          return Effect.succeed(false)
        }
        chunks.push(chunk)
        size += chunk.length
        return Effect.succeed(true)
      }),
      Effect.map((): Collected => ({ text: decodeChunks(chunks, size), over }))
    )
  })

/** An `HttpClientResponse` as an {@link Answer}. */
export const fromResponse = (response: HttpClientResponse.HttpClientResponse): Answer => ({
  status: response.status,
  headers: response.headers,
  forEachChunk: (f) =>
    response.stream.pipe(
      Stream.runForEachWhile((chunk) => Effect.succeed(f(chunk))),
      Effect.mapError(describeHttpError)
    ),
  collect: (maxBytes) => collect(response, maxBytes)
})

/** The body-size failure. */
export const tooLarge = (maxBytes: number) => `the body exceeded the maximum size of ${maxBytes} bytes`

/** The body as text, failing with a reason when it is larger than `maxBytes`. */
export const readBody = (answer: Answer, maxBytes: number): Effect.Effect<string, string> =>
  Effect.flatMap(answer.collect(maxBytes), ({ text, over }) =>
    over ? Effect.fail(tooLarge(maxBytes)) : Effect.succeed(text)
  )

/** The first `maxBytes` of the body as text (for error messages); empty when it cannot be read. */
export const readExcerpt = (answer: Answer, maxBytes: number): Effect.Effect<string> =>
  answer.collect(maxBytes).pipe(
    Effect.map(({ text, over }) => (over ? `${text}…` : text)),
    Effect.orElseSucceed(() => "")
  )

/**
 * An error's message, with its code (`ECONNRESET`) only when the message does not already say it;
 * the failures a person meets first in plain words, the code kept at the end: nothing listening
 * (`ECONNREFUSED`), a host name that does not resolve, and `https://` to a port that speaks plain
 * HTTP (OpenSSL's "wrong version number").
 */
export const describeCause = (cause: unknown): string | undefined => {
  if (!(cause instanceof Error)) return undefined
  const code = "code" in cause && typeof cause.code === "string" ? cause.code : undefined
  const message = cause.message.trim()
  const plain = plainWords(code, message)
  if (plain !== undefined) return plain
  if (message === "") return code
  return code === undefined || message.includes(code) ? message : `${code}: ${message}`
}

const plainWords = (code: string | undefined, message: string): string | undefined => {
  const address = /(?:ECONNREFUSED|ENOTFOUND|EAI_AGAIN)\s+(\S+)/.exec(message)?.[1]
  if (code === "ECONNREFUSED" || message.includes("ECONNREFUSED"))
    return `nothing is listening${address === undefined ? "" : ` at ${address}`}: is the server running, on that port? (ECONNREFUSED)`
  if (code === "ENOTFOUND" || message.includes("ENOTFOUND"))
    return `the host name${address === undefined ? "" : ` ${address}`} does not resolve (ENOTFOUND)`
  if (
    /wrong version number|WRONG_VERSION_NUMBER|packet length too long/i.test(message) ||
    code === "ERR_SSL_WRONG_VERSION_NUMBER"
  )
    return `the server does not speak TLS there: an https:// URL for a plain HTTP port? (try http://) (${code ?? "SSL wrong version number"})`
  return undefined
}

/**
 * An HTTP status and a short view of its body: an HTML page by its title, with a word that
 * this is not an MCP endpoint (a wrong path meets the site's own page), anything else as it
 * begins.
 */
export const statusAnswer = (status: number, body: string): string => {
  const text = body.trim()
  if (/^(<!doctype html|<html|<\?xml)/i.test(text)) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.replace(/\s+/g, " ").trim()
    return `HTTP ${status}, an HTML page${title === undefined || title === "" ? "" : ` titled "${title.slice(0, 80)}"`}: this does not look like an MCP endpoint (is the path right? servers often use /mcp)`
  }
  return `HTTP ${status}${text === "" ? "" : `: ${text.slice(0, 200)}`}`
}

/** What a body stream that broke off says, with its cause when there is one. */
export const closedMidBody = (cause: unknown): string => {
  const detail = describeCause(cause)
  return `${CONNECTION_CLOSED}${detail === undefined ? "" : ` (${detail})`}`
}

/**
 * An HTTP client error as one clause, without the method and URL (the caller names the
 * request): the underlying cause (`connect ECONNREFUSED 127.0.0.1:3000`), said once.
 */
export const describeHttpError = (error: HttpClientError.HttpClientError): string => {
  if (error._tag === "RequestError" && error.reason === "InvalidUrl") return "the URL is invalid"
  if (error._tag === "ResponseError" && error.reason === "Decode") return closedMidBody(error.cause)
  const detail = describeCause(error.cause) ?? error.description
  if (detail !== undefined && detail !== "") return detail
  return error._tag === "ResponseError" ? `${error.reason} (status ${error.response.status})` : error.reason
}

/** The authorization failure, naming the JSON-RPC method of the request it refused. */
export const withMethod = (error: AuthorizationError, method: string | undefined): AuthorizationError =>
  method === undefined || error.method !== undefined
    ? error
    : new AuthorizationError({
        server: error.server,
        step: error.step,
        reason: error.reason,
        method,
        ...(error.oauthError === undefined ? {} : { oauthError: error.oauthError }),
        ...(error.refusal === undefined ? {} : { refusal: error.refusal }),
        ...(error.cause === undefined ? {} : { cause: error.cause })
      })

/**
 * A failed request in one line: `what failed: cause`, or the authorization failure it carries
 * (from the authorizing client) as that failure says it, once (the caller names the server).
 */
export const requestFailure = (what: string, error: HttpClientError.HttpClientError): string =>
  error.cause instanceof AuthorizationError ? error.cause.detail : `${what} failed: ${describeHttpError(error)}`
