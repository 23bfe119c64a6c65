/**
 * Tool selection: the lexical rule on small made-up tool sets (terms, ranking, ties, tools
 * already called, nothing matching), what each mode sends on the reference server's tools,
 * and a turn of the loop against a server with far too many tools (240), where the model is
 * offered only the few that match and keeps the ones it has called.
 */
import { fileURLToPath } from "node:url"
import type * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { Transports } from "@effect-mcp/client"
import { McpHost, ToolRanking } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import { keepAliveHttpClient } from "../../client/test/support/httpClient.js"
import { everything, stdio } from "../../host/test/support/targets.js"
import { McpToolkit, ToolLoop, ToolSelection } from "../src/index.js"
import { lastToolResults, scriptedModel } from "./support/scriptedModel.js"

const runs = Number(process.env.PROP_RUNS ?? 50)
const crowdServer = fileURLToPath(new URL("./fixtures/crowd-server.mjs", import.meta.url))

const candidate = (hostName: string, description: string): ToolSelection.Candidate => ({
  modelName: hostName,
  hostName,
  tool: { name: hostName.split("__")[1] ?? hostName, description, inputSchema: { type: "object" } }
})

const tools = [
  candidate("weather__forecast", "The weather forecast for a city: temperature, wind and rain."),
  candidate("files__read", "Reads a file from the disk."),
  candidate("files__write", "Writes a file to the disk."),
  candidate("files__list", "Lists the files of a directory."),
  candidate("mail__send", "Sends an email message.")
]

const names = (selected: ReadonlyArray<ToolSelection.Candidate>) => selected.map((tool) => tool.hostName)

const conversation = (...messages: ReadonlyArray<Prompt.MessageEncoded>) => Prompt.make(messages)

describe("the lexical rule", () => {
  it("splits names and sentences into terms: camelCase and snake_case parts, no stop words or numbers, stemmed", () => {
    expect(ToolRanking.terms("Please list the Files_in myRepo, using 2 tools and getTinyImage")).toStrictEqual([
      "list",
      "file",
      "repo",
      "get",
      "tiny",
      "image"
    ])
    expect(ToolRanking.terms("searching queries; compresses boxes")).toStrictEqual([
      "search",
      "query",
      "compress",
      "box"
    ])
  })

  it("ranks by shared rare terms, names above descriptions, and keeps the host's order", () => {
    const select = (text: string, options?: ToolSelection.LexicalOptions) =>
      names(ToolSelection.select(tools, Prompt.make(text), ToolSelection.lexical(options)))
    expect(select("Read the file notes.txt", { maxTools: 1 })).toStrictEqual(["files__read"])
    // All three files tools share "file"; "read" makes one of them first.
    expect(select("Read the file notes.txt")).toStrictEqual(["files__read", "files__write", "files__list"])
    // A tie keeps the host's order: write before list.
    expect(select("my files", { maxTools: 2 })).toStrictEqual(["files__read", "files__write"])
    expect(select("Will it rain in Oslo?")).toStrictEqual(["weather__forecast"])
    // A name match (weight 3) outscores a description match (weight 1) of the same term.
    const scores = ToolSelection.score(tools, "weather")
    expect(scores[0]?.score).toBeCloseTo(3 * Math.log(1 + 5 / 1))
    // Scores below minScore are left out.
    expect(select("Read the file", { minScore: 4 })).toStrictEqual(["files__read"])
  })

  it("offers no tool when nothing matches (or all, when asked), and always the tools already called", () => {
    expect(names(ToolSelection.select(tools, Prompt.make("hi there"), ToolSelection.lexical()))).toStrictEqual([])
    expect(
      names(ToolSelection.select(tools, Prompt.make("hi there"), ToolSelection.lexical({ whenNoneMatch: "all" })))
    ).toStrictEqual(names(tools))
    const history = conversation(
      { role: "user", content: "send an email to Ada" },
      {
        role: "assistant",
        content: [{ type: "tool-call", id: "1", name: "mail__send", params: {}, providerExecuted: false }]
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            id: "1",
            name: "mail__send",
            result: "sent",
            isFailure: false,
            providerExecuted: false
          }
        ]
      },
      { role: "user", content: "now read the file" }
    )
    // Only the last message is the query, yet the tool called before is still offered.
    expect(
      names(ToolSelection.select(tools, history, ToolSelection.lexical({ maxTools: 1, recentMessages: 1 })))
    ).toStrictEqual(["files__read", "mail__send"])
    expect(names(ToolSelection.select(tools, history, ToolSelection.all))).toStrictEqual(names(tools))
  })

  it.prop(
    "offers a subset in the host's order: at most maxTools matching tools besides those already called",
    [
      FastCheck.array(
        FastCheck.constantFrom("read", "file", "weather", "rain", "email", "the", "list", "disk", "oslo", "write"),
        { maxLength: 8 }
      ),
      FastCheck.nat(6)
    ],
    ([words, maxTools]) => {
      const selected = ToolSelection.select(tools, Prompt.make(words.join(" ")), ToolSelection.lexical({ maxTools }))
      expect(selected.length).toBeLessThanOrEqual(maxTools)
      const indexes = selected.map((tool) => tools.indexOf(tool))
      expect(indexes).toStrictEqual([...indexes].sort((a, b) => a - b))
      expect(indexes.every((index) => index >= 0)).toBe(true)
      const scores = ToolSelection.score(tools, words.join(" "))
      expect(selected.every((tool) => (scores[tools.indexOf(tool)]?.score ?? 0) > 0)).toBe(true)
    },
    { fastCheck: { numRuns: runs } }
  )
})

