/**
 * Configured servers as `servers` and `config list` print them: JSON objects (never a header's or
 * an environment variable's value), and aligned columns whose last one (where from) is dimmed.
 */
import { type ConfigError, ServerEntry } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
import { sanitize } from "../internal/controls.js"
import { padEnd, width as widthOf } from "../internal/textWidth.js"
import { dim, Output, styled } from "../Output.js"

/** One server as `--json` prints it: name, transport, command or URL, file and format. */
export const serverJson = (entry: ServerEntry.ServerEntry) => ({
  name: entry.name,
  transport: ServerEntry.transportOf(entry.target),
  ...(entry.target._tag === "Stdio"
    ? { command: entry.target.command, args: entry.target.args }
    : { url: entry.target.url, httpTransport: entry.target.transport }),
  file: entry.file,
  format: entry.format
})

/** A broken entry or file as `--json` prints it. */
export const problemJson = (problem: ConfigError) => ({
  file: problem.file,
  ...(problem.entry === undefined ? {} : { server: problem.entry }),
  ...(problem.field === undefined ? {} : { field: problem.field }),
  reason: problem.reason
})

/** A server's row: name, transport, command line or URL, and where it comes from. */
export const serverRow = (entry: ServerEntry.ServerEntry, where = `${entry.file} (${entry.format})`) => [
  sanitize(entry.name),
  ServerEntry.transportOf(entry.target),
  sanitize(entry.target._tag === "Stdio" ? [entry.target.command, ...entry.target.args].join(" ") : entry.target.url),
  where
]

/** Prints rows as aligned columns, the last one dimmed. */
export const printRows = (rows: ReadonlyArray<ReadonlyArray<string>>) =>
  Effect.gen(function* () {
    const output = yield* Output
    const columns = Math.max(0, ...rows.map((row) => row.length))
    const widths = Array.from({ length: columns - 1 }, (_, column) =>
      Math.max(0, ...rows.map((row) => widthOf(row[column] ?? "")))
    )
    for (const row of rows) {
      const lead = widths.map((width, column) => padEnd(row[column] ?? "", width)).join("  ")
      yield* output.line(styled`${lead}  ${dim(output.color, row[columns - 1] ?? "")}`)
    }
  })
