/**
 * Each revision read by its own definitions, judged by that revision's `schema.json`: values
 * generated from the revision's definitions (valid by construction, confirmed by the oracle)
 * must decode with what the method table picks for that revision, and what the client encodes
 * for it must validate there. From 2024-11-05 to 2026-07-28, for every definition a client
 * decodes: results of its requests, the server's requests (at 2026-07-28 input requests),
 * the server's notifications.
 */
import { describe, expect, it } from "@effect/vitest"
import { McpSchema, Methods, type ProtocolVersion, Revision } from "@effect-mcp/protocol"
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

describe("each revision decoded by its own definitions", () => {
  for (const revision of specRevisions) {
    const version: ProtocolVersion.ProtocolVersion = revision
    describe(revision, () => {
      for (const [method, definition] of Object.entries(resultDefinition)) {
        if (!hasDefinition(revision, definition) || !Methods.isRequestMethod(method)) continue
        if (Methods.requests[method].since > revision) continue
        it(`${method} results (${definition})`, () =>
          FastCheck.assert(
            FastCheck.property(valid(revision, definition), (value) =>
              mustDecode(`${method} at ${revision}`, Methods.decodeResult(method, value, version), value)
            ),
            runs
          ))
      }

      for (const [method, definition] of serverRequests) {
        if (!hasDefinition(revision, definition)) continue
        it(`${method} requests (${definition})`, () =>
          FastCheck.assert(
            FastCheck.property(valid(revision, definition), (value) => {
              const params = (value as { params?: unknown }).params
              mustDecode(`${method} at ${revision}`, Methods.decodeRequestParams(method, params ?? {}, version), value)
            }),
            runs
          ))
      }

      if (hasDefinition(revision, "InputRequest"))
        it("input requests (InputRequest), then their params", () =>
          FastCheck.assert(
            FastCheck.property(valid(revision, "InputRequest"), (value) => {
              const request = Schema.decodeUnknownEither(McpSchema.InputRequest)(value)
              mustDecode(`an input request at ${revision}`, request, value)
              if (Either.isLeft(request) || !Methods.isRequestMethod(request.right.method)) return
              const method = request.right.method
              mustDecode(
                `${method} at ${revision}`,
                Methods.decodeRequestParams(method, request.right.params ?? {}, version),
                value
              )
            }),
            runs
          ))

      for (const { method, definition } of methodsIn(revision, "ServerNotification")) {
        if (!Methods.isNotificationMethod(method)) continue
        it(`${method} notifications (${definition})`, () =>
          FastCheck.assert(
            FastCheck.property(valid(revision, definition), (value) => {
              const params = (value as { params?: unknown }).params
              mustDecode(
                `${method} at ${revision}`,
                Methods.decodeNotificationParams(method, params ?? {}, version),
                value
              )
            }),
            runs
          ))
      }
    })
  }
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
