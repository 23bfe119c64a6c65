/**
 * Reading HTTP bodies with a size limit, so a huge or endless body is an error, not memory;
 * HTTP client errors in one clause; the endpoint URL checked before anything is sent.
 */
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { AuthorizationError } from "../../auth/AuthError.js"
import { TransportError } from "../../McpError.js"

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

const collect = (response: HttpClientResponse.HttpClientResponse, maxBytes: number) =>
  Effect.gen(function* () {
    const chunks: Array<Uint8Array> = []
    let size = 0
    let over = false
    yield* response.stream.pipe(
      Stream.mapError((error) => `${CONNECTION_CLOSED} (${size} bytes of the body received${causeDetail(error)})`),
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
      })
    )
    const bytes = new Uint8Array(size)
    let offset = 0
    for (const chunk of chunks) {
      bytes.set(chunk, offset)
      offset += chunk.length
    }
    return { text: new TextDecoder().decode(bytes), over }
  })

/** The body as text, failing with a reason when it is larger than `maxBytes`. */
export const readBody = (
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number
): Effect.Effect<string, string> =>
  Effect.flatMap(collect(response, maxBytes), ({ text, over }) =>
    over ? Effect.fail(`the body exceeded the maximum size of ${maxBytes} bytes`) : Effect.succeed(text)
  )

/** The first `maxBytes` of the body as text (for error messages); empty when it cannot be read. */
export const readExcerpt = (response: HttpClientResponse.HttpClientResponse, maxBytes: number): Effect.Effect<string> =>
  collect(response, maxBytes).pipe(
    Effect.map(({ text, over }) => (over ? `${text}…` : text)),
    Effect.orElseSucceed(() => "")
  )

/** `; cause` for a body read that broke off, or nothing. */
const causeDetail = (error: HttpClientError.HttpClientError): string => {
  const text = errorText(error.cause)
  return text === undefined ? "" : `; ${text}`
}

/** An error's message, with its code (`ECONNRESET`) only when the message does not already say it. */
const errorText = (cause: unknown): string | undefined => {
  if (!(cause instanceof Error)) return undefined
  const code = "code" in cause && typeof cause.code === "string" ? cause.code : undefined
  const message = cause.message.trim()
  if (message === "") return code
  return code === undefined || message.includes(code) ? message : `${code}: ${message}`
}

/**
 * An HTTP client error as one clause, without the method and URL (the caller names the
 * request): the underlying cause (`connect ECONNREFUSED 127.0.0.1:3000`), said once.
 */
export const describeHttpError = (error: HttpClientError.HttpClientError): string => {
  if (error._tag === "RequestError" && error.reason === "InvalidUrl") return "the URL is invalid"
  if (error._tag === "ResponseError" && error.reason === "Decode") {
    const detail = errorText(error.cause)
    return `${CONNECTION_CLOSED}${detail === undefined ? "" : ` (${detail})`}`
  }
  const detail = errorText(error.cause) ?? error.description
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
