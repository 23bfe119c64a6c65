/**
 * The 2026-07-28 wire, judged by that revision's schema.json: a real client pinned to
 * 2026-07-28 over an in-memory transport, against a scripted stateless server. Every message
 * the server receives must validate (open and closed to the members the revision defines);
 * tool arguments are generated. Then the multi round-trip loop (basic/patterns/mrtr.mdx)
 * under concurrent calls: every retry has a new id, carries exactly its own call's last
 * `requestState` and answers exactly its own call's last `inputRequests`, and a result without
 * `resultType` is final.
 */
import { describe, expect, it } from "@effect/vitest"
import { Capabilities } from "@effect-mcp/client"
import { type JsonRpc, McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { connectScripted, methods, type Reply } from "./support/scriptedServer.js"
import { problems2026 } from "./support/spec2026.js"

const runs = Number(process.env.PROP_RUNS ?? 25)
const VERSION = "2026-07-28"

type Wire = { readonly [key: string]: unknown }

/** The definition each client request must match. */
const definitionOf: Record<string, string> = {
  "server/discover": "DiscoverRequest",
  "tools/list": "ListToolsRequest",
  "tools/call": "CallToolRequest",
  "prompts/list": "ListPromptsRequest",
  "prompts/get": "GetPromptRequest",
  "resources/list": "ListResourcesRequest",
  "resources/templates/list": "ListResourceTemplatesRequest",
  "resources/read": "ReadResourceRequest",
  "completion/complete": "CompleteRequest"
}

const clientInfo = { name: "wire-test", version: "1.2.3" }
const capabilities = { elicitation: { form: {} } }

/** Accepts every form, answering with the message it was shown (so answers can be traced back). */
const elicitation = Layer.succeed(Capabilities.Elicitation, {
  form: (params) =>
    Effect.repeatN(Effect.yieldNow(), params.message.length % 4).pipe(
      Effect.as({ action: "accept" as const, content: { answer: params.message } })
    )
})

const discoverResult = {
  resultType: "complete",
  supportedVersions: [VERSION],
  capabilities: { tools: {}, prompts: {}, resources: {}, completions: {}, logging: {} },
  cacheScope: "private",
  ttlMs: 0,
  _meta: { [McpSchema.MetaKey.serverInfo]: { name: "stateless-script", version: "0" } }
}

const echoTool = { name: "echo", inputSchema: { type: "object" } }
/** What 2026-07-28 lists and reads must say about caching. */
const cacheable = { cacheScope: "private", ttlMs: 0 }

/** A valid 2026-07-28 result for each method (checked against the schema below). */
const results: Record<string, { readonly definition: string; readonly result: Wire }> = {
  "server/discover": { definition: "DiscoverResult", result: discoverResult },
  "tools/list": { definition: "ListToolsResult", result: { resultType: "complete", tools: [echoTool], ...cacheable } },
  "tools/call": {
    definition: "CallToolResult",
    result: { resultType: "complete", content: [{ type: "text", text: "ok" }] }
  },
  "prompts/list": {
    definition: "ListPromptsResult",
    result: { resultType: "complete", prompts: [{ name: "p", arguments: [{ name: "a" }] }], ...cacheable }
  },
  "prompts/get": {
    definition: "GetPromptResult",
    result: { resultType: "complete", messages: [{ role: "user", content: { type: "text", text: "hi" } }] }
  },
  "resources/list": {
    definition: "ListResourcesResult",
    result: { resultType: "complete", resources: [{ uri: "file:///a.txt", name: "a" }], ...cacheable }
  },
  "resources/templates/list": {
    definition: "ListResourceTemplatesResult",
    result: {
      resultType: "complete",
      resourceTemplates: [{ uriTemplate: "file:///{name}", name: "files" }],
      ...cacheable
    }
  },
  "resources/read": {
    definition: "ReadResourceResult",
    result: { resultType: "complete", contents: [{ uri: "file:///a.txt", text: "A" }], ...cacheable }
  },
  "completion/complete": {
    definition: "CompleteResult",
    result: { resultType: "complete", completion: { values: ["x"] } }
  }
}

/** Answers every method of the revision with its canned result. */
const stateless = (request: JsonRpc.JSONRPCRequest): Reply => {
  const known = results[request.method]
  return known === undefined
    ? { error: { code: -32601, message: `Method not found: ${request.method}` } }
    : { result: known.result }
}

/** Every message the server received must be a 2026-07-28 client request carrying the envelope. */
const checkWire = (sent: ReadonlyArray<JsonRpc.JSONRPCMessage>, logLevel?: string) => {
  for (const message of sent) {
    if (!("method" in message) || !("id" in message)) {
      // The revision's only client notification is notifications/cancelled; no responses are expected here.
      const problem = problems2026("ClientNotification", message)
      if (problem !== undefined) expect.fail(problem)
      continue
    }
    const definition = definitionOf[message.method]
    if (definition === undefined) return expect.fail(`${message.method} is not a 2026-07-28 client request`)
    for (const name of ["JSONRPCRequest", "ClientRequest", definition]) {
      const problem = problems2026(name, message)
      if (problem !== undefined) expect.fail(problem)
    }
    const meta = message.params?._meta
    expect(meta).toMatchObject({
      [McpSchema.MetaKey.protocolVersion]: VERSION,
      [McpSchema.MetaKey.clientInfo]: clientInfo,
      [McpSchema.MetaKey.clientCapabilities]: capabilities
    })
    if (logLevel !== undefined) expect(meta).toMatchObject({ [McpSchema.MetaKey.logLevel]: logLevel })
  }
}

const connect = (script: (request: JsonRpc.JSONRPCRequest) => Reply) =>
  connectScripted(script, { protocolVersion: VERSION, clientInfo }, elicitation)

const paramsOf = (message: JsonRpc.JSONRPCMessage): Wire =>
  "params" in message && message.params !== undefined ? message.params : {}

describe("2026-07-28 wire", () => {
  it("the scripted server's results are valid 2026-07-28 results", () => {
    for (const [method, { definition, result }] of Object.entries(results)) {
      const problem = problems2026(definition, result)
      if (problem !== undefined) expect.fail(`${method}: ${problem}`)
    }
  })

  it.scoped("every request of every API method validates against the 2026-07-28 schema", () =>
    Effect.gen(function* () {
      const { client, sent } = yield* connect(stateless)
      expect(client.protocolVersion).toBe(VERSION)
      expect(client.serverInfo).toStrictEqual({ name: "stateless-script", version: "0" })
      yield* client.tools
      const called = yield* client.callTool("echo", { a: 1, nested: { b: [true, null, "x"] } })
      expect(called.content).toStrictEqual([{ type: "text", text: "ok" }])
      yield* client.prompts
      yield* client.getPrompt("p", { a: "x" })
      yield* client.resources
      yield* client.resourceTemplates
      yield* client.readResource("file:///a.txt")
      yield* client.complete({ ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "x" } })
      yield* client.complete({
        ref: { type: "ref/resource", uri: "file:///{name}" },
        argument: { name: "name", value: "a" },
        context: { arguments: { other: "b" } }
      })
      yield* client.ping()
      checkWire(sent)
      expect(methods(sent)).toStrictEqual([
        "server/discover",
        "tools/list",
        "tools/call",
        "prompts/list",
        "prompts/get",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "completion/complete",
        "completion/complete",
        "server/discover"
      ])
      // The log level travels in the envelope of every later request.
      const before = sent.length
      yield* client.setLoggingLevel("warning")
      yield* client.callTool("echo", {})
      yield* client.getPrompt("p")
      expect(methods(sent.slice(before))).toStrictEqual(["tools/call", "prompts/get"])
      checkWire(sent.slice(before), "warning")
    })
  )

  it.scoped(
    "with every handler (sampling with tools and context, both elicitation modes, roots that change, client tasks) the envelope's capabilities validate, closed",
    () =>
      Effect.gen(function* () {
        const handlers = Layer.mergeAll(
          Layer.succeed(Capabilities.Sampling, {
            tools: true,
            context: true,
            createMessage: () =>
              Effect.succeed({ role: "assistant" as const, content: { type: "text" as const, text: "" }, model: "m" })
          }),
          Layer.succeed(Capabilities.Elicitation, {
            form: () => Effect.succeed({ action: "decline" as const }),
            url: () => Effect.succeed({ action: "decline" as const })
          }),
          Layer.succeed(Capabilities.Roots, { list: Effect.succeed([]), changes: Stream.never })
        )
        const { sent } = yield* connectScripted(
          stateless,
          { protocolVersion: VERSION, clientInfo, clientTasks: {} },
          handlers
        )
        const discover = sent[0]
        if (discover === undefined) return expect.fail("nothing was sent")
        for (const name of ["JSONRPCRequest", "ClientRequest", "DiscoverRequest"]) {
          const problem = problems2026(name, discover)
          if (problem !== undefined) expect.fail(problem)
        }
        expect(paramsOf(discover)._meta).toMatchObject({
          [McpSchema.MetaKey.clientCapabilities]: {
            sampling: { tools: {}, context: {} },
            elicitation: { form: {}, url: {} },
            roots: {}
          }
        })
      })
  )

  it.scoped(
    "a tool whose inputSchema uses 2020-12's boolean subschemas (properties: { x: true }) is listed and called",
    () =>
      Effect.gen(function* () {
        const loose = { name: "loose", inputSchema: { type: "object", properties: { x: true, y: { type: "string" } } } }
        expect(problems2026("Tool", loose)).toBeUndefined()
        const { client } = yield* connect((request) =>
          request.method === "tools/list"
            ? { result: { resultType: "complete", tools: [loose], ...cacheable } }
            : stateless(request)
        )
        expect((yield* client.tools).map((tool) => tool.name)).toStrictEqual(["loose"])
        const called = yield* client.callTool("loose", { x: [1], y: "text" })
        expect(called.content).toStrictEqual([{ type: "text", text: "ok" }])
        const refused = yield* Effect.flip(client.callTool("loose", { y: 2 }))
        expect(refused._tag).toBe("InvalidInput")
      })
  )

  it.effect.prop(
    "tools/call with arbitrary arguments validates, and carries the arguments as given",
    [FastCheck.dictionary(FastCheck.string(), FastCheck.jsonValue({ maxDepth: 3 }), { maxKeys: 6 })],
    ([args]) =>
      Effect.scoped(
        Effect.gen(function* () {
          const { client, sent } = yield* connect(stateless)
          yield* client.callTool("echo", args)
          checkWire(sent)
          const calls = sent.filter((message) => "method" in message && message.method === "tools/call")
          expect(calls).toHaveLength(1)
          const call = calls[0]
          if (call === undefined) return
          expect(paramsOf(call).arguments).toStrictEqual(JSON.parse(JSON.stringify(args)))
        })
      ),
    { fastCheck: { numRuns: runs * 2 } }
  )
})

