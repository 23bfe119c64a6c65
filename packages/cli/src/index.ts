/**
 * `@effect-mcp/cli`: the `effect-mcp` command and the pieces it is made of, for programs that
 * want to reuse them. Config files are read by `@effect-mcp/host`.
 *
 * @since 0.1.0
 */

/**
 * The command tree.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as Cli from "./Cli.js"

/**
 * Exit codes and failure reports.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as CliError from "./CliError.js"
