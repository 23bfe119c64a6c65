/**
 * `effect-mcp shell`: one connection to stay in. Commands use the one-shot syntax without
 * the server options; per-session features (logging, subscriptions, session-scoped
 * resources) last as long as the session.
 */
import * as Command from "@effect/cli/Command"
import { McpClient } from "@effect-mcp/client"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as CommonOptions from "../CommonOptions.js"
import { connector } from "../Connect.js"
import * as ShellSession from "../shell/Repl.js"
import * as ServerShell from "../shell/ServerShell.js"
import { runCommand } from "./shared.js"

/** `effect-mcp shell`. */
export const shell = Command.make("shell", CommonOptions.connection, ({ server, run }) =>
  runCommand(
    run,
    Effect.flatMap(connector(server, run, { showServerLogs: false }), ({ connect, reconnectable }) =>
      ShellSession.run(
        Effect.flatMap(connect, (context) => ServerShell.target(Context.get(context, McpClient.McpClient))),
        reconnectable
          ? { reconnect: true }
          : { reconnect: false, why: "--record keeps one connection; leave and start the shell again" }
      )
    )
  )
).pipe(
  Command.withDescription(
    "An interactive session on one connection: tools, resources, prompts and logs with line editing, history, Tab completion; notifications shown as they come; Ctrl-C cancels a running command, Ctrl-D leaves.\n" +
      "Example: effect-mcp shell -- npx -y @modelcontextprotocol/server-everything"
  )
)
