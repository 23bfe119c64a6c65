/**
 * The HTTP requests of the OAuth flow, never carrying the MCP access token: metadata GETs with
 * a size limit and a time limit that follow redirects only within the same origin, and form
 * POSTs to token and registration endpoints whose JSON answers are decoded by Schemas.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { fromResponse, readBody } from "../../internal/transport/httpBody.js"
import { AuthorizationError, type AuthStep } from "../AuthError.js"
import { ErrorResponse } from "../Metadata.js"

/** Limits of every request of the flow. */
export interface Limits {
  readonly maxBytes: number
  readonly timeout: Duration.Duration
}

const MAX_REDIRECTS = 3

/** What the requests need: the client (without authorization), the server's name, the limits. */
export interface Requester {
  readonly client: HttpClient.HttpClient
  readonly server: string
  readonly limits: Limits
}

const fail = (
  requester: Requester,
  step: AuthStep,
  reason: string,
  extra: { oauthError?: string; cause?: unknown } = {}
) => new AuthorizationError({ server: requester.server, step, reason, ...extra })

/** Runs a request to its response within the time limit (in the caller's scope). */
const execute = (requester: Requester, step: AuthStep, request: HttpClientRequest.HttpClientRequest) =>
  requester.client.execute(request).pipe(
    Effect.mapError((cause) => fail(requester, step, `${request.method} ${request.url} failed`, { cause })),
    Effect.timeoutFail({
      duration: requester.limits.timeout,
      onTimeout: () =>
        fail(
          requester,
          step,
          `${request.method} ${request.url} took longer than ${Duration.format(requester.limits.timeout)}`
        )
    })
  )

const bodyOf = (requester: Requester, step: AuthStep, url: string, response: HttpClientResponse.HttpClientResponse) =>
  readBody(fromResponse(response), requester.limits.maxBytes).pipe(
    Effect.mapError((reason) => fail(requester, step, `${url}: ${reason}`)),
    Effect.timeoutFail({
      duration: requester.limits.timeout,
      onTimeout: () =>
        fail(requester, step, `${url}: the body took longer than ${Duration.format(requester.limits.timeout)}`)
    })
  )

const parseJson = (requester: Requester, step: AuthStep, url: string, text: string) =>
  Effect.try({
    try: (): unknown => JSON.parse(text),
    catch: () => fail(requester, step, `${url} did not answer with JSON`)
  })

/**
 * GETs a metadata document: `None` when the server has none there (any status but 200 after
 * same-origin redirects), the decoded document at 200, a failure for a redirect to another
 * origin, an oversize or slow body, or a document the Schema refuses.
 */
export const getDocument = <A, I>(
  requester: Requester,
  step: AuthStep,
  url: string,
  schema: Schema.Schema<A, I>
): Effect.Effect<Option.Option<A>, AuthorizationError> =>
  Effect.scoped(
    Effect.gen(function* () {
      let current = url
      for (let hop = 0; ; hop++) {
        const response = yield* execute(
          requester,
          step,
          HttpClientRequest.get(current).pipe(HttpClientRequest.setHeader("accept", "application/json"))
        )
        if (response.status >= 300 && response.status < 400 && response.headers.location !== undefined) {
          const next = new URL(response.headers.location, current)
          if (next.origin !== new URL(current).origin)
            return yield* fail(requester, step, `${url} redirected to another origin (${next.origin}); not followed`)
          if (hop >= MAX_REDIRECTS)
            return yield* fail(requester, step, `${url} redirected more than ${MAX_REDIRECTS} times`)
          current = next.href
          continue
        }
        if (response.status !== 200) return Option.none()
        const json = yield* parseJson(requester, step, current, yield* bodyOf(requester, step, current, response))
        const decoded = yield* Schema.decodeUnknown(schema)(json).pipe(
          Effect.mapError((cause) => fail(requester, step, `${current} is not a valid metadata document`, { cause }))
        )
        return Option.some(decoded)
      }
    })
  )

/** The first document found at these URLs, in order, with the URL it came from. */
export const firstDocument = <A, I>(
  requester: Requester,
  step: AuthStep,
  urls: ReadonlyArray<string>,
  schema: Schema.Schema<A, I>
): Effect.Effect<Option.Option<{ readonly url: string; readonly document: A }>, AuthorizationError> =>
  Effect.gen(function* () {
    for (const url of urls) {
      const found = yield* getDocument(requester, step, url, schema)
      if (Option.isSome(found)) return Option.some({ url, document: found.value })
    }
    return Option.none()
  })

/** The form body of a request, from defined values only. */
export const form = (fields: { readonly [name: string]: string | undefined }): Record<string, string> =>
  Object.fromEntries(Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined))

