/**
 * `effect-mcp chat`: the conversation itself in-process, with a scripted model (no network
 * here) and real servers (the reference server and the bridge tests' workshop server over
 * stdio; the skills fixture and the bridge tests' flood server for skills, result budgets and
 * tool selection), read from scripted lines and printed to a captured transcript; the binary
 * without a key, which says what is missing and exits 2; and the binary with the real Anthropic
 * provider against a loopback Messages API.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Prompt from "@effect/ai/Prompt"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { McpToolkit, TokenEstimate, ToolSelection } from "@effect-mcp/ai"
import { Transports } from "@effect-mcp/client"
import { McpHost } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { lastToolResults, scriptedModel } from "../../ai/test/support/scriptedModel.js"
import { keepAliveHttpClient } from "../../client/test/support/httpClient.js"
import { everything, stdio } from "../../host/test/support/targets.js"
import { ChatInput, type ChatSettings, converse } from "../src/commands/chat.js"
import { Output, type Printable } from "../src/Output.js"
import { everythingStdio, run } from "./support/cli.js"
import { fakeAnthropic } from "./support/fakeAnthropic.js"
import { startOnTerminal } from "./support/pty.js"

const workshop = fileURLToPath(new URL("../../ai/test/fixtures/workshop-server.mjs", import.meta.url))
const flood = fileURLToPath(new URL("../../ai/test/fixtures/flood-server.mjs", import.meta.url))
const skillsServer = fileURLToPath(new URL("fixtures/skills-server.mjs", import.meta.url))
const MARKER = "[… cut to fit"

/** The tool results of a Messages API user message, in order. */
const toolResults = (content: unknown) =>
  Schema.decodeUnknownSync(
    Schema.Array(
      Schema.Struct({ type: Schema.Literal("tool_result"), tool_use_id: Schema.String, content: Schema.String })
    )
  )(content)

/** An Output that records what would be printed: stdout as one string, stderr as lines. */
const captured = () => {
  const transcript = { stdout: "", stderr: [] as Array<string> }
  const write = (text: Printable) =>
    Effect.sync(() => {
      transcript.stdout = `${transcript.stdout}${text}`
    })
  const layer = Layer.succeed(Output, {
    json: false,
    verbose: false,
    color: false,
    interactive: false,
    width: 100,
    line: (text) => write(`${text}\n`),
    text: write,
    printJson: (value) => write(`${JSON.stringify(value)}\n`),
    note: (text) => Effect.sync(() => void transcript.stderr.push(String(text))),
    status: () => Effect.void,
    paused: (effect) => effect,
    hold: Effect.void
  })
  return { transcript, layer }
}

const settings = (overrides: Partial<ChatSettings> = {}): ChatSettings => ({
  system: Option.some("You are terse."),
  maxToolCalls: 4,
  callTimeout: Option.none(),
  save: Option.none(),
  yes: false,
  maxResultTokens: Option.none(),
  tools: ToolSelection.all,
  banner: "scripted model",
  ...overrides
})

const conversation = (
  lines: ReadonlyArray<string>,
  model: ReturnType<typeof scriptedModel>,
  servers: ReadonlyArray<McpHost.ServerConfig> = [
    { name: "alpha", target: everything },
    { name: "workshop", target: stdio(workshop) }
  ]
) => {
  const output = captured()
  const host = McpHost.layer({ servers }).pipe(
    Layer.provide(Transports.layer),
    Layer.provide(NodeContext.layer),
    Layer.provide(keepAliveHttpClient)
  )
  const layer = Layer.mergeAll(
    McpToolkit.layer().pipe(Layer.provide(host)),
    model.layer,
    ChatInput.lines(lines).pipe(Layer.provideMerge(output.layer)),
    NodeContext.layer
  )
  return { layer, transcript: output.transcript }
}

