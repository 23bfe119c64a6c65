/**
 * The features as services: tools, resources and prompts, each built over a session from the
 * options it reads, the way `McpClient` takes them from context (so a program can replace or
 * decorate one). Resources and prompts are built at their first use.
 */
import * as PlainForm from "@effect-mcp/jsonrpc/PlainForm"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { McpClientOptions, McpClientService, StartCallTool } from "../api.js"
import * as OnFirstUse from "../onFirstUse.js"
import { startPrepared } from "../session/request.js"
import type { SessionService } from "../session/types.js"
import { toRequestOptions } from "./callOptions.js"
import * as Prompts from "./prompts.js"
import * as Resources from "./resources.js"
import * as Tools from "./tools.js"

/** A server's tools: listed (cached until they change), called, and a result got another way checked. */
export interface ToolsService {
  /** Every tool, all pages; cached until the server says the list changed (or its `ttlMs` passes). */
  readonly list: McpClientService["tools"]
  /** Every tool, page by page (not cached). */
  readonly stream: McpClientService["toolsStream"]
  /** Calls a tool: its arguments checked first, its `structuredContent` after. */
  readonly call: McpClientService["callTool"]
  /** A tool's definition, from the cached list (listed once if needed). */
  readonly definition: Tools.Tools["definition"]
  /** A result got another way (a task's) checked as a call's is. */
  readonly checkOutput: Tools.Tools["checkOutput"]
  /** Drops the cached list (the server said it changed). */
  readonly invalidate: Effect.Effect<void>
}

/** A server's resources: listed (cached), their templates, and reads. */
export interface ResourcesService {
  readonly list: McpClientService["resources"]
  readonly stream: McpClientService["resourcesStream"]
  readonly templates: McpClientService["resourceTemplates"]
  readonly read: McpClientService["readResource"]
  /** Drops the cached list, if one was built. */
  readonly invalidate: Effect.Effect<void>
}

/** A server's prompts: listed (cached), filled in, and argument completion. */
export interface PromptsService {
  readonly list: McpClientService["prompts"]
  readonly get: McpClientService["getPrompt"]
  readonly complete: McpClientService["complete"]
  /** Drops the cached list, if one was built. */
  readonly invalidate: Effect.Effect<void>
}

/** What the tools read of the client's options. */
export type ToolsOptions = Pick<McpClientOptions, "validateToolInput" | "retry" | "serveStaleLists">

/** What the lists of resources and prompts read of the client's options. */
export type ListsOptions = Pick<McpClientOptions, "serveStaleLists">

/** The tools service over a tools part. */
export const toolsOf = (session: SessionService, part: Tools.Tools, options: ToolsOptions): ToolsService => {
  const validateInput = options.validateToolInput !== false
  // Everything is decided when the effect runs (a kept effect run again after list_changed checks
  // against the new definitions).
  const call: ToolsService["call"] = (tool, args, call) =>
    part.call(
      tool,
      args,
      toRequestOptions(call, session.established().protocolVersion),
      call?.validateInput ?? validateInput
    )
  const start = PlainForm.of(session.execute)
  // Its plain form: the same steps taken now, when none needs an effect, over the session's.
  const startCall: StartCallTool | undefined =
    start === undefined
      ? undefined
      : (tool, args, call, onDone) => {
          const prepared = part.prepareNow(
            tool,
            args,
            toRequestOptions(call, session.established().protocolVersion),
            call?.validateInput ?? validateInput
          )
          return prepared === undefined ? undefined : startPrepared(start, prepared, part.decode, onDone)
        }
  return {
    list: part.list.get,
    stream: part.stream,
    call: startCall === undefined ? call : PlainForm.attach(call, startCall),
    definition: part.definition,
    checkOutput: part.checkOutput,
    invalidate: part.list.invalidate
  }
}

/** The tools part over a session, and the service over it. */
export const tools = (
  session: SessionService,
  options: ToolsOptions = {}
): Effect.Effect<{ readonly part: Tools.Tools; readonly service: ToolsService }, never, Scope.Scope> =>
  Effect.map(Tools.make(session, { serveStale: options.serveStaleLists, retry: options.retry }), (part) => ({
    part,
    service: toolsOf(session, part, options)
  }))

/** Drops a lazily built part's cached list, when it was built. */
const invalidateOf = <A extends { readonly list: { readonly invalidate: Effect.Effect<void> } }>(
  part: OnFirstUse.Part<A>
) => Effect.suspend(() => part.now()?.list.invalidate ?? Effect.void)

/** The resources over a session, built at their first use. */
export const resources = (
  session: SessionService,
  options: ListsOptions = {}
): Effect.Effect<ResourcesService, never, Scope.Scope> =>
  Effect.map(Effect.scope, (scope) => {
    const part = OnFirstUse.part(() => Resources.make(session, { serveStale: options.serveStaleLists }), scope)
    return {
      list: Effect.flatMap(part.get, (built) => built.list.get),
      stream: Stream.unwrap(Effect.map(part.get, (built) => built.stream)),
      templates: Effect.flatMap(part.get, (built) => built.templates),
      read: (uri, call) => Effect.flatMap(part.get, (built) => built.read(uri, call)),
      invalidate: invalidateOf(part)
    }
  })

/** The prompts over a session, built at their first use. */
export const prompts = (
  session: SessionService,
  options: ListsOptions = {}
): Effect.Effect<PromptsService, never, Scope.Scope> =>
  Effect.map(Effect.scope, (scope) => {
    const part = OnFirstUse.part(() => Prompts.make(session, { serveStale: options.serveStaleLists }), scope)
    return {
      list: Effect.flatMap(part.get, (built) => built.list.get),
      get: (name, args, call) => Effect.flatMap(part.get, (built) => built.get(name, args, call)),
      complete: (params) => Effect.flatMap(part.get, (built) => built.complete(params)),
      invalidate: invalidateOf(part)
    }
  })
