/**
 * The era verdict of a `server/discover` probe (`classify`), over generated outcomes, as the
 * 2026-07-28 backward-compatibility sections say (versioning.mdx, transports/stdio.mdx): a
 * DiscoverResult naming 2026-07-28 is modern; `-32022` naming it is modern, asked again; any
 * other answer is legacy, and the fallback is never keyed on one error code (nor on the
 * message or data of an error other than -32022).
 */
import { describe, expect, it } from "@effect/vitest"
import { JsonRpc, McpSchema } from "@effect-mcp/protocol"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { classify, type Verdict } from "../src/internal/session/dialect.js"

const runs = { fastCheck: { numRuns: Number(process.env.PROP_RUNS ?? 25) * 2 } }
const MODERN = "2026-07-28"
const OLDER = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const

type Wire = { readonly [key: string]: unknown }
type ErrorAnswer = { readonly code: number; readonly message: string; readonly data?: unknown }

/** Through JSON text, as the wire does. */
const wire = (value: unknown): Wire => {
  const parsed: unknown = JSON.parse(JSON.stringify(value))
  if (!McpSchema.isJsonObject(parsed)) throw new Error("not an object")
  return parsed
}

const encodeDiscover = Schema.encodeSync(McpSchema.DiscoverResult)
const decodesAsDiscover = (value: unknown) =>
  Either.isRight(Schema.decodeUnknownEither(McpSchema.DiscoverResult)(value))

const result = (value: Wire) => classify(Either.right(value))
const failure = (error: ErrorAnswer) => classify(Either.left(error))

/** Version strings that are not 2026-07-28: older revisions, near misses, anything. */
const otherVersion = FastCheck.oneof(
  FastCheck.constantFrom(...OLDER, "2026-07-29", "2026-07-28 ", " 2026-07-28", "2026-7-28", "2026-07", "", "DRAFT"),
  FastCheck.string()
).filter((version) => version !== MODERN)

/** A list of versions with 2026-07-28 somewhere in it (perhaps more than once). */
const listingModern = FastCheck.tuple(
  FastCheck.array(otherVersion, { maxLength: 4 }),
  FastCheck.nat(),
  FastCheck.nat({ max: 2 })
).map(([others, at, extra]) => {
  const out = [...others]
  for (let i = 0; i <= extra; i++) out.splice((at + i) % (out.length + 1), 0, MODERN)
  return out
})

/** Discover results that survive JSON (no NaN or Infinity, which JSON cannot carry). */
const discover = Arbitrary.make(McpSchema.DiscoverResult).filter((value) =>
  decodesAsDiscover(wire(encodeDiscover(value)))
)

/** A JSON value that is not a DiscoverResult, some of them close to one. */
const notDiscover: FastCheck.Arbitrary<Wire> = FastCheck.oneof(
  FastCheck.dictionary(FastCheck.string(), FastCheck.jsonValue(), { maxKeys: 5 }),
  FastCheck.tuple(discover, listingModern).chain(([value, versions]) => {
    const valid = wire({ ...encodeDiscover(value), supportedVersions: versions })
    const broken: Array<Wire> = [
      { ...valid, supportedVersions: MODERN },
      { ...valid, supportedVersions: [...versions, 20260728] },
      { ...valid, supportedVersions: null },
      { ...valid, capabilities: null },
      { ...valid, capabilities: [] },
      { ...valid, capabilities: { tools: "yes" } },
      { ...valid, instructions: 5 },
      Object.fromEntries(Object.entries(valid).filter(([key]) => key !== "capabilities")),
      Object.fromEntries(Object.entries(valid).filter(([key]) => key !== "supportedVersions"))
    ]
    return FastCheck.constantFrom(...broken)
  })
).filter((value) => !decodesAsDiscover(value))

/** Error codes other than -32022: the usual suspects of legacy servers, the MCP range, any integer. */
const otherCode = FastCheck.oneof(
  FastCheck.constantFrom(
    -32601,
    -32602,
    -32600,
    -32603,
    -32700,
    -32000,
    -32001,
    -32002,
    -32020,
    -32021,
    -32023,
    -32042
  ),
  FastCheck.integer({ min: -32099, max: -32000 }),
  FastCheck.integer()
).filter((code) => code !== JsonRpc.ErrorCode.UnsupportedProtocolVersion)

/** Error data of any kind, including data that would steer a retry if the code were -32022. */
const anyData: FastCheck.Arbitrary<unknown> = FastCheck.oneof(
  FastCheck.constant(undefined),
  FastCheck.jsonValue(),
  listingModern.map((supported) => ({ supported })),
  listingModern.map((supported) => ({ supported, requested: "1900-01-01" }))
)

