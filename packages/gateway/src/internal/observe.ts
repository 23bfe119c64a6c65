/**
 * What the gateway tells about the requests it serves: Effect metrics (requests by method, server
 * and outcome, their durations; sessions; the servers' restarts), a span per request (the caller's
 * span its parent, the servers' requests its children) when someone traces, and an audit entry per
 * call when an {@link AuditLog.AuditLog} is provided. One hook, {@link request}, wraps every
 * catalog handler, whichever revision or transport the request came by.
 */
import type { McpHost } from "@effect-mcp/host"
import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import { JsonRpcFailure } from "@effect-mcp/jsonrpc/PeerError"
import * as Tracing from "@effect-mcp/jsonrpc/Tracing"
import { McpSchema } from "@effect-mcp/protocol"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricLabel from "effect/MetricLabel"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as AuditLog from "../AuditLog.js"
import { CurrentPrincipal } from "./principal.js"
import { promptOf, serverOfTool, serverOfUri } from "./routing.js"

/** Requests served, by `method`, `server` (empty when none) and `outcome`. */
export const requests = Metric.counter("mcp_gateway_requests_total", {
  description: "Requests the gateway served, by method, server and outcome",
  incremental: true
})

/** How long requests took, in seconds, by `method`. */
export const durations = Metric.histogram(
  "mcp_gateway_request_duration_seconds",
  MetricBoundaries.exponential({ start: 0.001, factor: 4, count: 9 }),
  "How long the gateway's requests took, in seconds, by method"
)

/** The 2025-11-25 sessions open. */
export const sessions = Metric.gauge("mcp_gateway_sessions", {
  description: "The gateway's open 2025-11-25 sessions"
})

/** Times a server was restarted after its session died, by `server`. */
export const restarts = Metric.counter("mcp_gateway_server_restarts_total", {
  description: "Times a server behind the gateway was restarted after its session died, by server",
  incremental: true
})

/** The methods that are calls: each gets an audit entry. */
const CALLS: Readonly<Record<string, "name" | "uri">> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri"
}

/** What a request names, and the server it goes to (when the gateway can tell). */
const targetOf = (host: McpHost.McpHostService, method: string, params: Peer.WireObject | undefined) => {
  const key = CALLS[method]
  const named = key === undefined ? undefined : params?.[key]
  if (typeof named !== "string") return Effect.succeed(undefined)
  const server =
    method === "tools/call"
      ? serverOfTool(host, named)
      : method === "prompts/get"
        ? Effect.map(promptOf(host, named), (prompt) => prompt?.server)
        : serverOfUri(host, named)
  return Effect.map(server, (found) => ({ name: named, server: found }))
}

type Outcome = AuditLog.Entry["outcome"]

/** How a request ended, and its JSON-RPC error when it failed. */
const outcomeOf = (
  exit: Exit.Exit<unknown, unknown>
): { outcome: Outcome; error?: { code: number; message: string } } => {
  if (Exit.isSuccess(exit)) {
    const value = exit.value
    return { outcome: McpSchema.isJsonObject(value) && value.isError === true ? "tool_error" : "ok" }
  }
  if (Cause.isInterruptedOnly(exit.cause)) return { outcome: "cancelled" }
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure) && failure.value instanceof JsonRpcFailure) {
    return { outcome: "error", error: { code: failure.value.code, message: failure.value.errorMessage } }
  }
  return { outcome: "error", error: { code: -32603, message: Cause.pretty(exit.cause).split("\n")[0] ?? "" } }
}

/** Writes the audit entry of a call, when there is an audit log; a log that fails loses the entry only. */
const audit = (
  method: string,
  target: { readonly name: string; readonly server: string | undefined },
  params: Peer.WireObject | undefined,
  exit: Exit.Exit<unknown, unknown>,
  durationMs: number
) =>
  Effect.flatMap(Effect.serviceOption(AuditLog.AuditLog), (log) => {
    if (Option.isNone(log)) return Effect.void
    return Effect.gen(function* () {
      const principal = yield* FiberRef.get(CurrentPrincipal)
      const ended = outcomeOf(exit)
      const args = params?.arguments
      const kept = AuditLog.recorded(McpSchema.isJsonObject(args) ? args : undefined, log.value.keepArguments)
      const entry: AuditLog.Entry = {
        time: new Date(yield* Clock.currentTimeMillis).toISOString(),
        principal: principal.id,
        principalKind: principal.kind,
        method,
        ...(target.server === undefined ? {} : { server: target.server }),
        name: target.name,
        outcome: ended.outcome,
        ...(ended.error === undefined ? {} : { error: ended.error }),
        durationMs,
        ...(kept === undefined ? {} : { arguments: kept })
      }
      yield* Effect.catchAllCause(log.value.write(entry), (cause) =>
        Effect.logWarning("the gateway's audit log could not record a call", cause)
      )
    })
  })

/**
 * Runs the handler of `request` observed: counted and timed by method, server and outcome, in a
 * span of its own when traced, and audited when it is a call.
 */
export const request =
  (host: McpHost.McpHostService, method: string, inbound: Peer.InboundRequest) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.flatMap(targetOf(host, method, inbound.params), (target) =>
      Effect.flatMap(Clock.currentTimeMillis, (started) =>
        effect.pipe(
          Tracing.spanWhenTraced(`mcp.gateway ${method}`, {
            kind: "server",
            attributes: {
              "mcp.method": method,
              ...(target === undefined ? {} : { "mcp.name": target.name }),
              ...(target?.server === undefined ? {} : { "mcp.server": target.server })
            }
          }),
          Effect.onExit((exit) =>
            Effect.gen(function* () {
              const durationMs = (yield* Clock.currentTimeMillis) - started
              const { outcome } = outcomeOf(exit)
              yield* Metric.increment(
                Metric.taggedWithLabels(requests, [
                  MetricLabel.make("method", method),
                  MetricLabel.make("server", target?.server ?? ""),
                  MetricLabel.make("outcome", outcome)
                ])
              )
              yield* Metric.update(Metric.tagged(durations, "method", method), durationMs / 1000)
              if (target !== undefined) yield* audit(method, target, inbound.params, exit, durationMs)
            })
          )
        )
      )
    )

/** Counts the servers' restarts (each `Reconnecting`), for as long as the scope is open. */
export const countRestarts = (host: McpHost.McpHostService) =>
  host.statusChanges.pipe(
    Stream.filter(({ status }) => status._tag === "Reconnecting"),
    Stream.runForEach(({ server }) => Metric.increment(Metric.tagged(restarts, "server", server))),
    Effect.forkScoped
  )
