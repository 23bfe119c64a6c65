/**
 * The JSON Schema → Effect Schema emitter (`internal/generate/schemaSource.ts`), tested through
 * the source it writes: the declarations for a set of JSON Schemas are written to one module,
 * type-checked with the repository's `tsc`, and imported; each emitted Schema then decodes what
 * the JSON Schema accepts (Ajv, the client's validator, is the oracle) and rejects what it
 * rejects: for listed values, for values generated from the emitted Schema, for random JSON, and
 * for listed values with one property replaced by random JSON. Where the emitter says it is
 * looser (a comment in the source), it must still accept everything the JSON Schema accepts.
 * Modules and standalone programs for tools with awkward names and schemas are type-checked in
 * the same run, and the module's exports read.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { JsonSchema, type McpClient } from "@effect-mcp/client"
import type { ServerEntry } from "@effect-mcp/host"
import * as Arbitrary from "effect/Arbitrary"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { emitModule, type Origin } from "../src/internal/generate/module.js"
import { camelCase, names, pascalCase, propertyKey } from "../src/internal/generate/names.js"
import { emitDocument } from "../src/internal/generate/schemaSource.js"
import { typecheck } from "./support/typecheck.js"

const runs = Number(process.env.PROP_RUNS ?? 50)

interface Case {
  readonly name: string
  readonly schema: { readonly [keyword: string]: unknown }
  readonly accepts: ReadonlyArray<unknown>
  readonly rejects: ReadonlyArray<unknown>
  /** The emitter says it is looser here: only "accepts at least what the JSON Schema accepts" holds. */
  readonly looser?: string
  /** False when Effect's Arbitrary cannot generate values of the emitted Schema. */
  readonly generated?: boolean
}

