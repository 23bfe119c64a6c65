/**
 * The host's config file reader, as a module of its own: `Connect.choose` imports it only for a
 * server chosen by name (`--server`), so a server given inline loads no TOML, YAML or JSONC reader.
 */
export { ConfigLoader } from "@effect-mcp/host"