/** -32022 data that names no revision this client speaks statelessly, or is not such data at all. */
const unusableData: FastCheck.Arbitrary<unknown> = FastCheck.oneof(
  FastCheck.constant(undefined),
  FastCheck.constant(null),
  FastCheck.constant({}),
  FastCheck.constant({ supported: [] }),
  FastCheck.constant({ supported: MODERN }),
  FastCheck.constant({ supported: [MODERN], requested: 5 }),
  FastCheck.constant({ versions: [MODERN] }),
  FastCheck.array(otherVersion, { maxLength: 4 }).map((supported) => ({ supported, requested: MODERN })),
  FastCheck.jsonValue().filter(
    (data) => !(McpSchema.isJsonObject(data) && Array.isArray(data.supported) && data.supported.includes(MODERN))
  )
)

const isLegacy = (verdict: Verdict): void => {
  expect(verdict._tag).toBe("Legacy")
}

describe("classify (the era verdict of a server/discover probe)", () => {
  it.prop(
    "a DiscoverResult listing 2026-07-28 is Modern, carrying the decoded result",
    [discover, listingModern],
    ([value, versions]) => {
      const answer = wire({ ...encodeDiscover(value), supportedVersions: versions })
      const verdict = result(answer)
      if (verdict._tag !== "Modern") return expect.fail(`${JSON.stringify(answer)} gave ${JSON.stringify(verdict)}`)
      expect(verdict.version).toBe(MODERN)
      expect(verdict.discover).toStrictEqual(Schema.decodeUnknownSync(McpSchema.DiscoverResult)(answer))
    },
    runs
  )

  it.prop(
    "a DiscoverResult listing only other revisions is Legacy when one is a stateful revision we speak, else Unsupported with its list",
    [discover, FastCheck.array(otherVersion, { maxLength: 5 })],
    ([value, versions]) => {
      const verdict = result(wire({ ...encodeDiscover(value), supportedVersions: versions }))
      const older: ReadonlyArray<string> = OLDER
      if (versions.some((version) => older.includes(version))) return isLegacy(verdict)
      expect(verdict).toStrictEqual({ _tag: "Unsupported", supported: versions })
    },
    runs
  )

  it.prop("a result that does not decode as a DiscoverResult is Legacy", [notDiscover], ([value]) =>
    isLegacy(result(value))
  )

  it.prop(
    "-32022 with data.supported naming 2026-07-28 is Retry(2026-07-28), whatever the message",
    [listingModern, FastCheck.option(FastCheck.string(), { nil: undefined }), FastCheck.string()],
    ([supported, requested, message]) => {
      const data = requested === undefined ? { supported } : { supported, requested }
      expect(failure({ code: JsonRpc.ErrorCode.UnsupportedProtocolVersion, message, data })).toStrictEqual({
        _tag: "Retry",
        version: MODERN
      })
    },
    runs
  )

  it.prop(
    "-32022 without usable data is Legacy",
    [unusableData, FastCheck.string()],
    ([data, message]) =>
      isLegacy(
        failure(
          data === undefined
            ? { code: JsonRpc.ErrorCode.UnsupportedProtocolVersion, message }
            : { code: JsonRpc.ErrorCode.UnsupportedProtocolVersion, message, data }
        )
      ),
    runs
  )

  it.prop(
    "any other error code is Legacy, and the verdict depends on neither message nor data",
    [otherCode, anyData, anyData, FastCheck.string(), FastCheck.string()],
    ([code, data, otherData, message, otherMessage]) => {
      const verdict = failure(data === undefined ? { code, message } : { code, message, data })
      isLegacy(verdict)
      expect(failure({ code, message: otherMessage, data: otherData })).toStrictEqual(verdict)
      expect(failure({ code, message: "Unsupported protocol version", data: { supported: [MODERN] } })).toStrictEqual(
        verdict
      )
    },
    runs
  )

  it("the codes legacy servers commonly answer with, and the other MCP codes, are Legacy", () => {
    for (const code of [-32601, -32602, -32600, -32603, -32000, -32020, -32021, -32042]) {
      isLegacy(failure({ code, message: "Unsupported protocol version", data: { supported: [MODERN] } }))
    }
  })

  it("the spec's example of -32022 is Retry(2026-07-28)", () => {
    expect(
      failure({
        code: -32022,
        message: "Unsupported protocol version",
        data: { supported: ["2026-07-28", "2025-11-25"], requested: "1900-01-01" }
      })
    ).toStrictEqual({ _tag: "Retry", version: MODERN })
  })
})