// --- multi round-trip requests ------------------------------------------------------------

interface Round {
  readonly requestState: string | undefined
  readonly inputKeys: ReadonlyArray<string> | undefined
}
interface CallPlan {
  readonly rounds: ReadonlyArray<Round>
  /** Whether the final result says `resultType: "complete"` (else it has no resultType). */
  readonly typed: boolean
}

const state = FastCheck.oneof(
  FastCheck.string({ unit: "binary", maxLength: 24 }),
  FastCheck.constantFrom("", " ", "AEAD-protected blob", '{"json":true}', "a\u0000b\r\n", "\u{1F600}\u00e9")
)
const inputKey = FastCheck.oneof(
  FastCheck.string({ maxLength: 8 }),
  FastCheck.constantFrom("github_login", "capital_of_france", "constructor", "toString", "__proto__", "")
)
const round: FastCheck.Arbitrary<Round> = FastCheck.record({
  requestState: FastCheck.option(state, { nil: undefined }),
  inputKeys: FastCheck.option(FastCheck.uniqueArray(inputKey, { minLength: 1, maxLength: 3 }), { nil: undefined })
}).filter((r) => r.requestState !== undefined || r.inputKeys !== undefined)

const plans: FastCheck.Arbitrary<ReadonlyArray<CallPlan>> = FastCheck.array(
  FastCheck.record({ rounds: FastCheck.array(round, { maxLength: 5 }), typed: FastCheck.boolean() }),
  { minLength: 1, maxLength: 4 }
)