const cases: ReadonlyArray<Case> = [
  {
    name: "Scalars",
    schema: {
      type: "object",
      properties: {
        text: { type: "string", minLength: 2, maxLength: 5, description: "Some text" },
        code: { type: "string", pattern: "^[A-Z]{3}$" },
        count: { type: "integer", minimum: 0, maximum: 10 },
        ratio: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
        step: { type: "integer", multipleOf: 5 },
        flag: { type: "boolean" },
        nothing: { type: "null" },
        mode: { enum: ["fast", "slow", 3, null] },
        kind: { const: "fixed" },
        id: { type: "string", format: "uuid" }
      },
      required: ["text", "count"]
    },
    accepts: [
      { text: "ab", count: 0 },
      {
        text: "abcde",
        code: "ABC",
        count: 10,
        ratio: 0.5,
        step: 15,
        flag: false,
        nothing: null,
        mode: 3,
        kind: "fixed",
        id: "123e4567-e89b-12d3-a456-426614174000"
      },
      { text: "xyz", count: 1, mode: null }
    ],
    rejects: [
      {},
      { text: "a", count: 0 },
      { text: "abcdef", count: 0 },
      { text: "ab", count: 1.5 },
      { text: "ab", count: 11 },
      { text: "ab", count: 1, code: "abc" },
      { text: "ab", count: 1, ratio: 0 },
      { text: "ab", count: 1, ratio: 1 },
      { text: "ab", count: 1, step: 7 },
      { text: "ab", count: 1, flag: "true" },
      { text: "ab", count: 1, nothing: 0 },
      { text: "ab", count: 1, mode: "medium" },
      { text: "ab", count: 1, kind: "other" },
      { text: "ab", count: 1, id: "not-a-uuid" },
      [],
      "ab",
      null
    ]
  },
  {
    name: "Nested",
    schema: {
      type: "object",
      properties: {
        tags: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 3 },
        owner: {
          type: "object",
          properties: {
            "first-name": { type: "string" },
            "0age": { type: "integer" },
            "with space": { type: "boolean" }
          },
          required: ["first-name"]
        },
        matrix: { type: "array", items: { type: "array", items: { type: "number" } } }
      },
      required: ["owner"]
    },
    accepts: [
      { owner: { "first-name": "Ada" } },
      { owner: { "first-name": "Ada", "0age": 36, "with space": true }, tags: ["a"], matrix: [[1, 2], []] }
    ],
    rejects: [
      { owner: {} },
      { owner: { "first-name": 1 } },
      { owner: { "first-name": "Ada", "0age": "36" } },
      { owner: { "first-name": "Ada" }, tags: [] },
      { owner: { "first-name": "Ada" }, tags: ["a", "b", "c", "d"] },
      { owner: { "first-name": "Ada" }, tags: [1] },
      { owner: { "first-name": "Ada" }, matrix: [["1"]] },
      { owner: [] }
    ]
  },
  {
    name: "Unions",
    schema: {
      type: "object",
      properties: {
        either: { anyOf: [{ type: "string" }, { type: "integer", minimum: 0 }] },
        shape: {
          oneOf: [
            {
              type: "object",
              properties: { kind: { const: "circle" }, radius: { type: "number" } },
              required: ["kind", "radius"]
            },
            {
              type: "object",
              properties: { kind: { const: "square" }, side: { type: "number" } },
              required: ["kind", "side"]
            }
          ]
        },
        maybe: { type: ["string", "null"] },
        // The keywords beside anyOf hold in every branch.
        contact: {
          type: "object",
          properties: { email: { type: "string" }, phone: { type: "string" } },
          anyOf: [{ required: ["email"] }, { required: ["phone"] }]
        }
      }
    },
    accepts: [
      {},
      { either: "x", shape: { kind: "circle", radius: 1 }, maybe: null, contact: { email: "a@b" } },
      { either: 3, shape: { kind: "square", side: 2 }, maybe: "m", contact: { phone: "1" } }
    ],
    rejects: [
      { either: -1 },
      { either: 1.5 },
      { either: true },
      { shape: { kind: "circle", side: 1 } },
      { shape: { kind: "triangle" } },
      { maybe: 1 },
      { contact: {} },
      { contact: { email: 1 } }
    ]
  },
  {
    name: "References",
    schema: {
      type: "object",
      properties: {
        tree: { $ref: "#/$defs/Tree" },
        list: { $ref: "#/definitions/List" },
        point: { $ref: "#/$defs/Point" },
        again: { $ref: "#" },
        // A property named like a keyword whose value is data.
        default: { $ref: "#/$defs/Label" }
      },
      $defs: {
        Tree: {
          type: "object",
          properties: { value: { type: "integer" }, children: { type: "array", items: { $ref: "#/$defs/Tree" } } },
          required: ["value"]
        },
        Point: { type: "object", properties: { x: { type: "number" }, y: { type: "number" } }, required: ["x", "y"] },
        Label: { type: "string", minLength: 1 },
        Unused: { type: "string" }
      },
      definitions: {
        List: {
          type: "object",
          properties: {
            head: { $ref: "#/$defs/Point" },
            tail: { anyOf: [{ $ref: "#/definitions/List" }, { type: "null" }] }
          },
          required: ["head", "tail"]
        }
      }
    },
    accepts: [
      {},
      { tree: { value: 1, children: [{ value: 2 }, { value: 3, children: [] }] } },
      { list: { head: { x: 0, y: 1 }, tail: { head: { x: 2, y: 3 }, tail: null } } },
      { again: { point: { x: 1, y: 2 }, again: {} } },
      { default: "label" }
    ],
    rejects: [
      { tree: { children: [] } },
      { tree: { value: 1, children: [{ value: "2" }] } },
      { list: { head: { x: 0 }, tail: null } },
      { list: { head: { x: 0, y: 1 }, tail: { head: { x: 0, y: "1" }, tail: null } } },
      { point: { x: 1 } },
      { again: { point: {} } },
      { default: "" }
    ]
  },
  {
    name: "Additional",
    schema: {
      type: "object",
      properties: {
        closed: { type: "object", properties: { a: { type: "number" } }, additionalProperties: false },
        counts: { type: "object", additionalProperties: { type: "integer" } },
        mixed: { type: "object", properties: { name: { type: "string" } }, additionalProperties: { type: "number" } }
      }
    },
    accepts: [
      { closed: {}, counts: {}, mixed: {} },
      { closed: { a: 1 }, counts: { x: 1, y: 2 }, mixed: { name: "n", extra: 1 } }
    ],
    rejects: [
      { closed: { a: 1, b: 2 } },
      { counts: { x: "1" } },
      { counts: { x: 1.5 } },
      { mixed: { name: "n", extra: "1" } },
      { mixed: { name: 1 } },
      { counts: [] }
    ]
  },
  {
    name: "Closed",
    // A record of Never: Effect's Arbitrary cannot generate one.
    generated: false,
    schema: { type: "object", properties: { empty: { type: "object", additionalProperties: false } } },
    accepts: [{}, { empty: {} }],
    rejects: [{ empty: { a: 1 } }, { empty: [] }, { empty: "x" }]
  },
  {
    name: "Merged",
    schema: {
      allOf: [{ type: "object", properties: { a: { type: "string" } }, required: ["a"] }, { $ref: "#/$defs/B" }],
      $defs: { B: { type: "object", properties: { b: { type: "integer" } }, required: ["b"] } }
    },
    accepts: [{ a: "x", b: 1 }],
    rejects: [{ a: "x" }, { b: 1 }, { a: 1, b: 1 }, { a: "x", b: "1" }]
  },
  {
    name: "Looser",
    looser: "not, uniqueItems, tuples",
    schema: {
      type: "object",
      properties: {
        notString: { not: { type: "string" } },
        unique: { type: "array", items: { type: "integer" }, uniqueItems: true },
        pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }] }
      },
      required: ["unique"]
    },
    accepts: [{ unique: [1, 2] }, { unique: [], notString: 1, pair: ["a", 1] }],
    rejects: [{ unique: ["a"] }, { unique: 1 }]
  }
]

