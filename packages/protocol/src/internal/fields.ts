import * as Schema from "effect/Schema"

/**
 * An optional wire field: absent or present with a value, never `undefined`
 * (matches `exactOptionalPropertyTypes` and JSON, which has no `undefined`).
 */
export const optional = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })
