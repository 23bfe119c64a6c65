/**
 * The JSON Schema engines: Ajv for 2020-12 and for draft-07, with formats. Imported by
 * `jsonSchema.ts` at the first check (as a module of ours, so that Node and a bundler resolve
 * Ajv's CommonJS exports as they do for a static import).
 */
import { Ajv } from "ajv"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormatsModule from "ajv-formats"

/** 2020-12, the default. */
export const modern: Ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false })
/** draft-07, when a schema says so. */
export const draft07: Ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false })
addFormatsModule.default(modern)
addFormatsModule.default(draft07)
