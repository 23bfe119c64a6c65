/**
 * Checks one typed answer of an elicitation form against its field, so that a bad answer is
 * asked again with the reason at once instead of failing the whole form at the end: type
 * (number, integer), string length and format (email, uri, date, date-time), numeric range.
 */
import type { McpSchema } from "@effect-mcp/protocol"
import * as Either from "effect/Either"

type Field = McpSchema.PrimitiveSchemaDefinition

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})$/

const validDate = (text: string): boolean => {
  const match = DATE.exec(text)
  if (match === null) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

const formatProblem = (format: "email" | "uri" | "date" | "date-time", text: string): string | undefined => {
  switch (format) {
    case "email":
      return EMAIL.test(text) ? undefined : "enter an email address (name@example.com)"
    case "uri":
      return URL.canParse(text) ? undefined : "enter a URI (https://example.com/…)"
    case "date":
      return validDate(text) ? undefined : "enter a date as YYYY-MM-DD"
    case "date-time":
      return DATE_TIME.test(text) && !Number.isNaN(Date.parse(text)) && validDate(text.slice(0, 10))
        ? undefined
        : "enter a date and time as YYYY-MM-DDThh:mm:ssZ"
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
  if ("minLength" in field && field.minLength !== undefined && text.length < field.minLength)
    return Either.left(`enter at least ${field.minLength} characters`)
  if ("maxLength" in field && field.maxLength !== undefined && text.length > field.maxLength)
    return Either.left(`enter at most ${field.maxLength} characters`)
  if ("format" in field && field.format !== undefined) {
    const problem = formatProblem(field.format, text)
    if (problem !== undefined) return Either.left(problem)
  }
  return Either.right(text)
}
