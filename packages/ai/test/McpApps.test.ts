/**
 * MCP Apps in the tool loop: a tool whose visibility lacks `model` (an app-only tool, kept for its
 * server's view) is not given to the model; the others are, views or not. Against the official
 * SDK v2 server with the extension's helpers (the client's fixture), at both eras.
 */
import { fileURLToPath } from "node:url"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it } from "@effect/vitest"
import { Transports } from "@effect-mcp/client"
import { McpHost } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { keepAliveHttpClient } from "../../client/test/support/httpClient.js"
import { stdio } from "../../host/test/support/targets.js"
import { McpToolkit } from "../src/index.js"

const appsServer = fileURLToPath(new URL("../../client/test/fixtures/sdk-v2-apps-server.mjs", import.meta.url))

describe("the toolkit and MCP Apps", () => {
  for (const mode of ["legacy", "modern"] as const) {
    it.live(`leaves app-only tools out of what the model is given (${mode})`, () =>
      Effect.gen(function* () {
        const toolkit = yield* McpToolkit.McpToolkit
        const names = (yield* toolkit.tools).map((tool) => tool.modelName).sort()
        expect(names).toStrictEqual(
          ["apps__broken", "apps__forecast", "apps__plain", "apps__ui-capability", "apps__weather"].sort()
        )
        const built = yield* toolkit.toolkit
        expect(Object.keys(built.tools)).not.toContain("apps__refresh")
      }).pipe(
        Effect.provide(
          McpToolkit.layer().pipe(
            Layer.provide(McpHost.layer({ servers: [{ name: "apps", target: stdio(appsServer, mode) }] })),
            Layer.provide(
              Transports.layer.pipe(Layer.provideMerge(Layer.merge(NodeContext.layer, keepAliveHttpClient)))
            )
          )
        ),
        Effect.provide(Logger.remove(Logger.defaultLogger))
      )
    )
  }
})
