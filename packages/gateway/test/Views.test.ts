/**
 * The gateway's view addresses (`internal/views.ts`) as laws: an address rewritten for a server
 * names that server and gives back the original (any server name, any address), the scheme kept;
 * and every place a tool's result carries one (resource links, embedded resources, `_meta` under
 * both keys) is rewritten, nothing else touched. `McpApps.test.ts` checks the same through the
 * gateway with real servers and clients.
 */
import { describe, expect, it } from "@effect/vitest"
import type { McpClient } from "@effect-mcp/client"
import * as FastCheck from "effect/FastCheck"
import * as Views from "../src/internal/views.js"

const runs = Number(process.env.PROP_RUNS ?? 100)

describe("view addresses", () => {
  it.prop(
    "a rewritten address keeps the scheme, names its server and gives the original back",
    // A server's name is never empty.
    [FastCheck.string({ minLength: 1 }), FastCheck.string()],
    ([server, path]) => {
      const original = `ui://${path}`
      const rewritten = Views.address(server, original)
      expect(rewritten.startsWith("ui://")).toBe(true)
      expect(Views.origin(rewritten)).toEqual({ server, uri: original })
    },
    { fastCheck: { numRuns: runs } }
  )

  it.prop(
    "two servers' addresses never meet, whatever they name",
    [FastCheck.string(), FastCheck.string(), FastCheck.string(), FastCheck.string()],
    ([a, b, pathA, pathB]) => {
      FastCheck.pre(a !== b)
      expect(Views.address(a, `ui://${pathA}`)).not.toBe(Views.address(b, `ui://${pathB}`))
    },
    { fastCheck: { numRuns: runs } }
  )

  it("leaves other schemes alone and gives no server for an address the gateway did not give", () => {
    expect(Views.address("alpha", "file:///etc/hosts")).toBe("file:///etc/hosts")
    expect(Views.address("a/b", "ui://view.html")).toBe("ui://a%2Fb/view.html")
    expect(Views.origin("ui://view.html")).toBeUndefined()
    expect(Views.origin("ui:///view.html")).toBeUndefined()
    expect(Views.origin("ui://%E0%A4%A/view.html")).toBeUndefined()
    expect(Views.origin("file:///etc/hosts")).toBeUndefined()
  })
})

describe("a tool's result", () => {
  it("has its view addresses rewritten in links, embedded resources and _meta, and nothing else", () => {
    const result: McpClient.CallToolResult = {
      content: [
        { type: "text", text: "ui://not/an/address" },
        { type: "resource_link", name: "view", uri: "ui://weather/view.html" },
        { type: "resource_link", name: "file", uri: "file:///tmp/a" },
        { type: "resource", resource: { uri: "ui://weather/view.html", text: "<html></html>" } }
      ],
      _meta: { ui: { resourceUri: "ui://weather/view.html" }, "ui/resourceUri": "ui://weather/other.html", other: 1 }
    }
    expect(Views.result("alpha", result)).toEqual({
      content: [
        { type: "text", text: "ui://not/an/address" },
        { type: "resource_link", name: "view", uri: "ui://alpha/weather/view.html" },
        { type: "resource_link", name: "file", uri: "file:///tmp/a" },
        { type: "resource", resource: { uri: "ui://alpha/weather/view.html", text: "<html></html>" } }
      ],
      _meta: {
        ui: { resourceUri: "ui://alpha/weather/view.html" },
        "ui/resourceUri": "ui://alpha/weather/other.html",
        other: 1
      }
    })
  })
})