const errorBody = (text: string) =>
  Option.getOrUndefined(Schema.decodeUnknownOption(Schema.parseJson(ErrorResponse))(text))

/** The failure for an error answer: its status, and its OAuth error code and description when it has them. */
const refused = (
  requester: Requester,
  step: AuthStep,
  url: string,
  status: number,
  error: typeof ErrorResponse.Type | undefined
) =>
  fail(
    requester,
    step,
    error === undefined
      ? `${url} answered ${status}`
      : `${url} answered ${status} ${error.error}${error.error_description === undefined ? "" : `: ${error.error_description}`}`,
    error === undefined ? {} : { oauthError: error.error }
  )

/**
 * POSTs a form to an OAuth endpoint whose success has no body to read (revocation, RFC 7009
 * §2.2: any 2xx); an error answer becomes a failure carrying the OAuth error code.
 */
export const postForm = (
  requester: Requester,
  step: AuthStep,
  url: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {}
): Effect.Effect<void, AuthorizationError> =>
  Effect.scoped(
    Effect.gen(function* () {
      const request = HttpClientRequest.post(url).pipe(
        HttpClientRequest.setHeaders({ accept: "application/json", ...headers }),
        HttpClientRequest.bodyUrlParams(fields)
      )
      const response = yield* execute(requester, step, request)
      const text = yield* bodyOf(requester, step, url, response)
      if (response.status < 200 || response.status >= 300)
        return yield* refused(requester, step, url, response.status, errorBody(text))
    })
  )

/** DPoP at a token endpoint: a proof per attempt, and the server's latest nonce (RFC 9449 §8). */
export interface DpopAtEndpoint {
  readonly proof: (nonce: string | undefined) => Effect.Effect<string>
  readonly nonce: string | undefined
}

/** A decoded answer, and the DPoP nonce to send next time (the server's latest, else the one sent). */
export interface Answered<A> {
  readonly value: A
  readonly nonce: string | undefined
}

/**
 * POSTs to an OAuth endpoint (a form, or JSON for registration) and decodes a 2xx answer;
 * an error answer becomes a failure carrying the OAuth error code and description. With
 * `dpop`, each attempt carries a fresh proof, and a `use_dpop_nonce` answer is retried once
 * with the nonce the server sent.
 */
export const postWithNonce = <A, I>(
  requester: Requester,
  step: AuthStep,
  url: string,
  body: { readonly form: Record<string, string> } | { readonly json: unknown },
  schema: Schema.Schema<A, I>,
  headers: Record<string, string> = {},
  dpop?: DpopAtEndpoint
): Effect.Effect<Answered<A>, AuthorizationError> =>
  Effect.scoped(
    Effect.gen(function* () {
      let nonce = dpop?.nonce
      for (let attempt = 0; ; attempt++) {
        const proof = dpop === undefined ? undefined : yield* dpop.proof(nonce)
        const base = HttpClientRequest.post(url).pipe(
          HttpClientRequest.setHeaders({
            accept: "application/json",
            ...headers,
            ...(proof === undefined ? {} : { dpop: proof })
          })
        )
        const request =
          "form" in body
            ? HttpClientRequest.bodyUrlParams(base, body.form)
            : HttpClientRequest.bodyText(base, JSON.stringify(body.json), "application/json")
        const response = yield* execute(requester, step, request)
        const sent = response.headers["dpop-nonce"]
        if (dpop !== undefined && sent !== undefined && sent !== "") nonce = sent
        const text = yield* bodyOf(requester, step, url, response)
        if (response.status < 200 || response.status >= 300) {
          const error = errorBody(text)
          if (dpop !== undefined && attempt === 0 && error?.error === "use_dpop_nonce" && sent !== undefined) continue
          return yield* refused(requester, step, url, response.status, error)
        }
        const json = yield* parseJson(requester, step, url, text)
        const value = yield* Schema.decodeUnknown(schema)(json).pipe(
          Effect.mapError((cause) => fail(requester, step, `${url} answered with an unexpected document`, { cause }))
        )
        return { value, nonce }
      }
    })
  )

/** {@link postWithNonce} without DPoP: the decoded answer. */
export const post = <A, I>(
  requester: Requester,
  step: AuthStep,
  url: string,
  body: { readonly form: Record<string, string> } | { readonly json: unknown },
  schema: Schema.Schema<A, I>,
  headers: Record<string, string> = {}
): Effect.Effect<A, AuthorizationError> =>
  Effect.map(postWithNonce(requester, step, url, body, schema, headers), (answered) => answered.value)
