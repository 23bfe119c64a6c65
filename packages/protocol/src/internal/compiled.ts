/**
 * Schema codecs compiled once into plain functions of the AST: the same outcome as
 * `Schema.decodeUnknownEither` / `Schema.encodeUnknownEither`, without the parser's per-node
 * `Either`s, issue arrays and closures on a value that is valid.
 *
 * A compiled check answers "this is the value", "the parser refuses it" (exactly so: a union
 * then tries its next member, an index signature skips the key) or "cannot tell" (a declaration
 * that answers with an effect). On either of the last two the Schema's own parser runs on the
 * whole value and gives its outcome, so a compiled codec accepts nothing the Schema refuses and
 * every error is the Schema's. What the compiler does not know (transformations, template
 * literals, parse-option annotations, names the parser's bookkeeping reads from
 * `Object.prototype`) is checked by the Schema's parser for that part alone.
 *
 * The rules follow the parser of `effect/ParseResult` with its default options: members not in
 * a struct are dropped, an optional member may be absent but not `undefined` unless its type
 * allows it, a union tries the members its literal members point to, then the others, in order.
 * `test/Compiled.test.ts` checks them against the parser on generated values, valid and not.
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"

/** What a check returns for a value the parser refuses (exactly: a union then tries its next member). */
export const Invalid: unique symbol = Symbol("@effect-mcp/protocol/Compiled/Invalid")

/** What a check returns when it cannot tell (a declaration that answers with an effect): the parser decides. */
export const Unsure: unique symbol = Symbol("@effect-mcp/protocol/Compiled/Unsure")

/** Is this what a check returns for no value? */
const isSentinel = (value: unknown): value is typeof Invalid | typeof Unsure => value === Invalid || value === Unsure

/** A compiled check: the decoded (or encoded) value, `Invalid` or `Unsure`. */
type Check = (input: unknown) => unknown

type Direction = "decode" | "encode"

const defaultOptions: AST.ParseOptions = {}

const isRecord = (input: unknown): input is Record<PropertyKey, unknown> =>
  typeof input === "object" && input !== null && !Array.isArray(input)

/** The Schema's own parser for one part, as a check (for what the compiler does not know). */
const byParser = (ast: AST.AST, direction: Direction): Check => {
  let parse: ((input: unknown) => Either.Either<unknown, ParseResult.ParseIssue>) | undefined
  return (input) => {
    if (parse === undefined) {
      const schema = Schema.make<unknown, unknown, never>(ast)
      parse = direction === "decode" ? ParseResult.decodeUnknownEither(schema) : ParseResult.encodeUnknownEither(schema)
    }
    const result = parse(input)
    return Either.isRight(result) ? result.right : Invalid
  }
}

const keyword =
  (accepts: (input: unknown) => boolean): Check =>
  (input) =>
    accepts(input) ? input : Invalid

const literal =
  (value: AST.LiteralValue): Check =>
  (input) =>
    input === value ? input : Invalid

/** A struct: its members in the order declared, then what its index signatures admit. */
const typeLiteral = (ast: AST.TypeLiteral, compile: (ast: AST.AST) => Check): Check | undefined => {
  // A member named `__proto__` is the prototype in the parser's own bookkeeping: left to it.
  if (ast.propertySignatures.some((member) => member.name === "__proto__")) return undefined
  if (ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0) {
    return (input) => (input === null || input === undefined ? Invalid : input)
  }
  // Index signatures over string keys only (what `Schema.Record({ key: Schema.String, ... })` makes).
  const indexes: Array<readonly [Check, Check]> = []
  for (const signature of ast.indexSignatures) {
    let parameter: AST.AST = signature.parameter
    while (AST.isRefinement(parameter)) parameter = parameter.from
    if (!AST.isStringKeyword(parameter)) return undefined
    indexes.push([compile(signature.parameter), compile(signature.type)])
  }
  const names = ast.propertySignatures.map((member) => member.name)
  const optional = ast.propertySignatures.map((member) => member.isOptional)
  const checks = ast.propertySignatures.map((member) => compile(member.type))
  const declared = new Set<PropertyKey>(names)
  const count = names.length
  return (input) => {
    if (!isRecord(input)) return Invalid
    const output: Record<PropertyKey, unknown> = {}
    for (let i = 0; i < count; i++) {
      const name = names[i] as PropertyKey
      if (optional[i] === true && !Object.hasOwn(input, name)) continue
      const value = (checks[i] as Check)(input[name])
      if (isSentinel(value)) return value
      output[name] = value
    }
    for (const [parameter, type] of indexes) {
      for (const key of Object.keys(input)) {
        const admitted = parameter(key)
        if (admitted === Invalid) continue
        if (admitted === Unsure) return Unsure
        const value = type(input[key])
        if (isSentinel(value)) return value
        if (!declared.has(key)) output[key] = value
      }
    }
    return output
  }
}

