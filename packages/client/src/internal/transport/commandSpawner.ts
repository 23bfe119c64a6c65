/**
 * The stdio spawner over `@effect/platform`'s `CommandExecutor`, so the stdio transport runs on any
 * platform layer: stdin fed from a mailbox by a fiber of the scope, stdout, stderr and the exit
 * read by fibers of the scope and handed to the callbacks a chunk at a time, signals sent by
 * fibers of a set the scope owns.
 */
import * as Command from "@effect/platform/Command"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as PlatformError from "@effect/platform/Error"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { ProcessEvents, ProcessExit, SpawnedProcess, SpawnerService, SpawnRequest } from "./spawner.js"

/**
 * How the platform says the process ended. It reports a process ended by a signal as a
 * `SystemError` whose description names the signal; there is no typed field for it.
 */
const exitOf = (exit: Exit.Exit<CommandExecutor.ExitCode, PlatformError.PlatformError>): ProcessExit => {
  if (Exit.isSuccess(exit)) return { code: exit.value, signal: null }
  const error = Cause.failureOption(exit.cause)
  const description = Option.isSome(error) && error.value._tag === "SystemError" ? (error.value.description ?? "") : ""
  return { code: null, signal: /\bsignal: (SIG[A-Z0-9]+)/.exec(description)?.[1] ?? null }
}

/** Hands every chunk a stream reads to `chunk`, then calls `end` however the stream stopped. */
const drain = (stream: Stream.Stream<Uint8Array, unknown>, chunk: (bytes: Uint8Array) => void, end: () => void) =>
  stream.pipe(
    Stream.runForEachChunk((reads) =>
      Effect.sync(() => {
        for (const bytes of reads) chunk(bytes)
      })
    ),
    Effect.ignore,
    Effect.ensuring(Effect.sync(end)),
    Effect.forkScoped
  )

/** The command for a request. */
const commandOf = (request: SpawnRequest): Command.Command => {
  const command = Command.env(Command.make(request.command, ...request.args), request.env, {
    extendEnv: request.extendEnv
  })
  return request.cwd === undefined ? command : Command.workingDirectory(command, request.cwd)
}

/**
 * A spawner that starts processes through `executor` (the platform's process group, and its
 * kill of that group).
 */
export const make = (executor: CommandExecutor.CommandExecutor): SpawnerService => ({
  // A write goes to the mailbox a fiber feeds stdin from, not to the pipe.
  writesInCaller: false,
  spawn: (request: SpawnRequest, events: ProcessEvents) =>
    Effect.gen(function* () {
      const process = yield* executor.start(commandOf(request))
      // stdin is fed by a fiber of this scope, not the platform's daemon (which a killed process
      // could leave waiting forever on a pipe that never finishes): ending the mailbox ends stdin,
      // and the scope's end interrupts the fiber whatever happened.
      const stdin = yield* Mailbox.make<Uint8Array>()
      yield* Stream.run(Mailbox.toStream(stdin), process.stdin).pipe(Effect.ignore, Effect.forkScoped)
      yield* drain(process.stdout, events.stdout, events.stdoutEnd)
      yield* drain(process.stderr, events.stderr, events.stderrEnd)
      yield* Effect.exit(process.exitCode).pipe(
        Effect.flatMap((exit) => Effect.sync(() => events.exit(exitOf(exit)))),
        Effect.forkScoped
      )
      // The platform's kill waits for the process to exit: each runs in a fiber of the scope.
      const run = yield* FiberSet.makeRuntime<never>()
      const encoder = new TextEncoder()
      const spawned: SpawnedProcess = {
        pid: Number(process.pid),
        write: (text) => {
          stdin.unsafeOffer(encoder.encode(text))
        },
        endStdin: () => {
          stdin.unsafeDone(Exit.void)
        },
        kill: (signal) => {
          run(Effect.ignore(process.kill(signal)), { immediate: true })
        }
      }
      return spawned
    })
})
