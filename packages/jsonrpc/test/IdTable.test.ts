/**
 * The peer's table of outstanding requests by id (a ring with a `Map` for laggards) against a `Map`
 * as the model: random runs of adds (the next id, an id far ahead, one already there, a string
 * id, an id past 2^31 or not an integer), removals (of an item there, of one that was replaced or
 * taken out) and lookups agree with the model at every step, in size, in what each id finds and
 * in every item, in the order of their ids. Runs keep up to hundreds outstanding, so the ring
 * wraps round and grows; some start just below 2^31 or 2^32.
 */
import { describe, expect, it } from "@effect/vitest"
import type { JsonRpc } from "@effect-mcp/protocol"
import * as FastCheck from "effect/FastCheck"
import * as IdTable from "../src/IdTable.js"

const runs = Number(process.env.PROP_RUNS ?? 100)

interface Item {
  readonly id: JsonRpc.RequestId
  readonly n: number
}

type Step =
  | { readonly _tag: "next"; readonly count: number }
  | { readonly _tag: "skip"; readonly by: number }
  | { readonly _tag: "again"; readonly pick: number }
  | { readonly _tag: "string"; readonly id: string }
  | { readonly _tag: "odd"; readonly id: number }
  | { readonly _tag: "remove"; readonly pick: number; readonly count: number }
  | { readonly _tag: "stale"; readonly pick: number }
  | { readonly _tag: "lookup"; readonly id: number }

const step: FastCheck.Arbitrary<Step> = FastCheck.oneof(
  {
    weight: 6,
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("next" as const),
      count: FastCheck.integer({ min: 1, max: 80 })
    })
  },
  {
    weight: 1,
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("skip" as const),
      by: FastCheck.integer({ min: 1, max: 5000 })
    })
  },
  {
    weight: 1,
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("again" as const),
      pick: FastCheck.nat()
    })
  },
  {
    weight: 1,
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("string" as const),
      id: FastCheck.constantFrom("1", "a", "7", "")
    })
  },
  {
    weight: 1,
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("odd" as const),
      id: FastCheck.constantFrom(2 ** 31, 2 ** 31 + 1, 2 ** 32 + 64, 2 ** 53, 0.5, -1.5, -0)
    })
  },
  {
    weight: 6,
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("remove" as const),
      pick: FastCheck.nat(),
      count: FastCheck.integer({ min: 1, max: 80 })
    })
  },
  {
    weight: 1,
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("stale" as const),
      pick: FastCheck.nat()
    })
  },
  {
    weight: 2,
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("lookup" as const),
      id: FastCheck.integer({ min: -5, max: 20000 })
    })
  }
)

/** The model's items in the order the table promises: numeric ids ascending, then string ids ascending. */
const ordered = (model: Map<JsonRpc.RequestId, Item>) => {
  const items = [...model.values()]
  const numbers = items
    .filter((item) => typeof item.id === "number")
    .sort((a, b) => (a.id as number) - (b.id as number))
  const strings = items
    .filter((item) => typeof item.id === "string")
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  return [...numbers, ...strings]
}

describe("IdTable", () => {
  it("agrees with a Map at every step", () => {
    FastCheck.assert(
      FastCheck.property(
        FastCheck.array(step, { minLength: 1, maxLength: 120 }),
        FastCheck.oneof(
          FastCheck.integer({ min: -100, max: 1 << 20 }),
          FastCheck.constantFrom(2 ** 31 - 50, 2 ** 32 - 50)
        ),
        (steps, first) => {
          const table = IdTable.make<Item>()
          const model = new Map<JsonRpc.RequestId, Item>()
          const gone: Array<Item> = []
          let nextId = first
          let n = 0
          const add = (id: JsonRpc.RequestId) => {
            const item = { id, n: n++ }
            const replaced = model.get(id)
            if (replaced !== undefined) gone.push(replaced)
            model.set(id, item)
            table.add(item)
          }
          for (const s of steps) {
            const live = [...model.values()]
            switch (s._tag) {
              case "next":
                for (let i = 0; i < s.count; i++) add(nextId++)
                break
              case "skip":
                nextId += s.by
                add(nextId++)
                break
              case "again":
                {
                  const item = live[s.pick % Math.max(1, live.length)]
                  if (item !== undefined) add(item.id)
                }
                break
              case "string":
              case "odd":
                add(s.id)
                break
              case "remove":
                for (let i = 0; i < s.count && live.length > 0; i++) {
                  const [item] = live.splice(s.pick % live.length, 1)
                  if (item === undefined) break
                  expect(table.remove(item)).toBe(true)
                  model.delete(item.id)
                  gone.push(item)
                }
                break
              case "stale":
                {
                  const item = gone[s.pick % Math.max(1, gone.length)]
                  if (item !== undefined) expect(table.remove(item)).toBe(false)
                }
                break
              case "lookup":
                expect(table.get(first + s.id)).toBe(model.get(first + s.id))
                expect(table.get(String(first + s.id))).toBe(model.get(String(first + s.id)))
                break
            }
            expect(table.size()).toBe(model.size)
            for (const item of gone.slice(-40))
              if (model.get(item.id) !== item) expect(table.get(item.id)).toBe(model.get(item.id))
            for (const item of model.values()) expect(table.get(item.id)).toBe(item)
            expect(table.values()).toEqual(ordered(model))
            const each: Array<Item> = []
            table.forEach((item) => {
              each.push(item)
            })
            expect(new Set(each)).toEqual(new Set(model.values()))
            expect(each).toHaveLength(model.size)
          }
        }
      ),
      { numRuns: runs }
    )
  })

  it("keeps a long-lived item while many later ones come and go", () => {
    const table = IdTable.make<Item>()
    const long = { id: 0, n: 0 }
    table.add(long)
    for (let id = 1; id < 100_000; id++) {
      const item = { id, n: id }
      table.add(item)
      expect(table.remove(item)).toBe(true)
    }
    expect(table.get(0)).toBe(long)
    expect(table.outside()).toBe(1)
    expect(table.values()).toEqual([long])
    expect(table.remove(long)).toBe(true)
    expect(table.size()).toBe(0)
  })

  it("grows its ring to hold what is outstanding", () => {
    const table = IdTable.make<Item>()
    const items = Array.from({ length: 1000 }, (_, id) => ({ id, n: id }))
    for (const item of items) table.add(item)
    expect(table.outside()).toBe(0)
    expect(table.values()).toEqual(items)
  })

  it("replaces an item of the same id, and keeps the new one when the old is taken out", () => {
    const table = IdTable.make<Item>()
    const first = { id: "a", n: 0 }
    const second = { id: "a", n: 1 }
    table.add(first)
    table.add(second)
    expect(table.remove(first)).toBe(false)
    expect(table.get("a")).toBe(second)
    expect(table.size()).toBe(1)
  })

  it("keeps one item for a NaN id, as a Map does", () => {
    const table = IdTable.make<Item>()
    table.add({ id: Number.NaN, n: 0 })
    table.add({ id: Number.NaN, n: 1 })
    expect(table.size()).toBe(1)
    expect(table.get(Number.NaN)?.n).toBe(1)
  })

  it("finds no item by an id of the other type", () => {
    const table = IdTable.make<Item>()
    table.add({ id: 1, n: 0 })
    table.add({ id: "2", n: 1 })
    expect(table.get("1")).toBeUndefined()
    expect(table.get(2)).toBeUndefined()
    expect(table.get(1)?.n).toBe(0)
    expect(table.get("2")?.n).toBe(1)
  })
})
