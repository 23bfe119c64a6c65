/**
 * Each revision read by its own definitions, judged by that revision's `schema.json`: values
 * generated from the revision's definitions (valid by construction, confirmed by the oracle)
 * must decode with what the method table picks for that revision, and what the client encodes
 * for it must validate there. From 2024-11-05 to 2026-07-28, for every definition a client
 * decodes: results of its requests, the server's requests (at 2026-07-28 input requests),
 * the server's notifications. The other way too: such a value changed in one place (a member
 * removed, or a value of another JSON type put somewhere) that schema.json refuses must be
 * refused, but where a rule in `lenient` says why we take it. Every definition named here exists
 * in some revision (a misspelled one would drop its tests silently).
 */
import { describe, expect, it } from "@effect/vitest"
import { McpSchema, Methods, type ProtocolVersion, Revision } from "@effect-mcp/protocol"
import type { ErrorObject } from "ajv"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { arbitraryOf } from "./support/arbitraryFromJsonSchema.js"
import { describeErrors, oracle, propRuns, type SpecRevision, specRevisions } from "./support/spec.js"

const runs = { numRuns: propRuns * 2 }

/** The definition of each request method's result (the client decodes these). */
const resultDefinition: Partial<Record<Methods.RequestMethodName, string>> = {
  initialize: "InitializeResult",
  "server/discover": "DiscoverResult",
  "resources/list": "ListResourcesResult",
  "resources/templates/list": "ListResourceTemplatesResult",
  "resources/read": "ReadResourceResult",
  "prompts/list": "ListPromptsResult",
  "prompts/get": "GetPromptResult",
  "tools/list": "ListToolsResult",
  "tools/call": "CallToolResult",
  "completion/complete": "CompleteResult",
  "tasks/get": "GetTaskResult",
  "tasks/list": "ListTasksResult",
  "tasks/cancel": "CancelTaskResult"
}

/** The server's requests: each method and the definition of the request. */
const serverRequests: ReadonlyArray<readonly [Methods.RequestMethodName, string]> = [
  ["sampling/createMessage", "CreateMessageRequest"],
  ["roots/list", "ListRootsRequest"],
  ["elicitation/create", "ElicitRequest"]
]

const methodsIn = (revision: SpecRevision, union: string): ReadonlyArray<{ method: string; definition: string }> => {
  const definitions = oracle(revision).definitions
  const node = definitions[union]
  const members =
    typeof node === "object" && node !== null && "anyOf" in node && Array.isArray(node.anyOf) ? node.anyOf : []
  return members.flatMap((member: { $ref?: string }) => {
    const definition = member.$ref?.slice(member.$ref.lastIndexOf("/") + 1) ?? ""
    const shape = definitions[definition] as { properties?: { method?: { const?: string } } } | undefined
    const method = shape?.properties?.method?.const
    return method === undefined ? [] : [{ method, definition }]
  })
}

const valid = (revision: SpecRevision, definition: string): FastCheck.Arbitrary<unknown> => {
  const validate = oracle(revision).validator(definition)
  return arbitraryOf(oracle(revision).definitions, definition).map((value) => {
    if (!validate(value)) throw new Error(`generated an invalid ${definition}: ${describeErrors(validate)}`)
    return value
  })
}

const mustDecode = (what: string, decoded: Either.Either<unknown, ParseResult.ParseError>, value: unknown) => {
  if (Either.isLeft(decoded))
    expect.fail(`${what} refused ${JSON.stringify(value)}:\n${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`)
}

const hasDefinition = (revision: SpecRevision, name: string) => oracle(revision).names.includes(name)

/** What the client decodes of one definition at one revision. */
interface Decoded {
  readonly title: string
  readonly definition: string
  /** The part of a message the client decodes: a result as a whole, a request's or notification's params. */
  readonly part: "whole" | "params"
  /** Decodes a value of the definition (the whole message) as the client does; `what` names it in a failure. */
  readonly decode: (value: unknown) => {
    readonly what: string
    readonly decoded: Either.Either<unknown, ParseResult.ParseError>
  }
}

