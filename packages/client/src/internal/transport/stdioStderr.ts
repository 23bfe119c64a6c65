/**
 * The stderr of a stdio server: always drained (a full pipe would stall the server), its last
 * lines kept for the error that reports the process's end, each line logged at debug level and
 * published to the process's `stderr` stream by one fiber of the scope.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Mailbox from "effect/Mailbox"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/** A server's stderr as it is read. */
export interface Stderr {
  /** Takes a chunk read from the pipe (plain code). */
  readonly chunk: (bytes: Uint8Array) => void
  /** Takes the last line, one that did not end with a newline, into the tail. */
  readonly flush: () => void
  /** The pipe has closed. */
  readonly end: () => void
  /** The last lines so far. */
  readonly tail: () => string
  /** Every line from the moment the stream runs. */
  readonly stream: Stream.Stream<string>
}

/** A stderr reader keeping `tailLines` lines, its fiber in the scope. */
export const makeStderr = (server: string, tailLines: number): Effect.Effect<Stderr, never, Scope.Scope> =>
  Effect.gen(function* () {
    const hub = yield* PubSub.unbounded<string>()
    const lines = yield* Mailbox.make<string>()
    yield* Mailbox.toStream(lines).pipe(
      Stream.runForEach((line) =>
        Effect.zipRight(
          Effect.logDebug(line).pipe(Effect.annotateLogs({ "mcp.server": server, stream: "stderr" })),
          PubSub.publish(hub, line)
        )
      ),
      Effect.forkScoped
    )
    const tail: Array<string> = []
    const keep = (line: string) => {
      tail.push(line)
      if (tail.length > tailLines) tail.shift()
      lines.unsafeOffer(line)
    }
    const decoder = new TextDecoder()
    let partial = ""
    const chunk = (bytes: Uint8Array) => {
      const parts = (partial + decoder.decode(bytes, { stream: true })).split(/\r?\n/)
      partial = parts.pop() ?? ""
      for (const line of parts) keep(line)
    }
    const flush = () => {
      partial += decoder.decode()
      if (partial === "") return
      keep(partial)
      partial = ""
    }
    return {
      chunk,
      flush,
      end: () => {
        flush()
        lines.unsafeDone(Exit.void)
      },
      tail: () => tail.join("\n"),
      stream: Stream.fromPubSub(hub)
    }
  })
