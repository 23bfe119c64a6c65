/**
 * The host's failures, grouped by what a caller does about them: a config that cannot be
 * used, a name that routes nowhere, a server that is not there to serve, and a tool that the
 * host's policy refuses.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"

/**
 * A config file cannot be used: names the file, and where known the server entry and the field.
 *
 * @since 0.1.0
 * @category errors
 */
export class ConfigError extends Data.TaggedError("ConfigError")<{
  readonly file: string
  readonly entry?: string
  readonly field?: string
  readonly reason: string
}> {
  override get message() {
    const where = [
      this.entry === undefined ? undefined : `server "${this.entry}"`,
      this.field === undefined ? undefined : `field "${this.field}"`
    ].filter((part) => part !== undefined)
    return `${this.file}${where.length === 0 ? "" : `: ${where.join(", ")}`}: ${this.reason}`
  }
}

/**
 * No server of that name is configured (or added to the host).
 *
 * @since 0.1.0
 * @category errors
 */
export class UnknownServer extends Data.TaggedError("UnknownServer")<{
  readonly server: string
  /** The names that exist. */
  readonly known: ReadonlyArray<string>
  /** Where they were looked for, when they came from config files. */
  readonly where?: string
}> {
  override get message() {
    return `no server named "${this.server}"${this.where === undefined ? "" : ` (${this.where})`}${
      this.known.length === 0 ? "" : `; configured: ${this.known.join(", ")}`
    }`
  }
}

/**
 * A namespaced tool or prompt name, or a resource URI, that no ready server offers.
 *
 * @since 0.1.0
 * @category errors
 */
export class NotFound extends Data.TaggedError("NotFound")<{
  readonly kind: "tool" | "prompt" | "resource"
  readonly name: string
}> {
  override get message() {
    return `no ready server offers the ${this.kind} "${this.name}"`
  }
}

/**
 * The server is stopped, disabled, failed, or did not become ready within the call's timeout.
 *
 * @since 0.1.0
 * @category errors
 */
export class ServerUnavailable extends Data.TaggedError("ServerUnavailable")<{
  readonly server: string
  readonly method?: string
  readonly reason: string
}> {
  override get message() {
    return `${this.server}: ${this.reason}`
  }
}

/**
 * The server's allow or deny list excludes the tool.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolNotAllowed extends Data.TaggedError("ToolNotAllowed")<{
  readonly server: string
  readonly tool: string
}> {
  override get message() {
    return `${this.server}: tool ${this.tool} is excluded by the host's allow or deny list`
  }
}

/**
 * A server of that name is already in the host.
 *
 * @since 0.1.0
 * @category errors
 */
export class DuplicateServer extends Data.TaggedError("DuplicateServer")<{
  readonly server: string
}> {
  override get message() {
    return `a server named "${this.server}" is already in the host`
  }
}
