/**
 * How `auth` commands describe authorizations: rows for people (issuer, client, scopes, expiry,
 * refresh token), an object for `--json`, and what a logout did. Never a token or a secret: a
 * `Summary` has none.
 */
import type { Authorizations } from "@effect-mcp/client"
import * as Option from "effect/Option"

/** A span of time in the largest unit that says it (`45 s`, `12 min`, `3 h`, `2 days`). */
const span = (ms: number): string => {
  const seconds = Math.round(Math.abs(ms) / 1000)
  if (seconds < 90) return `${seconds} s`
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`
  if (seconds < 48 * 3600) return `${Math.round(seconds / 3600)} h`
  return `${Math.round(seconds / 86400)} days`
}

/** Whether the access token has expired at `now`. */
const expired = (summary: Authorizations.Summary, now: number) => Option.exists(summary.expiresAt, (at) => at <= now)

/** Whether a server would accept the authorization: a live access token, or a refresh token for a new one. */
export const isAuthorized = (summary: Authorizations.Summary, now: number): boolean =>
  !expired(summary, now) || summary.refreshToken

/** When the access token expires, in words. */
const expiry = (summary: Authorizations.Summary, now: number): string =>
  Option.match(summary.expiresAt, {
    onNone: () => "not said by the authorization server",
    onSome: (at) =>
      at > now
        ? `in ${span(at - now)} (${new Date(at).toISOString()})`
        : `expired ${span(now - at)} ago (${new Date(at).toISOString()})`
  })

/** The rows that describe an authorization. */
export const summaryRows = (summary: Authorizations.Summary, now: number): ReadonlyArray<readonly [string, string]> => [
  ["issuer", summary.issuer],
  ["client", summary.clientId],
  ["scopes", summary.scopes.length === 0 ? "(none named)" : summary.scopes.join(" ")],
  ["expires", expiry(summary, now)],
  ["refresh token", summary.refreshToken ? "yes" : "no"]
]

/** An authorization as JSON. */
export const summaryJson = (summary: Authorizations.Summary, now: number) => ({
  resource: summary.resource,
  issuer: summary.issuer,
  clientId: summary.clientId,
  scopes: summary.scopes,
  expiresAt: Option.getOrNull(Option.map(summary.expiresAt, (at) => new Date(at).toISOString())),
  expired: expired(summary, now),
  refreshToken: summary.refreshToken
})

const TOKEN_NAMES = { refresh_token: "refresh token", access_token: "access token" } as const

/** What a logout did, a line each, and the reasons of the revocations that failed. */
export const describeRevocation = (
  done: Authorizations.LoggedOut
): { readonly lines: ReadonlyArray<string>; readonly failures: ReadonlyArray<string> } => {
  const { revocation } = done
  const client = done.clientRemoved ? ["client registration removed"] : []
  switch (revocation._tag) {
    case "NotOffered":
      return {
        lines: ["the authorization server offers no revocation; tokens removed here", ...client],
        failures: []
      }
    case "Unavailable":
      return {
        lines: [`revocation failed: ${revocation.reason}`, "tokens removed here", ...client],
        failures: [revocation.reason]
      }
    case "Attempted": {
      const failed = revocation.tokens.filter((token) => !token.revoked)
      return {
        lines: [
          ...revocation.tokens.map((token) =>
            token.revoked
              ? `${TOKEN_NAMES[token.token]} revoked`
              : `${TOKEN_NAMES[token.token]} not revoked: ${token.reason ?? "refused"}`
          ),
          "tokens removed here",
          ...client
        ],
        failures: failed.map((token) => `${TOKEN_NAMES[token.token]}: ${token.reason ?? "refused"}`)
      }
    }
  }
}
