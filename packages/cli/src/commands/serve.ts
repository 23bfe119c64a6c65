/**
 * `effect-mcp serve`: every configured server behind one MCP server (`@effect-mcp/gateway`), over
 * stdio for an editor or agent to launch. stdout carries only the protocol; notes and logs go to
 * stderr. The servers' sampling, elicitation and roots requests are asked of the client that
 * launched it.
 */
import * as Command from "@effect/cli/Command"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { McpGateway, StdioServerTransport } from "@effect-mcp/gateway"
import { McpHost } from "@effect-mcp/host"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as CommonOptions from "../CommonOptions.js"
import { clientInfo } from "../Connect.js"
import { config, withHost } from "./host.js"
import { runCommand } from "./shared.js"

/** Writes to stdout, waiting while the pipe is full so that a slow reader is not buffered without bound. */
const write = (text: string) =>
  Effect.async<void>((resume) => {
    if (process.stdout.write(text)) resume(Effect.void)
    else process.stdout.once("drain", () => resume(Effect.void))
  })

/** `effect-mcp serve`. */
export const serve = Command.make("serve", { config, run: CommonOptions.run }, ({ config, run }) =>
  runCommand(
    run,
    Effect.gen(function* () {
      const attachments = yield* Layer.build(McpGateway.layerAttachments)
      const handlers = McpGateway.handlers.pipe(Layer.provide(Layer.succeedContext(attachments)))
      yield* withHost(
        config,
        run,
        (host) =>
          Effect.gen(function* () {
            const transport = yield* StdioServerTransport.make({ input: NodeStream.stdin, write })
            yield* McpGateway.serve(transport, {
              serverInfo: { name: "effect-mcp-gateway", version: clientInfo.version }
            })
          }).pipe(Effect.provideService(McpHost.McpHost, host), Effect.provide(attachments)),
        handlers
      )
    }).pipe(Effect.scoped)
  )
).pipe(
  Command.withDescription(
    "Every configured server behind one MCP server over stdio, for an editor or agent to launch: namespaced tools (server__tool), resources, prompts; calls routed with the host's policies; the servers' sampling, elicitation and roots requests asked of the launching client.\n" +
      "Example: effect-mcp serve --config .mcp.json"
  )
)
