/**
 * `skills list` and `skills show <name>`: the skills a server serves (the
 * `io.modelcontextprotocol/skills` extension). Listing reads no skill file; showing loads the
 * skill (its `SKILL.md`, checked against the listing: size, digest, frontmatter) and prints it,
 * with `--file` also one or more of its other files, each checked the same way.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import type { McpClient, Skills } from "@effect-mcp/client"
import * as Effect from "effect/Effect"
import * as CommonOptions from "../CommonOptions.js"
import { withClient } from "../Connect.js"
import { bold, dim, Output } from "../Output.js"
import { printList, runCommand } from "./shared.js"

/** The name each skill is shown by: its name, or its path where two skills share the name. */
const labels = (skills: ReadonlyArray<Skills.Skill>) => {
  const counts = new Map<string, number>()
  for (const skill of skills) counts.set(skill.name, (counts.get(skill.name) ?? 0) + 1)
  return (skill: Skills.Skill) => ((counts.get(skill.name) ?? 0) > 1 ? skill.path : skill.name)
}

/** `skills list`. */
export const list = Command.make("list", CommonOptions.connection, ({ server, run }) =>
  runCommand(
    run,
    withClient(server, run, (client) =>
      Effect.flatMap(client.skills.list, (skills) => {
        const label = labels(skills)
        return printList("skills", skills, (skill) => [label(skill), skill.description])
      })
    )
  )
).pipe(
  Command.withDescription(
    "List the server's skills: names and descriptions from its listing (no skill file is read).\nExample: effect-mcp skills list --url http://localhost:3000/mcp"
  )
)

/** Loads a skill and prints its `SKILL.md`, the files it lists, and the files asked for. */
export const printSkill = (client: McpClient.McpClientService, name: string, files: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const output = yield* Output
    const loaded = yield* client.skills.load(name)
    const read = yield* Effect.forEach(files, (path) => loaded.readFile(path))
    if (output.json) {
      return yield* output.printJson({
        skill: loaded.skill,
        frontmatter: loaded.frontmatter,
        instructions: loaded.instructions,
        files: loaded.files,
        read: read.map((file) => ({
          uri: file.uri,
          path: file.path,
          ...(file.mimeType === undefined ? {} : { mimeType: file.mimeType }),
          ...(file.text === undefined ? { size: file.bytes.length } : { text: file.text })
        }))
      })
    }
    yield* output.line(dim(output.color, `— ${loaded.skill.uri} (verified)`))
    yield* output.line(loaded.text.trimEnd())
    if (loaded.files.length > 0) {
      yield* output.line("")
      yield* output.line(bold(output.color, "files:"))
      for (const path of loaded.files) yield* output.line(`  ${path}`)
    }
    for (const file of read) {
      yield* output.line("")
      yield* output.line(dim(output.color, `— ${file.uri} (verified)`))
      yield* output.line(file.text?.trimEnd() ?? `(${file.bytes.length} bytes, not text)`)
    }
  })

/** `skills show <name>`. */
export const show = Command.make(
  "show",
  {
    ...CommonOptions.connection,
    name: Args.text({ name: "name" }).pipe(Args.withDescription("The skill's name, path or SKILL.md URI")),
    files: Options.text("file").pipe(
      Options.withDescription("Also read this file of the skill, by its path in the skill (repeatable)"),
      Options.repeated
    )
  },
  ({ server, run, name, files }) =>
    runCommand(
      run,
      withClient(server, run, (client) => printSkill(client, name, files))
    )
).pipe(
  Command.withDescription(
    "Load a skill and print its SKILL.md: refused unless its size, digest and frontmatter match the server's listing.\nExample: effect-mcp skills show pdf-processing --file references/FORMS.md --url http://localhost:3000/mcp"
  )
)

/** `effect-mcp skills`. */
export const skills = Command.make("skills").pipe(
  Command.withDescription("List and show the skills a server serves (the skills extension)."),
  Command.withSubcommands([list, show])
)
