/**
 * Messages from servers built to older revisions decode with the 2025-11-25 schemas.
 * Each fixture is first checked against its own revision's official schema.json, so the
 * fixtures are genuine messages of that revision.
 */

import { describe, expect, it } from "@effect/vitest"
import { JsonRpc, McpSchema, Methods } from "@effect-mcp/protocol"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { describeErrors, oracle, type SpecRevision } from "./support/spec.js"

interface Fixture {
  readonly revision: SpecRevision
  readonly definition: string
  readonly decodeWith: Schema.Schema<unknown, unknown>
  readonly value: unknown
}

const fixture = <A, I>(
  revision: SpecRevision,
  definition: string,
  decodeWith: Schema.Schema<A, I>,
  value: unknown
): Fixture => ({
  revision,
  definition,
  decodeWith: Schema.asSchema(decodeWith) as Schema.Schema<unknown, unknown>,
  value
})

const fixtures: ReadonlyArray<Fixture> = [
  fixture("2024-11-05", "InitializeResult", Methods.requests.initialize.result, {
    protocolVersion: "2024-11-05",
    capabilities: { tools: {}, resources: { subscribe: true }, logging: {}, prompts: { listChanged: true } },
    serverInfo: { name: "old", version: "0.1" }
  }),
  fixture("2024-11-05", "ListToolsResult", Methods.requests["tools/list"].result, {
    tools: [
      { name: "add", description: "adds", inputSchema: { type: "object", properties: { a: { type: "number" } } } }
    ],
    nextCursor: "2"
  }),
  fixture("2024-11-05", "CallToolResult", Methods.requests["tools/call"].result, {
    content: [
      { type: "text", text: "ok", annotations: { audience: ["user"], priority: 0.5 } },
      { type: "resource", resource: { uri: "file:///a.txt", text: "a" } }
    ],
    isError: false
  }),
  fixture("2024-11-05", "CreateMessageRequest", McpSchema.CreateMessageRequest, {
    jsonrpc: "2.0",
    id: 7,
    method: "sampling/createMessage",
    params: {
      messages: [{ role: "user", content: { type: "image", data: "aGk=", mimeType: "image/png" } }],
      maxTokens: 10,
      includeContext: "thisServer"
    }
  }),
  fixture("2024-11-05", "JSONRPCError", JsonRpc.JSONRPCErrorResponse, {
    jsonrpc: "2.0",
    id: "x",
    error: { code: -32601, message: "Method not found" }
  }),
  fixture("2024-11-05", "ProgressNotification", McpSchema.ProgressNotification, {
    jsonrpc: "2.0",
    method: "notifications/progress",
    params: { progressToken: "t", progress: 1, total: 2 }
  }),
  fixture("2025-03-26", "InitializeResult", Methods.requests.initialize.result, {
    protocolVersion: "2025-03-26",
    capabilities: { completions: {}, tools: { listChanged: true } },
    serverInfo: { name: "mid", version: "1" },
    instructions: "be nice"
  }),
  fixture("2025-03-26", "ListToolsResult", Methods.requests["tools/list"].result, {
    tools: [{ name: "rm", inputSchema: { type: "object" }, annotations: { destructiveHint: true, title: "Remove" } }]
  }),
  fixture("2025-03-26", "CallToolResult", Methods.requests["tools/call"].result, {
    content: [{ type: "audio", data: "AAAA", mimeType: "audio/wav" }]
  }),
  fixture("2025-06-18", "ElicitRequest", McpSchema.ElicitRequest, {
    jsonrpc: "2.0",
    id: 3,
    method: "elicitation/create",
    params: {
      message: "Who?",
      requestedSchema: {
        type: "object",
        properties: {
          name: { type: "string", minLength: 1 },
          age: { type: "integer", minimum: 0 },
          color: { type: "string", enum: ["r", "g"], enumNames: ["Red", "Green"] }
        },
        required: ["name"]
      }
    }
  }),
  fixture("2025-06-18", "CallToolResult", Methods.requests["tools/call"].result, {
    content: [{ type: "resource_link", uri: "file:///b", name: "b", title: "B" }],
    structuredContent: { b: 1 }
  }),
  fixture("2025-06-18", "ListToolsResult", Methods.requests["tools/list"].result, {
    tools: [
      {
        name: "get",
        title: "Get",
        inputSchema: { type: "object" },
        outputSchema: { type: "object", properties: { b: { type: "number" } } },
        _meta: { k: 1 }
      }
    ]
  })
]

describe("messages of older revisions", () => {
  for (const { revision, definition, decodeWith, value } of fixtures) {
    it(`${revision} ${definition} decodes`, () => {
      const validate = oracle(revision).validator(definition)
      if (!validate(value))
        expect.fail(`the fixture is not a valid ${revision} ${definition}: ${describeErrors(validate)}`)
      expect(Either.isRight(Schema.decodeUnknownEither(decodeWith)(value))).toBe(true)
    })
  }

  it("a 2025-03-26 batch of server messages decodes and validates as a batch of that revision", () => {
    const batch = [
      { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
      { jsonrpc: "2.0", id: 1, result: { tools: [] } },
      { jsonrpc: "2.0", id: 2, error: { code: -32602, message: "bad" } }
    ]
    expect(oracle("2025-03-26").validator("JSONRPCBatchResponse")(batch.slice(1))).toBe(true)
    const decoded = JsonRpc.decodePayload(batch)
    expect(Either.map(decoded, (messages) => messages.length)).toStrictEqual(Either.right(3))
  })
})
