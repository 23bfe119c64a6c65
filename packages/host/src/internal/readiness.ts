/**
 * Waiting for a server to be ready: its client at once when it is, else its state watched until
 * it settles (ready; or failed or stopped, which fails at once) or the wait is over.
 */
import type { McpClient } from "@effect-mcp/client"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import { ServerUnavailable } from "../HostError.js"
import type { Live, Supervisor } from "./supervisor.js"

// A client whose session has just died (before the supervisor noticed) counts as not ready yet.
const readyNow = (current: Live): Effect.Effect<Option.Option<McpClient.McpClientService>> => {
  if (current.status._tag !== "Ready" || Option.isNone(current.connected)) return Effect.succeed(Option.none())
  const { client } = current.connected.value
  return Effect.map(client.state, (state) => (state._tag === "Ready" ? Option.some(client) : Option.none()))
}

// Waits for the server to settle: ready, or failed or stopped (which fails at once).
const settled = (
  name: string,
  live: SubscriptionRef.SubscriptionRef<Live>,
  timeout: Duration.Duration,
  method: string | undefined
) =>
  live.changes.pipe(
    Stream.filterEffect((current) =>
      current.status._tag === "Connecting" || current.status._tag === "Reconnecting"
        ? Effect.succeed(false)
        : Option.match(current.connected, {
            onNone: () => Effect.succeed(true),
            onSome: ({ client }) => Effect.map(client.state, (state) => state._tag === "Ready")
          })
    ),
    Stream.runHead,
    Effect.flatMap((current) =>
      Option.isSome(current) && Option.isSome(current.value.connected) && current.value.status._tag === "Ready"
        ? Effect.succeed(current.value.connected.value.client)
        : Effect.fail(
            new ServerUnavailable({
              server: name,
              ...(method === undefined ? {} : { method }),
              reason: Option.match(current, {
                onNone: () => "the server is gone",
                onSome: (value) =>
                  value.status._tag === "Failed" ? `failed: ${value.status.cause.message}` : "the server is stopped"
              })
            })
          )
    ),
    Effect.timeoutFail({
      duration: timeout,
      onTimeout: () =>
        new ServerUnavailable({
          server: name,
          ...(method === undefined ? {} : { method }),
          reason: `not ready within ${Duration.format(timeout)}`
        })
    })
  )

/** The server's client once ready (the common case reads its state once; only otherwise does a call wait on its changes). */
export const make =
  (name: string, live: SubscriptionRef.SubscriptionRef<Live>): Supervisor["ready"] =>
  (timeout, method) =>
    Effect.flatMap(SubscriptionRef.get(live), readyNow).pipe(
      Effect.flatMap(Option.match({ onSome: Effect.succeed, onNone: () => settled(name, live, timeout, method) }))
    )
