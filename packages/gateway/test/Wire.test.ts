/**
 * What the gateway does with anything at all on the wire (property-based): random JSON values,
 * request-shaped ones with any method, params and `jsonrpc` member, notifications and batches,
 * fed to `McpGateway.serve` over a raw in-memory pair, before or after the handshake. Every
 * request-shaped value (an object with a `method` and a string or integer `id`) gets exactly one
 * answer with its id; nothing else is answered except with -32600 (no id); the connection keeps
 * serving, and a `ping` after it all is answered. The host behind it has no servers.
 */
import { expect, layer } from "@effect/vitest"
import * as InMemoryTransport from "@effect-mcp/jsonrpc/InMemoryTransport"
import * as Transport from "@effect-mcp/jsonrpc/Transport"
import { JsonRpc } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import type * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { McpGateway, StdioServerTransport } from "../src/index.js"
import { gatewayHost } from "./support/gateway.js"

const runs = Number(process.env.PROP_RUNS ?? 40)

/** The longest a run waits for the gateway's answers (it answers at once: nothing is behind it). */
const WAIT = "5 seconds"

type Json = FastCheck.JsonValue

/** The gateway's methods, the client's, and a few that exist nowhere. */
const methods = FastCheck.oneof(
  FastCheck.constantFrom(
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "tasks/list",
    "sampling/createMessage",
    "notifications/progress"
  ),
  FastCheck.string()
)

/** Params: absent, an object (sometimes the right shape's members), or any JSON value. */
const params = FastCheck.oneof(
  FastCheck.constant(undefined),
  FastCheck.record(
    {
      name: FastCheck.oneof(FastCheck.string(), FastCheck.jsonValue()),
      uri: FastCheck.oneof(FastCheck.webUrl(), FastCheck.jsonValue()),
      level: FastCheck.constantFrom("debug", "info", "error", "loud"),
      cursor: FastCheck.oneof(FastCheck.string(), FastCheck.jsonValue()),
      arguments: FastCheck.jsonValue(),
      _meta: FastCheck.jsonValue()
    },
    { requiredKeys: [] }
  ),
  FastCheck.jsonValue()
)

/** An id of some kind, unique in its run where it is a valid one (ids must not be reused). */
const idKinds = FastCheck.constantFrom("integer", "string", "float", "null", "object", "absent")
const idOf = (kind: string, count: number): Json | undefined => {
  switch (kind) {
    case "integer":
      return count % 2 === 0 ? count : -count * 1_000_003
    case "string":
      return `request-${count}`
    case "float":
      return count + 0.5
    case "null":
      return null
    case "object":
      return { id: count }
    default:
      return undefined
  }
}

/** A message-like object's members; its id is given when the run's values are made. */
const messageLike = FastCheck.record(
  {
    jsonrpc: FastCheck.oneof(FastCheck.constant("2.0"), FastCheck.constant("2.0"), FastCheck.jsonValue()),
    method: FastCheck.oneof(methods, methods, FastCheck.jsonValue()),
    id: idKinds,
    params,
    result: FastCheck.jsonValue(),
    error: FastCheck.jsonValue()
  },
  { requiredKeys: ["method", "id"] }
)
type MessageLike = typeof messageLike extends FastCheck.Arbitrary<infer A> ? A : never

type Template =
  | { readonly _tag: "Json"; readonly value: Json }
  | { readonly _tag: "Message"; readonly members: MessageLike }
  | { readonly _tag: "Batch"; readonly items: ReadonlyArray<MessageLike> }

/** Anything: a JSON value, a message-like object (most often), or a batch of them. */
const template: FastCheck.Arbitrary<Template> = FastCheck.oneof(
  FastCheck.jsonValue().map((value) => ({ _tag: "Json" as const, value })),
  { arbitrary: messageLike.map((members) => ({ _tag: "Message" as const, members })), weight: 3 },
  FastCheck.array(messageLike, { minLength: 1, maxLength: 3 }).map((items) => ({ _tag: "Batch" as const, items }))
)

/** A run's values, each valid id distinct. */
const values = FastCheck.array(template, { maxLength: 12 }).map((templates) => {
  let count = 0
  const message = (members: MessageLike): Json => {
    const { id, params: given, ...rest } = members
    const value: Record<string, Json> = {}
    for (const [key, member] of Object.entries(rest)) if (member !== undefined) value[key] = member
    const idValue = idOf(id, ++count)
    if (idValue !== undefined) value.id = idValue
    if (given !== undefined) value.params = given
    return value
  }
  return templates.map(
    (entry): Json =>
      entry._tag === "Json" ? entry.value : entry._tag === "Message" ? message(entry.members) : entry.items.map(message)
  )
})

