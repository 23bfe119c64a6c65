/**
 * What `effect-mcp serve` tells an operator, and the limits they set: the audit log
 * (`--audit-log FILE`, `--audit-arguments`), OpenTelemetry export over OTLP/HTTP (`--otlp URL`, or
 * the standard `OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME`:
 * the gateway's and the host's spans, the caller's trace continued into the servers, and the
 * metrics), the token of `/metrics` (`EFFECT_MCP_METRICS_TOKEN`), and the HTTP limits
 * (`--max-body-bytes`, `--session-idle-timeout`, `--max-sessions`).
 */
import * as Options from "@effect/cli/Options"
import * as Otlp from "@effect/opentelemetry/Otlp"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { AuditLog, type NodeStreamableHttpServer } from "@effect-mcp/gateway"
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { UsageError } from "../CliError.js"
import { clientInfo } from "../Connect.js"

/** The options of `serve` for operators. */
export const options = {
  auditLog: Options.file("audit-log").pipe(
    Options.withDescription(
      "Append an audit entry per call (caller, server, tool, outcome, duration) to FILE as JSON lines; arguments masked unless --audit-arguments"
    ),
    Options.optional
  ),
  auditArguments: Options.boolean("audit-arguments").pipe(
    Options.withDescription("Record the calls' arguments as given in the audit log (they may hold secrets)")
  ),
  otlp: Options.text("otlp").pipe(
    Options.withDescription(
      "Export traces and metrics over OTLP/HTTP (JSON) to this collector URL, e.g. http://127.0.0.1:4318 (default: OTEL_EXPORTER_OTLP_ENDPOINT)"
    ),
    Options.optional
  ),
  maxBodyBytes: Options.integer("max-body-bytes").pipe(
    Options.withDescription("With --port: the largest request body read; larger is answered 413 (default 10485760)"),
    Options.optional
  ),
  sessionIdleTimeout: Options.integer("session-idle-timeout").pipe(
    Options.withDescription(
      "With --port: SECONDS a 2025-11-25 session lives with no request in progress and no stream connected (default 1800)"
    ),
    Options.optional
  ),
  maxSessions: Options.integer("max-sessions").pipe(
    Options.withDescription(
      "With --port: the most 2025-11-25 sessions at once; a new one ends the longest idle, 503 when all are busy (default 10000)"
    ),
    Options.optional
  )
}

/** The values of {@link options}. */
export interface Flags {
  readonly auditLog: Option.Option<string>
  readonly auditArguments: boolean
  readonly otlp: Option.Option<string>
  readonly maxBodyBytes: Option.Option<number>
  readonly sessionIdleTimeout: Option.Option<number>
  readonly maxSessions: Option.Option<number>
}

/** The HTTP-only flags given, to refuse them on stdio. */
export const httpOnly = (flags: Flags): ReadonlyArray<string> => [
  ...(Option.isSome(flags.maxBodyBytes) ? ["--max-body-bytes"] : []),
  ...(Option.isSome(flags.sessionIdleTimeout) ? ["--session-idle-timeout"] : []),
  ...(Option.isSome(flags.maxSessions) ? ["--max-sessions"] : [])
]

/** A limit that must be a positive integer. */
const positive = (flag: string, value: Option.Option<number>) =>
  Option.isSome(value) && value.value <= 0
    ? Effect.fail(new UsageError({ reason: `--${flag} must be a positive integer, not ${value.value}` }))
    : Effect.succeed(Option.getOrUndefined(value))

/**
 * The HTTP listener's options the flags give: the limits, and `/metrics` behind
 * `EFFECT_MCP_METRICS_TOKEN`. Beyond loopback `/metrics` is closed without that token.
 */
export const httpOptions = (
  flags: Flags,
  host: string,
  loopback: boolean
): Effect.Effect<Partial<NodeStreamableHttpServer.Options>, UsageError> =>
  Effect.gen(function* () {
    const maxBodyBytes = yield* positive("max-body-bytes", flags.maxBodyBytes)
    const idle = yield* positive("session-idle-timeout", flags.sessionIdleTimeout)
    const maxSessions = yield* positive("max-sessions", flags.maxSessions)
    const token = yield* Config.option(Config.redacted("EFFECT_MCP_METRICS_TOKEN")).pipe(Effect.orDie)
    if (Option.isNone(token) && !loopback) {
      yield* Effect.logDebug(`/metrics on ${host} is closed: set EFFECT_MCP_METRICS_TOKEN to read it`)
    }
    const metricsToken = Option.isSome(token)
      ? Redacted.value(token.value)
      : loopback
        ? undefined
        : // Nobody knows this one: without a token of its own, /metrics beyond loopback answers 401.
          crypto.randomUUID()
    return {
      ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
      ...(idle === undefined ? {} : { sessionIdleTimeout: Duration.seconds(idle) }),
      ...(maxSessions === undefined ? {} : { maxSessions }),
      ...(metricsToken === undefined ? {} : { ops: { metricsToken } })
    }
  })

/** `k=v,k=v` (OTEL_EXPORTER_OTLP_HEADERS), values percent-decoded. */
const headersOf = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split(",")
      .map((pair) => pair.split("="))
      .filter((parts): parts is [string, ...Array<string>] => parts.length >= 2 && parts[0]?.trim() !== "")
      .map(([key, ...value]) => [key.trim(), decodeURIComponent(value.join("=").trim())])
  )

/** The OTLP exporter, when a collector is named: `--otlp`, else `OTEL_EXPORTER_OTLP_ENDPOINT`. */
const otlpLayer = (flags: Flags): Effect.Effect<Layer.Layer<never>, UsageError> =>
  Effect.gen(function* () {
    const fromEnv = yield* Config.option(Config.string("OTEL_EXPORTER_OTLP_ENDPOINT")).pipe(Effect.orDie)
    const endpoint = Option.orElse(flags.otlp, () => fromEnv)
    if (Option.isNone(endpoint)) return Layer.empty
    const url = URL.canParse(endpoint.value) ? new URL(endpoint.value) : undefined
    if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
      return yield* new UsageError({
        reason: `--otlp needs an http(s) URL of an OTLP/HTTP collector, not ${endpoint.value}`
      })
    }
    const headers = yield* Config.option(Config.redacted("OTEL_EXPORTER_OTLP_HEADERS")).pipe(Effect.orDie)
    const serviceName = yield* Config.string("OTEL_SERVICE_NAME").pipe(
      Config.withDefault("effect-mcp-gateway"),
      Effect.orDie
    )
    return Otlp.layerJson({
      baseUrl: endpoint.value.replace(/\/+$/, ""),
      resource: { serviceName, serviceVersion: clientInfo.version },
      ...(Option.isSome(headers) ? { headers: headersOf(Redacted.value(headers.value)) } : {})
    }).pipe(Layer.provide(NodeHttpClient.layer))
  })

/**
 * The services the flags ask for, around the whole gateway (its host included): the audit log and
 * the OTLP exporter (which flushes what it holds when the gateway stops).
 */
export const layer = (flags: Flags): Effect.Effect<Layer.Layer<never, never, FileSystem.FileSystem>, UsageError> =>
  Effect.map(otlpLayer(flags), (otlp) =>
    Layer.merge(
      otlp,
      Option.match(flags.auditLog, {
        onNone: () => Layer.empty,
        onSome: (file) => AuditLog.layerFile(file, { keepArguments: flags.auditArguments })
      })
    )
  )
