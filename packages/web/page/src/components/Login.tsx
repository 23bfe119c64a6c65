/**
 * A server waits for the user to log in (OAuth): a banner with the authorization server's address
 * as a link that opens in a new tab (http and https only). The authorization server sends the
 * browser back to the page's /oauth/callback; the banner goes when the host says it is settled.
 */
import type { AuthorizationRequest } from "../../../src/Api.js"

/** The address when it is http or https, else nothing (a `javascript:` address is never a link). */
export const safeUrl = (url: string): string | undefined => {
  try {
    const u = new URL(url)
    return u.protocol === "https:" || u.protocol === "http:" ? u.href : undefined
  } catch {
    return undefined
  }
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host
  } catch {
    return url
  }
}

export function LoginBanner(props: { readonly requests: ReadonlyArray<AuthorizationRequest> }) {
  if (props.requests.length === 0) return null
  return (
    <>
      {props.requests.map((r) => {
        const href = safeUrl(r.url)
        return (
          <section key={r.id} className="banner login-banner" aria-label={`${r.server} asks you to log in`}>
            <p>
              <strong>{r.server} asks you to log in</strong>{" "}
              <span className="muted">at {hostOf(r.url)}. It connects once you have.</span>
            </p>
            {href !== undefined ? (
              <a className="button primary small" href={href} target="_blank" rel="noopener noreferrer">
                Log in
              </a>
            ) : (
              <p className="error-text">The login address is not http or https and is not opened: {r.url}</p>
            )}
          </section>
        )
      })}
    </>
  )
}
