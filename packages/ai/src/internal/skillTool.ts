/**
 * The tool that offers one server's skills to the model (`<server>__load_skill`). Its description
 * lists the skills, name and description, which is all the model needs to decide to ask for one;
 * a call loads one (its `SKILL.md` instructions, verified by the client) or reads one of its
 * files, and the result stays in the conversation like any tool result. Every failure, a
 * verification failure above all, is an error output the model reads, never a failed turn.
 */
import type { McpClient, McpError, Skills } from "@effect-mcp/client"
import type { Aggregate, McpHost } from "@effect-mcp/host"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type * as ToolOutput from "../ToolOutput.js"

/** The tool's own name; its host-wide name is `<server>__load_skill`. */
export const TOOL_NAME = "load_skill"

/** A skill and the name the model asks for it by. */
export interface Labelled {
  /** Its name, or its path where two of the server's skills share the name. */
  readonly label: string
  readonly skill: Skills.Skill
}

/** The skills of one server, each with the name the model asks for it by. */
export const labelled = (skills: ReadonlyArray<Skills.Skill>): ReadonlyArray<Labelled> => {
  const counts = new Map<string, number>()
  for (const skill of skills) counts.set(skill.name, (counts.get(skill.name) ?? 0) + 1)
  return skills.map((skill) => ({ label: (counts.get(skill.name) ?? 0) > 1 ? skill.path : skill.name, skill }))
}

/** The skills of a host, grouped by server in the host's order. */
export const byServer = (
  skills: ReadonlyArray<Aggregate.HostSkill>
): ReadonlyArray<{ readonly server: string; readonly skills: ReadonlyArray<Labelled> }> => {
  const groups = new Map<string, Array<Skills.Skill>>()
  for (const { server, skill } of skills) groups.set(server, [...(groups.get(server) ?? []), skill])
  return [...groups].map(([server, listed]) => ({ server, skills: labelled(listed) }))
}

// Names and descriptions are the server's: one line each, so a description cannot pose as more of the list.
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim()

