/**
 * Tools over the session: the listing (paged, and cached until the server says it changed),
 * the definition of a tool by name, arguments checked against the tool's `inputSchema` before a
 * call is sent, and `structuredContent` checked against its `outputSchema` after.
 */
import { JsonRpc, type McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { InvalidInput, type RequestError, ToolOutputInvalid } from "../../McpError.js"
import type { Session, RequestOptions as SessionRequestOptions } from "../session/session.js"
import * as McpHeaders from "../transport/mcpHeaders.js"
import { type Check, checkNow, type Outcome, withCheck } from "./jsonSchema.js"
import * as Lists from "./lists.js"

/** Tool arguments, as a caller gives them. */
export type Arguments = { readonly [key: string]: unknown }

/** The tools part of a client. */
export interface Tools {
  /** Every tool, cached. */
  readonly list: Lists.CachedList<McpSchema.Tool>
  /** Every tool, page by page (not cached). */
  readonly stream: Stream.Stream<McpSchema.Tool, RequestError>
  /** The tool's definition when the list is cached (none: not in it), read without an effect; else `undefined`. */
  readonly known: (tool: string) => Option.Option<McpSchema.Tool> | undefined
  /** The tool's definition from the cached list (listed once if needed; a failure to list is logged, not fatal). */
  readonly definition: (tool: string) => Effect.Effect<Option.Option<McpSchema.Tool>>
  /** Fails with `InvalidInput` (naming the tool and the JSON pointer) when the arguments do not match the tool's `inputSchema`. */
  readonly checkInput: (tool: string, args: Arguments | undefined) => Effect.Effect<void, InvalidInput>
  /** Fails with `ToolOutputInvalid` when a successful result does not match the tool's `outputSchema`. */
  readonly checkOutput: (
    tool: string,
    result: McpSchema.CallToolResult
  ) => Effect.Effect<McpSchema.CallToolResult, ToolOutputInvalid>
  /**
   * `tools/call`, checked before and after (input checks unless `validateInput` is false); under
   * a retry policy, a tool that says `readOnlyHint` or `idempotentHint` may be repeated.
   */
  readonly call: (
    tool: string,
    args: Arguments | undefined,
    options: SessionRequestOptions,
    validateInput: boolean
  ) => Effect.Effect<McpSchema.CallToolResult, RequestError | ToolOutputInvalid>
  /**
   * `tools/call` started from plain code, with no fiber (the session's `begin`), when its checks
   * need no effect: the tool's definition cached, the JSON Schema engine loaded when a check needs
   * it, the arguments valid. `onDone` gets what `call` would give, the result checked against the
   * definition the call began with (`call` reads it again when the answer comes). `undefined`: use `call`.
   */
  readonly begin: (
    tool: string,
    args: Arguments | undefined,
    options: SessionRequestOptions,
    validateInput: boolean,
    onDone: (outcome: Exit.Exit<McpSchema.CallToolResult, RequestError | ToolOutputInvalid>) => void
  ) => (() => void) | undefined
}

/**
 * 2026-07-28: a tool whose `x-mcp-header` annotations are invalid cannot be called (its headers
 * cannot be sent), so it is left out of the list, with a warning naming it and why.
 */
const callableIn = (session: Session) => (tool: McpSchema.Tool) => {
  if (session.era() !== "stateless") return Effect.succeed(true)
  const headers = McpHeaders.paramHeaders(tool.inputSchema)
  return headers._tag === "Valid"
    ? Effect.succeed(true)
    : Effect.as(Effect.logWarning(`${session.server}: tool ${tool.name} is left out: ${headers.reason}`), false)
}

/** The `Mcp-Param-*` headers of a call of this tool (2026-07-28), from its `x-mcp-header` annotations. */
const paramHeadersOf = (tool: McpSchema.Tool, args: Arguments | undefined) => {
  const headers = McpHeaders.paramHeaders(tool.inputSchema)
  return headers._tag === "Valid" && headers.headers.length > 0
    ? McpHeaders.paramHeaderValues(headers.headers, args)
    : undefined
}

/** Builds the tools part over a session. */
export const make = (session: Session): Effect.Effect<Tools, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { server } = session
    const callable = callableIn(session)
    const stream = Lists.paginate(
      server,
      "tools/list",
      (cursor) => session.request("tools/list", cursor === undefined ? undefined : { cursor }),
      (result) => result.tools
    ).pipe(Stream.filterEffect(callable))
    const list = yield* Lists.cachedList(
      stream,
      Effect.sync(() => session.freshness("tools/list")),
      session.serveStale ? { server, what: "tools" } : undefined
    )

    /** The tool's definition when the list is cached (none: not in it), read without an effect; else `undefined`. */
    const cachedDefinition = (tool: string): Option.Option<McpSchema.Tool> | undefined => {
      const tools = list.known()
      return tools === undefined ? undefined : Option.fromNullable(tools.find((entry) => entry.name === tool))
    }

    // Read when it runs (a -32020 retry builds its attempt before the refetch that precedes it).
    const definition = (tool: string): Effect.Effect<Option.Option<McpSchema.Tool>> =>
      Effect.suspend(() => {
        const cached = cachedDefinition(tool)
        if (cached !== undefined) return Effect.succeed(cached)
        return list.get.pipe(
          Effect.tapError((error) =>
            Effect.logWarning(
              `${server}: cannot list tools to check ${tool}; its schemas are not checked`,
              error.message
            )
          ),
          Effect.option,
          Effect.map(Option.flatMap((tools) => Option.fromNullable(tools.find((entry) => entry.name === tool))))
        )
      })

    /** The input check against a definition: exactly `Effect.void` when the arguments pass (or nothing is known). */
    const inputVerdict = (
      tool: string,
      args: Arguments | undefined,
      found: Option.Option<McpSchema.Tool>
    ): Effect.Effect<void, InvalidInput> => {
      if (Option.isNone(found)) return Effect.void
      return withCheck((check) => {
        const outcome = check(found.value.inputSchema, args ?? {})
        if (outcome._tag === "Valid") return Effect.void
        if (outcome._tag === "Uncompilable") {
          return Effect.logDebug(`${server}: the inputSchema of ${tool} is not checked: ${outcome.reason}`)
        }
        return Effect.fail(invalidInput(tool, outcome))
      })
    }
    const invalidInput = (tool: string, outcome: Extract<Outcome, { readonly _tag: "Invalid" }>) =>
      new InvalidInput({
        server,
        method: "tools/call",
        tool,
        pointer: outcome.pointer,
        reason: `the arguments of tool ${tool} do not match its inputSchema at ${outcome.pointer === "" ? "(root)" : outcome.pointer}: ${outcome.reason}`
      })

    // With the list cached (every call after the first), the check runs with no effect steps.
    const checkInput: Tools["checkInput"] = (tool, args) => {
      const cached = cachedDefinition(tool)
      return cached !== undefined
        ? inputVerdict(tool, args, cached)
        : Effect.flatMap(definition(tool), (found) => inputVerdict(tool, args, found))
    }

    const outputVerdict = (
      tool: string,
      result: McpSchema.CallToolResult,
      found: Option.Option<McpSchema.Tool>
    ): Effect.Effect<McpSchema.CallToolResult, ToolOutputInvalid> => {
      const outputSchema = Option.getOrUndefined(found)?.outputSchema
      if (outputSchema === undefined) return Effect.succeed(result)
      if (result.structuredContent === undefined) return Effect.fail(missingStructured(tool))
      return withCheck((check) => {
        const problem = outputProblem(tool, result, outputSchema, check)
        return problem === undefined ? Effect.succeed(result) : Effect.fail(problem)
      })
    }
    const missingStructured = (tool: string) =>
      new ToolOutputInvalid({ server, tool, reason: "structuredContent is missing" })
    /** What is wrong with a result against the tool's `outputSchema`, if anything. */
    const outputProblem = (
      tool: string,
      result: McpSchema.CallToolResult,
      outputSchema: McpSchema.Tool["inputSchema"],
      check: Check
    ): ToolOutputInvalid | undefined => {
      if (result.structuredContent === undefined) return missingStructured(tool)
      const outcome = check(outputSchema, result.structuredContent)
      return outcome._tag === "Valid" ? undefined : new ToolOutputInvalid({ server, tool, reason: outcome.reason })
    }

    // A server that cannot list its tools does not make a successful call fail (the check is skipped).
    const checkOutput: Tools["checkOutput"] = (tool, result) => {
      if (result.isError === true) return Effect.succeed(result)
      const cached = cachedDefinition(tool)
      return cached !== undefined
        ? outputVerdict(tool, result, cached)
        : Effect.flatMap(definition(tool), (found) => outputVerdict(tool, result, found))
    }

    const paramsOf = (tool: string, args: Arguments | undefined) =>
      args === undefined ? { name: tool } : { name: tool, arguments: args }
    const callOf = (tool: string, args: Arguments | undefined, options: SessionRequestOptions) =>
      session.request("tools/call", paramsOf(tool, args), { ...options, spanAttributes: { "mcp.tool": tool } })

    // Only 2026-07-28 carries Mcp-Param-* headers: the stateful path adds no step to the hot path.
    const attempt = (tool: string, args: Arguments | undefined, options: SessionRequestOptions) =>
      session.era() === "stateless"
        ? Effect.flatMap(definition(tool), (found) => {
            const headers = Option.isSome(found) ? paramHeadersOf(found.value, args) : undefined
            return callOf(tool, args, headers === undefined ? options : { ...options, headers })
          })
        : callOf(tool, args, options)

    // -32020: the headers did not match what the server knows of the tool: list again, then retry once.
    // (Only 2026-07-28 has the headers, so only it has the retry.)
    const send = (tool: string, args: Arguments | undefined, options: SessionRequestOptions) =>
      Effect.flatMap(
        session.era() === "stateless"
          ? Effect.catchIf(
              attempt(tool, args, options),
              (error) => error._tag === "RpcError" && error.code === JsonRpc.ErrorCode.HeaderMismatch,
              () =>
                Effect.zipRight(Effect.ignore(Effect.zipRight(list.invalidate, list.get)), attempt(tool, args, options))
            )
          : callOf(tool, args, options),
        (result) => checkOutput(tool, result)
      )

    // Only under a retry policy is the definition read for the tool's hints: no step otherwise.
    const hinted = (tool: string, args: Arguments | undefined, options: SessionRequestOptions) =>
      options.idempotent !== undefined || session.retryPolicy("tools/call", options) === undefined
        ? send(tool, args, options)
        : Effect.flatMap(definition(tool), (found) => {
            const hints = Option.getOrUndefined(found)?.annotations
            const idempotent = hints?.readOnlyHint === true || hints?.idempotentHint === true
            return send(tool, args, { ...options, idempotent })
          })

    // Decides (input check, hints) when called: callers call it when the call runs (McpClient.callTool's suspend).
    const call: Tools["call"] = (tool, args, options, validateInput) => {
      if (!validateInput) return hinted(tool, args, options)
      const checked = checkInput(tool, args)
      // Arguments that passed against the cached definition add no step.
      return checked === Effect.void
        ? hinted(tool, args, options)
        : Effect.zipRight(checked, hinted(tool, args, options))
    }

    const begin: Tools["begin"] = (tool, args, options, validateInput, onDone) => {
      const found = session.era() === "stateful" && session.peer.canBegin() ? cachedDefinition(tool) : undefined
      if (found === undefined) return undefined
      const definition = Option.getOrUndefined(found)
      const outputSchema = definition?.outputSchema
      const checked = definition !== undefined && (validateInput || outputSchema !== undefined)
      const check = checked ? checkNow() : undefined
      if (checked && check === undefined) return undefined
      // Arguments that do not pass (or a schema that does not compile) take `call`'s way: it says why.
      if (validateInput && definition !== undefined && check?.(definition.inputSchema, args ?? {})._tag !== "Valid") {
        return undefined
      }
      return session.begin("tools/call", paramsOf(tool, args), options, (outcome) => {
        if (Exit.isFailure(outcome) || outputSchema === undefined || check === undefined) return onDone(outcome)
        const result = outcome.value
        let problem: ToolOutputInvalid | undefined
        try {
          problem = result.isError === true ? undefined : outputProblem(tool, result, outputSchema, check)
        } catch (defect) {
          // The validator itself failing (a schema too deep for it) is this call's defect, as in `call`.
          return onDone(Exit.die(defect))
        }
        onDone(problem === undefined ? outcome : Exit.fail(problem))
      })
    }

    return { list, stream, known: cachedDefinition, definition, checkInput, checkOutput, call, begin }
  })
