/**
 * Checks one typed answer of an elicitation form against its field, so that a bad answer is
 * asked again with the reason at once instead of failing the whole form at the end: type
 * (number, integer), string length and format (email, uri, date, date-time), numeric range,
 * each as strictly as a server checks it.
 */
import type { McpSchema } from "@effect-mcp/protocol"
import * as Either from "effect/Either"

type Field = McpSchema.PrimitiveSchemaDefinition

// As strict as the servers' own check (ajv-formats, which the official SDKs use, in its full
// mode): an answer taken here is never refused there.
// RFC 5322's dot-atom at a host name: letters, digits and !#$%&'*+/=?^_`{|}~- in dotted parts.
const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
// RFC 3339: seconds and a time zone are not optional.
const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:z|[+-](\d{2}):?(\d{2}))$/i
// An absolute URI (RFC 3986): a scheme, a part after it that is not empty and starts with no `?`
// or `#`, brackets only around an IP literal host, only the characters a URI may hold, `%`
// escapes whole, one `#` at most.
const URI =
  /^[a-z][a-z0-9+.-]*:(?=[a-z0-9\-._~!$&'()*+,;=:@/%])(?:\/\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?\[[0-9a-f:.]+\])?(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*(?:#(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?$/i

const validDate = (text: string): boolean => {
  const match = DATE.exec(text)
  if (match === null) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

const validTime = (text: string): boolean => {
  const match = TIME.exec(text)
  if (match === null) return false
  const [hour = 0, minute = 0, second = 0, zoneHour = 0, zoneMinute = 0] = match
    .slice(1)
    .map((part) => Number(part ?? 0))
  return hour <= 23 && minute <= 59 && second <= 59 && zoneHour <= 23 && zoneMinute <= 59
}

const formatProblem = (format: "email" | "uri" | "date" | "date-time", text: string): string | undefined => {
  switch (format) {
    case "email":
      return EMAIL.test(text) ? undefined : "enter an email address (name@example.com)"
    case "uri":
      return URI.test(text) && URL.canParse(text) ? undefined : "enter a URI (https://example.com/…)"
    case "date":
      return validDate(text) ? undefined : "enter a date as YYYY-MM-DD"
    case "date-time": {
      const parts = text.split(/[Tt ]/)
      return parts.length === 2 && validDate(parts[0] ?? "") && validTime(parts[1] ?? "")
        ? undefined
        : "enter a date and time as YYYY-MM-DDThh:mm:ssZ"
    }
  }
}

/**
 * The value of a text answer for a string, number or integer field, or why it is not
 * acceptable. An empty answer is `undefined` (left out) when the field is optional.
 */
export const checkText = (
  field: Field,
  text: string,
  required: boolean
): Either.Either<string | number | undefined, string> => {
  if (text === "") return required ? Either.left("a value is required") : Either.right(undefined)
  if (field.type === "number" || field.type === "integer") {
    const value = Number(text.trim())
    if (text.trim() === "" || !Number.isFinite(value))
      return Either.left(field.type === "integer" ? "enter a whole number" : "enter a number")
    if (field.type === "integer" && !Number.isInteger(value)) return Either.left("enter a whole number")
    if ("minimum" in field && field.minimum !== undefined && value < field.minimum)
      return Either.left(`enter at least ${field.minimum}`)
    if ("maximum" in field && field.maximum !== undefined && value > field.maximum)
      return Either.left(`enter at most ${field.maximum}`)
    return Either.right(value)
  }
  if (field.type !== "string") return Either.right(text)
  // Lengths in characters (code points), as JSON Schema counts them: an emoji is one.
  const length = [...text].length
  if ("minLength" in field && field.minLength !== undefined && length < field.minLength)
    return Either.left(`enter at least ${field.minLength} characters`)
  if ("maxLength" in field && field.maxLength !== undefined && length > field.maxLength)
    return Either.left(`enter at most ${field.maxLength} characters`)
  if ("format" in field && field.format !== undefined) {
    const problem = formatProblem(field.format, text)
    if (problem !== undefined) return Either.left(problem)
  }
  return Either.right(text)
}
