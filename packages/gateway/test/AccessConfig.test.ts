/**
 * Key files and policy files that cannot be used are refused with a typed error naming the file
 * and what is wrong; the limiter's token bucket and quota window on the `TestClock`.
 */
import { readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { AccessPolicy, Authentication } from "../src/index.js"
import type * as Principal from "../src/internal/principal.js"
import * as RateLimit from "../src/internal/rateLimit.js"

const keyError = (text: string) => Effect.map(Effect.flip(Authentication.apiKeys(text, "keys.jsonl")), (e) => e.message)
const policyError = (value: unknown) =>
  Effect.map(
    Effect.flip(AccessPolicy.parse(typeof value === "string" ? value : JSON.stringify(value), "policy.json")),
    (e) => e.message
  )

const someone = (id: string): Principal.Principal => ({ id, kind: "apiKey", scopes: [] })

describe("key files", () => {
  it.effect("a JSON array or JSON lines; each refusal names the file and the entry", () =>
    Effect.gen(function* () {
      const keys = yield* Authentication.apiKeys(
        JSON.stringify([
          { name: "a", key: "0123456789abcdef" },
          { name: "b", sha256: "ab".repeat(32) }
        ]),
        "keys.json"
      )
      expect(keys.map((key) => key.name)).toEqual(["a", "b"])
      expect(yield* keyError("")).toBe("keys.jsonl: no key in the file")
      expect(yield* keyError("[1,")).toContain("keys.jsonl: not JSON")
      expect(yield* keyError(`{"name": "a", "key": "0123456789abcdef"`)).toContain("line 1: not JSON")
      expect(yield* keyError(`{"name": "a", "key": "short"}`)).toContain("a key has at least 16 characters")
      expect(yield* keyError(`{"name": "a"}`)).toBe("keys.jsonl: line 1: give the key or its sha256, one of them")
      expect(yield* keyError(`{"name": "a", "key": "0123456789abcdef", "sha256": "${"ab".repeat(32)}"}`)).toContain(
        "give the key or its sha256, one of them"
      )
      expect(yield* keyError(`{"name": "a", "sha256": "xyz"}`)).toContain("sha256 is 64 hexadecimal digits")
      expect(yield* keyError(`{"name": "a", "key": "0123456789abcdef", "role": "admin"}`)).toContain('"role"')
      expect(
        yield* keyError(`{"name": "a", "key": "0123456789abcdef"}\n{"name": "a", "key": "fedcba9876543210"}`)
      ).toBe("keys.jsonl: line 2: the name a is given twice")
      expect(
        yield* keyError(`{"name": "a", "key": "0123456789abcdef"}\n{"name": "b", "key": "0123456789abcdef"}`)
      ).toBe("keys.jsonl: line 2: b's key is another's too")
      const error = yield* Effect.flip(Authentication.apiKeys("nope", "k"))
      expect(error._tag).toBe("AccessFileError")
    })
  )

  it.effect("a key in the clear is never shown by its entry (Redacted)", () =>
    Effect.gen(function* () {
      const message = yield* keyError(`{"name": "a", "key": "0123456789abcdef-secret", "x": 1}`)
      expect(message).not.toContain("0123456789abcdef-secret")
    })
  )
})

describe("policy files", () => {
  it.effect("unknown keys, bad limits and durations are refused, naming where", () =>
    Effect.gen(function* () {
      expect(yield* policyError("{")).toContain("policy.json:")
      expect(yield* policyError({ defaults: {} })).toContain('"defaults"')
      expect(yield* policyError({ principals: { a: { alow: [] } } })).toContain('"alow"')
      expect(yield* policyError({ default: { requests: { limit: 0, per: "1 minute" } } })).toContain("limit")
      expect(yield* policyError({ default: { requests: { limit: 1, per: "soon" } } })).toContain(
        'not a duration: soon (say "1 minute", "30 seconds")'
      )
      expect(yield* policyError({ default: { requests: { limit: 1, per: "0 seconds" } } })).toContain(
        "not a positive, finite duration"
      )
      expect(yield* policyError({ default: { tools: [{ limit: 1, per: "1 minute", kind: "burst" }] } })).toContain(
        "kind"
      )
      const error = yield* Effect.flip(AccessPolicy.parse("[]", "p"))
      expect(error._tag).toBe("AccessFileError")
    })
  )

  it.effect("allow and deny by server and name, with globs; default for the unnamed", () =>
    Effect.gen(function* () {
      const policy = yield* AccessPolicy.parse(
        JSON.stringify({
          principals: {
            a: {
              allow: [{ server: "fs", tools: ["read_*"] }, { server: "docs" }],
              deny: [{ server: "docs", resources: ["docs://secret/*"] }]
            }
          },
          default: { deny: [{ server: "admin" }] }
        }),
        "policy.json"
      )
      const a = policy.accessOf(someone("a"))
      expect(a.visible("tools", "fs", "read_file")).toBe(true)
      expect(a.visible("tools", "fs", "write_file")).toBe(false)
      expect(a.visible("resources", "fs", "file:///x")).toBe(false)
      expect(a.visible("prompts", "docs", "any")).toBe(true)
      expect(a.visible("resources", "docs", "docs://secret/plan")).toBe(false)
      expect(a.visible("resources", "docs", "docs://public/plan")).toBe(true)
      expect(a.hidesServer("admin")).toBe(true)
      expect(a.hidesServer("fs")).toBe(false)
      const other = policy.accessOf(someone("b"))
      expect(other.visible("tools", "fs", "write_file")).toBe(true)
      expect(other.hidesServer("admin")).toBe(true)
      expect(other.visible("tools", "admin", "x")).toBe(false)
    })
  )
})

describe("the gateway README's policy example", () => {
  it.effect("is a policy the gateway takes", () =>
    Effect.gen(function* () {
      const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")
      const section = readme.slice(readme.indexOf("Who may call, and what each caller may do"))
      const example = /```json\n([\s\S]*?)```/.exec(section)?.[1] ?? ""
      const policy = yield* AccessPolicy.parse(example, "packages/gateway/README.md")
      const ci = policy.accessOf(someone("ci"))
      expect(ci.visible("tools", "github", "list_issues")).toBe(true)
      expect(ci.visible("tools", "github", "create_issue")).toBe(false)
      expect(ci.requests).toMatchObject({ kind: "rate", limit: 120 })
      expect(policy.accessOf(someone("other")).hidesServer("admin")).toBe(true)
    })
  )
})

describe("the limiter", () => {
  it.effect("a token bucket lets its limit through at once, then one per refill interval", () =>
    Effect.gen(function* () {
      const limiter = yield* RateLimit.make
      const limit: RateLimit.Limit = { kind: "rate", limit: 3, per: Duration.seconds(3) }
      const take = Effect.map(limiter.take("k", limit), Option.map(Duration.toMillis))
      for (let i = 0; i < 3; i++) expect(yield* take).toEqual(Option.none())
      expect(yield* take).toEqual(Option.some(1000))
      yield* TestClock.adjust("500 millis")
      expect(yield* take).toEqual(Option.some(500))
      yield* TestClock.adjust("500 millis")
      expect(yield* take).toEqual(Option.none())
      expect(yield* take).toEqual(Option.some(1000))
      // Another key has its own bucket.
      expect(yield* limiter.take("other", limit)).toEqual(Option.none())
    })
  )

  it.effect("a quota counts uses in a window from the first, then starts a new one", () =>
    Effect.gen(function* () {
      const limiter = yield* RateLimit.make
      const limit: RateLimit.Limit = { kind: "quota", limit: 2, per: Duration.minutes(1) }
      const take = Effect.map(limiter.take("k", limit), Option.map(Duration.toMillis))
      expect(yield* take).toEqual(Option.none())
      yield* TestClock.adjust("59 seconds")
      expect(yield* take).toEqual(Option.none())
      expect(yield* take).toEqual(Option.some(1000))
      yield* TestClock.adjust("1 second")
      expect(yield* take).toEqual(Option.none())
      expect(yield* take).toEqual(Option.none())
      expect(yield* take).toEqual(Option.some(60_000))
      expect(RateLimit.seconds(Duration.millis(1))).toBe(1)
      expect(RateLimit.seconds(Duration.millis(40_001))).toBe(41)
    })
  )
})
