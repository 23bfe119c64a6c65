/**
 * Where MCP config files are: the project's (in the working directory) and the user's (effect-mcp's
 * own, then each tool's standard location, per OS), in the order they are searched, and which
 * two are effect-mcp's own: the project's `.mcp.json` and the user's
 * `$XDG_CONFIG_HOME/effect-mcp/mcp.json` (else `~/.config/effect-mcp/mcp.json`).
 *
 * @since 0.1.0
 */
import type * as Path from "@effect/platform/Path"

/**
 * Where to look: the working directory, the home folder, the platform and the environment's
 * folders (each optional: its default is derived from `home`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Location {
  /** An explicit file (`--config`); when set, nothing else is read. */
  readonly config?: string
  readonly cwd: string
  readonly home: string
  readonly platform: NodeJS.Platform
  /** `APPDATA` on Windows. */
  readonly appData?: string
  /** `XDG_CONFIG_HOME` (default `~/.config`). */
  readonly xdgConfigHome?: string
  /** `CODEX_HOME` (default `~/.codex`). */
  readonly codexHome?: string
}

/**
 * The tools whose files are read (`generic`: a `./mcp.json` of no one tool; `effect-mcp`: our user file).
 *
 * @since 0.1.0
 * @category models
 */
export type Tool =
  | "effect-mcp"
  | "generic"
  | "claude-desktop"
  | "claude-code"
  | "cursor"
  | "vscode"
  | "windsurf"
  | "gemini"
  | "codex"
  | "zed"

/**
 * The tools `config import --from` reads from.
 *
 * @since 0.1.0
 * @category constants
 */
export const importable = [
  "claude-desktop",
  "claude-code",
  "cursor",
  "vscode",
  "windsurf",
  "codex",
  "zed",
  "gemini"
] as const satisfies ReadonlyArray<Tool>

/**
 * One place a config file may be.
 *
 * @since 0.1.0
 * @category models
 */
export interface Source {
  readonly file: string
  readonly scope: "project" | "user"
  readonly tool: Tool
  /** One of effect-mcp's own files (the ones `config add` writes). */
  readonly ours: boolean
}

/** A per-OS folder of application settings: `~/Library/Application Support`, `%APPDATA%` or `$XDG_CONFIG_HOME`. */
const appSettings = (location: Location, path: Path.Path) =>
  location.platform === "darwin"
    ? path.join(location.home, "Library", "Application Support")
    : location.platform === "win32"
      ? (location.appData ?? path.join(location.home, "AppData", "Roaming"))
      : xdgConfig(location, path)

const xdgConfig = (location: Location, path: Path.Path) => location.xdgConfigHome ?? path.join(location.home, ".config")

/**
 * effect-mcp's own file of a scope: the project's `.mcp.json` (Claude Code reads it too), or the
 * user's `$XDG_CONFIG_HOME/effect-mcp/mcp.json`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const ours = (location: Location, path: Path.Path, scope: "project" | "user"): string =>
  scope === "project"
    ? path.join(location.cwd, ".mcp.json")
    : path.join(xdgConfig(location, path), "effect-mcp", "mcp.json")

/**
 * Every place searched without `--config`, in order: the project's files, then the user's
 * (effect-mcp's, Claude Desktop's, Claude Code's, Cursor's, Windsurf's, VS Code's, Gemini CLI's,
 * Codex's, Zed's). The first entry of a name wins. A path is listed once.
 *
 * @since 0.1.0
 * @category constructors
 */
export const sources = (location: Location, path: Path.Path): ReadonlyArray<Source> => {
  const project = (file: string, tool: Tool, own = false): Source => ({
    file: path.join(location.cwd, file),
    scope: "project",
    tool,
    ours: own
  })
  const user = (file: string, tool: Tool, own = false): Source => ({ file, scope: "user", tool, ours: own })
  const home = (...parts: ReadonlyArray<string>) => path.join(location.home, ...parts)
  const all = [
    project(".mcp.json", "claude-code", true),
    project("mcp.json", "generic"),
    project(path.join(".vscode", "mcp.json"), "vscode"),
    project(path.join(".cursor", "mcp.json"), "cursor"),
    user(ours(location, path, "user"), "effect-mcp", true),
    user(path.join(appSettings(location, path), "Claude", "claude_desktop_config.json"), "claude-desktop"),
    user(home(".claude.json"), "claude-code"),
    user(home(".cursor", "mcp.json"), "cursor"),
    user(home(".codeium", "windsurf", "mcp_config.json"), "windsurf"),
    user(path.join(appSettings(location, path), "Code", "User", "mcp.json"), "vscode"),
    user(home(".gemini", "settings.json"), "gemini"),
    user(path.join(location.codexHome ?? home(".codex"), "config.toml"), "codex"),
    user(
      location.platform === "win32"
        ? path.join(appSettings(location, path), "Zed", "settings.json")
        : path.join(xdgConfig(location, path), "zed", "settings.json"),
      "zed"
    )
  ]
  return all.filter((source, index) => all.findIndex((other) => other.file === source.file) === index)
}