/** A message's params as the client reads them: `{}` when it has none. */
const paramsOf = (value: unknown) => {
  const message = value as { params?: unknown }
  return "params" in message ? message.params : {}
}

/** Every definition a client decodes at `revision`, with how it decodes it. */
const decodedAt = (revision: SpecRevision): ReadonlyArray<Decoded> => {
  const version: ProtocolVersion.ProtocolVersion = revision
  const cases: Array<Decoded> = []
  for (const [method, definition] of Object.entries(resultDefinition)) {
    if (!hasDefinition(revision, definition) || !Methods.isRequestMethod(method)) continue
    if (Methods.requests[method].since > revision) continue
    cases.push({
      title: `${method} results (${definition})`,
      definition,
      part: "whole",
      decode: (value) => ({ what: `${method} at ${revision}`, decoded: Methods.decodeResult(method, value, version) })
    })
  }
  for (const [method, definition] of serverRequests) {
    if (!hasDefinition(revision, definition)) continue
    cases.push({
      title: `${method} requests (${definition})`,
      definition,
      part: "params",
      decode: (value) => ({
        what: `${method} at ${revision}`,
        decoded: Methods.decodeRequestParams(method, paramsOf(value), version)
      })
    })
  }
  if (hasDefinition(revision, "InputRequest"))
    cases.push({
      title: "input requests (InputRequest), then their params",
      definition: "InputRequest",
      part: "whole",
      decode: (value) => {
        const request = Schema.decodeUnknownEither(McpSchema.InputRequest)(value)
        if (Either.isLeft(request) || !Methods.isRequestMethod(request.right.method))
          return { what: `an input request at ${revision}`, decoded: request }
        const method = request.right.method
        return {
          what: `${method} at ${revision}`,
          decoded: Methods.decodeRequestParams(method, request.right.params ?? {}, version)
        }
      }
    })
  for (const { method, definition } of methodsIn(revision, "ServerNotification")) {
    if (!Methods.isNotificationMethod(method)) continue
    cases.push({
      title: `${method} notifications (${definition})`,
      definition,
      part: "params",
      decode: (value) => ({
        what: `${method} at ${revision}`,
        decoded: Methods.decodeNotificationParams(method, paramsOf(value), version)
      })
    })
  }
  return cases
}

describe("each revision decoded by its own definitions", () => {
  for (const revision of specRevisions) {
    describe(revision, () => {
      for (const { title, definition, decode } of decodedAt(revision)) {
        it(title, () =>
          FastCheck.assert(
            FastCheck.property(valid(revision, definition), (value) => {
              const { what, decoded } = decode(value)
              mustDecode(what, decoded, value)
            }),
            runs
          )
        )
      }
    })
  }
})

/** Values of other JSON types, for a member to be given instead of its own (3.5 for an integer too). */
const otherValues: ReadonlyArray<unknown> = [null, 3.5, -7, "not-this", [], {}, true]

const jsonType = (value: unknown): string =>
  value === null
    ? "null"
    : Array.isArray(value)
      ? "array"
      : typeof value === "number" && Number.isInteger(value)
        ? "integer"
        : typeof value

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** A value changed in one place: what it became, and the value put there (unless a member was removed). */
interface Mutant {
  readonly wire: unknown
  readonly put?: { readonly value: unknown }
}

/**
 * One change somewhere in a JSON value, following the choice tape down: a member removed, or a
 * member, an element or the value itself replaced by a value of another JSON type (`swap`: by
 * that value instead, at the same place). Many such values are still valid (an optional member
 * gone, a free member changed); the oracle sorts them.
 */