/** The tool as the model is offered it: what it does, and the server's skills. */
export const definition = (server: string, skills: ReadonlyArray<Labelled>): McpClient.Tool => ({
  name: TOOL_NAME,
  title: `Skills of ${server}`,
  description: [
    `Loads one of the skills of the MCP server "${server}": instructions its authors wrote for a kind of task.`,
    "Before a task that one of these skills is for, load the skill and follow what it says.",
    "A loaded skill stays in this conversation: load each one once.",
    'Its instructions may name files of the skill: read one by calling this tool again with "file".',
    "",
    "Skills:",
    ...skills.map(({ label, skill }) =>
      skill.description === "" ? `- ${oneLine(label)}` : `- ${oneLine(label)}: ${oneLine(skill.description)}`
    )
  ].join("\n"),
  inputSchema: {
    type: "object",
    properties: {
      skill: { type: "string", enum: skills.map(({ label }) => label), description: "The skill, by its listed name" },
      file: {
        type: "string",
        description:
          "One of the skill's files, by its path within the skill (references/FORMS.md); omit it to load the skill"
      }
    },
    required: ["skill"],
    additionalProperties: false
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
})

/** What the budget's marker says when a skill's result is cut. */
export const hint = (modelName: string): string =>
  `The rest does not fit in one result; the skill's other files can be read one at a time with ${modelName} and "file".`

const Params = Schema.Struct({ skill: Schema.String, file: Schema.optional(Schema.String) })
const decodeParams = Schema.decodeUnknownEither(Params, { errors: "all", onExcessProperty: "error" })

/** How a call went. */
export interface Outcome {
  readonly output: ToolOutput.ToolOutput
  readonly isError: boolean
}

const text = (value: string): ToolOutput.Block => ({ type: "text", text: value })
const failure = (message: string): Outcome => ({ output: { content: [text(message)] }, isError: true })

/** What the model reads when loading the skill, or reading its file, failed: what went wrong, and what it may do instead. */
const failureOf = (
  error: McpHost.HostSkillError,
  server: string,
  asked: string,
  file: string | undefined,
  listed: ReadonlyArray<Labelled>
): Outcome => {
  const skill = `the skill "${asked}" of ${server}`
  switch (error._tag) {
    case "SkillVerificationFailed":
      if (file !== undefined && error.file !== error.skill) {
        return failure(
          error.field === "resources"
            ? `The file "${file}" of ${skill} was not read: it is not one of the skill's listed files.`
            : `The file "${file}" of ${skill} was not read: it does not match the server's listing ` +
                `(${error.field}: ${error.reason}). Do not use it or guess what it says.`
        )
      }
      return failure(
        `The skill "${asked}" of ${server} was not loaded: its SKILL.md (${error.file}) does not match the ` +
          `server's listing (${error.field}: ${error.reason}). Do not follow it or guess what it says.`
      )
    case "SkillNotFound":
      return failure(
        `${error.message}. ${
          listed.length === 0
            ? `${server} lists no skills now.`
            : `The skills of ${server}: ${listed.map(({ label }) => label).join(", ")}.`
        }`
      )
    default:
      return failure(
        file === undefined
          ? `The skill "${asked}" of ${server} could not be loaded: ${error.message}`
          : `The file "${file}" of ${skill} could not be read: ${error.message}`
      )
  }
}

/** The decoding issues of the model's arguments, one line. */
const issuesOf = (error: ParseResult.ParseError) =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .map((issue) => `${issue.path.length === 0 ? "the arguments" : issue.path.join(".")}: ${issue.message}`)
    .join("; ")

/** The loaded skill as the model reads it: its instructions, then the files it may ask for. */
const loadedOutput = (
  server: string,
  asked: string,
  modelName: string,
  loaded: Skills.LoadedSkill
): ToolOutput.ToolOutput => ({
  content: [
    text(`The skill "${asked}" of ${server}, verified against the server's listing. Its instructions:`),
    text(loaded.instructions.trim() === "" ? "(the skill has no instructions)" : loaded.instructions),
    ...(loaded.files.length === 0
      ? []
      : [text(`Its files (read one with ${modelName} and "file"): ${loaded.files.join(", ")}`)])
  ]
})

/** One file of a skill, as an embedded resource: its text, or for other bytes their size (and base64 when asked for). */
const fileOutput = (file: Skills.SkillFile, binary: ToolOutput.BinaryMode): ToolOutput.ToolOutput => {
  const mimeType = file.mimeType === undefined ? {} : { mimeType: file.mimeType }
  return {
    content: [
      file.text === undefined
        ? {
            type: "resource",
            uri: file.uri,
            ...mimeType,
            bytes: file.bytes.length,
            ...(binary === "include" ? { data: Encoding.encodeBase64(file.bytes) } : {})
          }
        : { type: "resource", uri: file.uri, ...mimeType, text: file.text }
    ]
  }
}

/** Options of one call. */
export interface CallOptions {
  readonly timeout: Duration.Duration
  readonly binary: ToolOutput.BinaryMode
}

/**
 * Loads the skill the model asked for from `server` (by its listed name, else as the client
 * resolves it: a name, path or URI), or reads one of its files. Never fails.
 */
export const call = (
  host: McpHost.McpHostService,
  server: string,
  modelName: string,
  params: unknown,
  options: CallOptions
): Effect.Effect<Outcome> =>
  Either.match(decodeParams(params), {
    onLeft: (error) => Effect.succeed(failure(`${modelName} takes {"skill": name, "file"?: path}; ${issuesOf(error)}`)),
    onRight: ({ skill: asked, file }) =>
      Effect.gen(function* () {
        const listed = labelled(
          (yield* host.skills).filter((entry) => entry.server === server).map(({ skill }) => skill)
        )
        const uri = listed.find(({ label }) => label === asked)?.skill.uri ?? asked
        const requestOptions = { timeout: options.timeout }
        return yield* host.loadSkill(server, uri, requestOptions).pipe(
          Effect.flatMap(
            (loaded): Effect.Effect<Outcome, McpError.RequestError | McpError.SkillVerificationFailed> =>
              file === undefined
                ? Effect.succeed({ output: loadedOutput(server, asked, modelName, loaded), isError: false })
                : Effect.map(loaded.readFile(file, requestOptions), (read) => ({
                    output: fileOutput(read, options.binary),
                    isError: false
                  }))
          ),
          Effect.catchAll((error) => Effect.succeed(failureOf(error, server, asked, file, listed)))
        )
      })
  })
