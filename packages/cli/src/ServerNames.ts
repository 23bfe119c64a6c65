/**
 * The names servers go by in what the CLI prints. A server chosen inline (`--stdio`, a
 * command after `--`, `--url`) is named after its command, its script's package or its host
 * until the handshake (`internal/serverLabel.ts`), and from then on by the name it reports
 * (`serverInfo.name`); a server from a config file keeps the name the user gave it.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { sanitize } from "./internal/controls.js"

/**
 * The names of this run's servers.
 *
 * @since 0.1.0
 * @category services
 */
export class ServerNames extends Context.Tag("@effect-mcp/cli/ServerNames")<
  ServerNames,
  {
    /** From now on, calls the server named `given` by `reported` (ignored when blank). */
    readonly learn: (given: string, reported: string) => Effect.Effect<void>
    /** The name to print for the server named `given`. */
    readonly display: (given: string) => Effect.Effect<string>
  }
>() {
  /** Names kept for one run. */
  static readonly layer: Layer.Layer<ServerNames> = Layer.effect(
    ServerNames,
    Effect.map(Ref.make(HashMap.empty<string, string>()), (names) =>
      ServerNames.of({
        learn: (given, reported) => {
          const name = sanitize(reported).trim()
          return name === "" ? Effect.void : Ref.update(names, HashMap.set(given, name))
        },
        display: (given) =>
          Effect.map(Ref.get(names), (known) => Option.getOrElse(HashMap.get(known, given), () => given))
      })
    )
  )
}

/**
 * The name to print for the server named `given` (see {@link ServerNames}).
 *
 * @since 0.1.0
 * @category accessors
 */
export const display = (given: string): Effect.Effect<string, never, ServerNames> =>
  Effect.flatMap(ServerNames, (names) => names.display(given))
