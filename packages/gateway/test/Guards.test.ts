/**
 * The gateway's HTTP guards as a library gives them: beyond loopback `listen` needs a token, and a
 * request passes only with exactly that token.
 */
import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { NodeStreamableHttpServer } from "../src/index.js"
import * as HttpCore from "../src/internal/httpCore.js"
import { postTo, statusOf } from "./support/core.js"
import { gatewayHost } from "./support/gateway.js"

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } }
}

layer(gatewayHost({ servers: [] }))("the gateway's HTTP guards", (it) => {
  it("only loopback addresses are loopback", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "localhost", "::1"])
      expect(NodeStreamableHttpServer.isLoopback(host)).toBe(true)
    for (const host of ["0.0.0.0", "::", "192.168.1.2", "127.0.0.1.example", "localhost.example"]) {
      expect(NodeStreamableHttpServer.isLoopback(host)).toBe(false)
    }
  })

  it.scoped("listen refuses an address beyond loopback without a token, before it binds", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(NodeStreamableHttpServer.listen({ host: "0.0.0.0", port: 0 }))
      expect(error._tag).toBe("ListenError")
      expect(error.message).toContain("needs a token")
      // An empty token is no token (a request with `Bearer ` would pass it).
      const empty = yield* Effect.flip(NodeStreamableHttpServer.listen({ host: "0.0.0.0", port: 0, token: "" }))
      expect(empty.message).toContain("the token is empty")
    })
  )

  it.scoped("a request passes with exactly the token: none, a prefix, a longer one or another scheme are 401", () =>
    Effect.gen(function* () {
      const handle = yield* HttpCore.make({ token: "s3cret" })
      const statusWith = (authorization: string | undefined) =>
        Effect.map(postTo(handle, initialize, authorization === undefined ? {} : { authorization }), statusOf)
      for (const wrong of [undefined, "", "Bearer s3cre", "Bearer s3cret0", "Basic s3cret", "Bearer  s3cret"]) {
        expect(yield* statusWith(wrong)).toBe(401)
      }
      expect(yield* statusWith("Bearer s3cret")).toBe(200)
    })
  )
})