/** A recursive definition, shared by two tools' schemas (each declares its own). */
const Node = {
  Node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Node" } } } }
}

const cliRoot = fileURLToPath(new URL("..", import.meta.url))
let dir = ""
let file = ""
let source = ""
let module: { readonly [name: string]: unknown } = {}
let toolsSource = ""
let tools: { readonly [name: string]: unknown } = {}

/** Tools whose names collide (with each other, a reserved word, the module's own names) and whose schemas are awkward. */
const awkwardTools: ReadonlyArray<McpClient.Tool> = [
  { name: "get-sum", inputSchema: { type: "object", properties: { a: { type: "number" } }, required: ["a"] } },
  { name: "get_sum", inputSchema: { type: "object" } },
  { name: "delete", title: "Delete */ everything", inputSchema: { type: "object", properties: {} } },
  {
    name: "call",
    inputSchema: { type: "object", properties: { args: { type: "string" }, help: { type: "boolean" } } }
  },
  {
    name: "2fa.verify",
    description: "Checks a code.\nSecond line.",
    inputSchema: {
      type: "object",
      properties: { code: { type: "string", enum: ["a", "b"] }, "odd name": { type: "integer" } }
    },
    outputSchema: { type: "object", properties: { tree: { $ref: "#/$defs/Node" } }, $defs: Node },
    execution: { taskSupport: "required" }
  },
  {
    name: "tree",
    inputSchema: { type: "object", properties: { root: { $ref: "#/$defs/Node" } }, required: ["root"], $defs: Node },
    outputSchema: { type: "array", items: { type: "string" } }
  }
]

const schemaOf = (name: string): Schema.Schema<unknown> => {
  const value = module[name]
  if (!Schema.isSchema(value)) throw new Error(`${name} is not a Schema`)
  // The emitted Schemas need nothing from the context: their decoding is what is checked.
  return value as Schema.Schema<unknown>
}

const hasUnsafeInteger = (value: unknown): boolean =>
  typeof value === "number"
    ? Number.isInteger(value) && !Number.isSafeInteger(value)
    : typeof value === "object" && value !== null && Object.values(value).some(hasUnsafeInteger)

const ajv = (schema: Case["schema"], value: unknown) => Effect.runSync(JsonSchema.validate(schema, value)) === undefined
const decodes = (schema: Schema.Schema<unknown>, value: unknown) =>
  Either.isRight(Schema.decodeUnknownEither(schema)(value))

