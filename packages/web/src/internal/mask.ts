/**
 * Secrets out of what the page shows: text under names that hold secrets (`token`, `secret`,
 * `password`, `apiKey`, `authorization`, `cookie`, `credential`, …; not `progressToken`), and any
 * value the host was given as a secret (a header's or an environment variable's value) wherever it
 * appears in a text.
 */

/** What stands in for a masked value. */
export const MASK = "[masked]"

const SECRET_NAME = /token|secret|password|passwd|api[-_]?key|authorization|cookie|credential|session[-_]?id/i

/** A function that copies a JSON value with its secrets masked. Values shorter than 6 characters are not looked for. */
export const masker = (secrets: ReadonlyArray<string>): ((value: unknown) => unknown) => {
  const known = [...new Set(secrets.filter((secret) => secret.length >= 6))].sort((a, b) => b.length - a.length)
  const text = (value: string) => known.reduce((masked, secret) => masked.split(secret).join(MASK), value)
  const mask = (value: unknown): unknown => {
    if (typeof value === "string") return known.length === 0 ? value : text(value)
    if (Array.isArray(value)) return value.map(mask)
    if (typeof value !== "object" || value === null) return value
    return Object.fromEntries(
      Object.entries(value).map(([key, member]) => [
        key,
        typeof member === "string" && SECRET_NAME.test(key) && key !== "progressToken" ? MASK : mask(member)
      ])
    )
  }
  return mask
}
