/**
 * Tools over the session: the listing (paged, and cached until the server says it changed),
 * the definition of a tool by name, arguments checked against the tool's `inputSchema` before a
 * call is sent, and `structuredContent` checked against its `outputSchema` after.
 *
 * One rule for a schema that cannot be compiled (input or output): nothing is checked against
 * it, and a warning says so, once per tool and schema. A call is never refused, nor a result the
 * server produced lost, because the client cannot read the tool's schema.
 */

import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import { JsonRpc, McpApps } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { RequestError, ToolOutputInvalid } from "../../McpError.js"
import type * as Retry from "../../Retry.js"
import { policyOf } from "../session/executor.js"
import { request } from "../session/request.js"
import type { SessionService as Session, RequestOptions as SessionRequestOptions } from "../session/types.js"
import * as McpHeaders from "../transport/mcpHeaders.js"
import { acceptsAnyObject, type Check, checkNow, withCheck } from "./jsonSchema.js"
import * as Lists from "./lists.js"
import {
  type Arguments,
  type CallError,
  type CallToolResult,
  type ListedTool,
  make as makeSteps,
  type PreparedCall,
  type Tool,
  type Unchecked
} from "./toolSteps.js"

export type { Arguments, CallError, CallToolResult, PreparedCall, Tool, Unchecked } from "./toolSteps.js"

/** The tools part of a client. */
export interface Tools {
  /** Every tool, cached. */
  readonly list: Lists.CachedList<Tool>
  /** Every tool, page by page (not cached). */
  readonly stream: Stream.Stream<Tool, RequestError>
  /** The tool's definition when the list is cached (none: not in it), read without an effect; else `undefined`. */
  readonly known: (tool: string) => Option.Option<Tool> | undefined
  /** The tool's definition from the cached list (listed once if needed; a failure to list is logged, not fatal). */
  readonly definition: (tool: string) => Effect.Effect<Option.Option<Tool>>
  /**
   * The first steps of a call, plain: a tool that requires a task is refused (`TaskRequired`), the
   * arguments are checked against its `inputSchema` (`InvalidInput` naming the JSON pointer; unless
   * `validateInput` is false), the 2026-07-28 `Mcp-Param-*` headers and, under a retry policy, the
   * tool's idempotency hints are read, and the session prepares the request. `undefined` when
   * that needs an effect first (the tool list is not cached, or the JSON Schema engine not loaded).
   */
  readonly prepareNow: (
    tool: string,
    args: Arguments | undefined,
    options: SessionRequestOptions,
    validateInput: boolean
  ) => Either.Either<PreparedCall, CallError> | undefined
  /** `prepareNow`, listing the tools or loading the engine first when it needs to. */
  readonly prepare: (
    tool: string,
    args: Arguments | undefined,
    options: SessionRequestOptions,
    validateInput: boolean
  ) => Effect.Effect<PreparedCall, CallError>
  /** The last step: the result decoded, and `structuredContent` checked against the `outputSchema` (`ToolOutputInvalid`). */
  readonly decode: (call: PreparedCall, raw: Peer.WireObject) => Either.Either<CallToolResult, CallError>
  /** A result got another way (a task's) checked as `decode` checks one. */
  readonly checkOutput: (tool: string, result: CallToolResult) => Effect.Effect<CallToolResult, ToolOutputInvalid>
  /** `tools/call`: `prepare`, the session's executor, `decode`. */
  readonly call: (
    tool: string,
    args: Arguments | undefined,
    options: SessionRequestOptions,
    validateInput: boolean
  ) => Effect.Effect<CallToolResult, CallError>
}

/**
 * 2026-07-28: a tool whose `x-mcp-header` annotations are invalid cannot be called (its headers
 * cannot be sent), so it is left out of the list, with a warning naming it and why.
 */
const callableIn = (session: Session) => (tool: Tool) => {
  if (session.era() !== "stateless") return Effect.succeed(true)
  const headers = McpHeaders.paramHeaders(tool.inputSchema)
  return headers._tag === "Valid"
    ? Effect.succeed(true)
    : Effect.as(Effect.logWarning(`${session.server}: tool ${tool.name} is left out: ${headers.reason}`), false)
}

/**
 * A tool with its MCP Apps view read from `_meta`. A malformed `_meta.ui` costs the tool its view,
 * not its place in the list: it is left as listed, with a warning.
 */
const withUi =
  (server: string) =>
  (tool: ListedTool): Effect.Effect<Tool> => {
    if (tool._meta === undefined) return Effect.succeed(tool)
    const ui = McpApps.toolUi(tool._meta)
    if (Either.isLeft(ui))
      return Effect.as(
        Effect.logWarning(
          `${server}: tool ${tool.name} has a malformed _meta.ui (its view is ignored)`,
          ui.left.message
        ),
        tool
      )
    return Effect.succeed(ui.right === undefined ? tool : { ...tool, ui: ui.right })
  }

/**
 * Whether a call of `definition` with `args` needs the JSON Schema engine: an output schema to
 * check, or arguments to check against an input schema that constrains them (`acceptsAnyObject`).
 */
const needsCheck = (definition: Tool | undefined, validateInput: boolean, args: Arguments | undefined) =>
  definition !== undefined &&
  ((validateInput && !acceptsAnyObject(definition.inputSchema, args ?? {})) || definition.outputSchema !== undefined)

const loadCheck: Effect.Effect<Check> = withCheck(Effect.succeed)

/** What the tools part reads of the client's options. */
export interface ToolsOptions {
  /** The client's retries: a call they would repeat reads the tool's hints to know whether it may be repeated. */
  readonly retry?: Retry.RetrySettings | undefined
}

