/**
 * Which termination signal ended the run, so that the exit code says it (128 + its number,
 * as shells do: SIGINT 130, SIGTERM 143), and what the run was doing, for the one line
 * Ctrl-C prints.
 */
import { constants } from "node:os"

/** The signals that interrupt a run (`NodeRuntime.runMain` interrupts the program on both). */
export type Termination = "SIGINT" | "SIGTERM"

/**
 * Starts recording the first termination signal; returns a function that reads it. The
 * listeners go after the first signal, so that a second one has its default effect.
 * `onInterrupt` runs at once on SIGINT (Ctrl-C), before the run is wound down.
 */
export const watch = (onInterrupt: () => void = () => {}): (() => Termination | undefined) => {
  let received: Termination | undefined
  const onInt = () => record("SIGINT")
  const onTerm = () => record("SIGTERM")
  const record = (signal: Termination) => {
    if (received === undefined && signal === "SIGINT") onInterrupt()
    received ??= signal
    process.removeListener("SIGINT", onInt)
    process.removeListener("SIGTERM", onTerm)
  }
  process.once("SIGINT", onInt)
  process.once("SIGTERM", onTerm)
  return () => received
}

/** The exit code of a run ended by `signal`: 128 plus the signal's number. */
export const exitCode = (signal: Termination): number => 128 + constants.signals[signal]

/**
 * What a command line asks for, in a few words: the subcommands and the first argument
 * (`tools call echo`), up to the first option or `key=value` word.
 */
export const activity = (words: ReadonlyArray<string>): string => {
  const end = words.findIndex((word) => word.startsWith("-") || word.includes("="))
  return (end === -1 ? words : words.slice(0, end))
    .slice(0, 3)
    .map((word) => (word.length > 60 ? `${word.slice(0, 59)}…` : word))
    .join(" ")
}

/**
 * The line Ctrl-C prints: `cancelled: <what>`. On a terminal it starts on a line of its own: the
 * line the key was pressed on (a live line, the terminal's echo of it) is replaced by `^C`.
 */
export const cancelledLine = (what: string, terminal: boolean): string =>
  `${terminal ? "\r\x1b[2K^C\n" : ""}cancelled: ${what}`
