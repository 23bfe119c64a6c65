/**
 * What the peer cannot use from the other side, none of it fatal: an answer to no outstanding
 * request (`unknown-id`), an item that is not a JSON-RPC message (`malformed`; a server answers it
 * with -32700 or -32600), and a malformed answer to an outstanding request (`malformed-response`,
 * which fails that request with a `DecodeError`). Each is counted by kind (the peer's `stats`),
 * logged at warning level with the server's name, and added to the
 * `effect_mcp_protocol_violations` metric.
 */
import { JsonRpc, McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import * as ParseResult from "effect/ParseResult"
import { DecodeError } from "../../PeerError.js"
import type { Incoming } from "../../Transport.js"
import type { Pending } from "./pending.js"
import type { Violation } from "./types.js"

/** An inbound item that is not a valid JSON-RPC message. */
export type Malformed = Extract<Incoming, { readonly _tag: "Malformed" }>

/** The violations part of the inbound side. */
export interface Violations {
  /** How many of each kind so far: one record, kept up to date (`stats` copies it). */
  readonly counts: Readonly<Record<Violation, number>>
  /** Counts, logs and meters one violation. */
  readonly report: (kind: Violation, detail: unknown) => Effect.Effect<void>
  /** What a malformed item means, acted on. */
  readonly onMalformed: (item: Malformed) => Effect.Effect<void>
}

/** What the violations part needs. */
export interface ViolationsOptions {
  readonly server: () => string
  /** The outstanding requests, one of which a malformed answer fails. */
  readonly pending: Pending
  /** Writes an error response (a write that fails is ignored). */
  readonly reply: (message: JsonRpc.JSONRPCMessage) => Effect.Effect<void>
  /** Answer malformed requests with a JSON-RPC error (a server's duty). */
  readonly answerMalformed: boolean
}

const violationsCounter = Metric.counter("effect_mcp_protocol_violations", {
  description: "Inbound messages the client could not use: unknown ids, malformed messages"
})

const idOf = (raw: unknown): JsonRpc.RequestId | undefined => {
  if (!McpSchema.isJsonObject(raw)) return undefined
  const id = raw.id
  return typeof id === "string" || (typeof id === "number" && Number.isInteger(id)) ? id : undefined
}

/** The violations part, with its counts at zero. */
export const make = (options: ViolationsOptions): Violations => {
  const { server, pending, reply } = options
  const counts: Record<Violation, number> = { "unknown-id": 0, malformed: 0, "malformed-response": 0 }

  const report = (kind: Violation, detail: unknown) => {
    counts[kind]++
    return Effect.logWarning(`mcp protocol violation (${kind}) from ${server()}`, detail).pipe(
      Effect.zipRight(Metric.increment(Metric.tagged(violationsCounter, "kind", kind)))
    )
  }

  const onMalformed = (item: Malformed): Effect.Effect<void> => {
    const id = idOf(item.raw)
    const entry = id === undefined ? undefined : pending.get(id)
    const looksLikeResponse = McpSchema.isJsonObject(item.raw) && !Object.hasOwn(item.raw, "method")
    if (entry !== undefined && looksLikeResponse) {
      const error = new DecodeError({
        server: server(),
        method: entry.method,
        issue: `malformed response: ${ParseResult.TreeFormatter.formatErrorSync(item.error)}`
      })
      return Effect.zipRight(
        report("malformed-response", item.raw),
        Effect.sync(() => pending.complete(entry, Exit.fail(error)))
      )
    }
    if (!options.answerMalformed || looksLikeResponse) return report("malformed", item.raw)
    const code = item.notJson === true ? JsonRpc.ErrorCode.ParseError : JsonRpc.ErrorCode.InvalidRequest
    const message = item.notJson === true ? "Parse error" : "Invalid request"
    return Effect.zipRight(
      report("malformed", item.raw),
      reply({ jsonrpc: "2.0", ...(id === undefined ? {} : { id }), error: { code, message } })
    )
  }

  return { counts, report, onMalformed }
}
