/**
 * The gateway's audit log: one entry for every call a client makes through it (a tool call, a prompt,
 * a resource read), saying who made it, which server answered, how it ended and how long it took.
 * Arguments are masked (their names kept, their values replaced) unless the log is told to keep them.
 *
 * *When to use*: provide {@link layerFile} (JSON lines, appended) or {@link layer} (entries to your own
 * sink) where the gateway is served; without an `AuditLog` in context nothing is recorded.
 *
 * *Gotchas*: an entry is written after its call ends, cancelled calls included; a sink that fails
 * loses that entry (logged as a warning), never the call.
 *
 * @example
 * ```ts
 * import { AuditLog, McpGateway } from "@effect-mcp/gateway"
 * import { NodeFileSystem } from "@effect/platform-node"
 * import { Layer } from "effect"
 *
 * const audit = AuditLog.layerFile("/var/log/mcp-audit.jsonl").pipe(Layer.provide(NodeFileSystem.layer))
 * ```
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

/**
 * One call, as the audit log records it.
 *
 * @since 0.1.0
 * @category models
 */
export const Entry = Schema.Struct({
  /** When the call ended (ISO 8601). */
  time: Schema.String,
  /** Who made it: the principal's id and how it was identified. */
  principal: Schema.String,
  principalKind: Schema.String,
  method: Schema.String,
  /** The server that answered, when the gateway could tell. */
  server: Schema.optionalWith(Schema.String, { exact: true }),
  /** The tool or prompt (host-wide name) or the resource's URI. */
  name: Schema.String,
  /** `ok`; `tool_error` (a result with `isError`); `error` (a JSON-RPC error); `cancelled`. */
  outcome: Schema.Literal("ok", "tool_error", "error", "cancelled"),
  /** The JSON-RPC error, for `error`. */
  error: Schema.optionalWith(Schema.Struct({ code: Schema.Number, message: Schema.String }), { exact: true }),
  durationMs: Schema.Number,
  /** The call's arguments: each value `"[masked]"` unless the log keeps them. */
  arguments: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { exact: true })
})

/**
 * @since 0.1.0
 * @category models
 */
export type Entry = typeof Entry.Type

/**
 * Where entries go.
 *
 * @since 0.1.0
 * @category models
 */
export interface AuditLogService {
  readonly write: (entry: Entry) => Effect.Effect<void, unknown>
  /** Whether arguments are recorded as given (otherwise each value is masked). Default: false. */
  readonly keepArguments: boolean
}

/**
 * The audit log the gateway writes to, when one is provided.
 *
 * @since 0.1.0
 * @category services
 */
export class AuditLog extends Context.Tag("@effect-mcp/gateway/AuditLog")<AuditLog, AuditLogService>() {}

/**
 * Options of an audit log.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Record arguments as given instead of masked. Default: false. */
  readonly keepArguments?: boolean
}

/**
 * An audit log that hands each entry to `write`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  write: (entry: Entry) => Effect.Effect<void, unknown>,
  options: Options = {}
): Layer.Layer<AuditLog> => Layer.succeed(AuditLog, { write, keepArguments: options.keepArguments === true })

/**
 * An audit log appended to `path` as JSON lines (the file created when missing, mode 0600: entries
 * name callers). Writes are serialized, so lines never interleave.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFile = (path: string, options: Options = {}): Layer.Layer<AuditLog, never, FileSystem.FileSystem> =>
  Layer.scoped(
    AuditLog,
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const lock = yield* Effect.makeSemaphore(1)
      const encode = Schema.encodeSync(Schema.parseJson(Entry))
      const write = (entry: Entry) =>
        lock.withPermits(1)(fs.writeFileString(path, `${encode(entry)}\n`, { flag: "a", mode: 0o600 }))
      return { write, keepArguments: options.keepArguments === true }
    })
  )

/**
 * The arguments as an entry records them: as given, or each value masked.
 *
 * @since 0.1.0
 * @category redaction
 */
export const recorded = (
  args: Readonly<Record<string, unknown>> | undefined,
  keep: boolean
): Readonly<Record<string, unknown>> | undefined =>
  args === undefined || keep ? args : Object.fromEntries(Object.keys(args).map((key) => [key, "[masked]"]))
