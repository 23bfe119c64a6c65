/**
 * The MCP Apps extension judged by its own `schema.json` (shipped in
 * `@modelcontextprotocol/ext-apps`): every definition has a Schema here of the same name without
 * its `McpUi` prefix; values generated from the definition decode with it; what it encodes
 * validates there; encode → JSON → decode is the identity. Then a tool's view read from `_meta`.
 */

import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { describe, expect, it } from "@effect/vitest"
import { McpApps } from "@effect-mcp/protocol"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormatsModule from "ajv-formats"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { arbitraryOf } from "./support/arbitraryFromJsonSchema.js"
import { propRuns } from "./support/spec.js"

type Node = { readonly [key: string]: unknown }
const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value)

const published: unknown = JSON.parse(
  readFileSync(createRequire(import.meta.url).resolve("@modelcontextprotocol/ext-apps/schema.json"), "utf8")
)
if (!isNode(published) || !isNode(published.$defs)) throw new Error("ext-apps schema.json has no $defs")

// Three definitions carry a `$defs` of their own (one JSON value schema, the same in each) that
// their `$ref: "#/$defs/__schema0"` means; without an `$id` of their own, `#` is the file's root,
// which lacks it. It is moved to the root, where the references find it.
const nested = Object.values(published.$defs).flatMap((definition) =>
  isNode(definition) && isNode(definition.$defs) ? Object.entries(definition.$defs) : []
)
const document = { ...published, $defs: { ...Object.fromEntries(nested), ...published.$defs } }

/** Rewrites every schema node of a document, children first. */
const rewrite = (node: unknown, step: (node: Node) => Node): unknown => {
  if (Array.isArray(node)) return node.map((one) => rewrite(one, step))
  if (!isNode(node)) return node
  return step(Object.fromEntries(Object.entries(node).map(([k, v]) => [k, rewrite(v, step)])))
}
const isEmptySchema = (node: unknown) =>
  isNode(node) && Object.keys(node).filter((k) => k !== "description").length === 0

// The file is generated from zod: an optional member `T | undefined` becomes `anyOf: [T, {}]`, and
// a record over an enum of keys (the style variables, `Record<key, string | undefined>` in the
// specification, of which a host passes "any subset") requires every key. JSON carries no
// `undefined`, so values are generated without the `{}` member, and checked with every key optional.
// The content blocks' `size` is a number there, an integer in the MCP revision they come from.
const generation = rewrite(document.$defs, (node) => {
  if (isNode(node.properties) && isNode(node.properties.size) && node.properties.size.type === "number")
    return { ...node, properties: { ...node.properties, size: { type: "integer", minimum: 0 } } }
  if (!Array.isArray(node.anyOf) || !node.anyOf.some(isEmptySchema)) return node
  const rest = node.anyOf.filter((option) => !isEmptySchema(option))
  const { anyOf: _, ...others } = node
  return rest.length === 1 && isNode(rest[0]) ? { ...others, ...rest[0] } : { ...others, anyOf: rest }
})
// The container's dimensions are the intersection (`allOf`) of a height half and a width half,
// each a closed object: as JSON Schema that admits only `{}`. The specification's type is the
// intersection of the halves; they are checked open.
const openHalves = (node: Node): Node => {
  if (!Array.isArray(node.allOf)) return node
  const open = (half: unknown): unknown =>
    isNode(half) && Array.isArray(half.anyOf)
      ? {
          ...half,
          anyOf: half.anyOf.map((option) => (isNode(option) ? { ...option, additionalProperties: true } : option))
        }
      : half
  return { ...node, allOf: node.allOf.map(open) }
}
const anySubset = rewrite(document, (node) => {
  if (!("propertyNames" in node) || !Array.isArray(node.required)) return openHalves(node)
  const { required: _, ...others } = node
  return others
})
if (!isNode(generation) || !isNode(anySubset)) throw new Error("unreachable")

const ajv = new Ajv2020({ strict: false })
addFormatsModule.default(ajv)
ajv.addSchema(rewrite(document, openHalves) as object, "apps")
ajv.addSchema({ ...anySubset, $id: "apps-subset" } as object, "apps-subset")

