/**
 * The client's wiring: the session, the handler services a host provided (as capabilities and as
 * served requests), and each feature over the session, assembled into the `McpClient` service.
 */

import * as PlainForm from "@effect-mcp/jsonrpc/PlainForm"
import { McpApps, type McpSchema, type Methods } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import { clientCapabilities, Elicitation, Roots, Sampling } from "../Capabilities.js"
import type { InitializeError, RequestError } from "../McpError.js"
import { EXTENSION as SKILLS_EXTENSION } from "../Skills.js"
import type { Transport } from "../Transport.js"
import type {
  CallOptions,
  McpClientOptions,
  McpClientService,
  SkillsService,
  StartRequest,
  TasksService,
  ToolCallEvent
} from "./api.js"
import { toRequestOptions } from "./features/callOptions.js"
import * as ClientTasks from "./features/clientTasks.js"
import * as Notifications from "./features/notifications.js"
import * as ServerRequests from "./features/serverRequests.js"
import * as Services from "./features/services.js"
import { viaStart } from "./plainStart.js"
import { request as sessionRequest, startPrepared } from "./session/request.js"
import * as Session from "./session/session.js"

const DEFAULT_CLIENT_INFO: McpSchema.Implementation = { name: "effect-mcp", version: "0.1.0" }
const DEFAULT_REQUEST_TIMEOUT = "60 seconds"

/** The MCP Apps extension's declaration, when the options ask for it. */
const appsExtension = (apps: McpClientOptions["mcpApps"]): McpSchema.ClientCapabilities["extensions"] =>
  apps === undefined || apps === false
    ? {}
    : { [McpApps.EXTENSION]: apps === true ? { mimeTypes: [McpApps.MIME_TYPE] } : apps }

/**
 * Starts a session over the transport in context: the handler services in context served (and
 * declared as capabilities), then the handshake; a keep-alive when asked for. It ends with the scope.
 */
export const startSession = (
  options: McpClientOptions = {}
): Effect.Effect<Session.SessionService, InitializeError, Transport | Scope.Scope> =>
  Effect.gen(function* () {
    const handlers = {
      sampling: yield* Effect.serviceOption(Sampling),
      elicitation: yield* Effect.serviceOption(Elicitation),
      roots: yield* Effect.serviceOption(Roots)
    }
    const clientTasks = options.clientTasks
    // The extensions this client implements are declared beside the handlers' capabilities.
    const capabilities: McpSchema.ClientCapabilities = {
      ...clientCapabilities(handlers, clientTasks !== undefined),
      extensions: { [SKILLS_EXTENSION]: {}, ...appsExtension(options.mcpApps) }
    }
    const built = yield* Session.make({
      server: options.name,
      clientInfo: options.clientInfo ?? DEFAULT_CLIENT_INFO,
      protocolVersion: options.protocolVersion ?? "auto",
      requestTimeout: options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT,
      sessionRetries: options.sessionRetries ?? 1,
      probeTimeout: options.probeTimeout,
      maxInputRounds: options.maxInputRounds ?? 10,
      capabilities,
      serve: ServerRequests.serveWith(handlers),
      retry: options.retry,
      maxInFlight: options.maxInFlight,
      maxQueued: options.maxQueued,
      reattach: options.reattach
    })
    const session = built.service
    // Server-to-client requests, for the capabilities the provided handlers declare. Registered
    // before the handshake: a server may ask as soon as it has seen notifications/initialized.
    const tasks = clientTasks === undefined ? undefined : yield* ClientTasks.make(session, clientTasks)
    yield* ServerRequests.register({ session, ...(tasks === undefined ? {} : { tasks }) }, handlers)
    yield* built.start
    if (options.keepAlive !== undefined) {
      const { interval, timeout } = options.keepAlive
      yield* Schedule.isSchedule(interval)
        ? built.keepAlive(interval, timeout ?? options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT)
        : built.keepAlive(Schedule.spaced(interval), timeout ?? interval)
    }
    return session
  })

/** A session started over the transport in context, and a client over it. */
export const make = (
  options: McpClientOptions = {}
): Effect.Effect<McpClientService, InitializeError, Transport | Scope.Scope> =>
  Effect.flatMap(startSession(options), (session) => fromSession(session, options))

