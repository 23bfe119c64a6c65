/**
 * The live line drawn on stderr while a request runs: a spinner, what is running, the
 * server's progress (`progress/total` with a bar when there is a total, and its message) or
 * a task's status, and the time elapsed. On a terminal it is redrawn ten times a second (and
 * not at all while a prompt is open, see `Output.paused`); off a terminal each update is one
 * plain line.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import { sanitize } from "./internal/controls.js"
import { Output } from "./Output.js"

/**
 * What the line shows.
 *
 * @since 0.1.0
 * @category models
 */
export interface LineState {
  /** What runs, e.g. `calling get-sum`. */
  readonly label: string
  readonly progress?: number
  readonly total?: number
  /** The server's progress message, or a task's status. */
  readonly message?: string
}

const SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
const BAR = 20

/**
 * Elapsed time as `4s` or `2m05s`.
 *
 * @since 0.1.0
 * @category rendering
 */
export const elapsedText = (millis: number): string => {
  const seconds = Math.floor(millis / 1000)
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`
}

/**
 * A progress bar `[#####-----]` for a fraction (clamped to 0..1).
 *
 * @since 0.1.0
 * @category rendering
 */
export const bar = (fraction: number, width = BAR): string => {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width)
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`
}

/**
 * One frame of the line, cut to `columns`.
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (state: LineState, frame: number, elapsedMillis: number, columns: number): string => {
  const parts = [`${SPINNER[frame % SPINNER.length]} ${state.label}`]
  if (state.progress !== undefined)
    parts.push(
      state.total === undefined || state.total <= 0
        ? String(state.progress)
        : `${state.progress}/${state.total} ${bar(state.progress / state.total)}`
    )
  if (state.message !== undefined && state.message !== "") parts.push(sanitize(state.message))
  parts.push(elapsedText(elapsedMillis))
  const line = sanitize(parts.join("  ").replace(/\s*\n\s*/g, " "))
  return line.length > columns ? `${line.slice(0, Math.max(1, columns - 1))}…` : line
}

/**
 * The plain line printed off a terminal for one update: `<label>: 3/10 message`.
 *
 * @since 0.1.0
 * @category rendering
 */
export const plain = (state: LineState): string => {
  const count =
    state.progress === undefined ? [] : [`${state.progress}${state.total === undefined ? "" : `/${state.total}`}`]
  const rest = [...count, ...(state.message === undefined ? [] : [state.message])].join(" ")
  return state.label === "" ? rest : `${state.label}: ${rest}`
}

/**
 * A live line: update it as events arrive; it is cleared when its scope closes.
 *
 * @since 0.1.0
 * @category models
 */
export interface ProgressLine {
  readonly update: (change: Partial<Omit<LineState, "label">>) => Effect.Effect<void>
}

/**
 * Starts a live line for `label` in the current scope. On a terminal a fiber redraws it
 * every 100 ms (the spinner turns and the time counts even when the server is silent); off a
 * terminal each update prints one line.
 *
 * @since 0.1.0
 * @category constructors
 */
export const start = (
  label: string,
  /** The label of the plain lines printed off a terminal (default: `label`). */
  plainLabel: string = label
): Effect.Effect<ProgressLine, never, Output | Scope.Scope> =>
  Effect.gen(function* () {
    const output = yield* Output
    const state = yield* Ref.make<LineState>({ label })
    const started = yield* Clock.currentTimeMillis
    const frame = yield* Ref.make(0)
    const columns = () => ((process.stderr.columns ?? 0) > 20 ? process.stderr.columns : 80)
    const draw = Effect.gen(function* () {
      const current = yield* Ref.get(state)
      const n = yield* Ref.getAndUpdate(frame, (value) => value + 1)
      const now = yield* Clock.currentTimeMillis
      yield* output.status(render(current, n, now - started, columns() - 1))
    })
    if (output.interactive && !output.json) {
      // Keys typed meanwhile are not echoed over it (internal/terminalEcho.ts).
      yield* Effect.addFinalizer(() => output.status(undefined))
      yield* Effect.forkScoped(Effect.repeat(draw, Schedule.spaced("100 millis")))
    }
    return {
      update: (change) =>
        Effect.flatMap(
          Ref.updateAndGet(state, (current) => ({ ...current, ...change })),
          (current) =>
            output.interactive
              ? output.json
                ? Effect.void
                : draw
              : output.status(plain({ ...current, label: plainLabel }))
        )
    }
  })
