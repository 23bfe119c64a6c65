/**
 * The run path of `bin.ts`: `@effect/cli`'s parser, the Node runtime and the command that runs.
 * `bin.ts` imports this only when a command runs, so that `--help` and `--version` load none
 * of it (in the bundled binary it is a chunk of its own); the command's module is imported here,
 * and only that command's (`commandTable.ts`).
 */
import * as Command from "@effect/cli/Command"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeCommandExecutor from "@effect/platform-node/NodeCommandExecutor"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import * as NodeHttpTransport from "@effect-mcp/node/NodeHttpTransport"
import * as NodeTransports from "@effect-mcp/node/NodeTransports"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { ExitCode } from "../CliError.js"
import { TrailingCommand } from "../CommonOptions.js"
import { rootFor } from "./commandTable.js"
import { sanitize } from "./controls.js"
import * as Signals from "./signals.js"
import { version } from "./version.js"

/**
 * Node's services for the commands: `NodeContext.layer`'s but its worker manager (no command runs
 * workers, and the worker modules' Schemas cost every start a few milliseconds).
 */
const nodeServices = Layer.mergeAll(NodePath.layer, NodeCommandExecutor.layer, NodeTerminal.layer).pipe(
  Layer.provideMerge(NodeFileSystem.layer)
)

/**
 * Runs the command of `argv` (node, the script and the words before `--`) with `trailing` (the
 * words after `--`) as the stdio server, and exits with its code; `signal` tells which
 * termination signal arrived, if any.
 */
export const main = (
  argv: ReadonlyArray<string>,
  trailing: ReadonlyArray<string>,
  signal: () => Signals.Termination | undefined
): void => {
  const codeOf = (exit: Exit.Exit<unknown, unknown>): number => {
    if (Exit.isSuccess(exit)) return ExitCode.ok
    if (Cause.isInterruptedOnly(exit.cause)) {
      // Ctrl-C said what it cancelled when it came (bin.ts).
      const received = signal()
      return received === undefined ? ExitCode.interrupted : Signals.exitCode(received)
    }
    const failure = Cause.failureOption(exit.cause)
    if (Option.isSome(failure)) {
      const error = failure.value
      if (typeof error === "object" && error !== null && "_tag" in error && error._tag === "Exit" && "code" in error)
        return Number(error.code)
      if (ValidationError.isValidationError(error)) return ExitCode.usage
    }
    process.stderr.write(`internal error: ${sanitize(Cause.pretty(exit.cause))}\n`)
    return ExitCode.connection
  }
  // A failure is reported once, where it ends up (a command's error, a server's request answered
  // with it); Effect's debug line for every fiber that fails would repeat it under --verbose, with
  // a stack trace into the bundle. Set for the whole run (not `locally`): the main fiber's own
  // failure is logged after every region has ended.
  FiberRef.set(FiberRef.unhandledErrorLogLevel, Option.none()).pipe(
    Effect.zipRight(Effect.promise(() => rootFor(argv.slice(2)))),
    Effect.flatMap((root) => Command.run(root, { name: "effect-mcp", version })(argv)),
    Effect.provideService(TrailingCommand, trailing),
    // Servers run on Node's own transports: stdio with no stream stages between pipe and peer,
    // Streamable HTTP POSTs on node:http directly. The platform HttpClient (node:http with
    // keep-alive) serves OAuth, DELETE and legacy SSE.
    Effect.provide(
      NodeTransports.layer.pipe(
        Layer.provideMerge(NodeHttpClient.layerWithoutAgent),
        // Keep-alive agents that mark pooled connections: a request the server reset on one
        // before any answer (its idle timeout, as after an OAuth 401) is sent again once.
        Layer.provide(
          Layer.scoped(
            NodeHttpClient.HttpAgent,
            Effect.map(NodeHttpTransport.makeAgents(), (agents) =>
              NodeHttpClient.HttpAgent.of({
                [NodeHttpClient.HttpAgentTypeId]: NodeHttpClient.HttpAgentTypeId,
                ...agents
              })
            )
          )
        )
      )
    ),
    Effect.provide(nodeServices),
    NodeRuntime.runMain({
      disableErrorReporting: true,
      // Its pretty logger writes to stdout; the commands log to stderr (Logging.ts).
      disablePrettyLogger: true,
      teardown: (exit, onExit) => onExit(codeOf(exit))
    })
  )
}
