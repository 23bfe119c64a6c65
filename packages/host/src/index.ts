/**
 * @effect-mcp/host: many MCP servers from one config, one aggregated and namespaced toolset.
 */

/** The aggregated view: namespacing, collisions, allow and deny lists. */
export * as Aggregate from "./Aggregate.js"
/** Reading each config format into server entries. */
export * as ConfigFormats from "./config/ConfigFormats.js"
/** Finding, loading and resolving config files of every common format. */
export * as ConfigLoader from "./config/ConfigLoader.js"
/** Variable expansion as each format does it. */
export * as Expand from "./config/Expand.js"
/** JSON with comments and trailing commas. */
export * as Jsonc from "./config/Jsonc.js"
/** A configured server, whatever the format. */
export * as ServerEntry from "./config/ServerEntry.js"
/** The host's errors (and config errors). */
export * as HostError from "./HostError.js"
export { ConfigError } from "./HostError.js"
/** The host service and its layer. */
export * as McpHost from "./McpHost.js"
/** The status of one server in a host. */
export * as ServerStatus from "./ServerStatus.js"
/** The one mapping from a configured server to its transport layer. */
export * as ServerTransport from "./ServerTransport.js"
