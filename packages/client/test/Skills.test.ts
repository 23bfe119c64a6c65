/**
 * The skills extension (SEP-2640) against loopback HTTP servers that misbehave: the client
 * declares the extension, lists skills without reading any file, reads a `SKILL.md` only when
 * the skill is loaded and a supporting file only when it is asked for, and refuses a file whose
 * size, digest or frontmatter does not match the listing, naming the file and the field. Each
 * fault is built so that only the check under test can catch it (the other checks pass).
 */
import { describe, expect, it } from "@effect/vitest"
import { McpClient, type McpError, Skills } from "@effect-mcp/client"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Frontmatter from "../src/internal/features/frontmatter.js"
import { resolve, skillPath } from "../src/internal/features/skills.js"
import * as StreamableHttpTransport from "../src/internal/transport/streamableHttpTransport.js"
import { keepAliveHttpClient } from "./support/httpClient.js"
import {
  FORMS_MD,
  FORMS_URI,
  OTHER_URI,
  reads,
  SKILL_MD,
  SKILL_URI,
  type SkillsServerOptions,
  skillsServer
} from "./support/skillsServer.js"

/** A client of a fresh skills server (pinned to the server's era), and what the server received. */
const connect = (options: SkillsServerOptions = {}) =>
  Effect.gen(function* () {
    const server = yield* skillsServer(options)
    const context = yield* Layer.build(
      McpClient.layer({
        name: "skills",
        protocolVersion: options.era === "stateless" ? "2026-07-28" : "2025-11-25"
      }).pipe(
        Layer.provide(StreamableHttpTransport.layer({ url: server.url, name: "skills" })),
        Layer.provide(keepAliveHttpClient)
      )
    )
    return { client: Context.get(context, McpClient.McpClient), received: server.received }
  })

/** The error an effect fails with (a success fails the test, without printing what it returned). */
const failure = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.matchEffect(effect, {
    onSuccess: () => Effect.dieMessage("expected a failure; it succeeded"),
    onFailure: (error) => Effect.succeed(error)
  })

/** The verification failure an effect ends with (the test fails if it ends otherwise). */
const refusal = <A>(effect: Effect.Effect<A, McpError.RequestError | McpError.SkillError>) =>
  Effect.flatMap(failure(effect), (error) =>
    error._tag === "SkillVerificationFailed"
      ? Effect.succeed(error)
      : Effect.dieMessage(`expected SkillVerificationFailed, got ${error._tag}: ${error.message}`)
  )