/** A tuple or an array: its elements, then its rest (one type). */
const tupleType = (ast: AST.TupleType, compile: (ast: AST.AST) => Check): Check | undefined => {
  if (ast.rest.length > 1) return undefined
  const elements = ast.elements.map((element) => compile(element.type))
  const optional = ast.elements.map((element) => element.isOptional)
  const required = optional.filter((isOptional) => !isOptional).length
  const rest = ast.rest.length === 1 ? compile((ast.rest[0] as AST.Type).type) : undefined
  const count = elements.length
  return (input) => {
    if (!Array.isArray(input)) return Invalid
    const length = input.length
    if (length < required || (rest === undefined && length > count)) return Invalid
    const output: Array<unknown> = []
    for (let i = 0; i < count && i < length; i++) {
      const value = (elements[i] as Check)(input[i])
      if (isSentinel(value)) return value
      output.push(value)
    }
    if (rest !== undefined) {
      for (let i = count; i < length; i++) {
        const value = rest(input[i])
        if (isSentinel(value)) return value
        output.push(value)
      }
    }
    return output
  }
}

/**
 * The required literal members of a union's member, as the parser reads them to pick candidates;
 * `undefined` when the member is one whose literals this compiler does not read.
 */
const literalsOf = (
  ast: AST.AST,
  direction: Direction
): ReadonlyArray<readonly [PropertyKey, AST.LiteralValue]> | undefined => {
  switch (ast._tag) {
    case "TypeLiteral": {
      const literals = ast.propertySignatures.flatMap((member) => {
        const type = direction === "decode" ? AST.encodedAST(member.type) : AST.typeAST(member.type)
        return AST.isLiteral(type) && !member.isOptional ? [[member.name, type.literal] as const] : []
      })
      // The parser visits its keys as `Reflect.ownKeys` lists them: array indexes and symbols
      // out of order, so such keys are left to it.
      return literals.some(([key]) => typeof key !== "string" || /^(0|[1-9][0-9]*)$/.test(key)) ? undefined : literals
    }
    case "Refinement":
      return literalsOf(ast.from, direction)
    case "Suspend":
      return literalsOf(ast.f(), direction)
    case "Declaration":
      return Option.isSome(AST.getSurrogateAnnotation(ast)) ? undefined : []
    case "TupleType":
      return ast.elements.some(
        (element) =>
          !element.isOptional &&
          AST.isLiteral(direction === "decode" ? AST.encodedAST(element.type) : AST.typeAST(element.type))
      )
        ? undefined
        : []
    case "Transformation":
      return undefined
    default:
      return []
  }
}

/**
 * A union: the members whose literal members match the input (each member is filed under the
 * first of its literals that no earlier member took), then the members with none, in order;
 * the first that accepts the input gives the value.
 */
const union = (ast: AST.Union, direction: Direction, compile: (ast: AST.AST) => Check): Check | undefined => {
  const members: Array<{
    readonly check: Check
    readonly literals: ReadonlyArray<readonly [PropertyKey, AST.LiteralValue]>
  }> = []
  for (const type of ast.types) {
    const literals = literalsOf(type, direction)
    // The parser files members in plain objects: a key it would read from `Object.prototype`,
    // or a literal `"__proto__"`, is filed as it files it only by the parser itself.
    if (literals === undefined || literals.some(([key, value]) => key in {} || String(value) === "__proto__")) {
      return undefined
    }
    members.push({ check: compile(type), literals })
  }
  const keys: Array<{ readonly key: PropertyKey; readonly buckets: Map<string, Array<Check>> }> = []
  const others: Array<Check> = []
  for (const { check, literals } of members) {
    if (literals.length === 0) {
      others.push(check)
      continue
    }
    for (let j = 0; j < literals.length; j++) {
      const [key, value] = literals[j] as readonly [PropertyKey, AST.LiteralValue]
      let entry = keys.find((candidate) => candidate.key === key)
      if (entry === undefined) {
        entry = { key, buckets: new Map() }
        keys.push(entry)
      }
      const bucket = entry.buckets.get(String(value))
      if (bucket === undefined) {
        entry.buckets.set(String(value), [check])
        break
      }
      if (j === literals.length - 1) bucket.push(check)
    }
  }
  return (input) => {
    if (keys.length > 0 && typeof input === "object" && input !== null) {
      for (const { key, buckets } of keys) {
        if (!Object.hasOwn(input, key)) continue
        const bucket = buckets.get(String((input as Record<PropertyKey, unknown>)[key]))
        if (bucket === undefined) continue
        for (const check of bucket) {
          const value = check(input)
          if (value !== Invalid) return value
        }
      }
    }
    for (const check of others) {
      const value = check(input)
      if (value !== Invalid) return value
    }
    return Invalid
  }
}

const refinement =
  (ast: AST.Refinement, from: Check): Check =>
  (input) => {
    const value = from(input)
    if (isSentinel(value)) return value
    return Option.isNone(ast.filter(value, defaultOptions, ast)) ? value : Invalid
  }

