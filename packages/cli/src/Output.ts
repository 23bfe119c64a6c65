/**
 * What the CLI prints and how: human text by default (aligned tables, descriptions wrapped
 * to the terminal, colours only on a TTY and never with `NO_COLOR`), or exact JSON with
 * `--json`. Results go to stdout; progress, server logs and warnings go to stderr.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { escapeJsonControls, sanitize } from "./internal/controls.js"
import * as StatusGate from "./internal/statusGate.js"
import * as TerminalEcho from "./internal/terminalEcho.js"
import { padEnd, width as widthOf } from "./internal/textWidth.js"
import { wrap } from "./internal/wrap.js"

/**
 * Text the CLI composed itself, with its own colours: printed as it is. Plain strings given
 * to {@link Output} are taken as foreign (a server's text) and printed without control
 * sequences. Build it with the colour helpers and the {@link styled} template tag.
 *
 * @since 0.1.0
 * @category models
 */
export class Styled {
  constructor(readonly text: string) {}
  /**
   * The text without its colours, where a `Styled` ends up in a plain string by mistake.
   *
   * @since 0.1.0
   */
  toString(): string {
    return sanitize(this.text)
  }
}

/**
 * What {@link Output} prints: foreign text (sanitized) or the CLI's own {@link Styled} text.
 *
 * @since 0.1.0
 * @category models
 */
export type Printable = string | Styled

const render = (text: Printable): string => (typeof text === "string" ? sanitize(text) : text.text)

/**
 * A template tag: its literal parts and `Styled` values are kept, interpolated strings sanitized.
 *
 * @since 0.1.0
 * @category constructors
 */
export const styled = (parts: TemplateStringsArray, ...values: ReadonlyArray<Printable | number>): Styled =>
  new Styled(
    parts.reduce((text, part, index) => {
      const value = values[index - 1]
      return `${text}${typeof value === "number" ? String(value) : render(value ?? "")}${part}`
    })
  )

/**
 * How this run prints.
 *
 * @since 0.1.0
 * @category options
 */
export interface OutputSettings {
  readonly json: boolean
  readonly verbose: boolean
  /** stdout is a terminal and colours are allowed. */
  readonly color: boolean
  /** stderr is a terminal: progress is drawn as a spinner. */
  readonly interactive: boolean
  /** The columns text wraps at: the terminal's width, or infinite off a terminal. */
  readonly width: number
}

/**
 * The printer of one run.
 *
 * @since 0.1.0
 * @category services
 */
export class Output extends Context.Tag("@effect-mcp/cli/Output")<
  Output,
  OutputSettings & {
    /** A line on stdout. */
    readonly line: (text: Printable) => Effect.Effect<void>
    /** Text on stdout, without a newline (a streamed answer). */
    readonly text: (text: Printable) => Effect.Effect<void>
    /** A value as JSON on stdout (control characters escaped). */
    readonly printJson: (value: unknown) => Effect.Effect<void>
    /** A line on stderr (cleared of any spinner first). */
    readonly note: (text: Printable) => Effect.Effect<void>
    /** Draws (on a TTY) or prints a progress line; `undefined` clears it. Nothing is drawn while paused. */
    readonly status: (text: string | undefined) => Effect.Effect<void>
    /**
     * Runs `effect` (a prompt, say) with the status line cleared and paused, and the terminal's
     * echo as it was (otherwise off while the run lasts: see `internal/terminalEcho.ts`).
     */
    readonly paused: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    /** As {@link paused}, until the scope closes (see `PausingTerminal`). */
    readonly hold: Effect.Effect<void, never, Scope.Scope>
  }
>() {
  /** The printer for the process's own stdout and stderr. */
  static readonly layer = (settings: { readonly json: boolean; readonly verbose: boolean }) =>
    Layer.sync(Output, () => {
      const color = process.stdout.isTTY === true && process.env.NO_COLOR === undefined && process.env.TERM !== "dumb"
      const interactive = process.stderr.isTTY === true
      let drawn = false
      let pauses = 0
      // Keys typed are not echoed over the line (bin.ts holds the echo off for the run); a prompt
      // reads them while the line is paused, and is given the echo as it was.
      const echo = TerminalEcho.ofProcess()
      const pause = Effect.sync(() => {
        clear()
        pauses += 1
        return echo.stepAside()
      })
      const resume = (stepBack: () => void) =>
        Effect.sync(() => {
          pauses -= 1
          stepBack()
        })
      const clear = () => {
        if (drawn) process.stderr.write("\r\x1b[2K")
        drawn = false
      }
      return {
        ...settings,
        color,
        interactive,
        // Off a terminal nothing wraps: a pipe gets one line per item.
        width:
          process.stdout.isTTY === true
            ? Math.max(60, (process.stdout.columns ?? 0) > 0 ? process.stdout.columns : 100)
            : Number.POSITIVE_INFINITY,
        line: (text) =>
          Effect.sync(() => {
            clear()
            process.stdout.write(`${render(text)}\n`)
          }),
        text: (text) =>
          Effect.sync(() => {
            clear()
            process.stdout.write(render(text))
          }),
        printJson: (value) =>
          Effect.sync(() => {
            clear()
            process.stdout.write(`${jsonText(value, 2)}\n`)
          }),
        note: (text) =>
          Effect.sync(() => {
            clear()
            process.stderr.write(`${render(text)}\n`)
          }),
        status: (text) =>
          Effect.sync(() => {
            // After Ctrl-C's line, the screen is left as it is (internal/statusGate.ts).
            if (!StatusGate.isOpen()) return
            if (text === undefined) return clear()
            const shown = sanitize(text)
            if (!interactive) return void process.stderr.write(`${shown}\n`)
            if (pauses > 0) return
            const columns = (process.stderr.columns ?? 0) > 20 ? process.stderr.columns : 80
            process.stderr.write(`\r\x1b[2K${shown.length >= columns ? `${shown.slice(0, columns - 2)}…` : shown}`)
            drawn = true
          }),
        paused: (effect) => Effect.acquireUseRelease(pause, () => effect, resume),
        hold: Effect.asVoid(Effect.acquireRelease(pause, resume))
      }
    })
}

