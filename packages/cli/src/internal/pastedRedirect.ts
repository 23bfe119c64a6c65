/**
 * What a user pastes when the browser cannot reach the CLI's loopback listener (another
 * machine, a container): the whole address the browser was sent to, its query alone, or
 * `CODE#STATE` as some authorization servers show it. Each carries the `state`, which the
 * authorizer checks; a code alone is refused, since nothing would tie it to this authorization.
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

/** The redirect's parameters from a pasted line, or why the line is not one. */
export const parsePasted = (text: string): Either.Either<URLSearchParams, string> => {
  const line = text.trim()
  const params = paramsOf(line)
  if (params !== undefined && (params.has("code") || params.has("error"))) return Either.right(params)
  if (params === undefined && /^[\w.~+/-]+$/.test(line))
    return Either.left(`a code alone cannot be checked against this authorization; ${WHOLE_ADDRESS}`)
  return Either.left(`that is not where the browser was sent (no code in it); ${WHOLE_ADDRESS}`)
}