describe("Skills", () => {
  it.scoped("declares the extension in the handshake", () =>
    Effect.gen(function* () {
      const { received } = yield* connect()
      const initialize = received.find((request) => request.method === "initialize")
      expect(initialize?.params?.capabilities).toMatchObject({ extensions: { [Skills.EXTENSION]: {} } })
    })
  )

  it.scoped("lists skills from the listing alone: no file is read", () =>
    Effect.gen(function* () {
      const { client, received } = yield* connect()
      const skills = yield* client.skills.list
      expect(skills.map((skill) => [skill.name, skill.path, skill.description])).toEqual([
        ["pdf-processing", "pdf-processing", "Extract, fill, and assemble PDF documents"],
        ["refunds", "acme/billing/refunds", "Process refunds"]
      ])
      expect(skills[0]?.frontmatter).toMatchObject({ metadata: { version: "2.1.0" } })
      // Cached: a second look asks nothing more.
      yield* client.skills.list
      expect(received.filter((request) => request.method === "skills/list")).toHaveLength(1)
      expect(reads(received)).toEqual([])
    })
  )

  it.scoped("loads a skill: SKILL.md verified, then a supporting file only when asked for", () =>
    Effect.gen(function* () {
      const { client, received } = yield* connect()
      const loaded = yield* client.skills.load("pdf-processing")
      expect(loaded.text).toBe(SKILL_MD)
      expect(loaded.instructions).toBe("# PDF processing\n\nFill forms as references/FORMS.md says.\n")
      expect(loaded.frontmatter).toEqual(loaded.skill.frontmatter)
      expect(loaded.files).toEqual(["references/FORMS.md"])
      expect(reads(received)).toEqual([SKILL_URI])
      const forms = yield* loaded.readFile("references/FORMS.md")
      expect([forms.uri, forms.path, forms.text, forms.bytes.length]).toEqual([
        FORMS_URI,
        "references/FORMS.md",
        FORMS_MD,
        FORMS_MD.length
      ])
      expect(reads(received)).toEqual([SKILL_URI, FORMS_URI])
    })
  )

  it.scoped("refuses a SKILL.md whose digest does not match (same size)", () =>
    Effect.gen(function* () {
      const { client, received } = yield* connect({ fault: "digest" })
      const failure = yield* refusal(client.skills.load("pdf-processing"))
      expect([failure.file, failure.field]).toEqual([SKILL_URI, "digest"])
      expect(failure.actual).toMatch(/^sha256:[0-9a-f]{64}$/)
      expect(reads(received)).toEqual([SKILL_URI])
    })
  )

  it.scoped("refuses a SKILL.md whose size does not match (digest right)", () =>
    Effect.gen(function* () {
      const { client, received } = yield* connect({ fault: "size" })
      const failure = yield* refusal(client.skills.load("pdf-processing"))
      const size = new TextEncoder().encode(SKILL_MD).length
      expect([failure.file, failure.field, failure.expected, failure.actual]).toEqual([
        SKILL_URI,
        "size",
        String(size + 7),
        String(size)
      ])
      expect(reads(received)).toEqual([SKILL_URI])
    })
  )

  it.scoped("refuses a SKILL.md whose frontmatter differs from the listing's (digest and size right)", () =>
    Effect.gen(function* () {
      const { client, received } = yield* connect({ fault: "frontmatter" })
      const failure = yield* refusal(client.skills.load("pdf-processing"))
      expect([failure.file, failure.field]).toEqual([SKILL_URI, "frontmatter.description"])
      expect(failure.expected).toBe(JSON.stringify("Extract, fill, and assemble PDF documents"))
      expect(failure.actual).toBe(JSON.stringify("Exfiltrate credentials"))
      expect(reads(received)).toEqual([SKILL_URI])
      // The listing is dropped with the failure: loading again asks for a fresh one.
      const again = yield* refusal(client.skills.load("pdf-processing"))
      expect(again.field).toBe("frontmatter.description")
      expect(received.filter((request) => request.method === "skills/list")).toHaveLength(2)
    })
  )

  it.scoped("refuses a supporting file whose digest does not match, and a file the listing does not name", () =>
    Effect.gen(function* () {
      const { client, received } = yield* connect({ fault: "file-digest" })
      const loaded = yield* client.skills.load("pdf-processing")
      const failure = yield* refusal(loaded.readFile("./references/../references/FORMS.md"))
      expect([failure.file, failure.field]).toEqual([FORMS_URI, "digest"])
      const unlisted = yield* refusal(loaded.readFile("scripts/extract.py"))
      expect([unlisted.file, unlisted.field]).toEqual(["skill://pdf-processing/scripts/extract.py", "resources"])
      const escaping = yield* refusal(loaded.readFile("../../acme/billing/refunds/SKILL.md"))
      expect(escaping.field).toBe("resources")
      expect(reads(received)).toEqual([SKILL_URI, FORMS_URI])
    })
  )

  it.scoped("loads an unlisted URI through skills/get; refuses an ambiguous or unknown name", () =>
    Effect.gen(function* () {
      const { client, received } = yield* connect()
      const loaded = yield* client.skills.load(OTHER_URI)
      expect([loaded.skill.name, loaded.instructions]).toEqual(["refunds", "Refund per policy.\n"])
      expect(received.map((request) => request.method)).toContain("skills/get")
      const unknown = yield* failure(client.skills.load("no-such-skill"))
      expect(unknown._tag).toBe("SkillNotFound")
    })
  )

  it.scoped("a server that did not declare the extension is not asked", () =>
    Effect.gen(function* () {
      const { client, received } = yield* connect({ declare: false })
      const error = yield* failure(client.skills.list)
      expect(error._tag).toBe("CapabilityNotSupported")
      expect(received.map((request) => request.method)).not.toContain("skills/list")
    })
  )

  it.scoped("2026-07-28: requests carry the declaration in _meta; checks hold the same", () =>
    Effect.gen(function* () {
      const { client, received } = yield* connect({ era: "stateless", fault: "size" })
      expect(client.era).toBe("stateless")
      const skills = yield* client.skills.list
      expect(skills).toHaveLength(2)
      const list = received.find((request) => request.method === "skills/list")
      expect(list?.params?._meta).toMatchObject({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { extensions: { [Skills.EXTENSION]: {} } }
      })
      // Every request of the revision declares it, not only the extension's own (the probe too).
      const discover = received.find((request) => request.method === "server/discover")
      expect(discover?.params?._meta).toMatchObject({
        "io.modelcontextprotocol/clientCapabilities": { extensions: { [Skills.EXTENSION]: {} } }
      })
      const failure = yield* refusal(client.skills.load("pdf-processing"))
      expect(failure.field).toBe("size")
      expect(reads(received)).toEqual([SKILL_URI])
    })
  )
})

describe("Skills: frontmatter and paths", () => {
  it.effect("splits and parses frontmatter: a byte order mark, CRLF, nested YAML", () =>
    Effect.gen(function* () {
      const text = "\uFEFF---\r\nname: x\r\nmetadata:\r\n  n: 1.0\r\n  list: [a, 2]\r\n---\r\nBody\r\n"
      const split = yield* Frontmatter.split(text)
      const parsed = yield* Frontmatter.parse(split.yaml)
      expect(parsed).toStrictEqual(Either.right({ name: "x", metadata: { n: 1, list: ["a", 2] } }))
    })
  )

  it.effect("refuses what is not frontmatter: no fence, no closing fence, a scalar, duplicate keys", () =>
    Effect.gen(function* () {
      expect(Either.isLeft(Frontmatter.split("# Title\n"))).toBe(true)
      expect(Either.isLeft(Frontmatter.split("---\nname: x\n"))).toBe(true)
      expect(Either.isLeft(yield* Frontmatter.parse("just text"))).toBe(true)
      expect(Either.isLeft(yield* Frontmatter.parse("name: a\nname: b"))).toBe(true)
    })
  )

  it("compares field by field: member order aside, a missing field differs even from null", () => {
    expect(Frontmatter.firstDifference({ a: 1, m: { x: [1], y: 2 } }, { m: { y: 2, x: [1] }, a: 1 })).toBeUndefined()
    expect(Frontmatter.firstDifference({ a: 1 }, { a: 1, b: null })).toEqual({
      field: "b",
      expected: undefined,
      actual: "null"
    })
    expect(Frontmatter.firstDifference({ v: "1.0" }, { v: 1 })?.field).toBe("v")
  })

  it("resolves file paths against the skill root, never above it", () => {
    const root = "skill://acme/billing/refunds"
    expect(resolve(root, "examples/./email.md")).toBe(`${root}/examples/email.md`)
    expect(resolve(root, "a/../b.md")).toBe(`${root}/b.md`)
    expect(resolve(root, "../x.md")).toBeUndefined()
    expect(skillPath(`${root}/SKILL.md`)).toBe("acme/billing/refunds")
  })
})
