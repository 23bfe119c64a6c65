import { defineConfig } from "vitest/config"

/** Settings every package's vitest project shares. */
export const shared = defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    sequence: { concurrent: false }
  }
})
