/**
 * Namespacing and collision rules of the aggregated view, as properties over arbitrary
 * servers and entry names (including names built to collide).
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import { Aggregate } from "../src/index.js"

const runs = Number(process.env.PROP_RUNS ?? 25)

const tool = (name: string) => ({ name, inputSchema: { type: "object" as const } })
const resource = (uri: string) => ({ uri, name: uri })

/** Short names from a small alphabet with `_`, so that `a__b` + `c` and `a` + `b__c` meet often. */
const name = FastCheck.stringMatching(/^[ab_]{1,4}$/)
const servers = FastCheck.uniqueArray(
  FastCheck.record({
    server: name,
    tools: FastCheck.array(name, { maxLength: 5 }),
    uris: FastCheck.array(FastCheck.constantFrom("x://1", "x://2", "x://3"), { maxLength: 3 })
  }),
  { selector: (entry) => entry.server, maxLength: 5 }
).map((entries) =>
  entries.map(
    (entry): Aggregate.ServerLists => ({
      server: entry.server,
      tools: [...new Set(entry.tools)].map(tool),
      resources: [...new Set(entry.uris)].map(resource),
      resourceTemplates: [],
      prompts: []
    })
  )
)

describe("Aggregate", () => {
  it.prop(
    "every tool appears once, under a unique name, and the same input gives the same names",
    [servers],
    ([lists]) => {
      const view = Aggregate.aggregate(lists)
      const names = view.tools.map((entry) => entry.name)
      expect(new Set(names).size).toBe(names.length)
      expect(view.tools.map((entry) => [entry.server, entry.tool.name])).toStrictEqual(
        lists.flatMap((entry) => entry.tools.map((t) => [entry.server, t.name]))
      )
      expect(Aggregate.aggregate(lists)).toStrictEqual(view)
    },
    { fastCheck: { numRuns: runs } }
  )

  it.prop(
    "an uncontested name is the namespaced name; each renamed entry is reported",
    [servers],
    ([lists]) => {
      const view = Aggregate.aggregate(lists)
      const renamed = view.tools.filter(
        (entry) => entry.name !== Aggregate.defaultNamespace(entry.server, entry.tool.name)
      )
      const reported = view.collisions
        .filter((collision) => collision.kind === "tool")
        .flatMap((collision) => collision.others.map((other) => other.name))
      expect(reported.sort()).toStrictEqual(renamed.map((entry) => entry.name).sort())
      for (const entry of renamed) expect(entry.name).toMatch(/_\d+$/)
    },
    { fastCheck: { numRuns: runs } }
  )

  it.prop(
    "a URI listed by several servers belongs to the first of them",
    [servers],
    ([lists]) => {
      const view = Aggregate.aggregate(lists)
      for (const entry of view.resources) {
        const first = lists.find((candidate) => candidate.resources.some((r) => r.uri === entry.resource.uri))
        expect(entry.server).toBe(first?.server)
      }
      expect(new Set(view.resources.map((entry) => entry.resource.uri)).size).toBe(view.resources.length)
    },
    { fastCheck: { numRuns: runs } }
  )

  it.prop(
    "a view's address (ui://) is kept for every server that lists it, the others' URIs once",
    [servers, FastCheck.constantFrom("ui://view", "ui://app/index.html")],
    ([lists, view]) => {
      const withViews = lists.map((entry) => ({ ...entry, resources: [...entry.resources, resource(view)] }))
      const aggregated = Aggregate.aggregate(withViews)
      expect(
        aggregated.resources.filter((entry) => entry.resource.uri === view).map((entry) => entry.server)
      ).toStrictEqual(withViews.map((entry) => entry.server))
      expect(aggregated.collisions.some((collision) => collision.name === view)).toBe(false)
    },
    { fastCheck: { numRuns: runs } }
  )

  it("resolves the classic clash deterministically: a__b's c and a's b__c", () => {
    const view = Aggregate.aggregate([
      { server: "a__b", tools: [tool("c")], resources: [], resourceTemplates: [], prompts: [] },
      { server: "a", tools: [tool("b__c")], resources: [], resourceTemplates: [], prompts: [] }
    ])
    expect(view.tools.map((entry) => [entry.name, entry.server])).toStrictEqual([
      ["a__b__c", "a__b"],
      ["a__b__c_2", "a"]
    ])
    expect(view.collisions).toStrictEqual([
      { kind: "tool", name: "a__b__c", kept: "a__b", others: [{ server: "a", name: "a__b__c_2" }] }
    ])
  })

  it("a custom namespace rule and allow/deny lists", () => {
    const view = Aggregate.aggregate(
      [{ server: "s", tools: [tool("t")], resources: [], resourceTemplates: [], prompts: [] }],
      (server, entry) => `${server}.${entry}`
    )
    expect(view.tools[0]?.name).toBe("s.t")
    expect(Aggregate.allowed("t", {})).toBe(true)
    expect(Aggregate.allowed("t", { allowTools: ["u"] })).toBe(false)
    expect(Aggregate.allowed("t", { allowTools: ["t"], denyTools: ["t"] })).toBe(false)
  })
})
