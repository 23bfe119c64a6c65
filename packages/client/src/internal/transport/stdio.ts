/** What both stdio transports (the generic one and Node's) share: the child's environment and limits. */
import * as Config from "effect/Config"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Stream from "effect/Stream"

/** How to start and stop the server process. */
export interface StdioOptions {
  /** The program to run. */
  readonly command: string
  readonly args?: ReadonlyArray<string>
  readonly cwd?: string
  /** Variables for the child, on top of the inherited ones. */
  readonly env?: { readonly [name: string]: string }
  /** `"safe"` (default): only {@link SAFE_ENVIRONMENT} from the parent; `"all"`: the parent's whole environment. */
  readonly inheritEnv?: "safe" | "all"
  /** The server's name in errors and logs. Default: the command. */
  readonly name?: string
  /** The longest message accepted from the server, in bytes. Default: 64 MiB. */
  readonly maxMessageBytes?: number
  /** How many stderr lines to keep for error reports. Default: 20. */
  readonly stderrTailLines?: number
  /** How long to wait after closing stdin, then after SIGTERM. Defaults: 2 s and 2 s. */
  readonly shutdown?: { readonly afterStdin?: Duration.DurationInput; readonly afterTerm?: Duration.DurationInput }
}

/** The running server process, beside its `Transport`. */
export interface StdioProcessService {
  /** The child's process id (also its process group id on POSIX). */
  readonly pid: number
  /** The server's stderr, line by line, from the moment the stream runs. */
  readonly stderr: Stream.Stream<string>
  /** The last lines of stderr so far. */
  readonly stderrTail: Effect.Effect<string>
}

/** The parent's variables a child inherits by default. */
export const SAFE_ENVIRONMENT: ReadonlyArray<string> = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TMPDIR",
  "TZ",
  // Windows
  "APPDATA",
  "HOMEDRIVE",
  "HOMEPATH",
  "LOCALAPPDATA",
  "PATHEXT",
  "SYSTEMDRIVE",
  "SYSTEMROOT",
  "TEMP",
  "USERNAME",
  "USERPROFILE",
  "PROGRAMFILES"
]

/** The environment the child gets: the safe variables (read through `Config`) or everything, plus `env`. */
export const environment = (options: StdioOptions) =>
  Effect.gen(function* () {
    if (options.inheritEnv === "all") return { extend: true, env: { ...options.env } }
    const inherited: Record<string, string> = {}
    for (const name of SAFE_ENVIRONMENT) {
      const value = yield* Config.option(Config.string(name))
      if (Option.isSome(value)) inherited[name] = value.value
    }
    return { extend: false, env: { ...inherited, ...options.env } }
  }).pipe(Effect.orDie)
