/**
 * Elicitation: a server asks the user for input, through a form built from a restricted
 * JSON Schema (form mode) or by sending the user to a URL (URL mode, 2025-11-25).
 */
import * as Arbitrary from "effect/Arbitrary"
import * as Schema from "effect/Schema"
import { optional } from "../internal/fields.js"
import { notification, request } from "../internal/messages.js"
import { JsonRpcVersion, RequestId } from "../JsonRpc.js"
import { TaskAugmentedRequestParams } from "./Base.js"
import { Integer, JsonNumber, JsonValue, Meta, recordOf, Uri } from "./Json.js"

const describable = {
  title: optional(Schema.String),
  description: optional(Schema.String)
}

/** A string field. */
export const StringSchema = Schema.Struct({
  type: Schema.Literal("string"),
  ...describable,
  minLength: optional(Integer),
  maxLength: optional(Integer),
  format: optional(Schema.Literal("email", "uri", "date", "date-time")),
  default: optional(Schema.String)
}).annotations({ identifier: "StringSchema" })

/** A number or integer field. */
export const NumberSchema = Schema.Struct({
  type: Schema.Literal("number", "integer"),
  ...describable,
  minimum: optional(JsonNumber),
  maximum: optional(JsonNumber),
  default: optional(JsonNumber)
}).annotations({ identifier: "NumberSchema" })

/** A boolean field. */
export const BooleanSchema = Schema.Struct({
  type: Schema.Literal("boolean"),
  ...describable,
  default: optional(Schema.Boolean)
}).annotations({ identifier: "BooleanSchema" })

/** A single choice among plain values. */
export const UntitledSingleSelectEnumSchema = Schema.Struct({
  type: Schema.Literal("string"),
  ...describable,
  enum: Schema.Array(Schema.String),
  default: optional(Schema.String)
}).annotations({ identifier: "UntitledSingleSelectEnumSchema" })

/** A value with a display title (`const` + `title`). */
const TitledOption = Schema.Struct({ const: Schema.String, title: Schema.String })

/** A single choice among titled values. */
export const TitledSingleSelectEnumSchema = Schema.Struct({
  type: Schema.Literal("string"),
  ...describable,
  oneOf: Schema.Array(TitledOption),
  default: optional(Schema.String)
}).annotations({ identifier: "TitledSingleSelectEnumSchema" })

/** A single choice. */
export const SingleSelectEnumSchema = Schema.Union(
  TitledSingleSelectEnumSchema,
  UntitledSingleSelectEnumSchema
).annotations({ identifier: "SingleSelectEnumSchema" })

const multiSelect = {
  type: Schema.Literal("array"),
  ...describable,
  minItems: optional(Integer),
  maxItems: optional(Integer),
  default: optional(Schema.Array(Schema.String))
}

/** Several choices among plain values. */
export const UntitledMultiSelectEnumSchema = Schema.Struct({
  ...multiSelect,
  items: Schema.Struct({ type: Schema.Literal("string"), enum: Schema.Array(Schema.String) })
}).annotations({ identifier: "UntitledMultiSelectEnumSchema" })

/** Several choices among titled values. */
export const TitledMultiSelectEnumSchema = Schema.Struct({
  ...multiSelect,
  items: Schema.Struct({ anyOf: Schema.Array(TitledOption) })
}).annotations({ identifier: "TitledMultiSelectEnumSchema" })

/** Several choices. */
export const MultiSelectEnumSchema = Schema.Union(
  TitledMultiSelectEnumSchema,
  UntitledMultiSelectEnumSchema
).annotations({ identifier: "MultiSelectEnumSchema" })

/** The pre-2025-11-25 titled enum: `enum` with parallel `enumNames` (deprecated, still accepted). */
export const LegacyTitledEnumSchema = Schema.Struct({
  type: Schema.Literal("string"),
  ...describable,
  enum: Schema.Array(Schema.String),
  enumNames: optional(Schema.Array(Schema.String)),
  default: optional(Schema.String)
}).annotations({ identifier: "LegacyTitledEnumSchema" })

/** Any enumeration field. */
export const EnumSchema = Schema.Union(
  TitledSingleSelectEnumSchema,
  LegacyTitledEnumSchema,
  UntitledSingleSelectEnumSchema,
  TitledMultiSelectEnumSchema,
  UntitledMultiSelectEnumSchema
).annotations({ identifier: "EnumSchema" })

