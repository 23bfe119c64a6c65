/**
 * Encoding for older revisions, judged by each revision's own schema.json: arbitrary
 * 2025-11-25 client messages, taken down to the revision, must validate against that
 * revision's definitions with every object closed to the members it defines. What cannot
 * be represented must fail, and only for the documented reasons.
 */

import { describe, expect, it } from "@effect/vitest"
import { McpSchema, Methods, Revision } from "@effect-mcp/protocol"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { describeErrors, oracle, propRuns, type SpecRevision, throughWire } from "./support/spec.js"

const older: ReadonlyArray<Exclude<SpecRevision, "2025-11-25">> = ["2025-06-18", "2025-03-26", "2024-11-05"]
const runs = { fastCheck: { numRuns: propRuns * 2 } }

type Wire = { readonly [key: string]: unknown }
const asWire = (value: unknown): Wire => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("not an object")
  return { ...value }
}
const withParams = (message: Wire, params: Wire | undefined): Wire => {
  const { params: _old, ...rest } = message
  return params === undefined ? rest : { ...rest, params }
}
const withoutEnvelope = ({ jsonrpc: _v, id: _id, ...rest }: Wire): Wire => rest

const mustValidate = (revision: SpecRevision, name: string, value: unknown) => {
  const validate = oracle(revision, { closed: true }).validator(name)
  if (!validate(value)) expect.fail(`${revision} ${name}: ${JSON.stringify(value)}\n${describeErrors(validate)}`)
}

const isTaskMethod = (method: string) => method.startsWith("tasks/") || method === "notifications/tasks/status"

/** The results a client sends, and the definition each must match in a revision. */
const clientResults = [
  { method: "sampling/createMessage", definition: "CreateMessageResult", since: "2024-11-05" },
  { method: "roots/list", definition: "ListRootsResult", since: "2024-11-05" },
  { method: "elicitation/create", definition: "ElicitResult", since: "2025-06-18" },
  { method: "ping", definition: "EmptyResult", since: "2024-11-05" }
] as const

/**
 * Why a result of `method` cannot be sent at `revision` (the documented differences, worked out
 * here from the value independently of the module), or `undefined` when it can.
 */
const refusal = (revision: string, method: string, value: { readonly [key: string]: unknown }): string | undefined => {
  const before = (than: string) => revision < than
  if (before("2025-11-25") && Object.hasOwn(value, "task")) return "task results need 2025-11-25"
  const blockRefusal = (block: unknown): string | undefined => {
    if (typeof block !== "object" || block === null) return undefined
    const type = Reflect.get(block, "type")
    if (before("2025-11-25") && (type === "tool_use" || type === "tool_result"))
      return `${type} content needs 2025-11-25`
    if (before("2025-03-26") && type === "audio") return "audio content needs 2025-03-26"
    return undefined
  }
  switch (method) {
    case "sampling/createMessage": {
      const content = value.content
      if (!Array.isArray(content)) return blockRefusal(content)
      if (before("2025-11-25") && content.length !== 1)
        return "revisions before 2025-11-25 carry exactly one content block"
      return content.map(blockRefusal).find((reason) => reason !== undefined)
    }
    case "elicitation/create": {
      if (before("2025-06-18")) return "elicitation needs 2025-06-18"
      const content = value.content
      return before("2025-11-25") &&
        typeof content === "object" &&
        content !== null &&
        Object.values(content).some(Array.isArray)
        ? "multi-select values need 2025-11-25"
        : undefined
    }
    default:
      return undefined
  }
}