const validator = (id: "apps" | "apps-subset", name: string) => {
  const found = ajv.getSchema(`${id}#/$defs/${name}`)
  if (!found) throw new Error(`no definition ${name}`)
  return found
}

const registry: Record<string, unknown> = McpApps
const ours = (definition: string): Schema.Schema<unknown, unknown> => {
  const value = registry[definition.replace(/^McpUi/, "")]
  if (!Schema.isSchema(value)) throw new Error(`McpApps has no ${definition.replace(/^McpUi/, "")}`)
  return value as Schema.Schema<unknown, unknown>
}

const names = Object.keys(published.$defs).sort()
const runs = { numRuns: propRuns * 2 }

describe("McpApps against the extension's schema.json", () => {
  it("has a Schema for every definition", () => {
    expect(names.length).toBeGreaterThan(30)
    for (const name of names) expect(() => ours(name), name).not.toThrow()
  })

  for (const name of names) {
    describe(name, () => {
      const schema = ours(name)
      const decode = Schema.decodeUnknownEither(schema)

      it("decodes values generated from the definition", () => {
        const validate = validator("apps", name)
        FastCheck.assert(
          FastCheck.property(arbitraryOf(generation, name), (value) => {
            if (!validate(value)) throw new Error(`generated an invalid ${name}: ${JSON.stringify(validate.errors)}`)
            const decoded = decode(value)
            if (Either.isLeft(decoded))
              expect.fail(
                `refused ${JSON.stringify(value)}:\n${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`
              )
          }),
          runs
        )
      })

      it("encodes values the definition accepts, and decodes them back", () => {
        const validate = validator("apps-subset", name)
        FastCheck.assert(
          FastCheck.property(Arbitrary.make(schema), (value) => {
            const wire: unknown = JSON.parse(JSON.stringify(Schema.encodeSync(schema)(value)))
            if (!validate(wire)) expect.fail(`${JSON.stringify(wire)}\n${JSON.stringify(validate.errors?.slice(0, 3))}`)
            expect(Schema.decodeUnknownSync(schema)(wire)).toStrictEqual(value)
          }),
          runs
        )
      })
    })
  }
})

describe("a tool's view from its _meta", () => {
  const read = (meta: { readonly [key: string]: unknown } | undefined) => McpApps.toolUi(meta)

  it("takes ui.resourceUri, else the flat ui/resourceUri; visibility defaults to model and app", () => {
    expect(read(undefined)).toStrictEqual(Either.right(undefined))
    expect(read({ other: 1 })).toStrictEqual(Either.right(undefined))
    expect(read({ ui: { resourceUri: "ui://a/view" }, "ui/resourceUri": "ui://old" })).toStrictEqual(
      Either.right({ resourceUri: "ui://a/view", visibility: ["model", "app"] })
    )
    expect(read({ "ui/resourceUri": "ui://old" })).toStrictEqual(
      Either.right({ resourceUri: "ui://old", visibility: ["model", "app"] })
    )
    expect(read({ ui: { visibility: ["app"] } })).toStrictEqual(
      Either.right({ resourceUri: undefined, visibility: ["app"] })
    )
  })

  it("fails on a malformed _meta.ui or flat address", () => {
    expect(Either.isLeft(read({ ui: { visibility: ["everyone"] } }))).toBe(true)
    expect(Either.isLeft(read({ ui: "ui://x" }))).toBe(true)
    expect(Either.isLeft(read({ "ui/resourceUri": 3 }))).toBe(true)
  })

  it("visibility: model-only and app-only tools", () => {
    const appOnly = { resourceUri: "ui://a", visibility: ["app"] as const }
    expect(McpApps.visibleToModel(appOnly)).toBe(false)
    expect(McpApps.visibleToApp(appOnly)).toBe(true)
    expect(McpApps.visibleToModel(undefined)).toBe(true)
    expect(McpApps.visibleToApp({ resourceUri: undefined, visibility: ["model"] })).toBe(false)
  })
})
