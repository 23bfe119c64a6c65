/** Completion: argument suggestions for prompts and resource templates. */
import * as Schema from "effect/Schema"
import { optional } from "../internal/fields.js"
import { request } from "../internal/messages.js"
import { RequestParams } from "./Base.js"
import { Integer, Meta, recordOf, UriTemplate } from "./Json.js"
import { PromptReference } from "./Prompts.js"

/** Identifies a resource template (completion references). */
export const ResourceTemplateReference = Schema.Struct({
  type: Schema.Literal("ref/resource"),
  uri: UriTemplate
}).annotations({ identifier: "ResourceTemplateReference" })

/** Params of `completion/complete`. */
export const CompleteRequestParams = Schema.Struct({
  ...RequestParams.fields,
  ref: Schema.Union(PromptReference, ResourceTemplateReference),
  argument: Schema.Struct({ name: Schema.String, value: Schema.String }),
  context: optional(Schema.Struct({ arguments: optional(recordOf(Schema.String)) }))
}).annotations({ identifier: "CompleteRequestParams" })

/** `completion/complete` */
export const CompleteRequest = request("completion/complete", CompleteRequestParams).annotations({
  identifier: "CompleteRequest"
})

/** The result of `completion/complete` (at most 100 values). */
export const CompleteResult = Schema.Struct({
  _meta: optional(Meta),
  completion: Schema.Struct({
    values: Schema.Array(Schema.String).pipe(Schema.maxItems(100)),
    total: optional(Integer),
    hasMore: optional(Schema.Boolean)
  })
}).annotations({ identifier: "CompleteResult" })
