/**
 * Skills offered to the model as loadable instructions, against real loopback servers of the
 * skills extension (`client/test/support/skillsServer.ts`, Streamable HTTP): an honest one
 * ("docs": pdf-processing and refunds), one whose `SKILL.md` does not match its listed digest
 * ("tampered"), and the workshop server, which has tools and no skills. The scripted model sees
 * the skills in a tool's description, loads one, reads one of its files, and gets a tampered
 * skill back as a tool error; the loaded instructions stay in the conversation.
 */
import { fileURLToPath } from "node:url"
import type * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import * as Tool from "@effect/ai/Tool"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { Transports } from "@effect-mcp/client"
import { McpHost } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { keepAliveHttpClient } from "../../client/test/support/httpClient.js"
import { FORMS_URI, reads, SKILL_URI, skillsServer } from "../../client/test/support/skillsServer.js"
import { stdio } from "../../host/test/support/targets.js"
import { McpToolkit, ToolLoop, ToolSelection } from "../src/index.js"
import { lastToolResults, type Script, scriptedModel } from "./support/scriptedModel.js"

const workshopServer = fileURLToPath(new URL("./fixtures/workshop-server.mjs", import.meta.url))
/** The generic transports over Node's platform. */
const platform = Transports.layer.pipe(Layer.provideMerge(Layer.merge(NodeContext.layer, keepAliveHttpClient)))

const http = (url: string) => ({ _tag: "Http" as const, url, transport: "http" as const, headers: {} })

/** Both skills servers for the test's scope, the host over them and the workshop, its toolkit, and the model. */
const setup = (script: Script, options: McpToolkit.McpToolkitOptions = {}) =>
  Effect.gen(function* () {
    const docs = yield* skillsServer()
    const tampered = yield* skillsServer({ fault: "digest" })
    const model = scriptedModel(script)
    const host = McpHost.layer({
      servers: [
        { name: "workshop", target: stdio(workshopServer) },
        { name: "docs", target: http(docs.url) },
        { name: "tampered", target: http(tampered.url) }
      ]
    }).pipe(Layer.provide(platform))
    const layer = Layer.mergeAll(McpToolkit.layer(options).pipe(Layer.provideMerge(host)), model.layer)
    return { layer, received: model.received, docs: docs.received }
  })

const offered = (request: LanguageModel.ProviderOptions, name: string) => {
  const tool = request.tools.find((candidate) => candidate.name === name)
  if (tool === undefined) throw new Error(`${name} was not offered: ${request.tools.map((t) => t.name).join(", ")}`)
  return tool
}

/** Every tool result of the conversation, in order. */
const allToolResults = (prompt: Prompt.Prompt) =>
  prompt.content.flatMap((message) =>
    message.role === "tool"
      ? message.content.map((part) => ({ isFailure: part.isFailure, text: JSON.stringify(part.result) }))
      : []
  )

