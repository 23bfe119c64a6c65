/**
 * The seam under the stdio transport: a service that starts a process with piped stdin, stdout
 * and stderr and reports what it does through plain callbacks. The transport's behaviour (framing,
 * stderr, writes, the close sequence, how an end is reported) is written once over it
 * (`stdioConnection.ts`); a platform gives only the process. Plain callbacks, so that nothing
 * between the pipe and the peer runs an effect per chunk or per message.
 */
import type * as PlatformError from "@effect/platform/Error"
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

/** What to start: the program, its arguments, its environment and its working directory. */
export interface SpawnRequest {
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** The child's variables: all of them, or (with `extendEnv`) on top of the parent's whole environment. */
  readonly env: { readonly [name: string]: string }
  readonly extendEnv: boolean
  readonly cwd?: string | undefined
}

/** How a process ended: its exit code, or the signal that ended it (`null` when not known). */
export interface ProcessExit {
  readonly code: number | null
  readonly signal: string | null
}

/**
 * What a started process does, as it happens: called from the platform's own callbacks, in plain
 * code. `stdoutEnd`, `stderrEnd` and `exit` are each called once; nothing comes from a pipe after
 * its end.
 */
export interface ProcessEvents {
  readonly stdout: (chunk: Uint8Array) => void
  readonly stdoutEnd: () => void
  readonly stderr: (chunk: Uint8Array) => void
  readonly stderrEnd: () => void
  readonly exit: (exit: ProcessExit) => void
}

/** The signals the stdio transport sends. */
export type StopSignal = "SIGTERM" | "SIGKILL"

/** A started process, driven from plain code. */
export interface SpawnedProcess {
  /** The process id (also its process group's on POSIX). */
  readonly pid: number
  /** Writes `text` to stdin, after every earlier write; nothing once the pipe is gone. */
  readonly write: (text: string) => void
  /** Ends stdin once what was written has gone. */
  readonly endStdin: () => void
  /** Sends `signal` to the process and whatever it started in its group, without waiting for it to exit. */
  readonly kill: (signal: StopSignal) => void
}

/** Starts processes for the stdio transport. */
export interface SpawnerService {
  /**
   * Whether `write` puts the text on the pipe there and then, in the caller. The transport's
   * `send` then has that write as its plain form (a request starts from plain code with no effect
   * run); otherwise every message goes through the effect.
   */
  readonly writesInCaller: boolean
  /**
   * Starts `request` in a process group of its own, reporting to `events` from then on. Fails
   * with the platform's error when it cannot (a missing program is a `SystemError` whose reason is
   * `NotFound`). The scope's end kills whatever is left of the process.
   */
  readonly spawn: (
    request: SpawnRequest,
    events: ProcessEvents
  ) => Effect.Effect<SpawnedProcess, PlatformError.PlatformError, Scope.Scope>
}
