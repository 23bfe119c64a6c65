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
    /** Runs `effect` (a prompt, say) with the status line cleared and paused. */
    readonly paused: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    /** Clears the status line and keeps it paused until the scope closes (see `PausingTerminal`). */
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
        paused: (effect) =>
          Effect.acquireUseRelease(
            Effect.sync(() => {
              clear()
              pauses += 1
            }),
            () => effect,
            () =>
              Effect.sync(() => {
                pauses -= 1
              })
          ),
        hold: Effect.acquireRelease(
          Effect.sync(() => {
            clear()
            pauses += 1
          }),
          () =>
            Effect.sync(() => {
              pauses -= 1
            })
        )
      }
    })
}

/**
 * A value as JSON text that cannot drive a terminal (C1 controls escaped too).
 *
 * @since 0.1.0
 * @category utils
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
 * @category utils
 */
export const bold = paint("1")

/**
 * Dim, when colours are on.
 *
 * @since 0.1.0
 * @category utils
 */
export const dim = paint("2")

/**
 * Red, when colours are on.
 *
 * @since 0.1.0
 * @category utils
 */
export const red = paint("31")

/**
 * Yellow, when colours are on.
 *
 * @since 0.1.0
 * @category utils
 */
export const yellow = paint("33")

/**
 * Cyan, when colours are on.
 *
 * @since 0.1.0
 * @category utils
 */
export const cyan = paint("36")

export {
  /**
   * Collapses whitespace and wraps text to `width` columns.
   *
   * @since 0.1.0
   * @category utils
   */
  wrap
}

/**
 * A two-column table: names padded to the widest, descriptions wrapped in the space left
 * (continuation lines indented under the description).
 *
 * @since 0.1.0
 * @category utils
 */
export const table = (
  rows: ReadonlyArray<readonly [name: string, description: string | undefined]>,
  width: number,
  indent = "  "
): ReadonlyArray<string> => {
  const clean = rows.map(([name, description]) => [sanitize(name), description] as const)
  const nameWidth = Math.min(40, Math.max(0, ...clean.map(([name]) => name.length)))
  const room = Math.max(20, width - indent.length - nameWidth - 2)
  const under = `${indent}${" ".repeat(nameWidth)}  `
  return clean.flatMap(([name, description]) => {
    const wrapped = wrap(description ?? "", room)
    // A name wider than its column has its description on the lines below.
    if (name.length > nameWidth && Number.isFinite(width)) {
      const [head = "", ...more] = wrap(name, Math.max(20, width - indent.length))
      return [
        `${indent}${head}`,
        ...more.map((line) => `${indent}    ${line}`),
        ...wrapped.map((line) => `${under}${line}`)
      ]
    }
    const [first = "", ...rest] = wrapped
    const head = `${indent}${name.padEnd(nameWidth)}  ${first}`.trimEnd()
    return [head, ...rest.map((line) => `${under}${line}`)]
  })
}