describe("chat", () => {
  it.live(
    "converses with tools: streams answers, shows calls and results, asks before destructive tools, saves",
    () => {
      const directory = mkdtempSync(join(tmpdir(), "effect-mcp-chat-"))
      const saved = join(directory, "conversation.json")
      const model = scriptedModel({
        turns: [
          (request) => {
            expect(request.prompt.content[0]).toMatchObject({ role: "system", content: "You are terse." })
            return { calls: [{ name: "alpha__get-sum", params: { a: 2, b: 3 } }] }
          },
          (request) => {
            expect(lastToolResults(request.prompt)[0]?.text).toContain("5")
            return { text: "It is 5." }
          },
          (request) => {
            // The second question comes with the whole first exchange.
            expect(request.prompt.content.map((message) => message.role)).toStrictEqual([
              "system",
              "user",
              "assistant",
              "tool",
              "assistant",
              "user"
            ])
            return { calls: [{ name: "workshop__delete", params: { path: "/precious" } }] }
          },
          (request) => {
            const [result] = lastToolResults(request.prompt)
            expect(result?.isFailure).toBe(true)
            expect(result?.text).toContain("declined")
            return { text: "I left it alone." }
          }
        ]
      })
      const { layer, transcript } = conversation(
        ["what is 2 + 3?", `/save ${saved}`, "delete /precious", "no", "/tools", "/nonsense", "/exit", "never read"],
        model
      )
      return Effect.gen(function* () {
        yield* converse(settings())
        const out = transcript.stdout
        expect(out).toContain("⚙ alpha › get-sum")
        expect(out).toContain("✓ The sum of 2 and 3 is 5")
        expect(out).toContain("It is 5.")
        expect(out).toContain('allow workshop › delete {"path":"/precious"}? [y/N] no')
        expect(out).toContain("✗ workshop › delete: the user declined this tool call")
        expect(out).toContain("I left it alone.")
        expect(out).toMatch(/alpha__echo {2}/)
        expect(transcript.stderr.join("\n")).toContain("unknown command /nonsense")
        expect(out).not.toContain("never read")
        expect(model.received).toHaveLength(4)
        // The saved file is the conversation up to the save, as @effect/ai's prompt JSON.
        const prompt = Schema.decodeUnknownSync(Prompt.FromJson)(readFileSync(saved, "utf8"))
        expect(prompt.content.map((message) => message.role)).toStrictEqual([
          "system",
          "user",
          "assistant",
          "tool",
          "assistant"
        ])
      }).pipe(Effect.provide(layer))
    }
  )

  it.live(
    "with --yes runs destructive tools unasked; --save writes after every answer; a model failure is shown and the chat goes on",
    () => {
      const directory = mkdtempSync(join(tmpdir(), "effect-mcp-chat-"))
      const saved = join(directory, "conversation.json")
      const model = scriptedModel({
        turns: [
          () => ({ calls: [{ name: "workshop__delete", params: { path: "/scratch" } }] }),
          () => ({ text: "Deleted." })
        ]
      })
      const { layer, transcript } = conversation(["delete /scratch", "and again?"], model)
      return Effect.gen(function* () {
        yield* converse(settings({ yes: true, save: Option.some(saved) }))
        expect(transcript.stdout).toContain("✓ deleted /scratch")
        expect(transcript.stdout).not.toContain("allow")
        // The third request has no step: the model fails, the chat says so and reads on to the end of input.
        expect(transcript.stderr.join("\n")).toContain("the model failed")
        const prompt = Schema.decodeUnknownSync(Prompt.FromJson)(readFileSync(saved, "utf8"))
        expect(prompt.content.at(-1)).toMatchObject({ role: "assistant" })
      }).pipe(Effect.provide(layer))
    }
  )

  it.live(
    "offers the servers' skills (/skills lists them, the model loads one) and holds each result to the budget, with the tools chosen lexically",
    () => {
      const model = scriptedModel({
        turns: [
          (request) => {
            const names = request.tools.map((tool) => tool.name)
            // Lexical: the tools sharing words with the question, the skills tool among them.
            expect(names).toEqual(expect.arrayContaining(["docs__load_skill", "flood__report"]))
            expect(names).not.toContain("flood__rows")
            expect(request.tools.find((tool) => tool.name === "docs__load_skill")?.description).toContain(
              "- pdf-processing: Extract, fill, and assemble PDF documents"
            )
            return {
              calls: [
                { name: "docs__load_skill", params: { skill: "pdf-processing" } },
                { name: "flood__report", params: {} }
              ]
            }
          },
          (request) => {
            const [skill, report] = lastToolResults(request.prompt)
            expect(skill?.isFailure).toBe(false)
            expect(skill?.text).toContain("Fill forms as references/FORMS.md says.")
            // The report, as the provider sends it, within 300 tokens, cut with the marker.
            expect(report?.text).toContain(`${MARKER} 300 tokens`)
            expect(TokenEstimate.ofText(report?.text ?? "")).toBeLessThanOrEqual(300)
            return { text: "Done, following the PDF skill." }
          }
        ]
      })
      const { layer, transcript } = conversation(
        ["/skills", "Fill the PDF form from the long report", "y", "/exit"],
        model,
        [
          { name: "docs", target: stdio(skillsServer) },
          { name: "flood", target: stdio(flood) }
        ]
      )
      return Effect.gen(function* () {
        yield* converse(settings({ maxResultTokens: Option.some(300), tools: ToolSelection.lexical() }))
        const out = transcript.stdout
        expect(transcript.stderr[0]).toContain("scripted model; 6 tools and 1 skill from the servers")
        expect(out).toContain("docs › pdf-processing  Extract, fill, and assemble PDF documents")
        // Loading a skill only reads: it is not asked about, unlike the flood tool.
        expect(out).toContain("allow flood › report {}? [y/N] y")
        expect(out).not.toContain("allow docs")
        expect(out).toContain('⚙ docs › load_skill {"skill":"pdf-processing"}')
        expect(out).toContain('✓ The skill "pdf-processing" of docs, verified against the server\'s listing.')
        expect(out).toContain("Done, following the PDF skill.")
        expect(model.received).toHaveLength(2)
      }).pipe(Effect.provide(layer))
    }
  )

  it("without a key, says which variable to set and exits 2", async () => {
    const env = { ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined }
    const any = await run(["chat"], { env })
    expect(any.code).toBe(2)
    expect(any.stderr).toContain("set ANTHROPIC_API_KEY (Anthropic) or OPENAI_API_KEY (OpenAI)")
    const openai = await run(["chat", "--provider", "openai"], { env: { ...env, ANTHROPIC_API_KEY: "x" } })
    expect(openai.code).toBe(2)
    expect(openai.stderr).toContain("--provider openai needs OPENAI_API_KEY")
  })

  it("the binary, with the real Anthropic provider against a loopback Messages API: tools, answers, the key only in its header", async () => {
    const secret = "sk-ant-test-secret-123"
    const fake = await fakeAnthropic([
      (request) => {
        if (request.headers["x-api-key"] !== secret) throw new Error("the key was not sent as x-api-key")
        const sum = request.body.tools?.find((tool) => tool.name === "alpha__get-sum")
        if (sum === undefined) throw new Error("alpha__get-sum was not offered")
        if (JSON.stringify(sum.input_schema).indexOf('"a"') < 0) throw new Error("the input schema was not kept")
        return { text: "Let me add. ", calls: [{ name: "alpha__get-sum", input: { a: 2, b: 3 } }] }
      },
      (request) => {
        const last = JSON.stringify(request.body.messages.at(-1))
        if (!last.includes("tool_result") || !last.includes("5")) throw new Error(`no tool result: ${last}`)
        return { text: "It is 5." }
      }
    ])
    try {
      const directory = mkdtempSync(join(tmpdir(), "effect-mcp-chat-"))
      const config = join(directory, "mcp.json")
      const [, command, ...args] = everythingStdio
      writeFileSync(config, JSON.stringify({ mcpServers: { alpha: { command, args } } }))
      const saved = join(directory, "conversation.json")
      const result = await run(
        [
          "chat",
          "--config",
          config,
          "--provider",
          "anthropic",
          "--api-url",
          fake.url,
          "--model",
          "fake",
          "--save",
          saved
        ],
        { env: { ANTHROPIC_API_KEY: secret, OPENAI_API_KEY: undefined }, input: "what is 2 + 3?\n", timeoutMs: 60_000 }
      )
      expect(fake.problems).toStrictEqual([])
      expect(result.code).toBe(0)
      expect(result.stdout).toContain("⚙ alpha › get-sum")
      expect(result.stdout).toContain("It is 5.")
      expect(result.stderr).toContain("anthropic fake")
      expect(`${result.stdout}${result.stderr}${readFileSync(saved, "utf8")}`).not.toContain(secret)
      expect(fake.requests.map((request) => request.body.model)).toStrictEqual(["fake", "fake"])
    } finally {
      await fake.stop()
    }
  })

  it("the binary: --max-result-tokens and --tools lexical shape what the model gets, and a skill loads on request", async () => {
    const fake = await fakeAnthropic([
      (request) => {
        const names = (request.body.tools ?? []).map((tool) => tool.name)
        if (!names.includes("docs__load_skill") || !names.includes("flood__report"))
          throw new Error(`the skill and the report were not offered: ${names.join(", ")}`)
        if (names.includes("flood__rows")) throw new Error(`the tools were not chosen lexically: ${names.join(", ")}`)
        const load = request.body.tools?.find((tool) => tool.name === "docs__load_skill")
        if (!load?.description?.includes("- pdf-processing: Extract, fill, and assemble PDF documents"))
          throw new Error(`the skills are not listed: ${load?.description}`)
        return {
          text: "Let me look. ",
          calls: [
            { name: "docs__load_skill", input: { skill: "pdf-processing" } },
            { name: "flood__report", input: {} }
          ]
        }
      },
      () => ({ text: "Done." }),
      () => ({ text: "No skills here." })
    ])
    try {
      const directory = mkdtempSync(join(tmpdir(), "effect-mcp-chat-skills-"))
      const config = join(directory, "mcp.json")
      writeFileSync(
        config,
        JSON.stringify({
          mcpServers: {
            docs: { command: process.execPath, args: [skillsServer] },
            flood: { command: process.execPath, args: [flood] }
          }
        })
      )
      const chat = (...extra: ReadonlyArray<string>) =>
        run(
          ["chat", "--config", config, "--provider", "anthropic", "--api-url", fake.url, "--model", "fake", ...extra],
          {
            env: { ANTHROPIC_API_KEY: "sk-test", OPENAI_API_KEY: undefined },
            input: "/skills\nFill the PDF form from the long report\n",
            timeoutMs: 60_000
          }
        )
      const result = await chat("--yes", "--max-result-tokens", "400", "--tools", "lexical")
      expect(fake.problems).toStrictEqual([])
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderr).toContain("anthropic fake; 6 tools and 1 skill from the servers")
      expect(result.stdout).toContain("docs › pdf-processing  Extract, fill, and assemble PDF documents")
      expect(result.stdout).toContain('⚙ docs › load_skill {"skill":"pdf-processing"}')
      expect(result.stdout).toContain("Done.")
      // What the model got back, as the provider sent it: the skill's instructions, and the report within 400 tokens.
      const results = toolResults(fake.requests[1]?.body.messages.at(-1)?.content)
      expect(results.map((block) => block.tool_use_id)).toStrictEqual(["toolu_1_0", "toolu_1_1"])
      const [skill, report] = results
      expect(skill?.content).toContain("# PDF processing")
      expect(skill?.content).toContain("Fill forms as references/FORMS.md says.")
      expect(report?.content).toContain(`${MARKER} 400 tokens`)
      expect(TokenEstimate.ofText(report?.content ?? "")).toBeLessThanOrEqual(400)
      expect(TokenEstimate.ofText(report?.content ?? "")).toBeGreaterThan(300)

      // --no-skills: no skills tool, none listed.
      const before = fake.requests.length
      const without = await chat("--no-skills", "--max-result-tokens", "unlimited")
      expect(fake.problems).toStrictEqual([])
      expect(without.code, without.stderr).toBe(0)
      expect(without.stdout).toContain("No skills here.")
      expect(without.stderr).toContain("anthropic fake; 6 tools from the servers")
      expect(without.stderr).toContain("no server offers skills")
      const names = (fake.requests[before]?.body.tools ?? []).map((tool) => tool.name)
      expect(names).toContain("flood__rows")
      expect(names).not.toContain("docs__load_skill")
    } finally {
      await fake.stop()
    }
  })

  it("refuses a result budget or a tool selection it does not know (exit 2)", async () => {
    const env = { ANTHROPIC_API_KEY: "sk-test", OPENAI_API_KEY: undefined }
    const budget = await run(["chat", "--max-result-tokens", "lots"], { env })
    expect(budget.code).toBe(2)
    expect(budget.stderr).toContain('--max-result-tokens takes a number of tokens or "unlimited", not "lots"')
    const zero = await run(["chat", "--max-result-tokens", "0"], { env })
    expect(zero.code).toBe(2)
    const tools = await run(["chat", "--tools", "some"], { env })
    expect(tools.code).toBe(2)
    expect(tools.stderr).toContain("all")
  })

  it("on a terminal, a server's escape sequences in a tool result, log or progress never reach the screen", async () => {
    const fake = await fakeAnthropic([
      () => ({ text: "Calling. ", calls: [{ name: "hostile__evil", input: {} }] }),
      () => ({ text: "Done." })
    ])
    try {
      const directory = mkdtempSync(join(tmpdir(), "effect-mcp-chat-hostile-"))
      const config = join(directory, "mcp.json")
      const server = fileURLToPath(new URL("fixtures/hostile-server.mjs", import.meta.url))
      writeFileSync(config, JSON.stringify({ mcpServers: { hostile: { command: process.execPath, args: [server] } } }))
      const chat = startOnTerminal(
        ["chat", "--config", config, "--provider", "anthropic", "--api-url", fake.url, "--model", "fake", "--yes"],
        { env: { ANTHROPIC_API_KEY: "sk-test", OPENAI_API_KEY: undefined }, timeoutMs: 60_000 }
      )
      const asked = await chat.waitFor("you›")
      await chat.type("run the evil tool\r")
      await chat.waitFor("you›", asked)
      await chat.type("\x04")
      const { code, screen } = await chat.finished
      expect(fake.problems).toStrictEqual([])
      expect(code, screen).toBe(0)
      // The line typed at the question was shown as typed (the terminal's echo is on while it reads).
      const sgr = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g")
      expect(screen.replace(sgr, "")).toContain("you› run the evil tool")
      // The result arrived, shown as text…
      expect(screen).toMatch(/<result {1,2}RED/)
      expect(screen).toContain("Done.")
      // …without the server's sequences: no retitle, no red, no 8-bit forms, no device query.
      for (const sequence of ["\u001b]0;", "\u001b[31mRED", "\u009d", "\u009b", "\u001bP1$q"])
        expect(screen.includes(sequence), JSON.stringify(sequence)).toBe(false)
    } finally {
      await fake.stop()
    }
  })
})
