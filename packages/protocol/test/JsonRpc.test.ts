import { describe, expect, it } from "@effect/vitest"
import { JsonRpc } from "@effect-mcp/protocol"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as ParseResult from "effect/ParseResult"
import { describeErrors, oracle, propRuns, throughWire } from "./support/spec.js"

const spec = oracle("2025-11-25")
const runs = { fastCheck: { numRuns: propRuns * 4 } }

const kindOf = (message: JsonRpc.JSONRPCMessage): JsonRpc.MessageKind =>
  JsonRpc.isRequest(message)
    ? "request"
    : JsonRpc.isNotification(message)
      ? "notification"
      : JsonRpc.isResultResponse(message)
        ? "response"
        : "error"

const paths = (error: ParseResult.ParseError) =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => issue.path.join("."))

describe("JsonRpc", () => {
  it.prop(
    "every message is classified as its own kind, decodes to itself and validates as JSONRPCMessage",
    [JsonRpc.JSONRPCMessage],
    ([message]) => {
      const wire = throughWire(JsonRpc.JSONRPCMessage, message)
      const validate = spec.validator("JSONRPCMessage")
      if (!validate(wire)) expect.fail(describeErrors(validate))
      expect(JsonRpc.classify(wire)).toBe(kindOf(message))
      expect(JsonRpc.decodeMessage(wire)).toStrictEqual(Either.right(message))
    },
    runs
  )

  it.prop(
    "a 2025-03-26 batch decodes to its messages in order",
    [JsonRpc.JSONRPCBatch],
    ([batch]) => {
      const wire = throughWire(JsonRpc.JSONRPCBatch, batch)
      expect(JsonRpc.decodePayload(wire)).toStrictEqual(Either.right(batch))
    },
    runs
  )

  it.prop(
    "a response carrying both result and error is never accepted",
    [JsonRpc.JSONRPCResultResponse, JsonRpc.ErrorObject],
    ([response, error]) => {
      const wire = { ...(throughWire(JsonRpc.JSONRPCResultResponse, response) as object), error }
      expect(JsonRpc.classify(wire)).toBeUndefined()
      expect(Either.isLeft(JsonRpc.decodeMessage(wire))).toBe(true)
    },
    runs
  )

  it.prop(
    "values that are not objects are not messages",
    [FastCheck.oneof(FastCheck.string(), FastCheck.integer(), FastCheck.constant(null), FastCheck.boolean())],
    ([value]) => {
      expect(JsonRpc.classify(value)).toBeUndefined()
      expect(Either.isLeft(JsonRpc.decodeMessage(value))).toBe(true)
    },
    runs
  )

  it("a batch element that is broken fails with its index in the path", () => {
    const batch = [
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, result: {} },
      { jsonrpc: "2.0", id: 3, method: 7 }
    ]
    const decoded = JsonRpc.decodePayload(batch)
    if (Either.isRight(decoded)) expect.fail("a broken batch decoded")
    expect(paths(decoded.left)).toContain("2.method")
  })

  it("an empty batch is rejected", () => {
    expect(Either.isLeft(JsonRpc.decodePayload([]))).toBe(true)
  })

  it("an error response with a null id (JSON-RPC's parse-error form) decodes without an id", () => {
    const decoded = JsonRpc.decodeMessage({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } })
    expect(decoded).toStrictEqual(Either.right({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } }))
  })

  it("rejects a wrong version, a fractional id and array params, naming the member", () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [{ jsonrpc: "1.0", id: 1, method: "ping" }, "jsonrpc"],
      [{ jsonrpc: "2.0", id: 1.5, method: "ping" }, "id"],
      [{ jsonrpc: "2.0", id: 1, method: "ping", params: [1, 2] }, "params"]
    ]
    for (const [wire, member] of cases) {
      const decoded = JsonRpc.decodeMessage(wire)
      if (Either.isRight(decoded)) expect.fail(`${JSON.stringify(wire)} decoded`)
      expect(paths(decoded.left)).toContain(member)
    }
  })

  it("keeps unknown members of params and results (forward compatibility)", () => {
    const wire = { jsonrpc: "2.0", id: "a", result: { future: { nested: [1, "x"] }, _meta: { k: true } } }
    expect(JsonRpc.decodeMessage(wire)).toStrictEqual(Either.right(wire))
  })

  it("names every error code the specifications define", () => {
    expect(JsonRpc.ErrorCode).toStrictEqual({
      ParseError: -32700,
      InvalidRequest: -32600,
      MethodNotFound: -32601,
      InvalidParams: -32602,
      InternalError: -32603,
      ResourceNotFound: -32002,
      HeaderMismatch: -32020,
      MissingRequiredClientCapability: -32021,
      UnsupportedProtocolVersion: -32022,
      UrlElicitationRequired: -32042
    })
    expect(JsonRpc.errorCodeName(-32042)).toBe("UrlElicitationRequired")
    expect(JsonRpc.errorCodeName(-1)).toBeUndefined()
  })

  it.prop(
    "a request whose id is a fraction is rejected at the id",
    [FastCheck.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n))],
    ([id]) => {
      const decoded = JsonRpc.decodeMessage({ jsonrpc: "2.0", id, method: "ping" })
      if (Either.isRight(decoded)) expect.fail(`id ${id} was accepted`)
      expect(paths(decoded.left)).toContain("id")
    },
    runs
  )
})
