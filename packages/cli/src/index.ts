/**
 * @effect-mcp/cli: the `effect-mcp` command and the pieces it is made of (config loading,
 * the command tree), for programs that want to reuse them.
 */

/** The command tree. */
export * as Cli from "./Cli.js"
/** Exit codes and failure reports. */
export * as CliError from "./CliError.js"
/** Finding and loading MCP config files in every dialect. */
export * as ConfigLoader from "./config/ConfigLoader.js"
/** A configured server, whatever the dialect. */
export * as ServerEntry from "./config/ServerEntry.js"
