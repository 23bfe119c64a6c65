/**
 * A faster route for the requests of the Streamable HTTP transport than the `HttpClient` (Node's
 * own `http` client: `@effect-mcp/node`'s `NodeHttpTransport`), given to the transport as an
 * argument (`StreamableHttpTransport.makeWithRoute`, `HttpTransport.makeWithRoute`): POSTs in
 * plain callbacks (no fiber per request), GET streams read chunk by chunk. The transport goes
 * through its `HttpClient` whenever the route declines: while authorization is in charge.
 */
import type * as Either from "effect/Either"
import type { Refusal } from "../../auth/OAuthSession.js"
import type { Answer, Collected } from "./httpBody.js"

/** An answer that came over a route: an {@link Answer} that can also be read with callbacks. */
export interface RouteAnswer extends Answer {
  /**
   * Reads the body, at most `maxBytes` of it (`over` when there was more: the rest is not read),
   * and calls `done` once: with the text, or with why the body broke off.
   */
  readonly read: (maxBytes: number, done: (result: Either.Either<Collected, string>) => void) => void
  /** Reads and drops the body (an empty one, as with 202), so its connection serves the next request. */
  readonly drain: () => void
  /** Done with the answer: a body the connection has not received in full is cut off, with the connection. */
  readonly release: () => void
}

/** What becomes of a request; each is called at most once, and never before `request` returned. */
export interface RouteHandlers {
  readonly onAnswer: (answer: RouteAnswer) => void
  /** The request failed before any answer; `cause` is the platform's error. */
  readonly onError: (cause: unknown) => void
  /** The server refused the request (401 or 403) and authorization takes over: send it again through the `HttpClient` (the flow runs first). */
  readonly onRefused: () => void
}

/** A route for the Streamable HTTP transport's requests, around its `HttpClient`. */
export interface HttpRoute {
  /**
   * Starts a request (a POST carries the JSON `body`); returns what aborts it, or `undefined`
   * when it must go through the `HttpClient` instead (nothing was sent).
   */
  readonly request: (
    method: "GET" | "POST",
    url: string,
    headers: Readonly<Record<string, string>>,
    body: string | undefined,
    handlers: RouteHandlers
  ) => (() => void) | undefined
}

/** What authorization says about a request that would go around it. */
export interface Gate {
  /** Whether a request to `url` would go out as it is: no credentials for it, and no refusal seen. */
  readonly bare: (url: string) => boolean
  /**
   * A request that went around was refused: from now on requests go through authorization, and
   * the next one answers this refusal (runs the flow) before it is sent.
   */
  readonly refused: (refusal: Refusal) => void
}

/**
 * Whether authorization takes over an answer: a 401, or a 403 asking for more scope (any other
 * 403 is the request's own answer, as the OAuth flow would leave it).
 */
const isChallenge = (answer: RouteAnswer): boolean =>
  answer.status === 401 ||
  (answer.status === 403 && /insufficient_scope/i.test(answer.headers["www-authenticate"] ?? ""))

/** The route, declining requests that authorization must see, and handing refusals back to it. */
export const gated = (route: HttpRoute, gate: Gate): HttpRoute => ({
  request: (method, url, headers, body, handlers) =>
    gate.bare(url)
      ? route.request(method, url, headers, body, {
          onAnswer: (answer) => {
            if (!isChallenge(answer)) return handlers.onAnswer(answer)
            gate.refused({
              status: answer.status,
              wwwAuthenticate: answer.headers["www-authenticate"],
              dpopNonce: answer.headers["dpop-nonce"]
            })
            answer.drain()
            handlers.onRefused()
          },
          onError: handlers.onError,
          onRefused: handlers.onRefused
        })
      : undefined
})