beforeAll(async () => {
  // Inside the repository, so that `effect` resolves as it does for generated modules.
  mkdirSync(join(cliRoot, "build"), { recursive: true })
  dir = mkdtempSync(join(cliRoot, "build", "schema-source-"))
  file = join(dir, "schemas.ts")
  const taken = names(["Schema"])
  source = [
    'import * as Schema from "effect/Schema"',
    ...cases.map((c) => emitDocument(c.name, c.schema, taken, { object: true }))
  ].join("\n\n")
  writeFileSync(file, `${source}\n`)
  module = await import(pathToFileURL(file).href)
  const origin = (target: ServerEntry.Target): Origin => ({
    serverInfo: { name: "awkward", version: "1.0.0" },
    protocolVersion: "2025-11-25",
    target,
    where: "a test"
  })
  toolsSource = emitModule(origin({ _tag: "Stdio", command: "awkward-server", args: [], env: {} }), awkwardTools, false)
  writeFileSync(join(dir, "tools.ts"), toolsSource)
  // The standalone programs are type-checked, not run (running is the binary test's).
  const http = { _tag: "Http", url: "http://127.0.0.1:1/mcp", transport: "auto", headers: {} } as const
  writeFileSync(join(dir, "program-http.ts"), emitModule(origin(http), awkwardTools, true))
  writeFileSync(
    join(dir, "program-stdio.ts"),
    emitModule(
      origin({ _tag: "Stdio", command: "awkward-server", args: ["--flag"], env: {}, cwd: "/tmp" }),
      awkwardTools,
      true
    )
  )
  tools = await import(pathToFileURL(join(dir, "tools.ts")).href)
  // Ajv loads on first use; later checks are synchronous.
  await Effect.runPromise(JsonSchema.validate({}, null))
})

afterAll(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true })
})