/** Builds the tools part over a session. */
export const make = (session: Session, options: ToolsOptions = {}): Effect.Effect<Tools, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { server } = session
    const retryPolicy = policyOf(options.retry)
    const retried = (call: SessionRequestOptions) => retryPolicy("tools/call", call) !== undefined
    const { toolTasks, uncheckedOf, prepareWith, verified } = makeSteps(session, retried)
    const callable = callableIn(session)
    // The schemas already warned about (`Unchecked.key`): each warning is logged once per client.
    const warned = new Set<string>()
    /** Logs each warning not logged before. */
    const warnOnce = (unchecked: ReadonlyArray<Unchecked>) =>
      unchecked.length === 0
        ? Effect.void
        : Effect.suspend(() => {
            const fresh = unchecked.filter((entry) => !warned.has(entry.key))
            for (const entry of fresh) warned.add(entry.key)
            return Effect.forEach(fresh, (entry) => Effect.logWarning(entry.warning), { discard: true })
          })
    const stream = Lists.paginate(
      server,
      "tools/list",
      (cursor) => request(session, "tools/list", cursor === undefined ? undefined : { cursor }),
      (result) => result.tools
    ).pipe(Stream.filterEffect(callable), Stream.mapEffect(withUi(server)))
    const list = yield* Lists.cachedList(
      stream,
      Effect.sync(() => session.freshness("tools/list"))
    )

    const known: Tools["known"] = (tool) => {
      const tools = list.known()
      return tools === undefined ? undefined : Option.fromNullable(tools.find((entry) => entry.name === tool))
    }

    // Read when it runs (a -32020 retry prepares again after the refetch that precedes it).
    const definition: Tools["definition"] = (tool) =>
      Effect.suspend(() => {
        const cached = known(tool)
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

    /** Whether anything before sending needs the tool's definition. */
    const needsDefinition = (options: SessionRequestOptions, validateInput: boolean) =>
      validateInput ||
      toolTasks() ||
      session.era() === "stateless" ||
      (options.idempotent === undefined && retried(options))

    const prepareNow: Tools["prepareNow"] = (tool, args, options, validateInput) => {
      const found = known(tool)
      if (found === undefined) return undefined
      const definition = Option.getOrUndefined(found)
      const needed = needsCheck(definition, validateInput, args)
      const check = needed ? checkNow() : undefined
      if (needed && check === undefined) return undefined
      const prepared = prepareWith(tool, args, options, validateInput, definition, check)
      // A warning not yet logged needs an effect: `prepare` logs it.
      return Either.isRight(prepared) && prepared.right.unchecked.some((entry) => !warned.has(entry.key))
        ? undefined
        : prepared
    }

    const prepare: Tools["prepare"] = (tool, args, options, validateInput) =>
      Effect.suspend(() => {
        // Steps taken now have no warning left to log (`prepareNow`).
        const now = prepareNow(tool, args, options, validateInput)
        if (now !== undefined) return now
        const prepared =
          (!needsDefinition(options, validateInput)
            ? prepareWith(tool, args, options, validateInput, undefined, undefined, false)
            : undefined) ??
          Effect.flatMap(definition(tool), (found) => {
            const known = Option.getOrUndefined(found)
            return needsCheck(known, validateInput, args)
              ? Effect.flatMap(loadCheck, (check) => prepareWith(tool, args, options, validateInput, known, check))
              : prepareWith(tool, args, options, validateInput, known, undefined)
          })
        return Effect.tap(prepared, (call) => warnOnce(call.unchecked))
      })

    const decode: Tools["decode"] = (call, raw) =>
      Either.flatMap(session.decode("tools/call", raw), (result) => verified(call, result))

    // A server that cannot list its tools does not make a successful result fail (the check is skipped),
    // nor does an outputSchema that cannot be compiled (with a warning).
    const checkOutput: Tools["checkOutput"] = (tool, result) =>
      Effect.flatMap(definition(tool), (found) => {
        const outputSchema = Option.getOrUndefined(found)?.outputSchema
        if (outputSchema === undefined || result.isError === true) return Effect.succeed(result)
        return Effect.flatMap(loadCheck, (check) => {
          const unchecked = uncheckedOf(tool, "outputSchema", outputSchema, check)
          return unchecked === undefined
            ? verified({ tool, outputSchema, check }, result)
            : Effect.as(warnOnce([unchecked]), result)
        })
      })

    const run = (call: PreparedCall) =>
      Effect.flatMap(session.execute(call.request), (raw) =>
        call.resolved
          ? decode(call, raw)
          : Effect.flatMap(session.decode("tools/call", raw), (result) => checkOutput(call.tool, result))
      )

    // -32020 (2026-07-28 only): the headers did not match what the server knows of the tool: list
    // again, then prepare and send once more.
    const call: Tools["call"] = (tool, args, options, validateInput) =>
      Effect.flatMap(prepare(tool, args, options, validateInput), (prepared) =>
        session.era() === "stateless"
          ? Effect.catchIf(
              run(prepared),
              (error) => error._tag === "RpcError" && error.code === JsonRpc.ErrorCode.HeaderMismatch,
              () =>
                Effect.zipRight(
                  Effect.ignore(Effect.zipRight(list.invalidate, list.get)),
                  Effect.flatMap(prepare(tool, args, options, validateInput), run)
                )
            )
          : run(prepared)
      )

    return { list, stream, known, definition, prepareNow, prepare, decode, checkOutput, call }
  })
