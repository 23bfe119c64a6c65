/**
 * Recordings of a session's JSON-RPC traffic (`--record FILE`), and reading them back
 * (`effect-mcp replay FILE`). A recording is newline-delimited JSON: a header line, then one line
 * per message with its direction (`send`: to the server, `receive`: from it) and the milliseconds
 * since the start. The transport is recorded, not the peer, so the era probe is in it too. Text
 * values under names that hold secrets (`token`, `secret`, `password`, `apiKey`, `authorization`,
 * `cookie`, `credential`, …; not `progressToken`) are masked before they are written.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import type { Transport } from "@effect-mcp/client"
import { JsonRpc } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"

/** The first line of a recording. */
export const Header = Schema.Struct({
  recording: Schema.Literal("effect-mcp"),
  version: Schema.Literal(1),
  server: Schema.String,
  startedAt: Schema.String
})

/** One recorded message. */
export const Line = Schema.Struct({
  t: Schema.Number,
  dir: Schema.Literal("send", "receive"),
  message: JsonRpc.JSONRPCMessage
})
export type Line = typeof Line.Type

/** What stands in for a masked value. */
export const MASK = "[masked]"

const SECRET_NAME = /token|secret|password|passwd|api[-_]?key|authorization|cookie|credential|session[-_]?id/i

/** A copy of a JSON value with every text member named like a secret masked (a schema's `maxTokens` property is not text). */
export const masked = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(masked)
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) => [
      key,
      typeof member === "string" && SECRET_NAME.test(key) && key !== "progressToken" ? MASK : masked(member)
    ])
  )
}

/**
 * The transport with its traffic recorded: every message sent and received (the era probe and its
 * answer included) is kept, masked, and the recording is written to `path` when the scope closes.
 */
export const recorded = (
  transport: Transport.TransportService,
  path: string,
  server: string
): Effect.Effect<Transport.TransportService, never, FileSystem.FileSystem | Scope.Scope> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const started = Date.now()
    const lines: Array<string> = [
      JSON.stringify({ recording: "effect-mcp", version: 1, server, startedAt: new Date(started).toISOString() })
    ]
    const keep = (dir: Line["dir"], message: JsonRpc.JSONRPCMessage) => {
      lines.push(JSON.stringify({ t: Date.now() - started, dir, message: masked(message) }))
    }
    yield* Effect.addFinalizer(() =>
      fs
        .writeFileString(path, `${lines.join("\n")}\n`)
        .pipe(
          Effect.catchAll((error) => Effect.logWarning(`the recording could not be written to ${path}`, error.message))
        )
    )
    const { sendNow, probe } = transport
    return {
      ...transport,
      run: (deliver) =>
        transport.run((item) => {
          if (item._tag === "Message") keep("receive", item.message)
          deliver(item)
        }),
      send: (message, headers) =>
        Effect.zipRight(
          Effect.sync(() => keep("send", message)),
          transport.send(message, headers)
        ),
      ...(sendNow === undefined
        ? {}
        : {
            sendNow: (message: JsonRpc.JSONRPCMessage) => {
              keep("send", message)
              return sendNow(message)
            }
          }),
      ...(probe === undefined
        ? {}
        : {
            probe: (request: JsonRpc.JSONRPCRequest, timeout: Parameters<typeof probe>[1]) =>
              Effect.zipRight(
                Effect.sync(() => keep("send", request)),
                Effect.tap(probe(request, timeout), (outcome) =>
                  Effect.sync(() => {
                    if (outcome._tag === "Answered") keep("receive", outcome.message)
                  })
                )
              )
          })
    }
  })

/** A recording read back: its header and its lines, each checked; `Left` says which line is wrong. */
export const parse = (
  text: string
): Either.Either<{ readonly header: typeof Header.Type; readonly lines: ReadonlyArray<Line> }, string> => {
  const [first = "", ...rest] = text.split("\n").filter((line) => line.trim() !== "")
  const decodeLine = <A, I>(schema: Schema.Schema<A, I>, line: string, number: number) =>
    Either.mapLeft(
      Schema.decodeEither(Schema.parseJson(schema))(line),
      () => `line ${number} is not a recorded message`
    )
  return Either.flatMap(
    Either.mapLeft(
      decodeLine(Header, first, 1),
      () => "this is not an effect-mcp recording (its first line is not the header)"
    ),
    (header) =>
      Either.map(Either.all(rest.map((line, index) => decodeLine(Line, line, index + 2))), (lines) => ({
        header,
        lines
      }))
  )
}