/** The generic transports over Node's platform. */
const platform = Transports.layer.pipe(Layer.provideMerge(Layer.merge(NodeContext.layer, keepAliveHttpClient)))

/** The prompts of the measure, and the one tool each is about. */
const MEASURED: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["Add 2 and 40: what is the sum?", ["everything__get-sum"]],
  ["Echo back the word hello", ["everything__echo"]],
  ["Show me a tiny image", ["everything__get-tiny-image"]],
  ["Which environment variables does the server see?", ["everything__get-env"]],
  ["Compress README.md with gzip", ["everything__gzip-file-as-resource"]],
  ["hi", []]
]

describe("what each mode sends", () => {
  it.live("on the reference server's tools: every definition, or those of the tools that match", () =>
    Effect.gen(function* () {
      const toolkit = yield* McpToolkit.McpToolkit
      const all = yield* toolkit.tools
      const allTokens = ToolSelection.definitionTokens(all.map((tool) => tool.aiTool))
      expect(all.length).toBeGreaterThanOrEqual(10)
      expect(allTokens).toBeGreaterThan(1000)
      const rows = MEASURED.map(([text, expected]) => {
        const selected = ToolSelection.select(all, Prompt.make(text), ToolSelection.lexical())
        expect(selected.map((tool) => tool.modelName)).toStrictEqual(expected)
        return { text, tools: selected.length, tokens: ToolSelection.definitionTokens(selected.map((t) => t.aiTool)) }
      })
      for (const row of rows) expect(row.tokens).toBeLessThan(allTokens / 4)
      yield* Effect.log(
        `all: ${all.length} tools, ${allTokens} tokens; lexical: ${rows.map((row) => `${JSON.stringify(row.text)} ${row.tools} tools, ${row.tokens} tokens`).join("; ")}`
      )
    }).pipe(
      Effect.provide(
        McpToolkit.layer().pipe(
          Layer.provide(McpHost.layer({ servers: [{ name: "everything", target: everything }] })),
          Layer.provide(platform)
        )
      )
    )
  )

  it.live("in a turn against a server with 240 tools: the few that match, then also the one called", () => {
    const offered: Array<LanguageModel.ProviderOptions> = []
    const model = scriptedModel({
      turns: [
        (request) => {
          offered.push(request)
          return { calls: [{ name: "crowd__email_search_message", params: { query: "from:ada" } }] }
        },
        (request) => {
          offered.push(request)
          expect(lastToolResults(request.prompt)[0]?.text).toContain(
            'email_search_message {\\"query\\":\\"from:ada\\"}'
          )
          return { text: "Ada wrote twice." }
        },
        (request) => {
          offered.push(request)
          return { text: "Rain." }
        },
        (request) => {
          offered.push(request)
          return { text: "Everything." }
        }
      ]
    })
    const host = McpHost.layer({
      servers: [
        { name: "everything", target: everything },
        { name: "crowd", target: stdio(crowdServer) }
      ]
    }).pipe(Layer.provide(platform))
    return Effect.gen(function* () {
      const lexical = ToolSelection.lexical({ maxTools: 5, recentMessages: 1 })
      const first = yield* ToolLoop.run({ prompt: "Search my email messages from Ada", tools: lexical })
      expect(first.text).toBe("Ada wrote twice.")
      yield* ToolLoop.run({
        prompt: Prompt.merge(first.prompt, Prompt.make("What's the weather forecast for Paris?")),
        tools: lexical
      })
      yield* ToolLoop.run({ prompt: "What's the weather forecast for Paris?" })
      const toolNames = offered.map((request) => request.tools.map((tool) => tool.name))
      expect(toolNames[0]).toHaveLength(5)
      expect(toolNames[0]).toContain("crowd__email_search_message")
      expect(toolNames[0]?.every((name) => name.startsWith("crowd__email_"))).toBe(true)
      expect(toolNames[1]).toStrictEqual(toolNames[0])
      // The next question offers weather tools, and still the email tool the conversation called.
      expect(toolNames[2]).toHaveLength(6)
      expect(toolNames[2]?.filter((name) => name.startsWith("crowd__weather_"))).toHaveLength(5)
      expect(toolNames[2]).toContain("crowd__email_search_message")
      // Every tool, when all are offered.
      expect(toolNames[3]?.length).toBeGreaterThanOrEqual(250)
      const [lexicalTokens, , , allTokens] = offered.map((request) => ToolSelection.definitionTokens(request.tools))
      expect(lexicalTokens).toBeLessThan((allTokens ?? 0) / 30)
      yield* Effect.log(`240-tool server: all ${allTokens} tokens, lexical (5 tools) ${lexicalTokens} tokens`)
    }).pipe(Effect.provide(Layer.mergeAll(McpToolkit.layer().pipe(Layer.provide(host)), model.layer)))
  })
})