const mutate = (value: unknown, tape: ReadonlyArray<number>, swap?: { readonly value: unknown }, depth = 0): Mutant => {
  const choice = tape[depth] ?? 0
  const replaced = (original: unknown) => {
    const others = otherValues.filter((other) => jsonType(other) !== jsonType(original))
    return swap ?? { value: others[choice % others.length] }
  }
  const container = (inner: unknown) => isObject(inner) || (Array.isArray(inner) && inner.length > 0)
  if (isObject(value)) {
    const keys = Object.keys(value)
    const key = keys[choice % Math.max(1, keys.length)]
    if (key === undefined) {
      const put = replaced(value)
      return { wire: put.value, put }
    }
    if (choice % 3 === 0 && container(value[key])) {
      const inner = mutate(value[key], tape, swap, depth + 1)
      return { ...inner, wire: { ...value, [key]: inner.wire } }
    }
    if (choice % 2 === 0) {
      const { [key]: _removed, ...rest } = value
      return { wire: rest }
    }
    const put = replaced(value[key])
    return { wire: { ...value, [key]: put.value }, put }
  }
  if (Array.isArray(value) && value.length > 0) {
    const index = choice % value.length
    const inner: Mutant =
      choice % 3 === 0 && container(value[index])
        ? mutate(value[index], tape, swap, depth + 1)
        : (() => {
            const put = replaced(value[index])
            return { wire: put.value, put }
          })()
    return { ...inner, wire: value.map((item, at) => (at === index ? inner.wire : item)) }
  }
  const put = replaced(value)
  return { wire: put.value, put }
}

/**
 * 2026-07-28's free JSON (`JSONValue`) takes neither null nor a fraction, though JSON has both,
 * and our decoders take any JSON there: a null or a fraction put where a value of any other JSON
 * type (true, a text) would be valid is one of those.
 */
const inFreeJson = (
  revision: SpecRevision,
  mutant: Mutant,
  validWith: (swap: { readonly value: unknown }) => boolean
) =>
  revision === "2026-07-28" &&
  mutant.put !== undefined &&
  (mutant.put.value === null || (typeof mutant.put.value === "number" && !Number.isInteger(mutant.put.value))) &&
  validWith({ value: true }) &&
  validWith({ value: "not-this" })

/** One refusal of schema.json, as ajv reports it. */
type Refusal = ErrorObject

/**
 * Where our decoders take more than a revision's schema.json, knowingly, each with its reason: a
 * value that schema.json refuses for these alone is not held against them. Anything else it
 * refuses, they must refuse.
 */
const lenient: ReadonlyArray<{
  readonly revisions: ReadonlyArray<SpecRevision>
  readonly reason: string
  readonly matches: (definition: string, refusal: Refusal) => boolean
}> = [
  {
    revisions: ["2024-11-05", "2025-03-26", "2025-06-18", "2026-07-28"],
    reason: "a cancellation's requestId is optional, as 2025-11-25 has it (a task's cancellation names none)",
    matches: (definition, refusal) =>
      definition === "CancelledNotification" &&
      refusal.instancePath === "/params" &&
      refusal.keyword === "required" &&
      refusal.params.missingProperty === "requestId"
  },
  {
    revisions: ["2026-07-28"],
    reason:
      "a result's resultType is read by the session before the result is decoded (rounds.ts, taskExtension.ts); " +
      "ttlMs and cacheScope are optional in our schemas (schema/Stateless.ts), though 2026-07-28 requires them",
    matches: (_, refusal) =>
      ["/resultType", "/ttlMs", "/cacheScope"].includes(refusal.instancePath) ||
      (refusal.instancePath === "" &&
        refusal.keyword === "required" &&
        ["resultType", "ttlMs", "cacheScope"].includes(String(refusal.params.missingProperty)))
  },
  {
    revisions: ["2026-07-28"],
    reason: "_meta is decoded as a free record: its reserved serverInfo and subscriptionId keys are not checked",
    matches: (_, refusal) =>
      /^(\/params)?\/_meta\/io\.modelcontextprotocol~1(serverInfo|subscriptionId)(\/|$)/.test(refusal.instancePath)
  }
]

