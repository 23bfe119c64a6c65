/**
 * The terminal every prompt of a command reads through: while a prompt reads input (any
 * `@effect/cli` prompt: elicitation forms and URLs, VS Code `${input:…}` questions, the
 * -32042 offer to open a URL), the live progress line is cleared and not drawn, so it never
 * hides the question or draws over the answer.
 *
 * @since 0.1.0
 */
import * as Terminal from "@effect/platform/Terminal"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Output } from "./Output.js"

/**
 * The surrounding terminal, with the status line held while input is read.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Terminal.Terminal, never, Terminal.Terminal | Output> = Layer.effect(
  Terminal.Terminal,
  Effect.gen(function* () {
    const terminal = yield* Terminal.Terminal
    const output = yield* Output
    return { ...terminal, readInput: Effect.zipRight(output.hold, terminal.readInput) }
  })
)
