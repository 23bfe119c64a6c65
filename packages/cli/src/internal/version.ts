/** This program's version (`effect-mcp --version`, `clientInfo`): a plain module, so `--version` loads nothing else. */
export const version = "0.1.0"