describe("Revision", () => {
  for (const revision of older) {
    describe(revision, () => {
      it.prop(
        "client requests validate, or fail only because tasks are newer",
        [McpSchema.ClientRequest],
        ([request]) => {
          const wire = asWire(throughWire(McpSchema.ClientRequest, request))
          const params = wire.params === undefined ? undefined : asWire(wire.params)
          const encoded = Revision.requestParams(revision, request.method, params)
          if (Either.isLeft(encoded)) {
            expect(isTaskMethod(request.method)).toBe(true)
            return
          }
          const message = withParams(wire, encoded.right)
          mustValidate(revision, "JSONRPCRequest", message)
          mustValidate(revision, "ClientRequest", withoutEnvelope(message))
        },
        runs
      )

      it.prop(
        "client notifications validate, or fail only for tasks or a cancellation without requestId",
        [McpSchema.ClientNotification],
        ([notification]) => {
          const wire = asWire(throughWire(McpSchema.ClientNotification, notification))
          const params = wire.params === undefined ? undefined : asWire(wire.params)
          const encoded = Revision.notificationParams(revision, notification.method, params)
          if (Either.isLeft(encoded)) {
            const cancelledWithoutId =
              notification.method === "notifications/cancelled" && notification.params.requestId === undefined
            expect(isTaskMethod(notification.method) || cancelledWithoutId).toBe(true)
            return
          }
          const message = withParams(wire, encoded.right)
          mustValidate(revision, "JSONRPCNotification", message)
          mustValidate(revision, "ClientNotification", withoutEnvelope(message))
        },
        runs
      )

      for (const { method, definition, since } of clientResults) {
        const schema: Schema.Schema<unknown, unknown> = Schema.asSchema(
          Methods.requests[method].result
        ) as Schema.Schema<unknown, unknown>
        it.prop(
          `results of ${method} validate as ${definition}, or fail for exactly the documented reason that applies`,
          [Arbitrary.make(schema)],
          ([value]) => {
            const wire = asWire(throughWire(schema, value))
            const encoded = Revision.result(revision, method, wire)
            // Refused exactly when the documented reason applies, with exactly that reason.
            expect(Either.isLeft(encoded) ? encoded.left.reason : undefined).toBe(refusal(revision, method, wire))
            if (Either.isLeft(encoded)) return
            expect(revision >= since).toBe(true)
            mustValidate(revision, definition, encoded.right)
          },
          runs
        )
      }
    })
  }

  it.prop(
    "at 2025-11-25 nothing changes",
    [McpSchema.ClientRequest],
    ([request]) => {
      const wire = asWire(throughWire(McpSchema.ClientRequest, request))
      const params = wire.params === undefined ? undefined : asWire(wire.params)
      expect(Revision.requestParams("2025-11-25", request.method, params)).toStrictEqual(Either.right(params))
    },
    runs
  )

  it("takes initialize down member by member", () => {
    const params = {
      protocolVersion: "2024-11-05",
      clientInfo: { name: "c", title: "C", version: "1", description: "d", websiteUrl: "https://x.test", icons: [] },
      capabilities: {
        roots: { listChanged: true },
        sampling: { tools: {} },
        elicitation: { form: {}, url: {} },
        tasks: { list: {} }
      }
    }
    expect(Revision.requestParams("2025-06-18", "initialize", params)).toStrictEqual(
      Either.right({
        protocolVersion: "2024-11-05",
        clientInfo: { name: "c", title: "C", version: "1" },
        capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} }
      })
    )
    expect(Revision.requestParams("2024-11-05", "initialize", params)).toStrictEqual(
      Either.right({
        protocolVersion: "2024-11-05",
        clientInfo: { name: "c", version: "1" },
        capabilities: { roots: { listChanged: true }, sampling: {} }
      })
    )
  })

  it("declares no elicitation to 2025-06-18 when the client supports URL mode only", () => {
    const params = {
      protocolVersion: "x",
      clientInfo: { name: "c", version: "1" },
      capabilities: { elicitation: { url: {} } }
    }
    expect(Revision.requestParams("2025-06-18", "initialize", params)).toStrictEqual(
      Either.right({ ...params, capabilities: {} })
    )
  })

  it("drops the task of tools/call and the context of completion/complete where they did not exist", () => {
    expect(Revision.requestParams("2025-06-18", "tools/call", { name: "t", task: { ttl: 5 } })).toStrictEqual(
      Either.right({ name: "t" })
    )
    const complete = {
      ref: { type: "ref/prompt", name: "p", title: "P" },
      argument: { name: "a", value: "" },
      context: {}
    }
    expect(Revision.requestParams("2025-03-26", "completion/complete", complete)).toStrictEqual(
      Either.right({ ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "" } })
    )
  })

  it("unwraps a one-block sampling answer and refuses several blocks before 2025-11-25", () => {
    const one = { role: "assistant", model: "m", content: [{ type: "text", text: "hi" }] }
    expect(Revision.result("2025-06-18", "sampling/createMessage", one)).toStrictEqual(
      Either.right({ ...one, content: { type: "text", text: "hi" } })
    )
    const two = { ...one, content: [one.content[0], one.content[0]] }
    const refused = Revision.result("2025-06-18", "sampling/createMessage", two)
    if (Either.isRight(refused)) return expect.fail("two blocks were accepted")
    expect(refused.left.message).toBe(
      "Cannot send sampling/createMessage at content to a server speaking 2025-06-18: revisions before 2025-11-25 carry exactly one content block"
    )
  })

  it("gives a client before 2025-06-18 a resource link as a text naming it, in a call's result and a prompt", () => {
    const link = { type: "resource_link", uri: "file:///a.txt", name: "a" }
    const called = { content: [{ type: "text", text: "see" }, link] }
    const prompt = { messages: [{ role: "user", content: link }] }
    const named = { type: "text", text: "[link] file:///a.txt (a)" }
    for (const revision of ["2025-03-26", "2024-11-05"] as const) {
      const result = Revision.serverResult(revision, "tools/call", called)
      expect(result).toStrictEqual({ content: [called.content[0], named] })
      mustValidate(revision, "CallToolResult", result)
      const got = Revision.serverResult(revision, "prompts/get", prompt)
      expect(got).toStrictEqual({ messages: [{ role: "user", content: named }] })
      mustValidate(revision, "GetPromptResult", got)
    }
    expect(Revision.serverResult("2025-06-18", "tools/call", called)).toBe(called)
  })
})
