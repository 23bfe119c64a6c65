/**
 * Mutated messages: take a valid encoded value of a definition, break one required member
 * somewhere in it (remove it, or give it a value of the wrong type), and check that decoding
 * fails with an issue whose path is exactly the broken member.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import { exportedSchema, oracle, propRuns, throughWire } from "./support/spec.js"

const wrongValues: ReadonlyArray<unknown> = [null, 3.5, "not-this", [], {}, true, -7]

const structOf = (ast: AST.AST): AST.TypeLiteral | undefined => {
  if (AST.isTypeLiteral(ast)) return ast
  if (AST.isRefinement(ast)) return structOf(ast.from)
  return undefined
}

const requiredMembers = (ast: AST.TypeLiteral): ReadonlyArray<AST.PropertySignature> =>
  ast.propertySignatures.filter((property) => !property.isOptional && typeof property.name === "string")

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

interface Mutation {
  readonly wire: unknown
  readonly path: ReadonlyArray<string>
}

/** Follows the choice tape down through required members that are themselves structs. */
const mutate = (ast: AST.AST, value: unknown, tape: ReadonlyArray<number>, depth = 0): Mutation | undefined => {
  const struct = structOf(ast)
  if (struct === undefined || !isPlainObject(value)) return undefined
  const members = requiredMembers(struct)
  if (members.length === 0) return undefined
  const choice = tape[depth] ?? 0
  const member = members[choice % members.length]
  if (member === undefined) return undefined
  const key = String(member.name)
  const deeper = choice % 3 === 0 ? mutate(member.type, value[key], tape, depth + 1) : undefined
  if (deeper !== undefined) {
    return { wire: { ...value, [key]: deeper.wire }, path: [key, ...deeper.path] }
  }
  const accepts = Schema.is(Schema.make(member.type))
  const wrong = wrongValues.find((candidate) => !accepts(candidate))
  if (wrong === undefined || choice % 2 === 0) {
    const { [key]: _removed, ...rest } = value
    return { wire: rest, path: [key] }
  }
  return { wire: { ...value, [key]: wrong }, path: [key] }
}

const spec = oracle("2025-11-25")

describe("invalid messages", () => {
  for (const name of spec.names) {
    const schema = exportedSchema(name)
    if (schema === undefined) continue
    const encoded = AST.encodedAST(schema.ast)
    const struct = structOf(encoded)
    if (struct === undefined || requiredMembers(struct).length === 0) continue
    const decode = Schema.decodeUnknownEither(schema)

    it.prop(
      `${name}: a broken required member is rejected, and the error names its path`,
      [Arbitrary.make(schema), FastCheck.array(FastCheck.nat(), { minLength: 4, maxLength: 4 })],
      ([value, tape]) => {
        const mutation = mutate(encoded, throughWire(schema, value), tape)
        if (mutation === undefined) return
        const decoded = decode(mutation.wire)
        if (Either.isRight(decoded)) expect.fail(`accepted ${JSON.stringify(mutation.wire)}`)
        const issues = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)
        const expected = mutation.path.join(".")
        expect(issues.map((issue) => issue.path.join("."))).toContain(expected)
      },
      { fastCheck: { numRuns: propRuns } }
    )
  }
})