describe("schemaSource", () => {
  it("emits source that type-checks under the project's strict settings", async () => {
    expect(await typecheck(dir)).toBe("")
  })

  it("declares recursive definitions with their type and refers to them lazily", () => {
    expect(source).toMatch(/export type ReferencesTree = \{/)
    expect(source).toMatch(/export const ReferencesTree: Schema\.Schema<ReferencesTree> =/)
    expect(source).toContain("Schema.suspend((): Schema.Schema<ReferencesTree> => ReferencesTree)")
    // The root is recursive too (`$ref: "#"`); an acyclic definition is used directly, an unused one not at all.
    expect(source).toMatch(/export const References: Schema\.Schema<References> =/)
    expect(source).toMatch(/head: ReferencesPoint,/)
    expect(source).not.toContain("ReferencesUnused")
    expect(source).toContain('"first-name": Schema.String')
    expect(source).toContain('"with space"')
    expect(source).toContain('description: "Some text"')
  })

  it("says in a comment where it is looser, and never fails", () => {
    expect(source).toContain("not checked here: not")
    expect(source).toContain("not checked here: uniqueItems")
    expect(source).toContain("tuple items are not typed")
    const taken = names(["Schema"])
    expect(
      emitDocument("Remote", { type: "object", properties: { a: { $ref: "https://example.com/a.json" } } }, taken, {
        object: true
      })
    ).toContain("Schema.Unknown /* $ref https://example.com/a.json is not followed */")
    for (const odd of [null, 3, "x", [], { type: "frobnicate" }, { $ref: "#/$defs/Missing" }, { enum: [{ a: 1 }] }])
      expect(emitDocument("Odd", odd, taken, { object: true })).toContain(
        "Schema.Record({ key: Schema.String, value: Schema.Unknown })"
      )
  })

  for (const c of cases)
    describe(c.name, () => {
      it("agrees with the JSON Schema on listed values", () => {
        const schema = schemaOf(c.name)
        for (const value of c.accepts) {
          expect(ajv(c.schema, value), JSON.stringify(value)).toBe(true)
          expect(decodes(schema, value), JSON.stringify(value)).toBe(true)
        }
        for (const value of c.rejects) {
          expect(ajv(c.schema, value), JSON.stringify(value)).toBe(false)
          if (c.looser === undefined) expect(decodes(schema, value), JSON.stringify(value)).toBe(false)
        }
      })

      it("accepts only what the JSON Schema accepts, among values generated from it", () => {
        const schema = schemaOf(c.name)
        if (c.looser !== undefined || c.generated === false) return
        FastCheck.assert(
          FastCheck.property(Arbitrary.make(schema), (value) => {
            // Generated values are JSON (no undefined members, no -0 or NaN) after a round trip.
            const json: unknown = JSON.parse(JSON.stringify(value))
            expect(decodes(schema, json)).toBe(true)
            expect(ajv(c.schema, json), JSON.stringify(json)).toBe(true)
          }),
          { numRuns: runs }
        )
      })

      it("agrees with the JSON Schema on random JSON and on listed values with one member replaced", () => {
        const schema = schemaOf(c.name)
        const objects = c.accepts.filter(
          (value): value is { readonly [key: string]: unknown } =>
            typeof value === "object" && value !== null && !Array.isArray(value)
        )
        const keys = Object.keys(c.schema.properties ?? {})
        const mutated = FastCheck.tuple(
          FastCheck.constantFrom(...objects),
          FastCheck.constantFrom(...(keys.length === 0 ? ["x"] : keys)),
          FastCheck.jsonValue({ maxDepth: 3 })
        ).map(([base, key, value]) => ({ ...base, [key]: value }))
        FastCheck.assert(
          FastCheck.property(FastCheck.oneof(FastCheck.jsonValue({ maxDepth: 3 }), mutated), (value) => {
            // The emitter's one stricter rule: an integer must be safe (documented in schemaSource.ts).
            if (hasUnsafeInteger(value)) return
            const expected = ajv(c.schema, value)
            if (c.looser === undefined || expected) expect(decodes(schema, value), JSON.stringify(value)).toBe(expected)
          }),
          { numRuns: runs * 2 }
        )
      })
    })
})

describe("module", () => {
  it("names each tool's function and Schemas apart from every other name", () => {
    expect(Object.keys(tools).sort()).toEqual(
      [
        "ToolError",
        "SchemaMismatch",
        "getSum",
        "GetSumInput",
        "getSum2",
        "GetSumInput2",
        "delete_",
        "DeleteInput",
        "call2",
        "CallInput",
        "_2faVerify",
        "_2faVerifyInput",
        "_2faVerifyOutput",
        "_2faVerifyOutputNode",
        "tree",
        "TreeInput",
        "TreeInputNode",
        "TreeOutput"
      ].sort()
    )
    // A title with a comment's end stays inside the comment.
    expect(toolsSource).toContain(" * Delete *\\/ everything")
    expect(toolsSource).toContain(
      "export const _2faVerify = (input: _2faVerifyInput = {}, options?: TaskRunOptions) =>"
    )
    expect(toolsSource).toContain('"odd name": Schema.optionalWith(Schema.Int, { exact: true })')
  })

  it("the standalone program leaves out options it cannot name and reaches the server it was generated from", () => {
    const program = readFileSync(join(dir, "program-http.ts"), "utf8")
    expect(program).toContain('HttpTransport.layer({ url: "http://127.0.0.1:1/mcp", transport: "auto" })')
    expect(program).toContain('code: Options.choice("code", ["a", "b"]).pipe(Options.optional)')
    expect(program).not.toContain('Options.text("args").pipe(Options.optional)')
    expect(program).not.toContain('Options.boolean("help")')
    expect(program).not.toContain('odd name")')
    expect(readFileSync(join(dir, "program-stdio.ts"), "utf8")).toContain('cwd: "/tmp"')
  })
})

describe("names", () => {
  it("makes identifiers: camelCase functions, PascalCase schemas, no reserved word, no name twice", () => {
    expect(camelCase("get-sum", "tool")).toBe("getSum")
    expect(camelCase("getHTTPStatus", "tool")).toBe("getHttpStatus")
    expect(camelCase("2fa.verify", "tool")).toBe("_2faVerify")
    expect(camelCase("!!!", "tool")).toBe("tool")
    expect(pascalCase("list_files", "Tool")).toBe("ListFiles")
    const taken = names(["Schema"])
    expect(
      ["get-sum", "get_sum", "getSum", "delete", "schema"].map((name) => taken.take(camelCase(name, "tool")))
    ).toEqual(["getSum", "getSum2", "getSum3", "delete_", "schema"])
    expect(taken.take("Schema")).toBe("Schema2")
  })

  it("quotes keys that are not identifiers", () => {
    expect(["a", "_b$", "first-name", "0age", "with space", "__proto__"].map(propertyKey)).toEqual([
      "a",
      "_b$",
      '"first-name"',
      '"0age"',
      '"with space"',
      '["__proto__"]'
    ])
  })
})
