/**
 * The skills extension's wire shapes (SEP-2640): the SEP's own examples decode, arbitrary values
 * survive encode → JSON → decode, and the `extensions` capability is kept where the revision has
 * it (2025-11-25 handshakes, 2026-07-28) and dropped before.
 */
import { describe, expect, it } from "@effect/vitest"
import { McpSchema, Revision, Skills } from "@effect-mcp/protocol"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { propRuns, throughWire } from "./support/spec.js"

const entry = {
  uri: "skill://acme/billing/refunds/SKILL.md",
  frontmatter: { name: "refunds", description: "Process customer refund requests", license: "Apache-2.0" },
  resources: [
    { uri: "skill://acme/billing/refunds/SKILL.md", digest: `sha256:${"b2".repeat(32)}`, size: 812 },
    { uri: "skill://acme/billing/refunds/examples/email.md", digest: `sha256:${"c3".repeat(32)}` }
  ]
}

describe("Skills", () => {
  it("decodes a listing and an entry as the SEP shows them; unknown members are dropped", () => {
    const listing = Schema.decodeUnknownSync(Skills.ListSkillsResult)({
      resultType: "complete",
      skills: [entry],
      nextCursor: "2",
      ttlMs: 0,
      cacheScope: "private"
    })
    expect(listing).toStrictEqual({ skills: [entry], nextCursor: "2", ttlMs: 0, cacheScope: "private" })
    expect(Schema.decodeUnknownSync(Skills.GetSkillResult)({ skill: entry }).skill).toStrictEqual(entry)
  })

  it("refuses an entry without frontmatter, and a negative or fractional size", () => {
    const decode = Schema.decodeUnknownEither(Skills.SkillEntry)
    expect(Either.isLeft(decode({ uri: entry.uri }))).toBe(true)
    for (const size of [-1, 1.5]) {
      expect(Either.isLeft(decode({ ...entry, resources: [{ ...entry.resources[1], size }] }))).toBe(true)
    }
  })

  const roundTrip = <A, I>(name: string, schema: Schema.Schema<A, I>) =>
    it.prop(
      `${name}: encode → JSON → decode is the identity`,
      [Arbitrary.make(schema)],
      ([value]) => {
        expect(Schema.decodeUnknownSync(schema)(throughWire(schema, value))).toStrictEqual(value)
      },
      { fastCheck: { numRuns: propRuns } }
    )
  roundTrip("ListSkillsResult", Skills.ListSkillsResult)
  roundTrip("GetSkillResult", Skills.GetSkillResult)
  roundTrip("GetSkillRequestParams", Skills.GetSkillRequestParams)

  it("capabilities carry extensions; initialize keeps them from 2025-11-25 and drops them before", () => {
    const extensions = { [Skills.EXTENSION]: {} }
    expect(Schema.decodeUnknownSync(McpSchema.ServerCapabilities)({ extensions }).extensions).toStrictEqual(extensions)
    const params = {
      protocolVersion: "2025-11-25",
      clientInfo: { name: "c", version: "1" },
      capabilities: { extensions }
    }
    expect(Revision.requestParams("2025-11-25", "initialize", params)).toStrictEqual(Either.right(params))
    expect(Revision.requestParams("2025-06-18", "initialize", params)).toStrictEqual(
      Either.right({ ...params, capabilities: {} })
    )
  })
})
