/**
 * The plain steps of a tool call, given the tool's definition (none: unknown) and the JSON Schema
 * check when one is needed: a tool that requires a task is refused, the arguments are checked
 * against the `inputSchema`, the 2026-07-28 `Mcp-Param-*` headers and the idempotency hints are
 * read, and the session prepares the request; after it, `structuredContent` is checked against
 * the `outputSchema`. No effect: the tools part runs them from an effect or at once.
 */
import type { McpApps, Methods } from "@effect-mcp/protocol"
import * as Either from "effect/Either"
import { InvalidInput, type RequestError, TaskRequired, ToolOutputInvalid } from "../../McpError.js"
import type { Prepared, SessionService as Session, RequestOptions as SessionRequestOptions } from "../session/types.js"
import * as McpHeaders from "../transport/mcpHeaders.js"
import type { Check } from "./jsonSchema.js"

/** A tool as a server lists it, in any revision (from 2026-07-28 `outputSchema` may be any JSON Schema). */
export type ListedTool = Methods.ResultOf<"tools/list">["tools"][number]

/**
 * A tool as the client gives it: as listed, and its MCP Apps view read from `_meta` (`ui`, absent
 * when the tool names no view and no visibility, or when its `_meta.ui` is malformed).
 */
export type Tool = ListedTool & { readonly ui?: McpApps.ToolUi }

/** A `tools/call` result, in any revision (from 2026-07-28 `structuredContent` may be any JSON value). */
export type CallToolResult = Methods.ResultOf<"tools/call">

/** A schema of a tool that cannot be compiled: the key it is warned about once under, and the warning. */
export interface Unchecked {
  readonly key: string
  readonly warning: string
}

/** Tool arguments, as a caller gives them. */
export type Arguments = { readonly [key: string]: unknown }

/** What a tool call can fail with. */
export type CallError = RequestError | ToolOutputInvalid | TaskRequired

/** A tool call made ready: its request, and what its result is checked against. */
export interface PreparedCall {
  readonly tool: string
  readonly request: Prepared
  /** The `outputSchema` of the definition the call was checked against, if it has one that compiles. */
  readonly outputSchema: Tool["outputSchema"] | undefined
  /** The JSON Schema check, loaded when a schema needs it. */
  readonly check: Check | undefined
  /** The warnings about the tool's schemas that cannot be compiled (so are not checked against), by key. */
  readonly unchecked: ReadonlyArray<Unchecked>
  /**
   * Whether the tool's definition was read to prepare the call. When nothing before sending needs
   * it, it is read only for a successful result, to check it (a call that fails never lists the tools).
   */
  readonly resolved: boolean
}

/** The `Mcp-Param-*` headers of a call of this tool (2026-07-28), from its `x-mcp-header` annotations. */
const paramHeadersOf = (tool: Tool, args: Arguments | undefined) => {
  const headers = McpHeaders.paramHeaders(tool.inputSchema)
  return headers._tag === "Valid" && headers.headers.length > 0
    ? McpHeaders.paramHeaderValues(headers.headers, args)
    : undefined
}

/** The steps over a session. */
export interface ToolSteps {
  /** Whether the server runs tool calls as tasks (read on each call: a re-established session may differ). */
  readonly toolTasks: () => boolean
  /** The warning about a schema of the tool that cannot be compiled, if it cannot. */
  readonly uncheckedOf: (
    tool: string,
    which: "inputSchema" | "outputSchema",
    schema: NonNullable<Tool["outputSchema"]>,
    check: Check
  ) => Unchecked | undefined
  /** A call made ready (`resolved`: whether `definition` was read for it). */
  readonly prepareWith: (
    tool: string,
    args: Arguments | undefined,
    options: SessionRequestOptions,
    validateInput: boolean,
    definition: Tool | undefined,
    check: Check | undefined,
    resolved?: boolean
  ) => Either.Either<PreparedCall, CallError>
  /** A successful result against the tool's `outputSchema`. */
  readonly verified: (
    call: Pick<PreparedCall, "tool" | "outputSchema" | "check">,
    result: CallToolResult
  ) => Either.Either<CallToolResult, ToolOutputInvalid>
}

