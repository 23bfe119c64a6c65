/**
 * What a user pastes when the browser cannot reach the CLI's loopback listener (another
 * machine, a container): the whole address the browser was sent to, its query alone, or
 * `CODE#STATE` as some authorization servers show it, each carrying the `state` the authorizer
 * checks; or a code alone, which carries none (the authorizer takes it only where PKCE binds it).
 */
import * as Either from "effect/Either"

const WHOLE_ADDRESS = "paste the whole address the browser was sent to"

/** The parameters a pasted line carries, if it has the form of a redirect. */
const paramsOf = (line: string): URLSearchParams | undefined => {
  if (/^https?:\/\//i.test(line)) return URL.canParse(line) ? new URL(line).searchParams : undefined
  if (line.includes("=")) return new URLSearchParams(line.replace(/^\?/, ""))
  const hash = line.indexOf("#")
  if (hash > 0 && hash < line.length - 1 && !/[#\s]/.test(line.slice(hash + 1)))
    return new URLSearchParams({ code: line.slice(0, hash), state: line.slice(hash + 1) })
  return undefined
}

/** What a pasted line is: a redirect's parameters, or a code alone. */
export type Pasted =
  | { readonly _tag: "Redirect"; readonly params: URLSearchParams }
  | { readonly _tag: "Code"; readonly code: string }

/** What a pasted line is, or why it is neither a redirect nor a code. */
export const parsePasted = (text: string): Either.Either<Pasted, string> => {
  const line = text.trim()
  const params = paramsOf(line)
  if (params !== undefined && (params.has("code") || params.has("error")))
    return Either.right({ _tag: "Redirect", params })
  // A code: visible ASCII (RFC 6749's VSCHAR) without blanks, long enough not to be a stray word.
  if (params === undefined && line.length >= 8 && /^[\x21-\x7e]+$/.test(line) && !line.includes("#"))
    return Either.right({ _tag: "Code", code: line })
  return Either.left(`that is not where the browser was sent (no code in it); ${WHOLE_ADDRESS}`)
}
