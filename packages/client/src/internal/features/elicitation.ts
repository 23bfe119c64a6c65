/**
 * Form-mode elicitation results: the requested schema's defaults fill omitted fields of
 * accepted content, and the content is checked against the schema before it is sent.
 */
import type { McpSchema } from "@effect-mcp/protocol"
import type * as Effect from "effect/Effect"
import { validate } from "./jsonSchema.js"

/** Fills the defaults of omitted fields; returns the content to check. */
export const withDefaults = (
  schema: McpSchema.ElicitationRequestedSchema,
  content: McpSchema.ElicitResult["content"]
): NonNullable<McpSchema.ElicitResult["content"]> => {
  const filled: Record<string, NonNullable<McpSchema.ElicitResult["content"]>[string]> = { ...content }
  for (const [name, field] of Object.entries(schema.properties)) {
    if (filled[name] === undefined && field.default !== undefined) filled[name] = field.default
  }
  return filled
}

/** Checks accepted content against the requested schema; a description of the problem, or `undefined`. */
export const check = (
  schema: McpSchema.ElicitationRequestedSchema,
  content: NonNullable<McpSchema.ElicitResult["content"]>
): Effect.Effect<string | undefined> => validate(schema, content)