/** The id a request-shaped object must be answered with (an array in a batch is none: batches do not nest). */
const requestIdOf = (value: Json): ReadonlyArray<JsonRpc.RequestId> => {
  if (typeof value !== "object" || value === null || Array.isArray(value) || !Object.hasOwn(value, "method")) return []
  const id = value.id
  return typeof id === "string" || (typeof id === "number" && Number.isInteger(id)) ? [id] : []
}

/** The ids a value's requests must be answered with: one per request-shaped object (in a batch too). */
const requestIds = (value: Json): ReadonlyArray<JsonRpc.RequestId> =>
  Array.isArray(value) ? value.flatMap(requestIdOf) : requestIdOf(value)

const initialize = {
  jsonrpc: "2.0",
  id: "handshake",
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "wire-test", version: "0" }
  }
}

/** A response: a result or an error. */
const isAnswer = (message: JsonRpc.JSONRPCMessage): message is JsonRpc.JSONRPCResponse =>
  JsonRpc.isResultResponse(message) || JsonRpc.isErrorResponse(message)

/** One connection to the gateway, as a test drives it. */
interface Wire {
  /** Sends one of the test's own messages. */
  readonly send: (value: Json) => Effect.Effect<void>
  /** Sends the run's values, as this wire carries them. */
  readonly sendInputs: Effect.Effect<void>
  /** Every message the gateway sends, in order. */
  readonly received: Queue.Dequeue<JsonRpc.JSONRPCMessage>
  readonly served: Fiber.RuntimeFiber<void>
}

/**
 * Feeds the run's values (after the handshake, when asked), then checks every id in `expected` is
 * answered exactly once, nothing else is answered but with an id-less error of `noIdCodes`, and
 * the connection is still served (a ping after it all is answered). Returns the answers.
 */
const answersEachOnce = (
  wire: Wire,
  handshake: boolean,
  expected: ReadonlyArray<JsonRpc.RequestId>,
  noIdCodes: ReadonlyArray<number>
) =>
  Effect.gen(function* () {
    const seen: Array<JsonRpc.JSONRPCMessage> = []
    /** Reads what the gateway sends until a response with `id` has come. */
    const until = (id: JsonRpc.RequestId) =>
      Effect.gen(function* () {
        while (true) {
          const message = yield* Queue.take(wire.received)
          seen.push(message)
          if (isAnswer(message) && message.id === id) return message
        }
      }).pipe(Effect.timeoutFail({ duration: WAIT, onTimeout: () => `no answer to ${id}` }))

    if (handshake) {
      yield* wire.send(initialize)
      expect(yield* until("handshake")).toHaveProperty("result")
      yield* wire.send({ jsonrpc: "2.0", method: "notifications/initialized" })
    }
    yield* wire.sendInputs
    yield* wire.send({ jsonrpc: "2.0", id: "ping-after", method: "ping" })
    expect(yield* until("ping-after")).toStrictEqual({ jsonrpc: "2.0", id: "ping-after", result: {} })
    const answered = () => seen.filter(isAnswer)
    for (const id of expected) {
      if (!answered().some((message) => message.id === id)) yield* until(id)
    }
    // Anything sent twice would be in the queue before the answer to a second ping.
    yield* wire.send({ jsonrpc: "2.0", id: "ping-last", method: "ping" })
    yield* until("ping-last")

    const answers = answered()
    for (const id of expected) expect(answers.filter((message) => message.id === id)).toHaveLength(1)
    const ours = new Set<unknown>([...expected, "handshake", "ping-after", "ping-last"])
    for (const answer of answers) {
      if (answer.id === undefined) {
        expect(JsonRpc.isErrorResponse(answer) && noIdCodes.includes(answer.error.code)).toBe(true)
      } else {
        expect(ours.has(answer.id)).toBe(true)
      }
    }
    expect(wire.served.unsafePoll()).toBeNull()
    return answers
  })

/** A line that is no JSON at all (or, rarely, is: then it is an invalid request). */
const garbage = FastCheck.string({ unit: "grapheme", minLength: 1 }).filter((text) => !text.includes("\n"))

const encoder = new TextEncoder()

const isJson = (text: string) => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