/**
 * Any field of a form. Decoding tries the most specific shape first, so an enum is never
 * mistaken for a plain string field (a legacy enum without `enumNames` and an untitled
 * single-select carry the same members).
 */
export const PrimitiveSchemaDefinition = Schema.Union(
  TitledSingleSelectEnumSchema,
  LegacyTitledEnumSchema,
  UntitledSingleSelectEnumSchema,
  TitledMultiSelectEnumSchema,
  UntitledMultiSelectEnumSchema,
  StringSchema,
  NumberSchema,
  BooleanSchema
).annotations({ identifier: "PrimitiveSchemaDefinition" })

/** The type of {@link PrimitiveSchemaDefinition}. */
export type PrimitiveSchemaDefinition = typeof PrimitiveSchemaDefinition.Type

/** The restricted, flat object schema a form may request. */
export const ElicitationRequestedSchema = Schema.Struct({
  $schema: optional(Schema.String),
  type: Schema.Literal("object"),
  properties: recordOf(PrimitiveSchemaDefinition),
  required: optional(Schema.Array(Schema.String))
}).annotations({ identifier: "ElicitationRequestedSchema" })

/** The type of {@link ElicitationRequestedSchema}. */
export type ElicitationRequestedSchema = typeof ElicitationRequestedSchema.Type

/** Params of a form-mode `elicitation/create` (`mode` may be omitted). */
export const ElicitRequestFormParams = Schema.Struct({
  ...TaskAugmentedRequestParams.fields,
  mode: optional(Schema.Literal("form")),
  message: Schema.String,
  requestedSchema: ElicitationRequestedSchema
}).annotations({ identifier: "ElicitRequestFormParams" })

/** Params of a URL-mode `elicitation/create`. */
export const ElicitRequestURLParams = Schema.Struct({
  ...TaskAugmentedRequestParams.fields,
  mode: Schema.Literal("url"),
  message: Schema.String,
  elicitationId: Schema.String,
  url: Uri
}).annotations({ identifier: "ElicitRequestURLParams" })

/** Params of `elicitation/create`, either mode. */
export const ElicitRequestParams = Schema.Union(ElicitRequestURLParams, ElicitRequestFormParams).annotations({
  identifier: "ElicitRequestParams"
})

/** The type of {@link ElicitRequestParams}. */
export type ElicitRequestParams = typeof ElicitRequestParams.Type

/** `elicitation/create` (server to client) */
export const ElicitRequest = request("elicitation/create", ElicitRequestParams).annotations({
  identifier: "ElicitRequest"
})

/**
 * A submitted form value. The TypeScript schema says `number`; the generated `schema.json`
 * narrows it to `integer`. Decoding accepts any number; the arbitrary draws integers so
 * that encoded results satisfy the stricter oracle.
 */
export const ElicitValue = Schema.Union(
  Schema.Array(Schema.String),
  Schema.String,
  JsonNumber.annotations({ arbitrary: () => (fc) => fc.integer() }),
  Schema.Boolean
)

/** The client's answer to `elicitation/create`. */
export const ElicitResult = Schema.Struct({
  _meta: optional(Meta),
  action: Schema.Literal("accept", "decline", "cancel"),
  content: optional(recordOf(ElicitValue))
}).annotations({ identifier: "ElicitResult" })

/** The type of {@link ElicitResult}. */
export type ElicitResult = typeof ElicitResult.Type

/** `notifications/elicitation/complete`: a URL-mode elicitation finished out of band. */
export const ElicitationCompleteNotification = notification(
  "notifications/elicitation/complete",
  Schema.Struct({ elicitationId: Schema.String })
).annotations({ identifier: "ElicitationCompleteNotification" })

/** The error response (-32042) a server sends when URL-mode elicitation must happen first. */
export const URLElicitationRequiredError = Schema.Struct({
  jsonrpc: JsonRpcVersion,
  id: optional(RequestId),
  error: Schema.Struct({
    code: Schema.Literal(-32042),
    message: Schema.String,
    data: Schema.Struct({ elicitations: Schema.Array(ElicitRequestURLParams) }, recordOf(JsonValue)).annotations({
      // Built from the declared member only, so random extra keys never shadow `elicitations`.
      arbitrary: () => (fc) =>
        fc.record({ elicitations: fc.array(Arbitrary.make(ElicitRequestURLParams), { maxLength: 2 }) })
    })
  })
}).annotations({ identifier: "URLElicitationRequiredError" })
