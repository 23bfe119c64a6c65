import { describe, expect, it } from "@effect/vitest"
import { McpSchema, Methods, ProtocolVersion } from "@effect-mcp/protocol"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { oracle, propRuns, throughWire } from "./support/spec.js"

const spec = oracle("2025-11-25")

/** The method constants of a union definition of the official schema (ClientRequest, …). */
const methodsOf = (union: string): ReadonlyArray<string> => {
  const refs = (spec.validator(union).schema as { anyOf: ReadonlyArray<{ $ref: string }> }).anyOf
  return refs.map(({ $ref }) => {
    const name = $ref.split("/").pop() ?? ""
    const definition = spec.validator(name).schema as { properties: { method: { const: string } } }
    return definition.properties.method.const
  })
}

describe("Methods", () => {
  it("has every request method of the revision, in the right direction", () => {
    const fromClient = methodsOf("ClientRequest")
    const fromServer = methodsOf("ServerRequest")
    // Plus server/discover, the one request of the stateless revision the client sends to any server.
    expect(new Set(Object.keys(Methods.requests))).toStrictEqual(
      new Set([...fromClient, ...fromServer, "server/discover"])
    )
    for (const method of fromClient) {
      expect([method, Methods.requests[method as Methods.RequestMethodName].direction]).not.toEqual([
        method,
        "serverToClient"
      ])
    }
    for (const method of fromServer) {
      expect([method, Methods.requests[method as Methods.RequestMethodName].direction]).not.toEqual([
        method,
        "clientToServer"
      ])
    }
  })

  it("has every notification method of the revision, in the right direction", () => {
    const fromClient = methodsOf("ClientNotification")
    const fromServer = methodsOf("ServerNotification")
    expect(new Set(Object.keys(Methods.notifications))).toStrictEqual(new Set([...fromClient, ...fromServer]))
    for (const method of fromClient) {
      expect(Methods.notifications[method as Methods.NotificationMethodName].direction).not.toBe("serverToClient")
    }
    for (const method of fromServer) {
      expect(Methods.notifications[method as Methods.NotificationMethodName].direction).not.toBe("clientToServer")
    }
  })

  const requestUnion = Schema.Union(McpSchema.ClientRequest, McpSchema.ServerRequest)
  it.prop(
    "the table's params schema decodes the params of every request",
    [requestUnion],
    ([request]) => {
      const wire = throughWire(requestUnion, request) as { method: string; params?: unknown }
      if (!Methods.isRequestMethod(wire.method)) expect.fail(`${wire.method} is not in the table`)
      const entry = Methods.requests[wire.method]
      if (wire.params === undefined) expect(entry.paramsOptional).toBe(true)
      else expect(Either.isRight(Schema.decodeUnknownEither(Schema.asSchema(entry.params))(wire.params))).toBe(true)
    },
    { fastCheck: { numRuns: propRuns * 4 } }
  )

  const notificationUnion = Schema.Union(McpSchema.ClientNotification, McpSchema.ServerNotification)
  it.prop(
    "the table's params schema decodes the params of every notification",
    [notificationUnion],
    ([notification]) => {
      const wire = throughWire(notificationUnion, notification) as { method: string; params?: unknown }
      if (!Methods.isNotificationMethod(wire.method)) expect.fail(`${wire.method} is not in the table`)
      const entry = Methods.notifications[wire.method]
      if (wire.params === undefined) expect(entry.paramsOptional).toBe(true)
      else expect(Either.isRight(Schema.decodeUnknownEither(Schema.asSchema(entry.params))(wire.params))).toBe(true)
    },
    { fastCheck: { numRuns: propRuns * 4 } }
  )

  it("reads capabilities: present and not false counts, nested flags too", () => {
    const subscribe = Methods.requests["resources/subscribe"].capability
    expect(Methods.declares({ resources: { subscribe: true } }, subscribe, "2025-11-25")).toBe(true)
    expect(Methods.declares({ resources: { subscribe: false } }, subscribe, "2025-11-25")).toBe(false)
    expect(Methods.declares({ resources: {} }, subscribe, "2025-11-25")).toBe(false)
    expect(Methods.declares({}, Methods.requests["tools/list"].capability, "2025-11-25")).toBe(false)
    expect(Methods.declares({ tools: {} }, Methods.requests["tools/list"].capability, "2025-11-25")).toBe(true)
    expect(Methods.declares({ logging: {} }, Methods.requests["logging/setLevel"].capability, "2024-11-05")).toBe(true)
  })

  it("decodes and encodes with the table's compiled Schemas, failing with a path", () => {
    const wire = { tools: [{ name: "t", inputSchema: { type: "object" } }] }
    const decoded = Methods.decodeResult("tools/list", wire, "2025-11-25")
    expect(decoded).toStrictEqual(Either.right(wire))
    if (Either.isRight(decoded))
      expect(Methods.encodeResult("tools/list", decoded.right, "2025-11-25")).toStrictEqual(Either.right(wire))
    const broken = Methods.decodeResult("tools/list", { tools: [{ inputSchema: { type: "object" } }] }, "2025-11-25")
    if (Either.isRight(broken)) return expect.fail("a tool without a name was accepted")
    expect(broken.left.message).toContain('["name"]')
    expect(Methods.decodeRequestParams("resources/read", { uri: "file:///a" }, "2025-11-25")).toStrictEqual(
      Either.right({ uri: "file:///a" })
    )
    expect(
      Either.isLeft(Methods.decodeNotificationParams("notifications/progress", { progress: 1 }, "2025-11-25"))
    ).toBe(true)
  })

  it("does not gate completion on a capability that 2024-11-05 did not have", () => {
    const completions = Methods.requests["completion/complete"].capability
    expect(Methods.declares({}, completions, "2024-11-05")).toBe(true)
    expect(Methods.declares({}, completions, "2025-03-26")).toBe(false)
  })
})

describe("ProtocolVersion", () => {
  it("speaks the stateless revision and the four stateful ones before it", () => {
    expect(ProtocolVersion.LATEST).toBe("2026-07-28")
    expect(ProtocolVersion.LATEST_STATEFUL).toBe("2025-11-25")
    expect(ProtocolVersion.SUPPORTED).toStrictEqual([
      "2026-07-28",
      "2025-11-25",
      "2025-06-18",
      "2025-03-26",
      "2024-11-05"
    ])
    expect(ProtocolVersion.SUPPORTED.filter(ProtocolVersion.isStateless)).toStrictEqual(["2026-07-28"])
  })

  it("the handshake accepts any stateful answer and refuses anything else, naming both versions", () => {
    for (const version of ProtocolVersion.STATEFUL) {
      expect(ProtocolVersion.negotiate(ProtocolVersion.LATEST_STATEFUL, version)).toStrictEqual(Either.right(version))
    }
    const refused = ProtocolVersion.negotiate("2025-11-25", "2026-07-28")
    if (Either.isRight(refused)) return expect.fail("2026-07-28 was accepted")
    expect(refused.left._tag).toBe("UnsupportedProtocolVersion")
    expect(refused.left.message).toContain("2026-07-28")
    expect(refused.left.message).toContain("2025-11-25")
  })

  it("orders revisions by date", () => {
    expect(ProtocolVersion.isAtLeast("2025-06-18", "2025-03-26")).toBe(true)
    expect(ProtocolVersion.isAtLeast("2024-11-05", "2025-03-26")).toBe(false)
  })
})
