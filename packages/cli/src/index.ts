/**
 * @effect-mcp/cli: the `effect-mcp` command and the pieces it is made of, for programs that
 * want to reuse them. Config files are read by `@effect-mcp/host`.
 */

/** The command tree. */
export * as Cli from "./Cli.js"
/** Exit codes and failure reports. */
export * as CliError from "./CliError.js"
