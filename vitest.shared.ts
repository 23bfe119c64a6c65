import { defineConfig } from "vitest/config"

/** Workspace packages resolve to their TypeScript sources under this export condition. */
export const sourceCondition = "@effect-mcp/source"

/** Settings every package's vitest project shares. */
export const shared = defineConfig({
  resolve: { conditions: [sourceCondition] },
  ssr: { resolve: { conditions: [sourceCondition] } },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    sequence: { concurrent: false }
  }
})
