/**
 * What importing the client loads: the JSON Schema engine (Ajv) and the YAML parser are imported
 * by their first use (~70 ms of a program's start otherwise), on the built package as a program
 * runs it (`npm test` builds before it runs the tests); and no Node module at all, types
 * included: what is Node's lives in `@effect-mcp/node`.
 */
import { spawnSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { builtinModules } from "node:module"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"

const entry = fileURLToPath(new URL("../dist/index.js", import.meta.url))

/** Runs `body` in a fresh Node after importing the built client (as `client`), printing its JSON answer. */
const inFreshNode = (body: string): unknown => {
  const script = `
    import { createRequire } from "node:module"
    const client = await import(${JSON.stringify(entry)})
    const loaded = () => Object.keys(createRequire(import.meta.url).cache)
      .filter((path) => /node_modules[\\\\/](ajv|ajv-formats|yaml)[\\\\/]/.test(path)).length
    ${body}
  `
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" })
  expect(run.stderr).toBe("")
  return JSON.parse(run.stdout)
}

describe("start-up", () => {
  it("importing the client loads no JSON Schema engine and no YAML parser; the first validation loads the engine", () => {
    const answer = inFreshNode(`
      const { Effect } = await import("effect")
      const atStart = loaded()
      const problem = await Effect.runPromise(client.JsonSchema.validate({ type: "string" }, 1))
      const valid = await Effect.runPromise(client.JsonSchema.validate({ type: "string" }, "a"))
      console.log(JSON.stringify({ atStart, problem, valid: valid ?? null, after: loaded() > 0 }))
    `)
    expect(answer).toEqual({ atStart: 0, problem: "(root) must be string", valid: null, after: true })
  })

  it.each(["client", "jsonrpc"])("no module of %s imports a Node built-in (node:…), not even for its types", (name) => {
    const src = fileURLToPath(new URL(`../../${name}/src/`, import.meta.url))
    const builtins = new Set(builtinModules)
    const sources = readdirSync(src, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"))
    expect(sources).toContain(name === "client" ? "StdioTransport.ts" : "Peer.ts")
    const imports = sources.flatMap((file) =>
      Array.from(
        readFileSync(join(src, file), "utf8").matchAll(/\b(?:from|import)\s*\(?\s*"([^"]+)"/g),
        (match) => `${file}: ${match[1]}`
      )
    )
    expect(imports.length).toBeGreaterThan(name === "client" ? 100 : 20)
    const fromNode = imports.filter((entry) => {
      const specifier = entry.slice(entry.indexOf(": ") + 2)
      return specifier.startsWith("node:") || builtins.has(specifier.split("/")[0] ?? "")
    })
    expect(fromNode).toStrictEqual([])
  })
})
