/**
 * Things outstanding by id (requests, POSTs under way): a ring of slots indexed by the id's low
 * bits, and a `Map` for the few that a wrapped ring has come round to (items that outlive many
 * later ones). The ids are meant to be consecutive integers (those a peer issues), so each new
 * item finds its slot free.
 *
 * When to use: a table that items pass through as fast as they are made, each known by an id
 * from a counter. Gotchas: string ids, ids that are not integers, and an id whose slot another
 * holds go to the `Map`; `values` sorts (use `forEach` where order does not matter).
 *
 * Why not a `Map` alone: requests pass through the table as fast as they are made, and a `Map`
 * churned so is rebuilt every few hundred of them, V8 linking each table it replaces to the new
 * one. Once one of those tables is in the old generation, every later table and the requests it
 * holds live through each scavenge by that link and are promoted, to die in the old generation.
 * With 100 requests in flight over stdio, 2 MB survived every scavenge (145 MB promoted in a 3 s
 * run) and scavenges took a fifth of the client's time; which runs fell into it depended on when
 * the first table grew old (all of those of the bundled Promise client, none unbundled). A slot is
 * written over in place; nothing links one request to the next.
 *
 * @since 0.1.0
 */
import type { JsonRpc } from "@effect-mcp/protocol"

/**
 * The table; an item is known by its `id`.
 *
 * @since 0.1.0
 * @category models
 */
export interface IdTable<A extends { readonly id: JsonRpc.RequestId }> {
  readonly add: (item: A) => void
  readonly get: (id: JsonRpc.RequestId) => A | undefined
  /** Takes `item` out, if it is the one of its id; whether it was. */
  readonly remove: (item: A) => boolean
  /** Every item, in the order of their ids: numbers ascending, then strings. */
  readonly values: () => Array<A>
  /** Calls `f` with every item, in no order; `f` must not change the table. */
  readonly forEach: (f: (item: A) => void) => void
  readonly size: () => number
  /** How many items are kept outside the ring: few, unless it is too small for what is outstanding. */
  readonly outside: () => number
}

/** Slots a new table has; it doubles when the ring is too small for what is outstanding. */
const INITIAL_SLOTS = 64

/** Whether `id` has a slot: an integer (any other id is kept in the `Map`). */
const slotted = (id: JsonRpc.RequestId): id is number => typeof id === "number" && Number.isInteger(id)

const byId = (a: { readonly id: JsonRpc.RequestId }, b: { readonly id: JsonRpc.RequestId }) =>
  typeof a.id !== typeof b.id ? (typeof a.id === "number" ? -1 : 1) : a.id < b.id ? -1 : a.id > b.id ? 1 : 0

/**
 * An empty table.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <A extends { readonly id: JsonRpc.RequestId }>(): IdTable<A> => {
  let slots: Array<A | undefined> = new Array(INITIAL_SLOTS).fill(undefined)
  let mask = INITIAL_SLOTS - 1
  // Items whose slot a later one took, and items with no slot (`unslotted` of them).
  const laggards = new Map<JsonRpc.RequestId, A>()
  let unslotted = 0
  let size = 0

  /** Puts `item` in its slot; an older item there moves to the laggards (then `true`). */
  const place = (item: A): boolean => {
    if (!slotted(item.id)) {
      laggards.set(item.id, item)
      unslotted++
      return false
    }
    const at = item.id & mask
    const there = slots[at]
    slots[at] = item
    if (there === undefined) return false
    laggards.set(there.id, there)
    return true
  }

  /** A ring twice as large, when a quarter of its size is laggards: what is outstanding spans more ids than it has slots. */
  const grow = () => {
    const items = values()
    slots = new Array(slots.length * 2).fill(undefined)
    mask = slots.length - 1
    laggards.clear()
    unslotted = 0
    for (const item of items) place(item)
  }

  /** Takes `item` out, if it is the one of its id. */
  const remove = (item: A): boolean => {
    if (slotted(item.id)) {
      const at = item.id & mask
      if (slots[at] === item) {
        slots[at] = undefined
        size--
        return true
      }
    }
    if (laggards.get(item.id) !== item) return false
    laggards.delete(item.id)
    if (!slotted(item.id)) unslotted--
    size--
    return true
  }

  const get = (id: JsonRpc.RequestId): A | undefined => {
    if (slotted(id)) {
      const item = slots[id & mask]
      if (item !== undefined && item.id === id) return item
    }
    return laggards.size === 0 ? undefined : laggards.get(id)
  }

  const values = (): Array<A> => {
    const items: Array<A> = []
    for (const item of slots) if (item !== undefined) items.push(item)
    for (const item of laggards.values()) items.push(item)
    return items.sort(byId)
  }

  const forEach = (f: (item: A) => void) => {
    for (const item of slots) if (item !== undefined) f(item)
    for (const item of laggards.values()) f(item)
  }

  return {
    add: (item) => {
      // An item of the same id is replaced, as a `Map` replaces it.
      const same = get(item.id)
      if (same !== undefined) remove(same)
      size++
      // Only the laggards a larger ring would give slots count.
      if (place(item) && (laggards.size - unslotted) * 4 > slots.length) grow()
    },
    get,
    remove,
    values,
    forEach,
    size: () => size,
    outside: () => laggards.size
  }
}