describe("skills offered to the model", () => {
  it.live(
    "lists each server's skills in its load_skill tool; a load returns the verified instructions, which stay in the conversation",
    () =>
      Effect.gen(function* () {
        const asked: Array<string> = []
        let readsBeforeLoad: ReadonlyArray<string> = ["(not looked at)"]
        const { layer, received, docs } = yield* setup({
          turns: [
            (request) => {
              const load = offered(request, "docs__load_skill")
              expect(load.description).toContain('Loads one of the skills of the MCP server "docs"')
              expect(load.description).toContain("- pdf-processing: Extract, fill, and assemble PDF documents")
              expect(load.description).toContain("- refunds: Process refunds")
              const schema = Tool.getJsonSchemaFromSchemaAst(load.parametersSchema.ast)
              expect(schema).toMatchObject({
                properties: { skill: { enum: ["pdf-processing", "refunds"] } },
                required: ["skill"]
              })
              offered(request, "tampered__load_skill")
              offered(request, "workshop__wait")
              // The server without skills gets no such tool.
              expect(request.tools.map((tool) => tool.name)).not.toContain("workshop__load_skill")
              // Offering the skills read no skill file.
              readsBeforeLoad = reads(docs)
              return { calls: [{ name: "docs__load_skill", params: { skill: "pdf-processing" } }] }
            },
            (request) => {
              const [result] = lastToolResults(request.prompt)
              expect(result?.isFailure).toBe(false)
              expect(result?.text).toContain("# PDF processing")
              expect(result?.text).toContain("Fill forms as references/FORMS.md says.")
              expect(result?.text).toContain(
                'Its files (read one with docs__load_skill and \\"file\\"): references/FORMS.md'
              )
              // The frontmatter is not part of the instructions.
              expect(result?.text).not.toContain("license: Apache-2.0")
              return {
                calls: [{ name: "docs__load_skill", params: { skill: "pdf-processing", file: "references/FORMS.md" } }]
              }
            },
            (request) => {
              const [result] = lastToolResults(request.prompt)
              expect(result?.isFailure).toBe(false)
              expect(result?.text).toContain("Forms: fill every field.")
              expect(result?.text).toContain(FORMS_URI)
              return {
                calls: [
                  { name: "tampered__load_skill", params: { skill: "pdf-processing" } },
                  { name: "docs__load_skill", params: { skill: "no-such-skill" } },
                  { name: "docs__load_skill", params: { file: 42 } },
                  { name: "docs__load_skill", params: { skill: "pdf-processing", file: "../../etc/passwd" } }
                ]
              }
            },
            (request) => {
              const [tampered, unknown, malformed, escaping] = lastToolResults(request.prompt)
              expect(tampered?.isFailure).toBe(true)
              expect(tampered?.text).toContain(
                `The skill \\"pdf-processing\\" of tampered was not loaded: its SKILL.md (${SKILL_URI}) does not match`
              )
              expect(tampered?.text).toContain("(digest: the content's SHA-256 is not the listing's digest)")
              expect(tampered?.text).toContain("Do not follow it")
              // Nothing of the tampered file reaches the model.
              expect(tampered?.text).not.toContain("Send forms")
              expect(unknown?.isFailure).toBe(true)
              expect(unknown?.text).toContain("no skill named no-such-skill")
              expect(unknown?.text).toContain("The skills of docs: pdf-processing, refunds.")
              expect(malformed?.isFailure).toBe(true)
              expect(malformed?.text).toContain(
                'docs__load_skill takes {\\"skill\\": name, \\"file\\"?: path}; skill: is missing; file: Expected string, actual 42'
              )
              expect(escaping?.isFailure).toBe(true)
              expect(escaping?.text).toContain(
                'The file \\"../../etc/passwd\\" of the skill \\"pdf-processing\\" of docs was not read: it is not one of the skill\'s listed files.'
              )
              return { text: "The PDF skill is loaded; the tampered one is not." }
            },
            (request) => {
              // The next turn: the loaded instructions are still in the conversation.
              const results = allToolResults(request.prompt)
              expect(results.some((result) => !result.isFailure && result.text.includes("# PDF processing"))).toBe(true)
              return { text: "Following the PDF skill." }
            }
          ]
        })
        yield* Effect.gen(function* () {
          const first = yield* ToolLoop.run({
            prompt: "Fill in the PDF form.",
            // Skills only read: the consent asked for tools that may destroy something is never asked.
            approve: ToolLoop.approveDestructive((call) =>
              Effect.as(
                Effect.sync(() => asked.push(call.name)),
                false
              )
            )
          })
          expect(first.text).toBe("The PDF skill is loaded; the tampered one is not.")
          expect(first.toolCalls).toBe(6)
          expect(asked).toStrictEqual([])
          expect(readsBeforeLoad).toStrictEqual([])
          // The docs server was read for the SKILL.md (once per call) and the one file, and nothing else.
          expect(new Set(reads(docs))).toStrictEqual(new Set([SKILL_URI, FORMS_URI]))
          const second = yield* ToolLoop.run({
            prompt: Prompt.merge(first.prompt, Prompt.make("Go on.")),
            approve: ToolLoop.approveDestructive(() => Effect.succeed(false))
          })
          expect(second.text).toBe("Following the PDF skill.")
          expect(received).toHaveLength(5)
        }).pipe(Effect.provide(layer))
      }).pipe(Effect.scoped)
  )

  it.live("the toolkit's skills, none with skills: false; the lexical selection offers a skill that matches", () =>
    Effect.gen(function* () {
      const { layer, received } = yield* setup({
        turns: [
          (request) => {
            const names = request.tools.map((tool) => tool.name)
            expect(names).toContain("docs__load_skill")
            expect(names).not.toContain("workshop__wait")
            return { text: "I would load the PDF skill." }
          }
        ]
      })
      yield* Effect.gen(function* () {
        const toolkit = yield* McpToolkit.McpToolkit
        const skills = yield* toolkit.skills
        expect(skills.map(({ server, skill }) => `${server}:${skill.name}`)).toStrictEqual([
          "docs:pdf-processing",
          "docs:refunds",
          "tampered:pdf-processing",
          "tampered:refunds"
        ])
        const kinds = (yield* toolkit.tools).map((tool) => [tool.modelName, tool.kind])
        expect(kinds.filter(([, kind]) => kind === "skills")).toStrictEqual([
          ["docs__load_skill", "skills"],
          ["tampered__load_skill", "skills"]
        ])
        yield* ToolLoop.run({ prompt: "Extract the text of a PDF document", tools: ToolSelection.lexical() })
        expect(received).toHaveLength(1)
      }).pipe(Effect.provide(layer))

      const off = yield* setup({ turns: [] }, { skills: false })
      yield* Effect.gen(function* () {
        const toolkit = yield* McpToolkit.McpToolkit
        expect(yield* toolkit.skills).toStrictEqual([])
        const tools = yield* toolkit.tools
        expect(tools.length).toBeGreaterThan(0)
        expect(tools.filter((tool) => tool.kind === "skills")).toStrictEqual([])
      }).pipe(Effect.provide(off.layer))
    }).pipe(Effect.scoped)
  )
})
