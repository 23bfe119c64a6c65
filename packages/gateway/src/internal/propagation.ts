/**
 * What of a client's `_meta` the gateway carries into the servers' requests made for it: the W3C
 * trace context, continued (the servers' requests are spans of the gateway's in the caller's
 * trace), and the caller's own keys as given. What is the gateway's to answer stays with it: the
 * progress token (the gateway relays progress under it), the keys the protocol reserves (its
 * `modelcontextprotocol`/`mcp` prefixes: a revision's envelope, related tasks, each hop's own) and
 * the gateway's own (`effect-mcp/…`, a view's address).
 */
import * as Peer from "@effect-mcp/jsonrpc/Peer"
import { McpSchema } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Tracer from "effect/Tracer"

/** A W3C `traceparent` (version 00 and the forward-compatible others): trace id, span id, flags. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/

/** The caller's span as a parent, from a well-formed `traceparent` (all-zero ids and version ff are invalid). */
export const parentOf = (traceparent: unknown): Tracer.ExternalSpan | undefined => {
  if (typeof traceparent !== "string") return undefined
  const match = TRACEPARENT.exec(traceparent)
  if (match === null) return undefined
  const [, version = "", traceId = "", spanId = "", flags = ""] = match
  if (version === "ff" || (version === "00" && traceparent.length !== 55)) return undefined
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined
  return Tracer.externalSpan({ traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 })
}

/** A key the protocol reserves: a prefix one of whose labels is `modelcontextprotocol` or `mcp`. */
const reserved = (key: string): boolean => {
  const slash = key.lastIndexOf("/")
  if (slash < 0) return false
  return key
    .slice(0, slash)
    .split(/[./]/)
    .some((label) => label === "modelcontextprotocol" || label === "mcp")
}

/** Keys the gateway answers for itself. */
const own = new Set(["progressToken", "traceparent", "tracestate"])

/** The caller's keys the servers are given as they are. */
export const carried = (meta: Peer.WireObject): Peer.WireObject | undefined => {
  const entries = Object.entries(meta).filter(
    ([key]) => !own.has(key) && !key.startsWith("effect-mcp/") && !reserved(key)
  )
  return entries.length === 0 ? undefined : Object.fromEntries(entries)
}

/**
 * Runs the work for `request` with what of its `_meta` goes on to the servers: its keys
 * (`Peer.PropagatedMeta`) and, under a well-formed `traceparent`, the caller's span as the parent
 * (with its `tracestate`).
 */
export const within =
  (request: Peer.InboundRequest) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
    const meta = request.params?._meta
    if (!McpSchema.isJsonObject(meta)) return effect
    const keys = carried(meta)
    const parent = parentOf(meta.traceparent)
    const withKeys = keys === undefined ? effect : Effect.provideService(effect, Peer.PropagatedMeta, keys)
    if (parent === undefined) return withKeys
    const state = meta.tracestate
    const withState =
      typeof state === "string" && state.length > 0 ? Effect.provideService(withKeys, Peer.TraceState, state) : withKeys
    return Effect.withParentSpan(withState, parent)
  }
