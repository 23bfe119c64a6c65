/**
 * `WWW-Authenticate` challenges (RFC 9110 §11.6.1, RFC 6750 §3): the scheme and its
 * parameters, with quoted strings and escapes. MCP reads `resource_metadata` (RFC 9728),
 * `scope` and `error` of the `Bearer` challenge.
 */

/** One challenge: its scheme (lowercase) and parameters (names lowercase). */
export interface Challenge {
  readonly scheme: string
  readonly params: { readonly [name: string]: string }
}

const TOKEN = /[!#$%&'*+\-.^_`|~0-9A-Za-z]+/y
const SPACE = /[ \t]*/y

/** Every challenge in a header value; malformed parts are skipped, never thrown on. */
export const parse = (header: string): ReadonlyArray<Challenge> => {
  const challenges: Array<{ scheme: string; params: Record<string, string> }> = []
  let at = 0
  const skipSpace = () => {
    SPACE.lastIndex = at
    SPACE.exec(header)
    at = SPACE.lastIndex
  }
  const token = (): string | undefined => {
    TOKEN.lastIndex = at
    const match = TOKEN.exec(header)
    if (match === null) return undefined
    at = TOKEN.lastIndex
    return match[0]
  }
  const quoted = (): string => {
    let value = ""
    at += 1
    while (at < header.length && header[at] !== '"') {
      if (header[at] === "\\" && at + 1 < header.length) at += 1
      value += header[at]
      at += 1
    }
    at += 1
    return value
  }
  while (at < header.length) {
    skipSpace()
    if (header[at] === ",") {
      at += 1
      continue
    }
    const word = token()
    if (word === undefined) {
      at += 1
      continue
    }
    skipSpace()
    if (header[at] === "=" && challenges.length > 0) {
      // A parameter of the current challenge.
      at += 1
      skipSpace()
      const value = header[at] === '"' ? quoted() : (token() ?? "")
      const current = challenges[challenges.length - 1]
      // Defined, not assigned: a parameter named `__proto__` is a parameter like any other.
      if (current !== undefined)
        Object.defineProperty(current.params, word.toLowerCase(), {
          value,
          enumerable: true,
          writable: true,
          configurable: true
        })
      continue
    }
    challenges.push({ scheme: word.toLowerCase(), params: {} })
  }
  return challenges
}

/** The Bearer (or DPoP) challenge's parameters, if there is one. */
export const bearer = (header: string | undefined): Challenge["params"] | undefined => {
  if (header === undefined) return undefined
  const challenges = parse(header)
  return (challenges.find((challenge) => challenge.scheme === "bearer") ?? challenges.find((c) => c.scheme === "dpop"))
    ?.params
}

/** Scopes as a set, from a space-separated string. */
export const scopes = (value: string | undefined): ReadonlyArray<string> =>
  value === undefined ? [] : value.split(/\s+/).filter((scope) => scope !== "")