layer(gatewayHost({ servers: [] }), { excludeTestServices: true, timeout: "30 seconds" })(
  "McpGateway on a raw wire",
  (it) => {
    it.scoped.prop(
      "every request-shaped value gets exactly one answer with its id; the connection keeps serving",
      [FastCheck.boolean(), values],
      ([handshake, inputs]) =>
        Effect.gen(function* () {
          const [clientEnd, serverEnd] = yield* InMemoryTransport.makePair("gateway")
          const served = yield* Effect.forkScoped(McpGateway.serve(serverEnd))
          const received = yield* Queue.unbounded<JsonRpc.JSONRPCMessage>()
          yield* Transport.incoming(clientEnd).pipe(
            Stream.runForEach((item) => (item._tag === "Message" ? Queue.offer(received, item.message) : Effect.void)),
            Effect.forkScoped
          )
          const wire: Wire = {
            send: clientEnd.inject,
            sendInputs: Effect.forEach(inputs, clientEnd.inject, { discard: true }),
            received,
            served
          }
          yield* answersEachOnce(wire, handshake, inputs.flatMap(requestIds), [JsonRpc.ErrorCode.InvalidRequest])
        }),
      { fastCheck: { numRuns: runs } }
    )

    it.scoped(
      "over stdio: a message nested too deeply is an invalid request (by its id); the connection serves on",
      () =>
        Effect.gen(function* () {
          const input = yield* Queue.unbounded<Uint8Array>()
          const received = yield* Queue.unbounded<JsonRpc.JSONRPCMessage>()
          const transport = yield* StdioServerTransport.make({
            input: Stream.fromQueue(input),
            write: (text) =>
              Queue.offerAll(
                received,
                Transport.parseIncoming(text).flatMap((item) => (item._tag === "Message" ? [item.message] : []))
              )
          })
          const served = yield* Effect.forkScoped(McpGateway.serve(transport))
          const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`
          const lines = [
            nested(100_000),
            `{"jsonrpc":"2.0","id":"deep","method":"ping","params":{"deep":${nested(100_000)}}}`,
            `{"jsonrpc":"2.0","id":"allowed","method":"ping","params":{"deep":${nested(990)}}}`,
            JSON.stringify({ jsonrpc: "2.0", id: "after", method: "ping" })
          ]
          yield* Queue.offer(input, encoder.encode(lines.map((line) => `${line}\n`).join("")))
          const answers: Array<JsonRpc.JSONRPCMessage> = []
          while (!answers.some((message) => "id" in message && message.id === "after")) {
            answers.push(
              yield* Queue.take(received).pipe(Effect.timeoutFail({ duration: WAIT, onTimeout: () => answers }))
            )
          }
          expect(answers).toStrictEqual([
            { jsonrpc: "2.0", error: { code: JsonRpc.ErrorCode.InvalidRequest, message: "Invalid request" } },
            {
              jsonrpc: "2.0",
              id: "deep",
              error: { code: JsonRpc.ErrorCode.InvalidRequest, message: "Invalid request" }
            },
            { jsonrpc: "2.0", id: "allowed", result: {} },
            { jsonrpc: "2.0", id: "after", result: {} }
          ])
          expect(served.unsafePoll()).toBeNull()
        })
    )

    it.scoped.prop(
      "over stdio: lines cut anywhere into chunks are read whole; text that is not JSON is a parse error",
      [FastCheck.boolean(), values, FastCheck.array(garbage, { maxLength: 3 }), FastCheck.array(FastCheck.nat())],
      ([handshake, inputs, junk, cuts]) =>
        Effect.gen(function* () {
          const input = yield* Queue.unbounded<Uint8Array>()
          const received = yield* Queue.unbounded<JsonRpc.JSONRPCMessage>()
          const written: Array<string> = []
          const transport = yield* StdioServerTransport.make({
            input: Stream.fromQueue(input),
            write: (text) =>
              Effect.suspend(() => {
                written.push(text)
                const messages = Transport.parseIncoming(text)
                return Queue.offerAll(
                  received,
                  messages.flatMap((item) => (item._tag === "Message" ? [item.message] : []))
                )
              })
          })
          const served = yield* Effect.forkScoped(McpGateway.serve(transport))
          const lines = [...inputs.map((value) => JSON.stringify(value)), ...junk]
          const bytes = encoder.encode(lines.map((line) => `${line}\n`).join(""))
          const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)
          const chunks = [0, ...points].map((from, index) => bytes.subarray(from, points[index] ?? bytes.length))
          const wire: Wire = {
            send: (value) => Queue.offer(input, encoder.encode(`${JSON.stringify(value)}\n`)),
            sendInputs: Queue.offerAll(input, chunks),
            received,
            served
          }
          const answers = yield* answersEachOnce(wire, handshake, inputs.flatMap(requestIds), [
            JsonRpc.ErrorCode.InvalidRequest,
            JsonRpc.ErrorCode.ParseError
          ])
          // One parse error for each line that is not JSON (blank lines are skipped).
          const parseErrors = answers.filter(
            (answer) => JsonRpc.isErrorResponse(answer) && answer.error.code === JsonRpc.ErrorCode.ParseError
          )
          expect(parseErrors).toHaveLength(junk.filter((line) => line.trim() !== "" && !isJson(line)).length)
          // Each write is one message on one line.
          for (const text of written) expect(text).toMatch(/^[^\n]+\n$/)
        }),
      { fastCheck: { numRuns: runs } }
    )
  }
)
