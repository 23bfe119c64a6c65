/**
 * JSON Schema validation for schemas that arrive on the wire (a tool's `inputSchema` or
 * `outputSchema`, an elicitation's `requestedSchema`): 2020-12 by default, draft-07 when the
 * schema says so; compiled validators are cached per schema object. The validator (Ajv) is
 * imported by the first validation, not when the program starts.
 *
 * @since 0.1.0
 */
export {
  /**
   * Validates a value: `undefined` when it matches, else a short description of what does not.
   *
   * @since 0.1.0
   * @category validation
   */
  validate
} from "./internal/features/jsonSchema.js"
