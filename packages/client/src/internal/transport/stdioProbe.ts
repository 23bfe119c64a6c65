/**
 * The era probe of a stdio connection, on the server process itself (the specification's stdio
 * backward compatibility: `server/discover` before any other request, on the same connection).
 * The probe's answer is taken out of the inbound items (the session's reader never sees it, nor
 * a late answer after a time-out). A legacy server that exits on a request before `initialize`
 * is started again, once: the connection goes on with a new process and the probe's outcome is
 * `Ended`, so the session initializes there. Only while the probe waits: any other end is the
 * connection's.
 */

import * as PlainForm from "@effect-mcp/jsonrpc/PlainForm"
import type { Incoming, ProbeOutcome, TransportService } from "@effect-mcp/jsonrpc/Transport"
import { JsonRpc } from "@effect-mcp/protocol"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { TransportError } from "../../McpError.js"
import type { StdioProcessService } from "./stdio.js"

const isAnswer = (message: JsonRpc.JSONRPCMessage) =>
  JsonRpc.isResultResponse(message) || JsonRpc.isErrorResponse(message)

/** One server process: its transport, its process, the scope that ends both. */
interface Connection {
  readonly transport: TransportService
  readonly process: StdioProcessService
  readonly scope: Scope.CloseableScope
}

/** The probe in flight: its request id, and how it ends. */
interface Probing {
  readonly id: JsonRpc.RequestId
  readonly answered: Deferred.Deferred<JsonRpc.JSONRPCMessage>
  /** Completed when the process that got the probe has ended: a new one runs, or the connection failed. */
  readonly ended: Deferred.Deferred<void>
}

/**
 * A stdio transport whose `probe` runs on the live process, from `connect` (which starts one
 * process in the scope it is given). A process that ends while the probe, and nothing else, waits
 * on it is started again, once. The process returned follows the connection: after a restart it is
 * the new process's.
 */
export const probedInPlace = (
  connect: Effect.Effect<readonly [TransportService, StdioProcessService], TransportError, Scope.Scope>
): Effect.Effect<readonly [TransportService, StdioProcessService], TransportError, Scope.Scope> =>
  Effect.gen(function* () {
    const outer = yield* Effect.scope
    const open = Effect.flatMap(Scope.fork(outer, ExecutionStrategy.sequential), (scope) =>
      Effect.map(Scope.extend(connect, scope), ([transport, process]): Connection => ({ transport, process, scope }))
    )
    let current = yield* open
    // Set first when the connection closes (finalizers run last-added first): no restart then.
    let closed = false
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        closed = true
      })
    )
    let probing: Probing | undefined
    // Nothing but a probe was sent yet, and no process was started again: a restart is allowed.
    let restartable = true
    // The connection failed for good.
    let failed = false
    // Probes that went unanswered: their answer, if it comes, is dropped.
    const unanswered = new Set<JsonRpc.RequestId>()

    /** `deliver`, less the answers to probes. */
    const screened =
      (deliver: (item: Incoming) => void) =>
      (item: Incoming): void => {
        if (item._tag === "Message" && isAnswer(item.message) && item.message.id !== undefined) {
          const id = item.message.id
          if (probing !== undefined && probing.id === id) {
            Deferred.unsafeDone(probing.answered, Exit.succeed(item.message))
            return
          }
          if (unanswered.delete(id)) return
        }
        deliver(item)
      }

    /** The process ended: while a probe was all it got, the connection goes on with a new one; else it fails. */
    const ended = (error: TransportError, readAgain: Effect.Effect<void, TransportError>) =>
      Effect.suspend(() => {
        const waiting = probing
        if (waiting === undefined || !restartable || closed) {
          failed = true
          return Effect.zipRight(
            waiting === undefined ? Effect.void : Deferred.succeed(waiting.ended, undefined),
            error
          )
        }
        restartable = false
        return Effect.gen(function* () {
          yield* Scope.close(current.scope, Exit.void)
          current = yield* open
          yield* Deferred.succeed(waiting.ended, undefined)
          return yield* readAgain
        })
      })

    const run: TransportService["run"] = (deliver) => {
      const reader = screened(deliver)
      const readCurrent: Effect.Effect<void, TransportError> = Effect.suspend(() =>
        Effect.catchAll(current.transport.run(reader), (error) => ended(error, readCurrent))
      )
      return readCurrent
    }

    const probe: NonNullable<TransportService["probe"]> = (request, timeout) =>
      Effect.gen(function* () {
        if (failed) return { _tag: "Ended" } as const
        const waiting: Probing = {
          id: request.id,
          answered: yield* Deferred.make<JsonRpc.JSONRPCMessage>(),
          ended: yield* Deferred.make<void>()
        }
        probing = waiting
        // A send that fails finds the process gone: the reader sees it end.
        yield* Effect.ignore(current.transport.send(request))
        const outcome = yield* Effect.raceFirst(
          Effect.map(Deferred.await(waiting.answered), (message): ProbeOutcome => ({ _tag: "Answered", message })),
          Effect.as(Deferred.await(waiting.ended), { _tag: "Ended" } as const)
        ).pipe(
          Effect.timeoutTo({
            duration: timeout,
            onTimeout: (): ProbeOutcome => ({ _tag: "Silent" }),
            onSuccess: (outcome) => outcome
          })
        )
        probing = undefined
        if (outcome._tag === "Silent") unanswered.add(request.id)
        return outcome
      })

    /** Anything but the probe makes the process the session's: it is not started again after. */
    const keepProcess = () => {
      restartable = false
    }
    const send: TransportService["send"] = (message, headers) =>
      Effect.suspend(() => {
        keepProcess()
        return current.transport.send(message, headers)
      })
    // Every process of this connection is made by the same `connect`, so each writes in the caller
    // when the first one does.
    const transport: TransportService = {
      run,
      send:
        PlainForm.of(current.transport.send) === undefined
          ? send
          : PlainForm.attach(send, (message: JsonRpc.JSONRPCMessage) => {
              keepProcess()
              return (PlainForm.of(current.transport.send) ?? (() => undefined))(message)
            }),
      setProtocolVersion: (version) => Effect.suspend(() => current.transport.setProtocolVersion(version)),
      probe
    }
    const process: StdioProcessService = {
      get pid() {
        return current.process.pid
      },
      stderr: Stream.suspend(() => current.process.stderr),
      stderrTail: Effect.suspend(() => current.process.stderrTail)
    }
    return [transport, process] as const
  })
