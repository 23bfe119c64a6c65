/**
 * The calls of a client that can start from plain code with no fiber (`PromiseClient` uses
 * them), kept beside the client service they belong to rather than in its public interface.
 */
import type { McpSchema, Methods } from "@effect-mcp/protocol"
import type * as Exit from "effect/Exit"
import type { McpClientService, ToolCallOptions } from "../McpClient.js"
import type { RequestError, ToolOutputInvalid } from "../McpError.js"

/** Starts a call and gives the function that abandons it, or `undefined` when it needs its effect. */
export type Begin<A, E> = (onDone: (outcome: Exit.Exit<A, E>) => void) => (() => void) | undefined

/** A client's calls that can begin without a fiber. */
export interface Beginnings {
  readonly callTool: (
    tool: string,
    args: { readonly [key: string]: unknown } | undefined,
    call: ToolCallOptions | undefined
  ) => Begin<McpSchema.CallToolResult, RequestError | ToolOutputInvalid>
  readonly request: <M extends Methods.RequestMethodName>(
    method: M,
    params: Methods.RequestParamsOf<M> | undefined,
    call: ToolCallOptions | undefined
  ) => Begin<Methods.ResultOf<M>, RequestError>
}

const table = new WeakMap<McpClientService, Beginnings>()

/** Keeps a client's beginnings. */
export const register = (client: McpClientService, beginnings: Beginnings): void => void table.set(client, beginnings)

/** A client's beginnings, when it was built by `McpClient.make` (a wrapped service has none). */
export const of = (client: McpClientService): Beginnings | undefined => table.get(client)
