/**
 * `effect-mcp replay FILE`: a recorded server (`--record FILE`) played back over stdio, so a bug
 * met with a real server can be reproduced without it: `effect-mcp tools call … -- effect-mcp
 * replay session.ndjson`. What it answers is `internal/replay.ts`'s.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as FileSystem from "@effect/platform/FileSystem"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as Framing from "@effect-mcp/jsonrpc/Framing"
import { JsonRpc } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { UsageError } from "../CliError.js"
import { parse } from "../internal/recording.js"
import { player } from "../internal/replay.js"
import { Output } from "../Output.js"
import { runCommand } from "./shared.js"

const write = (message: JsonRpc.JSONRPCMessage) => Effect.sync(() => void process.stdout.write(Framing.lineOf(message)))

/** The lines of stdin's bytes, framed as a client's stdio transport frames a server's stdout. */
const lines = <E>(bytes: Stream.Stream<Uint8Array, E>): Stream.Stream<string, E | UsageError> =>
  Stream.suspend(() => {
    const framer = new Framing.LineFramer(Framing.DEFAULT_MAX_MESSAGE_BYTES)
    return Stream.mapConcatEffect(bytes, (chunk) => {
      const framed = framer.push(chunk)
      return framed._tag === "Overflow"
        ? Effect.fail(new UsageError({ reason: `a message on stdin is longer than ${framer.maxBytes} bytes` }))
        : Effect.succeed(framed.lines.map(Framing.lineText))
    })
  })

/** Serves the recording on stdin and stdout until stdin ends. */
const serve = (file: string) =>
  Effect.gen(function* () {
    // Messages typed at a terminal are shown as typed: stdin is the input here.
    yield* Effect.flatMap(Output, (output) => output.hold)
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs
      .readFileString(file)
      .pipe(Effect.mapError((error) => new UsageError({ reason: `cannot read ${file}: ${error.message}` })))
    const recording = yield* Either.mapLeft(parse(text), (reason) => new UsageError({ reason: `${file}: ${reason}` }))
    const play = player(recording.lines)
    yield* NodeStream.fromReadable<UsageError, Uint8Array>(
      () => process.stdin,
      (cause) => new UsageError({ reason: `reading stdin failed: ${String(cause)}` })
    ).pipe(
      lines,
      Stream.filter((line) => line.trim() !== ""),
      Stream.runForEach((line) =>
        Either.match(
          Either.flatMap(
            Either.try(() => JSON.parse(line) as unknown),
            (value) => JsonRpc.decodePayload(value)
          ),
          {
            // Not a message: nothing the recording can answer (a real server would log it).
            onLeft: () => Effect.void,
            onRight: (messages) => Effect.forEach(messages.flatMap(play), write, { discard: true })
          }
        )
      )
    )
  })

/** `effect-mcp replay FILE`. */
export const replay = Command.make(
  "replay",
  {
    file: Args.file({ name: "recording", exists: "yes" }).pipe(Args.withDescription("A recording made with --record"))
  },
  // A failure is reported as every command's is (error: …, exit 2), not as an internal error.
  ({ file }) => runCommand({ json: false, verbose: false }, Effect.scoped(serve(file)))
).pipe(
  Command.withDescription(
    "Play a recorded server back over stdio (a recording made with --record FILE), to reproduce a session without the server.\n" +
      "Example: effect-mcp tools call echo message=hi -- effect-mcp replay session.ndjson"
  )
)
