/**
 * The CLI's answers to server-initiated requests. Elicitation: on a terminal the user is
 * asked with prompts built from the requested schema (defaults first, enums as selects) and
 * chooses accept, decline or cancel; URL mode shows the URL and asks for consent; off a
 * terminal every request is declined, unless `--accept-defaults` accepts forms with their
 * defaults. Sampling: `--sampling-command` receives the request as JSON on stdin and prints
 * the result; without one the request is refused with a clear message. Roots: `--root`.
 *
 * @since 0.1.0
 */

import { pathToFileURL } from "node:url"
import * as Prompt from "@effect/cli/Prompt"
import * as Command from "@effect/platform/Command"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import type * as Terminal from "@effect/platform/Terminal"
import { Capabilities, McpError } from "@effect-mcp/client"
import { McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { sanitize } from "./internal/controls.js"
import { checkText } from "./internal/formField.js"
import { bold, cyan, dim, green, Output, red, styled } from "./Output.js"
import { ServerNames } from "./ServerNames.js"
import * as LineReader from "./shell/LineReader.js"

/**
 * The choices a user makes about server requests.
 *
 * @since 0.1.0
 * @category options
 */
export interface HandlerSettings {
  /** Prompts may be shown (stdin and stderr are terminals). */
  readonly interactive: boolean
  readonly acceptDefaults: boolean
  readonly samplingCommand: string | undefined
  readonly roots: ReadonlyArray<string>
}

type Field = typeof McpSchema.PrimitiveSchemaDefinition.Type
type Value = NonNullable<McpSchema.ElicitResult["content"]>[string]

// Everything a prompt shows comes from the server: sanitized, since prompts draw on the terminal.
const label = (name: string, field: Field) =>
  sanitize(`${field.title ?? name}${field.description === undefined ? "" : ` (${field.description})`}`)

const choicesOf = (field: Field): ReadonlyArray<{ readonly title: string; readonly value: string }> | undefined => {
  if ("oneOf" in field) return field.oneOf.map((option) => ({ title: sanitize(option.title), value: option.const }))
  if ("enum" in field)
    return field.enum.map((value, index) => ({
      title: sanitize(("enumNames" in field ? field.enumNames?.[index] : undefined) ?? value),
      value
    }))
  return undefined
}

const multiChoicesOf = (field: Field) => {
  if (field.type !== "array") return undefined
  return "anyOf" in field.items
    ? field.items.anyOf.map((option) => ({ title: sanitize(option.title), value: option.const }))
    : field.items.enum.map((value) => ({ title: sanitize(value), value }))
}

/** Puts the default first, so that Enter takes it. */
const defaultFirst = <A extends { readonly value: string }>(choices: ReadonlyArray<A>, preferred: unknown) => [
  ...choices.filter((choice) => choice.value === preferred),
  ...choices.filter((choice) => choice.value !== preferred)
]

/** The choice that leaves an optional field out. */
const SKIP = { title: "(skip)", value: undefined }

/**
 * A text, number or integer field on the shell's line editor (Ctrl-U, Ctrl-W, Ctrl-A/E, arrows,
 * Delete: no key types a control character), the default already typed. An answer its schema
 * refuses is shown with the reason and given back to edit, so nothing typed is lost.
 */
const askText = (message: string, field: Field, required: boolean, color: boolean) => {
  const fallback = field.default === undefined ? "" : sanitize(String(field.default))
  const prompt = styled`${cyan(color, "?")} ${bold(color, message)} ${dim(color, "›")} `.text
  const ask = (typed: string): Effect.Effect<Value | undefined, Terminal.QuitException> =>
    Effect.flatMap(LineReader.edit(prompt, typed, fallback), ({ line, redraw }) =>
      Either.match(checkText(field, line, required), {
        onRight: (value) =>
          Effect.as(
            redraw(styled`${green(color, "✔")} ${bold(color, message)} ${dim(color, "…")} ${line}`.text),
            value
          ),
        onLeft: (reason) =>
          Effect.zipRight(
            redraw(
              styled`${red(color, "✖")} ${bold(color, message)} ${dim(color, "›")} ${line}  ${red(color, reason)}`.text
            ),
            Effect.suspend(() => ask(line))
          )
      })
    )
  return ask(fallback)
}

const askField = (
  name: string,
  field: Field,
  required: boolean,
  color: boolean
): Effect.Effect<Value | undefined, Terminal.QuitException, Prompt.Prompt.Environment> => {
  const message = `${label(name, field)}${required ? "" : " [optional]"}`
  const multi = multiChoicesOf(field)
  if (multi !== undefined) {
    const preferred = Array.isArray(field.default) ? field.default : []
    return Prompt.run(
      Prompt.multiSelect({
        message: `${message} (space toggles, enter confirms)`,
        choices: multi.map((choice) => ({ ...choice, selected: preferred.includes(choice.value) })),
        ...("minItems" in field && field.minItems !== undefined ? { min: field.minItems } : {}),
        ...("maxItems" in field && field.maxItems !== undefined ? { max: field.maxItems } : {})
      })
    )
  }
  const choices = choicesOf(field)
  if (choices !== undefined)
    return Prompt.run(
      Prompt.select<string | undefined>({
        message,
        choices: [...defaultFirst(choices, field.default), ...(required ? [] : [SKIP])]
      })
    )
  if (field.type === "boolean")
    return Prompt.run(Prompt.confirm({ message, initial: typeof field.default === "boolean" ? field.default : false }))
  return askText(message, field, required, color)
}

const askForm = (params: typeof McpSchema.ElicitRequestFormParams.Type, color: boolean) =>
  Effect.gen(function* () {
    const action = yield* Prompt.run(
      Prompt.select({
        message: sanitize(params.message),
        choices: [
          { title: "accept (fill in the form)", value: "accept" as const },
          { title: "decline", value: "decline" as const },
          { title: "cancel", value: "cancel" as const }
        ]
      })
    )
    if (action !== "accept") return { action } satisfies McpSchema.ElicitResult
    const required = params.requestedSchema.required ?? []
    const content: Record<string, Value> = {}
    for (const [name, field] of Object.entries(params.requestedSchema.properties)) {
      const value = yield* askField(name, field, required.includes(name), color)
      if (value !== undefined) content[name] = value
    }
    return { action: "accept", content } satisfies McpSchema.ElicitResult
  })

/**
 * Ctrl-C in a prompt (read in raw mode, so it comes as a key, not a signal): the question's line
 * is ended, the server is answered `cancel`, and the key is handed to whoever handles Ctrl-C now
 * (the run: exit 130, one `cancelled: …` line; the shell: the running command). They act after
 * this answer has been written: an interruption is taken at the fibers' next step.
 */
const cancelOnQuit = <R>(
  effect: Effect.Effect<McpSchema.ElicitResult, Terminal.QuitException, R>
): Effect.Effect<McpSchema.ElicitResult, never, R> =>
  Effect.catchTag(effect, "QuitException", () =>
    Effect.sync((): McpSchema.ElicitResult => {
      process.stdout.write("\n")
      process.emit("SIGINT", "SIGINT")
      return { action: "cancel" }
    })
  )

/**
 * Elicitation for the CLI: prompts on a terminal, declines (or accepts defaults) off one.
 *
 * @since 0.1.0
 * @category constructors
 */
export const elicitation = (settings: HandlerSettings) =>
  Layer.effect(
    Capabilities.Elicitation,
    Effect.gen(function* () {
      const output = yield* Output
      const names = yield* ServerNames
      const context = yield* Effect.context<Terminal.Terminal | FileSystem.FileSystem | Path.Path>()
      return {
        form: (params, request) =>
          Effect.gen(function* () {
            const server = yield* names.display(request.server)
            yield* output.status(undefined)
            if (settings.interactive) {
              yield* output.note(`${server} asks for input:`)
              return yield* output.paused(cancelOnQuit(askForm(params, output.color)))
            }
            const missing = (params.requestedSchema.required ?? []).filter(
              (name) => params.requestedSchema.properties[name]?.default === undefined
            )
            if (settings.acceptDefaults && missing.length > 0) {
              yield* output.note(
                `${server} asked for input; declined (--accept-defaults, but ${missing.join(", ")} has no default): ${params.message}`
              )
              return { action: "decline" } satisfies McpSchema.ElicitResult
            }
            if (settings.acceptDefaults) {
              yield* output.note(
                `${server} asked for input; accepted with defaults (--accept-defaults): ${params.message}`
              )
              return { action: "accept", content: {} } satisfies McpSchema.ElicitResult
            }
            yield* output.note(
              `${server} asked for input; declined (not a terminal; --accept-defaults accepts defaults): ${params.message}`
            )
            return { action: "decline" } satisfies McpSchema.ElicitResult
          }).pipe(Effect.provide(context)),
        url: (params, request) =>
          Effect.gen(function* () {
            const server = yield* names.display(request.server)
            yield* output.status(undefined)
            yield* output.note(`${server} asks you to open ${params.url}\n  ${params.message}`)
            if (!settings.interactive) {
              yield* output.note("declined (not a terminal)")
              return { action: "decline" } satisfies McpSchema.ElicitResult
            }
            // The live line is paused while the prompt reads (PausingTerminal).
            return yield* cancelOnQuit(
              Prompt.run(
                Prompt.confirm({ message: `Open ${new URL(params.url).host} and continue there?`, initial: false })
              ).pipe(Effect.map((yes): McpSchema.ElicitResult => ({ action: yes ? "accept" : "decline" })))
            )
          }).pipe(Effect.provide(context))
      }
    })
  )

/** What the shell's own exit codes mean: 127 a command it did not find, 126 one it could not run. */
const exitMeaning = (code: number) => (code === 127 ? " (not found)" : code === 126 ? " (not executable)" : "")

const decodeSamplingResult = Schema.decodeUnknown(Schema.parseJson(McpSchema.CreateMessageResult))

/**
 * Sampling by an external command, or a clear refusal without one.
 *
 * @since 0.1.0
 * @category constructors
 */
export const sampling = (settings: HandlerSettings) =>
  Layer.effect(
    Capabilities.Sampling,
    Effect.gen(function* () {
      const names = yield* ServerNames
      const context = yield* Effect.context<CommandExecutor.CommandExecutor>()
      const refuse = (reason: string) => new McpError.JsonRpcFailure({ code: -1, errorMessage: reason })
      return {
        createMessage: (params, request) => {
          // The refusal is the server's to report (a tool passes it on as its error); --verbose logs it here.
          if (settings.samplingCommand === undefined)
            return names.display(request.server).pipe(
              Effect.flatMap((server) =>
                Effect.logDebug(`${server} asked for a model completion; declined (no --sampling-command)`)
              ),
              Effect.zipRight(
                Effect.fail(refuse("effect-mcp declined the sampling request: no --sampling-command is configured"))
              )
            )
          const command = Command.make("/bin/sh", "-c", settings.samplingCommand).pipe(
            Command.feed(JSON.stringify(params)),
            Command.stderr("inherit")
          )
          // Its exit code first: a command that failed (not found, say) printed no result.
          return Effect.scoped(
            Effect.flatMap(Command.start(command), (process) =>
              Effect.all([process.stdout.pipe(Stream.decodeText(), Stream.mkString), process.exitCode], {
                concurrency: 2
              })
            )
          ).pipe(
            Effect.mapError((cause) => refuse(`the sampling command failed: ${cause.message}`)),
            Effect.flatMap(([stdout, code]) =>
              code !== 0
                ? Effect.fail(refuse(`the sampling command exited ${code}${exitMeaning(code)}`))
                : Effect.mapError(decodeSamplingResult(stdout), () =>
                    refuse("the sampling command did not print a CreateMessageResult as JSON")
                  )
            ),
            Effect.provide(context)
          )
        }
      }
    })
  )

/**
 * Roots from `--root` directories, as file URLs.
 *
 * @since 0.1.0
 * @category constructors
 */
export const roots = (directories: ReadonlyArray<string>) =>
  Layer.succeed(Capabilities.Roots, {
    list: Effect.succeed(
      directories.map((directory) => {
        const uri = pathToFileURL(directory).href
        return { uri, name: directory.split(/[\\/]/).filter(Boolean).at(-1) ?? directory }
      })
    )
  })

/**
 * Every handler the settings ask for.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (settings: HandlerSettings) =>
  Layer.mergeAll(
    elicitation(settings),
    sampling(settings),
    settings.roots.length === 0 ? Layer.empty : roots(settings.roots)
  )
