/**
 * The CLI's logs: one line each on stderr, never stdout (stdout carries only results), at
 * warning and above by default and everything with `--verbose`. Structured values (log
 * message parts, annotations, causes) are shown as compact text, and control sequences are
 * removed (log lines quote servers).
 *
 * @since 0.1.0
 */
import { inspect } from "node:util"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashMap from "effect/HashMap"
import * as HashSet from "effect/HashSet"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { sanitize } from "./internal/controls.js"

/**
 * One value of a log line as text: strings as they are, anything else compact and on one line.
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderValue = (value: unknown): string =>
  typeof value === "string"
    ? value
    : inspect(value, { depth: 4, breakLength: Number.POSITIVE_INFINITY, compact: true, colors: false })

/**
 * A log entry as one or more lines of text: `level: message parts key=value …`, then its cause.
 *
 * @since 0.1.0
 * @category rendering
 */
export const format = (options: Logger.Logger.Options<unknown>): string => {
  const parts = (Array.isArray(options.message) ? options.message : [options.message]).map(renderValue)
  const annotations = HashMap.toEntries(options.annotations).map(([key, value]) => `${key}=${renderValue(value)}`)
  const cause = Cause.isEmpty(options.cause) ? [] : [Cause.pretty(options.cause, { renderErrorCause: true })]
  return sanitize([`${options.logLevel.label.toLowerCase()}:`, ...parts, ...annotations, ...cause].join(" "))
}

/**
 * The logger: {@link format}ted lines on stderr.
 *
 * @since 0.1.0
 * @category constructors
 */
export const stderrLogger: Logger.Logger<unknown, void> = Logger.make((options) => {
  process.stderr.write(`${format(options)}\n`)
})

/**
 * Logs through {@link stderrLogger} only: the default logger and the pretty one (which
 * `NodeRuntime.runMain` installs, writing to stdout) are taken out.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (verbose: boolean): Layer.Layer<never> =>
  Layer.merge(
    Layer.scopedDiscard(
      Effect.locallyScopedWith(FiberRef.currentLoggers, (loggers) =>
        loggers.pipe(
          HashSet.remove(Logger.defaultLogger),
          HashSet.remove(Logger.prettyLoggerDefault),
          HashSet.add(stderrLogger)
        )
      )
    ),
    Logger.minimumLogLevel(verbose ? LogLevel.Debug : LogLevel.Warning)
  )

/**
 * Runs `effect` with the log entries that `drop` picks left out, in the fibers it starts too: for
 * a command that says the same thing its own way.
 *
 * @since 0.1.0
 * @category combinators
 */
export const dropping =
  (drop: (entry: Logger.Logger.Options<unknown>) => boolean) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.locallyWith(effect, FiberRef.currentLoggers, (loggers) =>
      HashSet.map(loggers, (logger) =>
        Logger.make<unknown, unknown>((entry) => (drop(entry) ? undefined : logger.log(entry)))
      )
    )
