/**
 * The binary against an OAuth-protected server whose authorization fails: a distinct exit
 * code (4), and the failure said once, what the server answered first.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { authorizationServer, resourceServer, TokenRegistry } from "../../client/test/support/authServers.js"
import { start } from "./support/cli.js"

describe("effect-mcp when authorization fails", () => {
  it.scopedLive("exits 4 and says what the server answered, then which step failed, once", () =>
    Effect.gen(function* () {
      const registry = new TokenRegistry()
      // No dynamic registration and no configured client: authorization fails before any user step.
      const authorization = yield* authorizationServer(registry, { registration: false })
      const resource = yield* resourceServer(registry, { authorizationServer: () => authorization.origin })
      const file = join(mkdtempSync(join(tmpdir(), "effect-mcp-oauth-")), "oauth.json")
      const finished = yield* Effect.promise(
        () =>
          start(["tools", "list", "--url", `${resource.origin}/mcp`, "--transport", "http"], {
            env: { EFFECT_MCP_TOKEN_FILE: file }
          }).finished
      )
      expect(finished.code).toBe(4)
      expect(finished.stderr).toContain(
        "the server answered 401; authorization then failed (registration): " +
          `${authorization.origin} offers no dynamic registration`
      )
      expect(finished.stderr.match(/authorization then failed/g)).toHaveLength(1)
    })
  )
})
