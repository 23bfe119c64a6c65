/**
 * Structured content made smaller, one level of detail at a time: long arrays keep their first
 * items and end with a string giving their length (`"[… 990 more items; 1,000 in all]"`), long
 * strings are cut at a boundary with the number of characters left out, and at the last levels
 * objects with many members keep their first ones (the rest under the key `"…"`). The first
 * level whose JSON fits the byte budget wins; the levels are fixed, so the result is
 * deterministic.
 */
import { TextCut } from "@effect-mcp/host"
import * as Predicate from "effect/Predicate"
import { utf8Bytes } from "../TokenEstimate.js"

/** How much of each array, string and object one level keeps. */
interface Level {
  readonly items: number
  readonly characters: number
  readonly members: number
}

const LEVELS: ReadonlyArray<Level> = [
  { items: 100, characters: 2000, members: Number.POSITIVE_INFINITY },
  { items: 50, characters: 1000, members: Number.POSITIVE_INFINITY },
  { items: 20, characters: 500, members: Number.POSITIVE_INFINITY },
  { items: 10, characters: 200, members: Number.POSITIVE_INFINITY },
  { items: 5, characters: 100, members: 50 },
  { items: 3, characters: 60, members: 20 },
  { items: 1, characters: 40, members: 10 },
  { items: 0, characters: 20, members: 3 }
]

const count = (n: number): string => n.toLocaleString("en-US")

const shrink = (value: unknown, level: Level): unknown => {
  if (typeof value === "string") {
    if (value.length <= level.characters) return value
    const cut = TextCut.boundary(value, level.characters)
    return `${value.slice(0, cut)}… [${count(TextCut.codePoints(value.slice(cut)))} more characters]`
  }
  if (Array.isArray(value)) {
    const kept = value.slice(0, level.items).map((item: unknown) => shrink(item, level))
    return value.length <= level.items
      ? kept
      : [...kept, `[… ${count(value.length - level.items)} more items; ${count(value.length)} in all]`]
  }
  if (Predicate.isRecord(value)) {
    const entries = Object.entries(value)
    const kept = entries.slice(0, level.members).map(([key, member]): [string, unknown] => [key, shrink(member, level)])
    if (entries.length > level.members)
      kept.push(["…", `[${count(entries.length - level.members)} more members; ${count(entries.length)} in all]`])
    return Object.fromEntries(kept)
  }
  return value
}

/** The size in UTF-8 of a value's JSON. */
export const jsonSize = (value: unknown): number => utf8Bytes(JSON.stringify(value) ?? "")

/** The value at the first level of detail whose JSON takes at most `maxBytes`; `undefined` when none does. */
export const summarise = (value: unknown, maxBytes: number): unknown => {
  for (const level of LEVELS) {
    const smaller = shrink(value, level)
    if (jsonSize(smaller) <= maxBytes) return smaller
  }
  return undefined
}