/** The steps of the tools of a session. */
export const make = (session: Session, retried: (options: SessionRequestOptions) => boolean): ToolSteps => {
  const { server } = session
  // Read on each call: a re-established session may declare other capabilities.
  const toolTasks = () => session.established().serverCapabilities.tasks?.requests?.tools?.call !== undefined
  const uncheckedOf: ToolSteps["uncheckedOf"] = (tool, which, schema, check) => {
    const reason = check.uncompilable(schema)
    return reason === undefined
      ? undefined
      : {
          key: `${which} ${tool}`,
          warning: `${server}: the ${which} of tool ${tool} cannot be compiled, so ${which === "inputSchema" ? "its arguments are" : "its results are"} not checked against it: ${reason}`
        }
  }

  const prepareWith: ToolSteps["prepareWith"] = (
    tool,
    args,
    options,
    validateInput,
    definition,
    check,
    resolved = true
  ) => {
    if (definition?.execution?.taskSupport === "required" && toolTasks()) {
      return Either.left(new TaskRequired({ server, tool }))
    }
    const unchecked: Array<Unchecked> = []
    const inputUnchecked =
      validateInput && definition !== undefined && check !== undefined
        ? uncheckedOf(tool, "inputSchema", definition.inputSchema, check)
        : undefined
    const outputUnchecked =
      definition?.outputSchema !== undefined && check !== undefined
        ? uncheckedOf(tool, "outputSchema", definition.outputSchema, check)
        : undefined
    if (inputUnchecked !== undefined) unchecked.push(inputUnchecked)
    if (outputUnchecked !== undefined) unchecked.push(outputUnchecked)
    if (validateInput && definition !== undefined && check !== undefined && inputUnchecked === undefined) {
      const outcome = check(definition.inputSchema, args ?? {})
      if (outcome._tag === "Invalid") {
        return Either.left(
          new InvalidInput({
            server,
            method: "tools/call",
            tool,
            pointer: outcome.pointer,
            reason: `the arguments of tool ${tool} do not match its inputSchema at ${outcome.pointer === "" ? "(root)" : outcome.pointer}: ${outcome.reason}`
          })
        )
      }
    }
    const headers =
      definition !== undefined && session.era() === "stateless" ? paramHeadersOf(definition, args) : undefined
    const hints = definition?.annotations
    const idempotent =
      options.idempotent === undefined && retried(options)
        ? hints?.readOnlyHint === true || hints?.idempotentHint === true
        : options.idempotent
    const requestOptions: SessionRequestOptions = {
      ...options,
      spanAttributes: { "mcp.tool": tool },
      ...(headers === undefined ? {} : { headers }),
      ...(idempotent === undefined ? {} : { idempotent })
    }
    const params = args === undefined ? { name: tool } : { name: tool, arguments: args }
    return Either.map(session.prepare("tools/call", params, requestOptions), (request) => ({
      tool,
      request,
      outputSchema: outputUnchecked === undefined ? definition?.outputSchema : undefined,
      check,
      unchecked,
      resolved
    }))
  }

  /** A successful result against the tool's `outputSchema`. */
  const verified: ToolSteps["verified"] = (call, result) => {
    if (call.outputSchema === undefined || call.check === undefined || result.isError === true) {
      return Either.right(result)
    }
    if (result.structuredContent === undefined) {
      return Either.left(new ToolOutputInvalid({ server, tool: call.tool, reason: "structuredContent is missing" }))
    }
    const outcome = call.check(call.outputSchema, result.structuredContent)
    // Uncompilable cannot happen here (such a schema is not checked against, see `uncheckedOf`).
    return outcome._tag === "Invalid"
      ? Either.left(new ToolOutputInvalid({ server, tool: call.tool, reason: outcome.reason }))
      : Either.right(result)
  }

  return { toolTasks, uncheckedOf, prepareWith, verified }
}
