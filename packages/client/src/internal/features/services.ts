/**
 * The features as services: tools, resources, prompts, tasks and skills, each built over a session
 * from the options it reads, the way `McpClient` takes them from context (so a program can replace
 * or decorate one). All but the tools are built at their first use.
 */

import * as PlainForm from "@effect-mcp/jsonrpc/PlainForm"
import type { McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Mailbox from "effect/Mailbox"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type {
  McpClientOptions,
  McpClientService,
  SkillsService,
  StartCallTool,
  TaskRunEvent,
  TasksService
} from "../api.js"
import * as OnFirstUse from "../onFirstUse.js"
import { viaStart } from "../plainStart.js"
import { startPrepared } from "../session/request.js"
import type { SessionService } from "../session/types.js"
import { toRequestOptions } from "./callOptions.js"
import * as ExtensionRequests from "./extensionRequests.js"
import * as Lists from "./lists.js"
import * as Notifications from "./notifications.js"
import * as Prompts from "./prompts.js"
import * as Resources from "./resources.js"
import * as Skills from "./skills.js"
import * as TaskProgress from "./taskProgress.js"
import * as Tasks from "./tasks.js"
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
    call:
      startCall === undefined
        ? call
        : PlainForm.attach<ToolsService["call"], StartCallTool>(
            (tool, args, options) =>
              viaStart(
                (onDone) => startCall(tool, args, options, onDone),
                () => call(tool, args, options)
              ),
            startCall
          ),
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
  Effect.flatMap(Tools.make(session, { retry: options.retry }), (part) =>
    Effect.map(staleIf(session, options, "tools")(toolsOf(session, part, options)), (service) => ({ part, service }))
  )

/** `serveStaleLists` is sugar: the service served stale (`Lists.servingStale`) when it is set. */
const staleIf =
  (session: SessionService, options: ListsOptions, what: string) =>
  <A, S extends Lists.Listing<A>>(service: S & Lists.Listing<A>): Effect.Effect<S> =>
    options.serveStaleLists === true ? Lists.servingStale(() => session.server, what)(service) : Effect.succeed(service)

/** Drops a lazily built part's cached list, when it was built. */
const invalidateOf = <A extends { readonly list: { readonly invalidate: Effect.Effect<void> } }>(
  part: OnFirstUse.Part<A>
) => Effect.suspend(() => part.now()?.list.invalidate ?? Effect.void)

/** The resources over a session, built at their first use. */
export const resources = (
  session: SessionService,
  options: ListsOptions = {}
): Effect.Effect<ResourcesService, never, Scope.Scope> =>
  Effect.flatMap(Effect.scope, (scope) => {
    const part = OnFirstUse.part(() => Resources.make(session), scope)
    return staleIf(
      session,
      options,
      "resources"
    )<McpSchema.Resource, ResourcesService>({
      list: Effect.flatMap(part.get, (built) => built.list.get),
      stream: Stream.unwrap(Effect.map(part.get, (built) => built.stream)),
      templates: Effect.flatMap(part.get, (built) => built.templates),
      read: (uri, call) => Effect.flatMap(part.get, (built) => built.read(uri, call)),
      invalidate: invalidateOf(part)
    })
  })

/** The prompts over a session, built at their first use. */
export const prompts = (
  session: SessionService,
  options: ListsOptions = {}
): Effect.Effect<PromptsService, never, Scope.Scope> =>
  Effect.flatMap(Effect.scope, (scope) => {
    const part = OnFirstUse.part(() => Prompts.make(session), scope)
    return staleIf(
      session,
      options,
      "prompts"
    )<McpSchema.Prompt, PromptsService>({
      list: Effect.flatMap(part.get, (built) => built.list.get),
      get: (name, args, call) => Effect.flatMap(part.get, (built) => built.get(name, args, call)),
      complete: (params) => Effect.flatMap(part.get, (built) => built.complete(params)),
      invalidate: invalidateOf(part)
    })
  })

/**
 * Runs `run` (which emits events) as a Stream of its events, then its result; ending the stream
 * early interrupts it.
 */
export const eventStream = <Event, A, E>(
  run: (emit: (event: Event) => Effect.Effect<void>) => Effect.Effect<A, E>,
  last: (result: A) => Event
): Stream.Stream<Event, E> =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const events = yield* Mailbox.make<Event, E>()
      yield* run((event) => Effect.asVoid(events.offer(event))).pipe(
        Effect.flatMap((result) => events.offer(last(result))),
        Mailbox.into(events),
        Effect.forkScoped
      )
      return Mailbox.toStream(events)
    })
  )

/** The tasks over a session and its tools; their progress is followed once a caller first asks for it. */
export const tasks = (
  session: SessionService,
  tools: Pick<ToolsService, "definition" | "checkOutput">
): Effect.Effect<TasksService, never, Scope.Scope> =>
  Effect.map(Effect.scope, (scope) => {
    // Described when first run: built now, every client would hold it, read or not.
    const statuses = Notifications.notificationsOf(session, "notifications/tasks/status").pipe(
      Stream.map(({ _meta: _, ...task }) => task)
    )
    const part = Tasks.make(
      session,
      tools,
      statuses,
      OnFirstUse.part(() => TaskProgress.make(session), scope)
    )
    return {
      callTool: part.callToolAsTask,
      run: part.runToolAsTask,
      runStream: (tool, args, options) =>
        eventStream(
          (emit) =>
            part.runToolAsTask(tool, args, {
              ...options,
              onStatus: (task) => emit({ _tag: "Status", task }),
              onProgress: (progress) => emit({ _tag: "Progress", ...progress })
            }),
          (result): TaskRunEvent => ({ _tag: "Result", result })
        ),
      get: part.getTask,
      result: part.toolTaskResult,
      list: Effect.suspend(() => Tasks.collect(part.tasksStream)),
      stream: part.tasksStream,
      cancel: part.cancelTask,
      status: part.taskStatus,
      statuses
    }
  })

/** The skills over a session, built at their first use. */
export const skills = (session: SessionService): Effect.Effect<SkillsService, never, Scope.Scope> =>
  Effect.map(Effect.scope, (scope) => {
    const part = OnFirstUse.part(() => Skills.make(session, ExtensionRequests.make(session)), scope)
    return {
      list: Effect.flatMap(part.get, (built) => built.list.get),
      get: (uri, call) => Effect.flatMap(part.get, (built) => built.get(uri, call)),
      load: (nameOrUri, call) => Effect.flatMap(part.get, (built) => built.load(nameOrUri, call)),
      invalidate: invalidateOf(part)
    }
  })
