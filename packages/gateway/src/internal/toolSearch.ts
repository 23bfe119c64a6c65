/**
 * Tool search, for clients drowning in tool definitions: `tools/list` answers two tools instead
 * of every server's. `search_tools` ranks the host's tools against a query by name, title and
 * description (the host's `ToolRanking`, the rule the chat's tool selection uses) and answers the
 * best with their definitions; `call_tool` calls one by its host-wide name, on the path
 * `tools/call` takes (progress, cancellation and the servers' requests included).
 *
 * The full list stays available: an empty query answers every tool, and every tool stays
 * callable by its host-wide name with `tools/call` though it is not listed (a server tool named
 * like one of the two is reached through `call_tool`).
 */
import type { McpClient } from "@effect-mcp/client"
import { type Aggregate, ToolRanking } from "@effect-mcp/host"
import type { JsonRpcFailure } from "@effect-mcp/jsonrpc/PeerError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/** The search tool's name. */
export const SEARCH = "search_tools"

/** The call tool's name. */
export const CALL = "call_tool"

/** How many tools a search answers when it gives no `limit`. */
export const DEFAULT_LIMIT = 10

const MAX_LIMIT = 100

const SearchArguments = Schema.Struct({
  query: Schema.String,
  limit: Schema.optional(Schema.Int.pipe(Schema.between(1, MAX_LIMIT)))
})

const CallArguments = Schema.Struct({
  name: Schema.String,
  arguments: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})

/** A tool as a search answers it. */
const foundSchema = {
  type: "object",
  properties: {
    name: { type: "string", description: "The name to call it by (with call_tool)." },
    title: { type: "string" },
    description: { type: "string" },
    inputSchema: { type: "object", description: "The JSON Schema of its arguments." }
  },
  required: ["name", "inputSchema"]
}

/** The two tools listed instead of the host's. */
export const tools: ReadonlyArray<McpClient.Tool> = [
  {
    name: SEARCH,
    title: "Search tools",
    description:
      "Finds tools by what they do: ranks every available tool by how well its name, title and description " +
      `match the query, and answers the best (${DEFAULT_LIMIT} unless a limit is given) with their input schemas. ` +
      "An empty query lists every tool. Call a tool found here with call_tool.",
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: "Words describing the task, or a tool's name; empty for every tool." },
        limit: { type: "integer", minimum: 1, maximum: MAX_LIMIT, description: "At most this many tools." }
      },
      required: ["query"],
      additionalProperties: false
    },
    outputSchema: {
      type: "object",
      properties: {
        tools: { type: "array", items: foundSchema, description: "The matching tools, best first." },
        total: { type: "integer", description: "How many tools there are in all." }
      },
      required: ["tools", "total"]
    },
    annotations: { title: "Search tools", readOnlyHint: true, openWorldHint: false }
  },
  {
    name: CALL,
    title: "Call a tool",
    description:
      "Calls a tool found with search_tools, by its name, with arguments that match its input schema; " +
      "answers the tool's own result.",
    inputSchema: {
      type: "object",
      properties: {
        name: { type: "string", description: "The tool's name, as search_tools gives it." },
        arguments: { type: "object", description: "The tool's arguments." }
      },
      required: ["name"],
      additionalProperties: false
    }
  }
]

/** A tool error the model can read and act on (the specification's tool execution error). */
const toolError = (text: string): McpClient.CallToolResult => ({ content: [{ type: "text", text }], isError: true })

const decodeArguments = <A, I>(
  schema: Schema.Schema<A, I>,
  tool: string,
  args: unknown
): Either.Either<A, McpClient.CallToolResult> =>
  Either.mapLeft(Schema.decodeUnknownEither(schema)(args ?? {}), (error) =>
    toolError(`Invalid arguments for ${tool}: ${ParseResult.TreeFormatter.formatErrorSync(error)}`)
  )

const fieldsOf = (entry: Aggregate.HostTool): ToolRanking.Fields => ({ name: entry.name, tool: entry.tool })

/** A search's answer: the best matches (every tool for an empty query), as text and as structured content. */
export const search = (available: ReadonlyArray<Aggregate.HostTool>, args: unknown): McpClient.CallToolResult => {
  const decoded = decodeArguments(SearchArguments, SEARCH, args)
  if (Either.isLeft(decoded)) return decoded.left
  const { query, limit } = decoded.right
  const found =
    query.trim() === ""
      ? available.slice(0, limit ?? available.length)
      : ToolRanking.rank(available, query, fieldsOf, { limit: limit ?? DEFAULT_LIMIT }).map((scored) => scored.tool)
  const structuredContent = {
    tools: found.map(({ name, tool }) => ({
      name,
      ...(tool.title === undefined ? {} : { title: tool.title }),
      ...(tool.description === undefined ? {} : { description: tool.description }),
      inputSchema: tool.inputSchema
    })),
    total: available.length
  }
  return { content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent }
}

/**
 * A call through `call_tool`: its arguments decoded, then the host-wide tool called with `call`
 * (the path of `tools/call`). A name the host does not list is a tool error pointing at the search.
 */
export const call = (
  available: ReadonlyArray<Aggregate.HostTool>,
  args: unknown,
  callTool: (
    name: string,
    args: { readonly [key: string]: unknown } | undefined
  ) => Effect.Effect<McpClient.CallToolResult, JsonRpcFailure>
): Effect.Effect<McpClient.CallToolResult, JsonRpcFailure> => {
  const decoded = decodeArguments(CallArguments, CALL, args)
  if (Either.isLeft(decoded)) return Effect.succeed(decoded.left)
  const { name, arguments: toolArgs } = decoded.right
  if (!available.some((entry) => entry.name === name)) {
    return Effect.succeed(toolError(`Unknown tool: ${name}. Find the available tools with ${SEARCH}.`))
  }
  return callTool(name, toolArgs)
}
