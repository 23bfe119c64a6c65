/**
 * `@effect-mcp/host`: many MCP servers from one config, one aggregated and namespaced toolset.
 *
 * @since 0.1.0
 */

/**
 * The aggregated view: namespacing, collisions, allow and deny lists.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as Aggregate from "./Aggregate.js"

/**
 * Reading each config format into server entries.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as ConfigFormats from "./config/ConfigFormats.js"

/**
 * Finding, loading and resolving config files of every common format.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as ConfigLoader from "./config/ConfigLoader.js"

/**
 * Where config files are searched, and effect-mcp's own files.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as ConfigSources from "./config/ConfigSources.js"

/**
 * Writing servers into config files, keeping the rest of each file.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as ConfigWriter from "./config/ConfigWriter.js"

/**
 * Variable expansion as each format does it.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as Expand from "./config/Expand.js"

/**
 * JSON with comments and trailing commas.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as Jsonc from "./config/Jsonc.js"

/**
 * A configured server, whatever the format.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as ServerEntry from "./config/ServerEntry.js"

/**
 * The host's errors (and config errors).
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as HostError from "./HostError.js"
export {
  /**
   * A config file cannot be used: names the file, and where known the server entry and the field.
   *
   * @since 0.1.0
   * @category errors
   */
  ConfigError
} from "./HostError.js"

/**
 * The host service and its layer.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as McpHost from "./McpHost.js"

/**
 * The status of one server in a host.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as ServerStatus from "./ServerStatus.js"

/**
 * The one mapping from a configured server to its transport layer.
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as ServerTransport from "./ServerTransport.js"
/**
 * Where to cut a text that is too long for a byte budget (a boundary near the limit).
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as TextCut from "./TextCut.js"
/**
 * Tools ranked lexically against a query (the chat's tool selection, the gateway's tool search).
 *
 * @since 0.1.0
 * @category re-exports
 */
export * as ToolRanking from "./ToolRanking.js"