/** The client's `request` over a session, with its plain form over the session's. */
const requestOf = (session: Session.SessionService): McpClientService["request"] => {
  const request = <M extends Methods.RequestMethodName>(
    method: M,
    params: Methods.RequestParamsOf<M> | undefined,
    call?: CallOptions
  ): Effect.Effect<Methods.ResultOf<M>, RequestError> =>
    sessionRequest(session, method, params, toRequestOptions(call, session.established().protocolVersion))
  const start = PlainForm.of(session.execute)
  if (start === undefined) return request
  const startRequest: StartRequest = (method, params, call, onDone) =>
    startPrepared<{ readonly request: Session.Prepared }, Methods.ResultOf<typeof method>, RequestError>(
      start,
      Either.map(
        session.prepare(method, params, toRequestOptions(call, session.established().protocolVersion)),
        (prepared) => ({ request: prepared })
      ),
      (_, raw) => session.decode(method, raw),
      onDone
    )
  const viaStartRequest = <M extends Methods.RequestMethodName>(
    method: M,
    params: Methods.RequestParamsOf<M> | undefined,
    call?: CallOptions
  ): Effect.Effect<Methods.ResultOf<M>, RequestError> =>
    viaStart(
      (onDone) => startRequest(method, params, call, onDone),
      () => request(method, params, call)
    )
  return PlainForm.attach(viaStartRequest, startRequest)
}

/** The features a client is assembled from. */
export interface Features {
  readonly tools: Services.ToolsService
  readonly resources: Services.ResourcesService
  readonly prompts: Services.PromptsService
  readonly tasks: TasksService
  readonly skills: SkillsService
}

/** The client over a session, with its features built from the options. */
export const fromSession = (
  session: Session.SessionService,
  options: McpClientOptions = {}
): Effect.Effect<McpClientService, never, Scope.Scope> =>
  Effect.gen(function* () {
    const tools = (yield* Services.tools(session, options)).service
    const features: Features = {
      tools,
      resources: yield* Services.resources(session, options),
      prompts: yield* Services.prompts(session, options),
      tasks: yield* Services.tasks(session, tools),
      skills: yield* Services.skills(session)
    }
    return yield* assemble(session, features)
  })

/** The client's service over a session and its features: the rest of what a client does, built here. */
export const assemble = (
  session: Session.SessionService,
  features: Features
): Effect.Effect<McpClientService, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { tools, resources, prompts, tasks, skills } = features
    const request = requestOf(session)
    const listChanged = yield* Notifications.listChanges(session, session.accepts, {
      tools: tools.invalidate,
      // Skills are resources: a changed resource list may be changed skills.
      resources: Effect.zipRight(resources.invalidate, skills.invalidate),
      prompts: prompts.invalidate
    })
    const callTool = tools.call

    const service = {
      get name() {
        return session.server
      },
      get serverInfo() {
        return session.established().serverInfo
      },
      get serverCapabilities() {
        return session.established().serverCapabilities
      },
      get instructions() {
        return session.established().instructions
      },
      get protocolVersion() {
        return session.established().protocolVersion
      },
      get era() {
        return session.era()
      },
      state: session.state,
      stateChanges: session.stateChanges,
      savedSession: session.saved,
      ping: (call) => Effect.asVoid(request("ping", undefined, call)),
      tools: tools.list,
      toolsStream: tools.stream,
      callTool,
      tasks,
      callToolStream: (tool, args, call) =>
        Services.eventStream(
          (emit) =>
            callTool(tool, args, { ...call, onProgress: (progress) => emit({ _tag: "Progress", ...progress }) }),
          (result): ToolCallEvent => ({ _tag: "Result", result })
        ),
      resources: resources.list,
      resourcesStream: resources.stream,
      resourceTemplates: resources.templates,
      readResource: resources.read,
      subscribe: session.subscribe,
      unsubscribe: session.unsubscribe,
      resourceUpdates: Notifications.notificationsOf(session, "notifications/resources/updated", session.accepts),
      prompts: prompts.list,
      getPrompt: prompts.get,
      complete: prompts.complete,
      skills,
      setLoggingLevel: (level) => Effect.asVoid(request("logging/setLevel", { level })),
      logMessages: Notifications.notificationsOf(session, "notifications/message"),
      listChanged,
      notifications: session.notifications,
      observe: Notifications.observeOf(session, session.accepts),
      request,
      notify: session.notify,
      stats: session.stats
    } satisfies McpClientService
    return service
  })
