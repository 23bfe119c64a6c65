/**
 * scripts/site.mjs (`npm run docs:site`) on a small fixture of docgen pages, without running
 * docgen: the index lists every package with its description and every module, every relative
 * link in the written HTML reaches a file and, when it has a fragment, an id in that file, and a
 * `{@link}` that names nothing known stays code.
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "@effect/vitest"

const script = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "scripts", "site.mjs")
const scratch = mkdtempSync(join(tmpdir(), "api-site-"))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** A docgen page as docgen writes it: front matter, the overview, a table of contents, exports. */
const page = (title: string, order: number, overview: string, sections: string) => `---
title: ${title}
nav_order: ${order}
parent: Modules
---

## ${title.replace(/\.ts$/, "")} overview

${overview}

Added in v0.1.0

---

${sections}`

const fixture = (dir: string, packages: Record<string, { description: string; pages: Record<string, string> }>) => {
  for (const [name, pkg] of Object.entries(packages)) {
    const at = join(dir, "packages", name)
    mkdirSync(join(at, "docs", "modules"), { recursive: true })
    writeFileSync(join(at, "package.json"), JSON.stringify({ name: `@fixture/${name}`, description: pkg.description }))
    writeFileSync(join(at, "docs", "modules", "index.md"), "---\ntitle: Modules\nhas_children: true\n---\n")
    for (const [file, text] of Object.entries(pkg.pages)) {
      mkdirSync(dirname(join(at, "docs", "modules", file)), { recursive: true })
      writeFileSync(join(at, "docs", "modules", file), text)
    }
  }
}

const build = (dir: string) => {
  const out = join(dir, "site")
  const run = spawnSync(process.execPath, [script, "--existing", "--root", dir, "--out", out], { encoding: "utf8" })
  return { ...run, out }
}

const htmlFiles = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? htmlFiles(join(dir, entry.name)) : entry.name.endsWith(".html") ? [join(dir, entry.name)] : []
  )

/** Every relative link of every page that does not reach a file, or an id in it: `page -> href`. */
const brokenLinks = (out: string): ReadonlyArray<string> => {
  const ids = new Map<string, Set<string>>()
  const idsOf = (file: string) => {
    let found = ids.get(file)
    if (found === undefined) {
      found = new Set([...readFileSync(file, "utf8").matchAll(/\sid="([^"]*)"/g)].map((match) => match[1] ?? ""))
      ids.set(file, found)
    }
    return found
  }
  const broken: Array<string> = []
  for (const file of htmlFiles(out)) {
    const text = readFileSync(file, "utf8")
    for (const [, href = ""] of text.matchAll(/\shref="([^"]*)"/g)) {
      if (/^[a-z]+:/.test(href)) continue
      const [path = "", fragment] = href.split("#")
      const target = path === "" ? file : join(dirname(file), path)
      const ok = existsSync(target) && (fragment === undefined || idsOf(target).has(fragment))
      if (!ok) broken.push(`${relative(out, file)} -> ${href}`)
    }
  }
  return broken
}

describe("npm run docs:site", () => {
  const dir = join(scratch, "two")
  fixture(dir, {
    alpha: {
      description: "The alpha package: makes things.",
      pages: {
        "index.ts.md": page(
          "index.ts",
          1,
          "`@fixture/alpha`: everything.",
          `<h2 class="text-delta">Table of contents</h2>

- [re-exports](#re-exports)
  - [From "./Thing.js"](#from-thingjs)

---

# re-exports

## From "./Thing.js"

Re-exports all named exports from the "./Thing.js" module as \`Thing\`.
`
        ),
        "Thing.ts.md": page(
          "Thing.ts",
          2,
          "A thing and how to make one; see {@link Nothing.here} and {@link make}.",
          `<h2 class="text-delta">Table of contents</h2>

- [constructors](#constructors)
  - [make](#make)
- [models](#models)
  - [Thing (interface)](#thing-interface)

---

# constructors

## make

Makes a {@link Thing}, validated by {@link auth/Check.check}.

**Signature**

\`\`\`ts
export declare const make: () => Thing
\`\`\`

# models

## Thing (interface)

What {@link make} returns.
`
        ),
        "auth/Check.ts.md": page(
          "Check.ts",
          3,
          "Checks: {@link Thing} is another module's.",
          `# guards

## check

Whether a value is a thing.
`
        )
      }
    },
    beta: {
      description: "The beta package <uses> alpha.",
      pages: { "Other.ts.md": page("Other.ts", 1, "Another module.", "# models\n\n## Other\n\nA model.\n") }
    }
  })
  const { status, stderr, out } = build(dir)

  it("writes an index of every package, with its description, and every module", () => {
    expect(stderr).toBe("")
    expect(status).toBe(0)
    const index = readFileSync(join(out, "index.html"), "utf8")
    expect(index).toContain("@fixture/alpha")
    expect(index).toContain("The alpha package: makes things.")
    expect(index).toContain("@fixture/beta")
    expect(index).toContain("The beta package &lt;uses&gt; alpha.")
    for (const module of ["alpha/index.html", "alpha/Thing.html", "alpha/auth/Check.html", "beta/Other.html"]) {
      expect(index).toContain(`href="${module}"`)
      expect(existsSync(join(out, module))).toBe(true)
    }
    expect(index).toContain("<code>@fixture/alpha</code>: everything.")
  })

  it("renders each page with ids its links reach, and every relative link resolves", () => {
    expect(brokenLinks(out)).toEqual([])
    const thing = readFileSync(join(out, "alpha", "Thing.html"), "utf8")
    expect(thing).toContain('<h2 id="thing-interface">')
    expect(thing).toContain('<a href="#make"><code>make</code></a>')
    expect(thing).toContain('<a href="auth/Check.html#check"><code>auth/Check.check</code></a>')
    expect(thing).toContain('<a href="../index.html#alpha">')
    const index = readFileSync(join(out, "alpha", "index.html"), "utf8")
    expect(index).toContain('From <a href="Thing.html">"./Thing.js"</a>')
    expect(readFileSync(join(out, "alpha", "auth", "Check.html"), "utf8")).toContain('href="../Thing.html"')
  })

  it("leaves a {@link} that names nothing known as code, not a link", () => {
    const thing = readFileSync(join(out, "alpha", "Thing.html"), "utf8")
    expect(thing).toContain("<code>Nothing.here</code>")
    expect(thing).not.toContain("{@link")
  })

  it("finds a link that does not resolve (the check above can fail)", () => {
    const broken = join(scratch, "broken")
    mkdirSync(broken, { recursive: true })
    writeFileSync(join(broken, "index.html"), '<a href="missing.html">x</a><a href="#nowhere">y</a><p id="here"></p>')
    expect(brokenLinks(broken)).toEqual(["index.html -> missing.html", "index.html -> #nowhere"])
  })

  it("fails when no package has pages", () => {
    const empty = join(scratch, "empty")
    mkdirSync(join(empty, "packages", "gamma"), { recursive: true })
    writeFileSync(join(empty, "packages", "gamma", "package.json"), JSON.stringify({ name: "@fixture/gamma" }))
    writeFileSync(join(empty, "packages", "gamma", "docgen.json"), "{}")
    const run = build(empty)
    expect(run.status).toBe(1)
    expect(run.stderr).toContain("@fixture/gamma: no pages")
  })
})