/** The message of the form a round asks for: which call, which round, which key. */
const formMessage = (call: number, at: number, key: string) => `call ${call} round ${at} key ${JSON.stringify(key)}`

const inputRequired = (call: number, at: number, r: Round): Wire => ({
  resultType: "input_required",
  ...(r.requestState === undefined ? {} : { requestState: r.requestState }),
  ...(r.inputKeys === undefined
    ? {}
    : {
        inputRequests: Object.fromEntries(
          r.inputKeys.map((key) => [
            key,
            {
              method: "elicitation/create",
              params: {
                mode: "form",
                message: formMessage(call, at, key),
                requestedSchema: { type: "object", properties: { answer: { type: "string" } } }
              }
            }
          ])
        )
      })
})

describe("2026-07-28 multi round-trip requests", () => {
  it("the interim results of the script are valid InputRequiredResults", () => {
    const sample = inputRequired(0, 0, { requestState: "s", inputKeys: ["a", "__proto__"] })
    expect(problems2026("InputRequiredResult", sample)).toBeUndefined()
  })

  /** A client whose script answers the first request of `method` with `first`, then completes. */
  const twoRounds = (method: string, first: Wire) =>
    Effect.gen(function* () {
      let asked = false
      const connected = yield* connect((request) => {
        if (request.method !== method || asked) return stateless(request)
        asked = true
        return { result: first }
      })
      return connected
    })

  /** The requests of `method` the server received. */
  const requestsOf = (sent: ReadonlyArray<JsonRpc.JSONRPCMessage>, method: string) =>
    sent.filter(
      (message): message is JsonRpc.JSONRPCRequest =>
        "method" in message && "id" in message && message.method === method
    )

  it.scoped("prompts/get and resources/read go round too, each retry valid and carrying the state", () =>
    Effect.gen(function* () {
      for (const method of ["prompts/get", "resources/read"] as const) {
        const { client, sent } = yield* twoRounds(
          method,
          inputRequired(7, 0, { requestState: "opaque", inputKeys: ["q"] })
        )
        if (method === "prompts/get") yield* client.getPrompt("p", { a: "x" })
        else yield* client.readResource("file:///a.txt")
        checkWire(sent)
        const [first, retry] = requestsOf(sent, method)
        if (first === undefined || retry === undefined) return expect.fail(`${method} was not retried`)
        expect(retry.id).not.toStrictEqual(first.id)
        expect(first.params).not.toHaveProperty("requestState")
        expect(retry.params).toMatchObject({
          requestState: "opaque",
          inputResponses: { q: { action: "accept", content: { answer: formMessage(7, 0, "q") } } }
        })
      }
    })
  )

  // Keys are any server-assigned strings, "__proto__" too: decoding the map by assignment would
  // set a prototype instead of a key, and the retry would lack that input response (mrtr.mdx:
  // the client MUST construct the requested inputs before retrying).
  it.scoped("an input request keyed __proto__ is answered under that key", () =>
    Effect.gen(function* () {
      const { client, sent } = yield* twoRounds(
        "tools/call",
        inputRequired(0, 0, { requestState: undefined, inputKeys: ["__proto__", "k"] })
      )
      yield* client.callTool("echo", { call: 0 })
      const retry = requestsOf(sent, "tools/call")[1]
      const responses = retry?.params?.inputResponses
      expect(McpSchema.isJsonObject(responses) ? Object.keys(responses).sort() : []).toStrictEqual(["__proto__", "k"])
      const answered = McpSchema.isJsonObject(responses)
        ? Object.getOwnPropertyDescriptor(responses, "__proto__")
        : undefined
      expect(answered?.value).toStrictEqual({ action: "accept", content: { answer: formMessage(0, 0, "__proto__") } })
    })
  )

  it.effect.prop(
    "concurrent calls: new ids, each retry carries exactly its own call's last state and answers, nothing leaks",
    [plans],
    ([calls]) =>
      Effect.scoped(
        Effect.gen(function* () {
          const seen = new Map<number, number>()
          const script = (request: JsonRpc.JSONRPCRequest): Reply => {
            if (request.method !== "tools/call") return stateless(request)
            const args = request.params?.arguments
            const index = McpSchema.isJsonObject(args) ? Number(args.call) : Number.NaN
            const plan = calls[index]
            if (plan === undefined) return { error: { code: -32602, message: "unknown call" } }
            const at = seen.get(index) ?? 0
            seen.set(index, at + 1)
            const r = plan.rounds[at]
            if (r !== undefined) return { result: inputRequired(index, at, r) }
            const content = [{ type: "text", text: `done ${index}` }]
            return { result: plan.typed ? { resultType: "complete", content } : { content } }
          }
          const { client, sent } = yield* connect(script)
          const outcomes = yield* Effect.forEach(calls, (_, index) => client.callTool("echo", { call: index }), {
            concurrency: "unbounded"
          })
          outcomes.forEach((outcome, index) => {
            expect(outcome.content).toStrictEqual([{ type: "text", text: `done ${index}` }])
          })

          checkWire(sent)
          const requests = sent.filter(
            (message): message is JsonRpc.JSONRPCRequest => "method" in message && "id" in message
          )
          const ids = requests.map((message) => message.id)
          expect(new Set(ids).size).toBe(ids.length)

          const toolCalls = requests.filter((message) => message.method === "tools/call")
          calls.forEach((plan, index) => {
            const mine = toolCalls.filter((message) => {
              const args = paramsOf(message).arguments
              return McpSchema.isJsonObject(args) && args.call === index
            })
            // One request per round plus the final one: a result without resultType is not retried.
            expect(mine).toHaveLength(plan.rounds.length + 1)
            const ownStates = new Set(
              plan.rounds.flatMap((r) => (r.requestState === undefined ? [] : [r.requestState]))
            )
            const foreignStates = new Set(
              calls.flatMap((other, o) =>
                o === index
                  ? []
                  : other.rounds.flatMap((r) =>
                      r.requestState === undefined || ownStates.has(r.requestState) ? [] : [r.requestState]
                    )
              )
            )
            mine.forEach((message, at) => {
              const params = paramsOf(message)
              expect(params.arguments).toStrictEqual({ call: index })
              const previous = at === 0 ? undefined : plan.rounds[at - 1]
              if (previous?.requestState === undefined) expect(params).not.toHaveProperty("requestState")
              else expect(params.requestState).toBe(previous.requestState)
              if (typeof params.requestState === "string") {
                expect(foreignStates.has(params.requestState)).toBe(false)
              }
              if (previous?.inputKeys === undefined) {
                expect(params).not.toHaveProperty("inputResponses")
                return
              }
              const responses = params.inputResponses
              if (!McpSchema.isJsonObject(responses)) {
                expect.fail(`no inputResponses in ${JSON.stringify(params)}`)
              }
              expect(Object.keys(responses).sort()).toStrictEqual([...previous.inputKeys].sort())
              for (const key of previous.inputKeys) {
                expect(Object.getOwnPropertyDescriptor(responses, key)?.value).toStrictEqual({
                  action: "accept",
                  content: { answer: formMessage(index, at - 1, key) }
                })
              }
            })
          })
        })
      ),
    { fastCheck: { numRuns: runs * 2 } }
  )
})