/** Whether every refusal of schema.json is one our decoders knowingly do not make. */
const knowinglyTaken = (revision: SpecRevision, definition: string, refusals: ReadonlyArray<Refusal>) =>
  refusals.length > 0 &&
  refusals.every((refusal) =>
    lenient.some((rule) => rule.revisions.includes(revision) && rule.matches(definition, refusal))
  )

describe("each revision refuses what its own schema.json refuses", () => {
  for (const revision of specRevisions) {
    describe(revision, () => {
      for (const { title, definition, part, decode } of decodedAt(revision)) {
        const validate = oracle(revision).validator(definition)
        it(`${title}: a value made invalid is refused`, () =>
          FastCheck.assert(
            FastCheck.property(
              valid(revision, definition),
              FastCheck.array(FastCheck.nat(), { minLength: 8, maxLength: 8 }),
              (value, tape) => {
                // Only the part the client decodes is changed (a request's method is the router's).
                const changed = (swap?: { readonly value: unknown }) => {
                  if (part === "whole") return mutate(value, tape, swap)
                  const params = mutate(paramsOf(value), tape, swap)
                  return { ...params, wire: { ...(value as object), params: params.wire } }
                }
                const mutated = changed()
                const mutant = mutated.wire
                if (validate(mutant) || knowinglyTaken(revision, definition, validate.errors ?? [])) return
                const refusal = describeErrors(validate)
                if (inFreeJson(revision, mutated, (swap) => validate(changed(swap).wire))) return
                const { what, decoded } = decode(mutant)
                if (Either.isRight(decoded))
                  expect.fail(
                    `${what} took ${JSON.stringify(mutant)}, which ${revision}/schema.json refuses:\n${refusal}`
                  )
              }
            ),
            runs
          ))
      }
    })
  }
})

describe("the definitions the oracle tests name", () => {
  it("each is a definition of some revision (a misspelled one would drop its tests silently)", () => {
    const named = [
      ...Object.values(resultDefinition),
      ...serverRequests.map(([, definition]) => definition),
      "InputRequest",
      "ServerNotification"
    ]
    expect(named.filter((name) => !specRevisions.some((revision) => hasDefinition(revision, name)))).toEqual([])
  })
})

type ClientResultMethod = "sampling/createMessage" | "roots/list" | "elicitation/create"

/** What the client encodes as the result of `method` must validate against the revision's (closed) definition. */
const encodesFor = <M extends ClientResultMethod, I>(
  revision: SpecRevision,
  method: M,
  definition: string,
  schema: Schema.Schema<Methods.ResultOf<M>, I>
) =>
  it(`${revision}: ${method} results (${definition}) validate`, () => {
    const validate = oracle(revision, { closed: true }).validator(definition)
    FastCheck.assert(
      FastCheck.property(Arbitrary.make(schema), (value) => {
        const encoded = Methods.encodeResult(method, value, revision)
        if (Either.isLeft(encoded)) return expect.fail(encoded.left.message)
        const wire = Revision.result(revision, method, JSON.parse(JSON.stringify(encoded.right)))
        if (Either.isLeft(wire)) return expect.fail(`refused: ${wire.left.message}`)
        if (!validate(wire.right))
          expect.fail(`${revision} ${definition}: ${JSON.stringify(wire.right)}\n${describeErrors(validate)}`)
      }),
      runs
    )
  })

// Older revisions refuse some results for documented reasons; Revision.test.ts checks each
// refusal exactly. The two newest take every result the client can make.
describe("each revision encoded to its own definitions", () => {
  for (const revision of ["2025-11-25", "2026-07-28"] as const) {
    encodesFor(revision, "sampling/createMessage", "CreateMessageResult", McpSchema.CreateMessageResult)
    encodesFor(revision, "roots/list", "ListRootsResult", McpSchema.ListRootsResult)
    encodesFor(revision, "elicitation/create", "ElicitResult", McpSchema.ElicitResult)
  }
})
