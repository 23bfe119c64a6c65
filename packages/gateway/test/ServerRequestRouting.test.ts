/**
 * A server's requests with two callers: each reaches the client whose call it was made in. Both
 * clients call the reference server's trigger-sampling-request (and trigger-elicitation-request)
 * at once, and neither client's handler answers before the other's has been asked: both
 * requests are in flight on the server together. Over stdio the server cannot say which call a
 * request is for, so the second caller's call goes over a session of the server's own; over
 * Streamable HTTP the request comes on its call's stream. Before, both were refused (-32603 …
 * cannot be routed: 2 of the gateway's clients have calls in flight to it). A request the server
 * makes outside any call goes to no client (before, to the newest). Two 2026-07-28 requests on a
 * stdio server: the second borrows a pooled session of the server's own, kept across its input
 * round (before, both refused: each request is a caller of its own, and had no session of its own).
 */
import { describe, expect, layer } from "@effect/vitest"
import { McpHost, type ServerEntry } from "@effect-mcp/host"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { startEverything } from "../../client/test/support/httpServers.js"
import { connect, everything, faultServer, gatewayHost, textOf } from "./support/gateway.js"

/** The longest a test waits for something that should happen at once. */
const WAIT = "30 seconds"

/** Two clients (speaking `protocolVersion`) whose handlers each answer with their own name, once both have been asked. */
const twoCallers = (protocolVersion: "2025-11-25" | "2026-07-28") =>
  Effect.gen(function* () {
    const askedA = yield* Deferred.make<void>()
    const askedB = yield* Deferred.make<void>()
    const both = Effect.zipRight(Deferred.await(askedA), Deferred.await(askedB))
    const handlers = (name: string, asked: Deferred.Deferred<void>) => ({
      sampling: {
        createMessage: () =>
          Effect.zipRight(
            Effect.zipRight(Deferred.succeed(asked, undefined), both),
            Effect.succeed({
              role: "assistant" as const,
              content: { type: "text" as const, text: `sampled for ${name}` },
              model: name
            })
          )
      },
      elicitation: {
        form: () =>
          Effect.zipRight(
            Effect.zipRight(Deferred.succeed(asked, undefined), both),
            Effect.succeed({ action: "accept" as const, content: { name } })
          )
      }
    })
    const a = yield* connect({ ...handlers("Ada", askedA), protocolVersion })
    const b = yield* connect({ ...handlers("Grace", askedB), protocolVersion })
    return { a: a.client, b: b.client }
  })

/** A gateway host whose one server, `ev`, has the target `target` gives (within the layer's scope). */
type Hosted = Effect.Effect<ServerEntry.Target, never, Scope.Scope>

/** The suite at each revision of `versions`. */
const suite = (name: string, target: Hosted, versions: ReadonlyArray<"2025-11-25" | "2026-07-28">) =>
  layer(Layer.unwrapScoped(Effect.map(target, (ev) => gatewayHost({ servers: [{ name: "ev", target: ev }] }))), {
    excludeTestServices: true,
    timeout: "90 seconds"
  })(name, (it) => {
    for (const protocolVersion of versions) {
      it.scoped(
        `${protocolVersion}: two callers' sampling requests, in flight together, each reach their own caller`,
        () =>
          Effect.gen(function* () {
            const { a, b } = yield* twoCallers(protocolVersion)
            const call = (client: typeof a) =>
              client.callTool("ev__trigger-sampling-request", { prompt: "hello", maxTokens: 5 })
            const [forA, forB] = yield* Effect.all([call(a), call(b)], { concurrency: 2 }).pipe(Effect.timeout(WAIT))
            expect(forA.isError).not.toBe(true)
            expect(textOf(forA)).toContain("sampled for Ada")
            expect(textOf(forA)).not.toContain("Grace")
            expect(textOf(forB)).toContain("sampled for Grace")
            expect(textOf(forB)).not.toContain("Ada")
          })
      )

      it.scoped(`${protocolVersion}: two callers' elicitations, in flight together, each reach their own caller`, () =>
        Effect.gen(function* () {
          const { a, b } = yield* twoCallers(protocolVersion)
          const call = (client: typeof a) => client.callTool("ev__trigger-elicitation-request", {})
          const [forA, forB] = yield* Effect.all([call(a), call(b)], { concurrency: 2 }).pipe(Effect.timeout(WAIT))
          expect(textOf(forA)).toContain("Ada")
          expect(textOf(forA)).not.toContain("Grace")
          expect(textOf(forB)).toContain("Grace")
          expect(textOf(forB)).not.toContain("Ada")
        })
      )
    }
  })

describe("a server's requests with two callers", () => {
  suite("the reference server over stdio", Effect.succeed(everything), ["2025-11-25", "2026-07-28"])

  // The reference server over Streamable HTTP, on loopback, for as long as the suite's layer.
  suite(
    "the reference server over Streamable HTTP",
    Effect.map(
      Effect.acquireRelease(
        Effect.promise(() => startEverything("streamableHttp")),
        (running) => Effect.promise(() => running.stop())
      ),
      (running): ServerEntry.Target => ({ _tag: "Http", url: `${running.origin}/mcp`, transport: "http", headers: {} })
    ),
    ["2025-11-25", "2026-07-28"]
  )
})

layer(gatewayHost({ servers: [{ name: "fault", target: faultServer }] }), {
  excludeTestServices: true,
  timeout: "60 seconds"
})("a server's request outside any call", (it) => {
  it.scoped("is refused, naming the server, and no client is asked, not even the newest", () =>
    Effect.gen(function* () {
      const asked: Array<string> = []
      const sampling = (name: string) => ({
        createMessage: () =>
          Effect.sync(() => asked.push(name)).pipe(
            Effect.as({ role: "assistant" as const, content: { type: "text" as const, text: name }, model: name })
          )
      })
      const a = yield* connect({ sampling: sampling("Ada") })
      // Grace connects last: the client a request outside any call used to reach.
      yield* connect({ sampling: sampling("Grace") })
      expect(textOf(yield* a.client.callTool("fault__askLater", {}))).toBe("asking later")
      // Read by the host itself, whose own calls are no client's (a client's call in flight on the
      // server's session when the request comes would be taken for the one it is made in).
      const host = yield* McpHost.McpHost
      const outcome = textOf(yield* host.callTool("fault__askedLater", {}).pipe(Effect.timeout(WAIT)))
      expect(outcome).toMatch(/^refused: .*sampling\/createMessage from fault was made outside any call/)
      expect(asked).toStrictEqual([])
    })
  )
})
