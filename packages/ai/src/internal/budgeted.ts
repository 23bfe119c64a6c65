/** What a result budget gives back: the types the public `ResultBudget` module re-exports. */
import type { ToolOutput } from "../ToolOutput.js"

/** What a cut left out. */
export interface Omitted {
  /** Characters (code points) of text left out. */
  readonly characters: number
  /** About how many tokens were left out (text and structured content). */
  readonly tokens: number
  /** Content blocks left out whole. */
  readonly blocks: number
  /** The structured content: kept as it was, summarised, or left out. */
  readonly structuredContent: "kept" | "summarised" | "dropped"
}

/** An output within its budget, and what was left out (`undefined` when nothing was). */
export interface Budgeted {
  readonly output: ToolOutput
  readonly omitted: Omitted | undefined
}