/**
 * A value as JSON text that cannot drive a terminal (C1 controls escaped too).
 *
 * @since 0.1.0
 * @category encoding
 */
export const jsonText = (value: unknown, indent?: number): string =>
  escapeJsonControls(JSON.stringify(value, null, indent))

const paint =
  (code: string) =>
  (enabled: boolean, text: Printable): Styled =>
    new Styled(enabled ? `\x1b[${code}m${render(text)}\x1b[0m` : render(text))
/**
 * Bold, when colours are on.
 *
 * @since 0.1.0
 * @category styling
 */
export const bold = paint("1")

/**
 * Dim, when colours are on.
 *
 * @since 0.1.0
 * @category styling
 */
export const dim = paint("2")

/**
 * Red, when colours are on.
 *
 * @since 0.1.0
 * @category styling
 */
export const red = paint("31")

/**
 * Green, when colours are on.
 *
 * @since 0.1.0
 * @category styling
 */
export const green = paint("32")

/**
 * Yellow, when colours are on.
 *
 * @since 0.1.0
 * @category styling
 */
export const yellow = paint("33")

/**
 * Cyan, when colours are on.
 *
 * @since 0.1.0
 * @category styling
 */
export const cyan = paint("36")

export {
  /**
   * Collapses whitespace and wraps text to `width` columns.
   *
   * @since 0.1.0
   * @category rendering
   */
  wrap
}

/**
 * A table: every column but the last padded to its widest (the first to at most 40 columns, or on
 * a wider terminal as much as leaves 40 for the rest), the last wrapped in the space left with its
 * continuation lines under it; a first cell wider than its column has the rest of its row on the
 * lines below. Widths are counted as the terminal draws them (a wide character takes two columns).
 *
 * @since 0.1.0
 * @category rendering
 */
export const table = (
  rows: ReadonlyArray<ReadonlyArray<string | undefined>>,
  width: number,
  indent = "  "
): ReadonlyArray<string> => {
  // The last column is sanitized by `wrap`.
  const clean = rows.map((row) => row.map((cell, index) => (index < row.length - 1 ? sanitize(cell ?? "") : cell)))
  const lead = Math.max(0, ...clean.map((row) => row.length - 1))
  // The first column gives way to the rest only when the line is too narrow for both.
  const firstAtMost = Number.isFinite(width) ? Math.max(40, width - indent.length - 2 - 40) : 40
  const widths = Array.from({ length: lead }, (_, column) =>
    Math.min(
      column === 0 ? firstAtMost : Number.POSITIVE_INFINITY,
      Math.max(0, ...clean.map((row) => widthOf(row[column] ?? "")))
    )
  )
  const start = widths.reduce((sum, columns) => sum + columns + 2, 0)
  const room = Math.max(20, width - indent.length - start)
  const under = `${indent}${" ".repeat(start)}`
  const line = (row: ReadonlyArray<string | undefined>) => {
    const [first = "", ...rest] = wrap(row.at(-1) ?? "", room)
    const cells = row.slice(0, -1).map((cell, column) => `${padEnd(cell ?? "", widths[column] ?? 0)}  `)
    return [`${indent}${cells.join("")}${first}`.trimEnd(), ...rest.map((text) => `${under}${text}`)]
  }
  return clean.flatMap((row) => {
    const [name = ""] = row
    // A name wider than its column has the rest of its row on the lines below.
    if (row.length > 1 && widthOf(name) > (widths[0] ?? 0) && Number.isFinite(width)) {
      const [head = "", ...more] = wrap(name, Math.max(20, width - indent.length))
      const others = row.slice(1)
      return [
        `${indent}${head}`,
        ...more.map((text) => `${indent}    ${text}`),
        ...(others.every((cell) => (cell ?? "") === "") ? [] : line(["", ...others]))
      ]
    }
    return line(row)
  })
}