const declaration = (ast: AST.Declaration, direction: Direction): Check => {
  const parse =
    direction === "decode" ? ast.decodeUnknown(...ast.typeParameters) : ast.encodeUnknown(...ast.typeParameters)
  return (input) => {
    const result: unknown = parse(input, defaultOptions, ast)
    // An effect is run by the parser (or refused when it is not synchronous): it decides.
    if (!Either.isEither(result)) return Unsure
    return Either.isRight(result) ? result.right : Invalid
  }
}

const annotated = (ast: AST.AST): boolean =>
  Option.isSome(AST.getParseOptionsAnnotation(ast)) || Option.isSome(AST.getDecodingFallbackAnnotation(ast))

const memos: Record<Direction, Map<AST.AST, Check>> = { decode: new Map(), encode: new Map() }

/** The node a refinement refines, its own refinements taken off (what encoding it encodes to). */
const refined = (ast: AST.AST): AST.AST => (AST.isRefinement(ast) ? refined(ast.from) : ast)

/** Compiles `ast` for `direction` once (a `Suspend` when first used), sharing what repeats. */
const compile = (ast: AST.AST, direction: Direction): Check => {
  const memo = memos[direction]
  const known = memo.get(ast)
  if (known !== undefined) return known
  // A node that refers back to itself reads its check when it runs.
  let made: Check | undefined
  memo.set(ast, (input) => (made as Check)(input))
  made = annotated(ast) ? byParser(ast, direction) : (node(ast, direction) ?? byParser(ast, direction))
  memo.set(ast, made)
  return made
}

const node = (ast: AST.AST, direction: Direction): Check | undefined => {
  const inner = (child: AST.AST) => compile(child, direction)
  switch (ast._tag) {
    case "Literal":
      return literal(ast.literal)
    case "StringKeyword":
      return keyword((input) => typeof input === "string")
    case "NumberKeyword":
      return keyword((input) => typeof input === "number")
    case "BooleanKeyword":
      return keyword((input) => typeof input === "boolean")
    case "UndefinedKeyword":
      return keyword((input) => input === undefined)
    case "UnknownKeyword":
    case "AnyKeyword":
    case "VoidKeyword":
      return (input) => input
    case "NeverKeyword":
      return () => Invalid
    case "TypeLiteral":
      return typeLiteral(ast, inner)
    case "TupleType":
      return tupleType(ast, inner)
    case "Union":
      return union(ast, direction, inner)
    case "Refinement": {
      if (direction === "decode") return refinement(ast, inner(ast.from))
      // As the parser encodes a refinement: its type side decoded (the filter checked there),
      // then encoded as what it refines.
      const checked = compile(AST.typeAST(ast), "decode")
      const encode = inner(refined(ast.from))
      return (input) => {
        const value = checked(input)
        return isSentinel(value) ? value : encode(value)
      }
    }
    case "Suspend": {
      let suspended: Check | undefined
      return (input) => {
        suspended ??= inner(ast.f())
        return suspended(input)
      }
    }
    case "Declaration":
      return declaration(ast, direction)
    default:
      return undefined
  }
}

/** The compiled check of `ast` (what the codecs run first; for tests). */
export const check = (ast: AST.AST, direction: Direction): Check => compile(ast, direction)

/**
 * The parser's outcome, without its work when the check vouches for the value (which is then its
 * value). Both are built when first needed: a codec made at import costs nothing until used, and
 * most never meet a bad value.
 */
const vouchedOr = <A>(
  parser: () => (input: unknown) => Either.Either<A, ParseResult.ParseError>,
  ast: AST.AST,
  direction: Direction
) => {
  let check: Check | undefined
  let parse: ((input: unknown) => Either.Either<A, ParseResult.ParseError>) | undefined
  return (input: unknown): Either.Either<A, ParseResult.ParseError> => {
    check ??= compile(ast, direction)
    const value = check(input)
    if (!isSentinel(value)) return Either.right(value as A)
    parse ??= parser()
    return parse(input)
  }
}

/**
 * `Schema.decodeUnknownEither(schema)`, compiled: a valid input's value without the parser's
 * work, anything else through the parser (its error, as it gives it).
 */
export const decoder = <A, I>(
  schema: Schema.Schema<A, I, never>
): ((input: unknown) => Either.Either<A, ParseResult.ParseError>) =>
  vouchedOr(() => Schema.decodeUnknownEither(schema), schema.ast, "decode")

/** `Schema.encodeUnknownEither(schema)`, compiled (see `decoder`). */
export const encoder = <A, I>(
  schema: Schema.Schema<A, I, never>
): ((input: unknown) => Either.Either<I, ParseResult.ParseError>) =>
  vouchedOr(() => Schema.encodeUnknownEither(schema), schema.ast, "encode")
