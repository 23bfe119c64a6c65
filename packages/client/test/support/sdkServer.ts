/**
 * A server built with the official TypeScript SDK (v1 `McpServer`), offering every feature
 * the client must exercise: tools (with progress, structured output, failures, cancellation),
 * resources (with templates and subscriptions), prompts, completion, logging, and tools that
 * make server-to-client requests (sampling, elicitation in both modes, roots).
 */
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js"
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { z } from "zod"

/** What the server observed, for assertions. */
export interface Observations {
  readonly cancelled: Array<string>
  readonly subscriptions: Set<string>
  /** The capabilities the client declared in `initialize`. */
  readonly clientCapabilities: () => unknown
  /** Whether the server saw its connection close. */
  readonly closed: () => boolean
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener("abort", () => {
      clearTimeout(timer)
      reject(new Error("aborted"))
    })
  })

/** Builds a fresh server and the record of what it observed. */
export const makeSdkServer = () => {
  const observed: Observations = {
    cancelled: [],
    subscriptions: new Set(),
    clientCapabilities: () => server.server.getClientCapabilities(),
    closed: () => connectionClosed
  }
  let connectionClosed = false
  const server = new McpServer(
    { name: "sdk-test-server", version: "1.2.3", title: "SDK test server" },
    {
      capabilities: { logging: {}, resources: { subscribe: true, listChanged: true }, completions: {} },
      instructions: "Use the tools wisely."
    }
  )

  server.server.onclose = () => {
    connectionClosed = true
  }

  server.registerTool(
    "echo",
    { description: "Echoes its message", inputSchema: { message: z.string() } },
    async ({ message }) => ({ content: [{ type: "text", text: `echo: ${message}` }] })
  )

  server.registerTool(
    "add",
    {
      description: "Adds two numbers",
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() }
    },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }], structuredContent: { sum: a + b } })
  )

  server.registerTool("fail", { description: "Always fails" }, async () => ({
    content: [{ type: "text", text: "it failed" }],
    isError: true
  }))

  server.registerTool(
    "slow",
    { description: "Reports progress, then answers", inputSchema: { steps: z.number(), ms: z.number() } },
    async ({ steps, ms }, extra) => {
      const token = extra._meta?.progressToken
      try {
        for (let step = 1; step <= steps; step++) {
          await sleep(ms, extra.signal)
          if (token !== undefined) {
            await extra.sendNotification({
              method: "notifications/progress",
              params: { progressToken: token, progress: step, total: steps, message: `step ${step}` }
            })
          }
        }
      } catch (error) {
        observed.cancelled.push(String(extra.requestId))
        throw error
      }
      return { content: [{ type: "text", text: "done" }] }
    }
  )

  server.registerTool("sample", { description: "Asks the client's model" }, async () => {
    const result = await server.server.createMessage({
      messages: [{ role: "user", content: { type: "text", text: "What is 2+2?" } }],
      maxTokens: 10
    })
    const content = Array.isArray(result.content) ? result.content[0] : result.content
    return {
      content: [{ type: "text", text: `model ${result.model} said ${content?.type === "text" ? content.text : "?"}` }]
    }
  })

  server.registerTool("sample-then-cancel", { description: "Asks the model, then cancels the request" }, async () => {
    const controller = new AbortController()
    setTimeout(() => controller.abort("changed my mind"), 20)
    const outcome = await server.server
      .createMessage(
        { messages: [{ role: "user", content: { type: "text", text: "?" } }], maxTokens: 1 },
        { signal: controller.signal }
      )
      .then(
        () => "answered",
        () => "cancelled"
      )
    return { content: [{ type: "text", text: outcome }] }
  })

  server.registerTool("ask", { description: "Asks the user in a form" }, async () => {
    const result = await server.server.elicitInput({
      message: "Who are you?",
      requestedSchema: {
        type: "object",
        properties: {
          name: { type: "string", minLength: 1 },
          age: { type: "integer", minimum: 0, default: 30 },
          color: { type: "string", enum: ["red", "green"], default: "green" }
        },
        required: ["name"]
      }
    })
    return { content: [{ type: "text", text: JSON.stringify(result) }] }
  })

  server.registerTool("visit", { description: "Sends the user to a URL" }, async () => {
    const result = await server.server.elicitInput({
      mode: "url",
      message: "Please sign in",
      elicitationId: "e-1",
      url: "https://example.com/sign-in"
    })
    return { content: [{ type: "text", text: result.action }] }
  })

  server.registerTool("roots", { description: "Lists the client's roots" }, async () => {
    const result = await server.server.listRoots()
    return { content: [{ type: "text", text: result.roots.map((root) => root.uri).join(",") }] }
  })

  server.registerTool("log", { description: "Logs at every level" }, async () => {
    for (const level of ["debug", "info", "warning", "error"] as const) {
      await server.server.sendLoggingMessage({ level, logger: "test", data: { level } })
    }
    return { content: [] }
  })

  server.registerTool("grow", { description: "Adds a tool (list changed)" }, async () => {
    server.registerTool("grown", { description: "A new tool" }, async () => ({ content: [] }))
    return { content: [] }
  })

  server.registerTool(
    "touch",
    { description: "Updates a subscribed resource", inputSchema: { uri: z.string() } },
    async ({ uri }) => {
      if (observed.subscriptions.has(uri)) await server.server.sendResourceUpdated({ uri })
      return { content: [] }
    }
  )

  server.registerResource(
    "readme",
    "test://static/readme",
    { title: "Read me", mimeType: "text/plain" },
    async (uri) => ({ contents: [{ uri: uri.href, text: "hello" }] })
  )
  server.registerResource(
    "item",
    new ResourceTemplate("test://items/{id}", {
      list: undefined,
      complete: { id: (value) => ["1", "2", "10", "11"].filter((id) => id.startsWith(value)) }
    }),
    { title: "An item" },
    async (uri, { id }) => ({ contents: [{ uri: uri.href, text: `item ${String(id)}` }] })
  )
  server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    observed.subscriptions.add(request.params.uri)
    return {}
  })
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    observed.subscriptions.delete(request.params.uri)
    return {}
  })

  server.registerPrompt(
    "greet",
    { title: "Greeting", description: "Greets someone", argsSchema: { name: z.string() } },
    ({ name }) => ({ messages: [{ role: "user", content: { type: "text", text: `Hello, ${name}!` } }] })
  )

  return { server, observed }
}
