/**
 * The sealed `requestState` of input rounds: what one instance seals, another with the same keys
 * opens; a token that was changed, has expired, was sealed under another secret or under a key that
 * is no longer listed is refused; a rotated key still opens what it sealed.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Sealing from "../src/internal/sealing.js"

const payload: Sealing.Payload = {
  caller: "caller-digest",
  expires: 2_000_000,
  method: "tools/call",
  name: "fixture__book",
  arguments: "args-digest",
  answers: { "elicitation/create:1a2b:0": { action: "accept", content: { name: "Ada" } } },
  asked: { step1: "elicitation/create:1a2b:0" }
}

const sealerOf = (text: string) => Effect.flatMap(Sealing.keysFrom(text), Sealing.make)

describe("the sealed requestState", () => {
  it.effect.prop(
    "another instance with the same keys opens exactly what was sealed",
    [
      // Keys are any strings (`__proto__` too: fast-check found that one lost before answers were carried as entries).
      Schema.Struct({
        ...Sealing.Payload.fields,
        answers: Schema.Record({ key: Schema.String, value: Schema.String }),
        asked: Schema.Record({ key: Schema.String, value: Schema.String })
      })
    ],
    ([value]) =>
      Effect.gen(function* () {
        const token = yield* (yield* sealerOf("k1:shared secret")).seal(value)
        const opened = yield* (yield* sealerOf("k1:shared secret")).open(token, value.expires - 1)
        expect(opened).toStrictEqual(value)
      }),
    { fastCheck: { numRuns: 20 } }
  )

  it.effect("a key named __proto__ (a server's own input key) stays an own key of what is opened", () =>
    Effect.gen(function* () {
      const sealer = yield* sealerOf("k1:shared secret")
      const tricky = {
        ...payload,
        asked: JSON.parse('{"__proto__":"elicitation/create:1a2b:0"}') as Record<string, string>
      }
      const opened = yield* sealer.open(yield* sealer.seal(tricky), payload.expires - 1)
      expect(Object.entries(opened.asked)).toStrictEqual([["__proto__", "elicitation/create:1a2b:0"]])
    })
  )

  it.effect("is refused when changed anywhere, expired, sealed under another secret, or under a retired key", () =>
    Effect.gen(function* () {
      const sealer = yield* sealerOf("k1:shared secret")
      const token = yield* sealer.seal(payload)
      const refusal = (other: Sealing.Sealer, text: string, now = 1_000_000) => Effect.flip(other.open(text, now))
      const [version, id, iv, body] = token.split(".") as [string, string, string, string]
      const flipped = `${body.slice(0, 5)}${body[5] === "A" ? "B" : "A"}${body.slice(6)}`
      expect(yield* refusal(sealer, `${version}.${id}.${iv}.${flipped}`)).toBe("tampered")
      expect(yield* refusal(sealer, `${token}-TAMPERED`)).toBe("tampered")
      expect(yield* refusal(sealer, token, payload.expires + 1)).toBe("expired")
      expect(yield* refusal(yield* sealerOf("k1:another secret"), token)).toBe("tampered")
      expect(yield* refusal(yield* sealerOf("k2:shared secret"), token)).toBe("unknown key")
      expect(yield* refusal(sealer, "not a token")).toBe("malformed")
      // The id is authenticated too: the same body under another id of the same secret is refused.
      const renamed = yield* sealerOf("k1:shared secret,k9:shared secret")
      expect(yield* refusal(renamed, `${version}.k9.${iv}.${body}`)).toBe("tampered")
    })
  )

  it.effect("rotation: the new key seals, the old one still opens what it sealed until it is dropped", () =>
    Effect.gen(function* () {
      const before = yield* (yield* sealerOf("k1:old secret")).seal(payload)
      const rotated = yield* sealerOf("k2:new secret,k1:old secret")
      expect(yield* rotated.open(before, 1_000_000)).toStrictEqual(payload)
      const after = yield* rotated.seal(payload)
      expect(after.split(".")[1]).toBe("k2")
      expect(yield* Effect.flip((yield* sealerOf("k2:new secret")).open(before, 1_000_000))).toBe("unknown key")
    })
  )

  it("the payload is not readable in the token (encrypted, not only signed)", async () => {
    const token = await Effect.runPromise(Effect.flatMap(sealerOf("k1:s"), (sealer) => sealer.seal(payload)))
    const body = token.split(".")[3] ?? ""
    const decoded = Buffer.from(body.replaceAll("-", "+").replaceAll("_", "/"), "base64").toString("latin1")
    expect(decoded).not.toContain("Ada")
    expect(decoded).not.toContain("fixture__book")
  })
})
