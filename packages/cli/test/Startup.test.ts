/**
 * What starting the binary loads: `--help` and `--version` are answered from the help data
 * the build embedded in the bundle's entry, which loads no `effect` (the command tree is a
 * chunk imported only when a command runs). That data must print exactly what the command
 * tree of the sources says, and `--version` exactly the version. A stdio server is started once
 * per command: the era probe runs on it.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Command from "@effect/cli/Command"
import { describe, expect, it } from "@effect/vitest"
import * as HashMap from "effect/HashMap"
import { helpCatalogue, root } from "../src/Cli.js"
import * as Help from "../src/Help.js"
import { loaders, rootFor } from "../src/internal/commandTable.js"
import { version } from "../src/internal/version.js"
import { everything, run } from "./support/cli.js"

const bundle = fileURLToPath(new URL("../dist/bundle/", import.meta.url))
const unbundled = fileURLToPath(new URL("../dist/bin.js", import.meta.url))

/** Every help the binary prints: the root's, `help connect`'s, and each command's. */
const everyHelp = (tree: Help.Entry): Array<ReadonlyArray<string>> => [
  [],
  ["help", "connect"],
  ...tree.children.flatMap((child) => [
    [...child.path, "--help"],
    ...child.children.map((leaf) => [...leaf.path, "--help"])
  ])
]

describe.concurrent("start-up", () => {
  it("--version prints the version and nothing else, wherever it stands", async () => {
    const packageVersion = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version
    expect(version).toBe(packageVersion)
    for (const words of [["--version"], ["tools", "list", "--version"]]) {
      const result = await run(words)
      expect(result).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: "" })
    }
  })

  it("the help the build embedded is the help of the command tree in the sources", async () => {
    const catalogue = helpCatalogue()
    for (const words of everyHelp(catalogue.tree)) {
      const expected = Help.intercept(catalogue, words, version, Number.POSITIVE_INFINITY)
      const printed = await run(words)
      expect(printed.stdout, words.join(" ")).toBe(`${expected?.text}\n`)
    }
  })

  it("unbundled (tsc's dist/bin.js), help is read from the command tree itself", () => {
    const catalogue = helpCatalogue()
    const printed = spawnSync(process.execPath, [unbundled, "tools", "--help"], { encoding: "utf8" })
    expect(printed.stdout).toBe(
      `${Help.intercept(catalogue, ["tools", "--help"], version, Number.POSITIVE_INFINITY)?.text}\n`
    )
  })

  it("the bundle's entry loads no effect, @effect/cli or command; a command loads only what it runs", () => {
    // The modules a chunk loads before it runs: its own and those of the chunks it imports
    // statically (esbuild marks each bundled module with a comment naming its path).
    const staticModules = (entry: string): Array<string> => {
      const seen = new Set<string>()
      const visit = (file: string): string => {
        if (seen.has(file)) return ""
        seen.add(file)
        const text = readFileSync(`${bundle}${file}`, "utf8")
        const imports = [...text.matchAll(/^(?:import|} from) .*"\.\/(?:chunks\/)?([^"]+\.js)";?$/gm)].map(
          ([, name]) => `chunks/${name}`
        )
        return text + imports.map(visit).join("")
      }
      return [...visit(entry).matchAll(/^\/\/ (\S+\.(?:[cm]?js|ts))$/gm)].map(([, path]) => path ?? "")
    }
    const chunk = (name: string) => {
      const file = readdirSync(`${bundle}chunks`).find((candidate) => candidate.startsWith(`${name}-`))
      expect(file, name).toBeDefined()
      return staticModules(`chunks/${file}`)
    }
    const entry = staticModules("effect-mcp.js")
    expect(entry).toContain("dist/Help.js")
    expect(entry.filter((path) => /node_modules|\/commands\/|Cli\.js|Session\.js/.test(path))).toStrictEqual([])
    // The run path holds no command: each is a chunk of its own, imported when it runs.
    const main = chunk("main")
    expect(main).toContain("dist/internal/main.js")
    expect(main.filter((path) => /\/commands\/|dist\/Cli\.js/.test(path))).toStrictEqual([])
    // What a one-shot client command never loads: the gateway, the web page's server, the host's
    // supervisor and config writer, HTTP servers (the OAuth redirect's is loaded when a user is
    // asked), workers, undici, WebSockets, AI providers, OpenTelemetry, fast-check; nor the config readers
    // for a server given inline, the JSON Schema engine or the YAML parser before their first use.
    const unused =
      /^\.\.\/(gateway|web|ai)\/|host\/src\/(McpHost|internal\/supervisor|config\/(ConfigLoader|ConfigWriter))\.ts|NodeHttpServer|\/(Node)?Worker(Error)?\.js|node_modules\/(undici|ws|ajv|yaml|fast-check|@effect\/(ai|opentelemetry))\/|\/commands\/(serve|ui|chat|host)\.js/
    for (const command of ["conformance", "tools", "server", "resources", "prompts"]) {
      const modules = chunk(command)
      expect(modules, command).toContain(`dist/commands/${command}.js`)
      expect(
        modules.filter((path) => unused.test(path)),
        command
      ).toStrictEqual([])
    }
    expect(chunk("serve")).toContain("../gateway/src/McpGateway.ts")
    expect(chunk("chat").filter((path) => /@effect\/ai-(anthropic|openai)/.test(path))).toStrictEqual([])
  })

  it("the run path parses with the command tree of the sources: the same commands, one at a time", async () => {
    expect(Object.keys(loaders).sort()).toStrictEqual([...HashMap.keys(Command.getSubcommands(root))].sort())
    for (const name of Object.keys(loaders) as Array<keyof typeof loaders>) {
      const loaded = Command.getSubcommands(await rootFor([name, "--help"]))
      expect([...HashMap.keys(loaded)]).toStrictEqual([name])
      expect(HashMap.unsafeGet(loaded, name)).toBe(HashMap.unsafeGet(Command.getSubcommands(root), name))
    }
  })

  it("a stdio server is started once: the era probe runs on it (the reference server's starts, counted)", async () => {
    const starts = join(mkdtempSync(join(tmpdir(), "effect-mcp-starts-")), "starts")
    const command = `echo start >> '${starts}'; exec '${process.execPath}' '${everything}' stdio`
    const ping = await run(["ping", "--", "sh", "-c", command])
    expect(ping.code, ping.stderr).toBe(0)
    expect(readFileSync(starts, "utf8")).toBe("start\n")
  })
})
