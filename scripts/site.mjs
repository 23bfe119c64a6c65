#!/usr/bin/env node
/**
 * Gathers the API reference that `npm run docgen` writes (`packages/<name>/docs/modules/*.md`) into
 * one static site: `index.html` lists every package (its name and its package.json description)
 * and every module; each module page is the docgen page rendered as HTML, beside a list of its
 * package's modules. Headings carry the ids docgen's tables of contents point at, `{@link X}` in a
 * description becomes a link when `X` names an export or module of the same package (else code),
 * and a re-export heading (`From "./JsonRpc.js"`) links the module it names.
 *
 *   node scripts/site.mjs                    runs docgen for every package, then writes build/api/
 *   node scripts/site.mjs --jobs 2 client    docgen's own arguments are passed on to it
 *   node scripts/site.mjs --existing         takes the pages already in packages/<name>/docs/
 *   node scripts/site.mjs --root DIR --out DIR
 *                                            reads DIR/packages/<name>/ and writes the site to the
 *                                            other DIR (the test's fixture)
 *
 * Fails when no package has pages. Packages without pages (docgen not run for them) are named on
 * stderr and left out.
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { Marked } from "marked"

const here = dirname(fileURLToPath(import.meta.url))
const args = process.argv.slice(2)
const option = (name) => {
  const at = args.indexOf(name)
  return at === -1 ? undefined : args[at + 1]
}
const root = resolve(option("--root") ?? join(here, ".."))
const out = resolve(option("--out") ?? join(root, "build", "api"))

if (!args.includes("--existing")) {
  // Everything that is not this script's own goes to docgen (`--jobs 2`, package names).
  const own = new Set(["--root", "--out"])
  const forwarded = args.filter((arg, index) => !own.has(arg) && !own.has(args[index - 1] ?? ""))
  const docgen = spawnSync(process.execPath, [join(here, "docgen.mjs"), ...forwarded], { cwd: root, stdio: "inherit" })
  if (docgen.status !== 0) process.exit(docgen.status ?? 1)
}

/** GitHub's heading ids, as docgen's tables of contents write them: `Foo (class)` → `foo-class`. */
const slug = (text) =>
  text
    .toLowerCase()
    .trim()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-")

const escapeHtml = (text) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c])

/** A docgen page: its front matter (`title`, `nav_order`) and its Markdown body. */
const readPage = (file) => {
  const text = readFileSync(file, "utf8")
  const lines = text.split("\n")
  const meta = {}
  let body = text
  if (/^(---|\*\*\*)$/.test(lines[0] ?? "")) {
    const end = lines.indexOf("---", 1)
    if (end !== -1) {
      for (const line of lines.slice(1, end)) {
        const match = /^(\w+):\s*(.*)$/.exec(line)
        if (match) meta[match[1]] = match[2]
      }
      body = lines.slice(end + 1).join("\n")
    }
  }
  return { meta, body }
}

/** The `.ts.md` pages under a package's docs/modules, as paths relative to it (`auth/OAuth.ts.md`). */
const pagesIn = (dir, base = dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? pagesIn(join(dir, entry.name), base)
      : entry.name.endsWith(".ts.md")
        ? [relative(base, join(dir, entry.name)).split("\\").join("/")]
        : []
  )

const packagesDir = join(root, "packages")
const packages = []
for (const name of existsSync(packagesDir) ? readdirSync(packagesDir).sort() : []) {
  const dir = join(packagesDir, name)
  if (!existsSync(join(dir, "package.json"))) continue
  const json = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
  const modulesDir = join(dir, "docs", "modules")
  if (!existsSync(modulesDir)) {
    if (existsSync(join(dir, "docgen.json"))) console.error(`${json.name}: no pages in ${relative(root, modulesDir)}`)
    continue
  }
  const modules = pagesIn(modulesDir).map((file) => {
    const { meta, body } = readPage(join(modulesDir, file))
    const path = file.replace(/\.ts\.md$/, "")
    const paragraph = /^## .* overview\n+((?:[^\n]+\n?)+)/m.exec(body)?.[1] ?? ""
    const overview = paragraph
      .trim()
      .split(/\s*\n\s*/)
      .join(" ")
    return { path, title: meta.title ?? `${path}.ts`, order: Number(meta.nav_order ?? 0), overview, body }
  })
  modules.sort((a, b) => a.order - b.order || a.path.localeCompare(b.path))
  packages.push({ name, json, modules })
}
if (packages.length === 0) {
  console.error(`no package under ${relative(process.cwd(), packagesDir) || "."} has docs/modules: run npm run docgen`)
  process.exit(1)
}

/** `href` from the page at `from` (a path under the site) to `to`. */
const link = (from, to) =>
  relative(dirname(join(out, from)), join(out, to))
    .split("\\")
    .join("/")

const pageOf = (pkg, module) => `${pkg.name}/${module.path}.html`

/** The ids a page's headings get, by heading text, so that `{@link}` can be checked against them. */
const headingIds = (body) => {
  const ids = new Set()
  const lexer = new Marked()
  for (const token of lexer.lexer(body)) if (token.type === "heading") ids.add(slug(token.text))
  return ids
}

/** Where `{@link target}` goes from `module`'s page, or undefined when it names nothing known. */
const resolveLink = (pkg, module, target) => {
  const kinds = ["", " (class)", " (interface)", " (type alias)", " (namespace)"]
  const inPage = (ids, name) => kinds.map((kind) => slug(name + kind)).find((id) => ids.has(id))
  const own = inPage(module.ids, target)
  if (own !== undefined) return `#${own}`
  const dot = target.indexOf(".")
  const head = dot === -1 ? target : target.slice(0, dot)
  const other = pkg.modules.find((m) => m.path === head || m.path.endsWith(`/${head}`))
  if (other === undefined) return undefined
  const to = link(pageOf(pkg, module), pageOf(pkg, other))
  if (dot === -1) return to
  const id = inPage(other.ids, target.slice(dot + 1))
  return id === undefined ? to : `${to}#${id}`
}

for (const pkg of packages) for (const module of pkg.modules) module.ids = headingIds(module.body)

const render = (pkg, module) => {
  const marked = new Marked({ gfm: true })
  const used = new Map()
  marked.use({
    renderer: {
      heading({ tokens, depth, text }) {
        const base = slug(text)
        const count = used.get(base) ?? 0
        used.set(base, count + 1)
        const id = count === 0 ? base : `${base}-${count}`
        let inner = this.parser.parseInline(tokens)
        const from = /^From "\.\/(.+)\.js"$/.exec(text)
        const target = from && pkg.modules.find((m) => m.path === from[1])
        if (target)
          inner = `From <a href="${escapeHtml(link(pageOf(pkg, module), pageOf(pkg, target)))}">"./${escapeHtml(from[1])}.js"</a>`
        return `<h${depth} id="${escapeHtml(id)}">${inner}</h${depth}>\n`
      },
      link({ href, tokens }) {
        const inner = this.parser.parseInline(tokens)
        const local = /^([^:#?]+)\.ts\.md(#.*)?$/.exec(href)
        const target = local ? `${local[1]}.html${local[2] ?? ""}` : href
        return `<a href="${escapeHtml(target)}">${inner}</a>`
      }
    }
  })
  const body = module.body.replace(
    /\{@link(?:code|plain)?\s+([^\s}|]+)(?:\s*\|?\s*([^}]*))?\}/g,
    (_, target, label) => {
      const text = label?.trim() || target
      const href = resolveLink(pkg, module, target)
      return href === undefined ? `\`${text}\`` : `[\`${text}\`](${href})`
    }
  )
  return marked.parse(body)
}

const style = `body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d1d1f}
a{color:#0b5cad}header{padding:.6em 1.2em;background:#f3f4f6;border-bottom:1px solid #ddd}
.layout{display:flex}nav{min-width:14em;padding:1em 1.2em;border-right:1px solid #eee}
nav ul{list-style:none;padding:0;margin:.4em 0}main{padding:1em 2em;max-width:60em;overflow:auto}
pre{background:#f6f8fa;padding:.8em;overflow:auto}code{font:13px/1.4 ui-monospace,monospace}
.package{margin-bottom:2em}.package p{margin:.2em 0 .6em}dt{font-weight:600}dd{margin:0 0 .5em 1.2em}`

const shell = (path, title, nav, main) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${escapeHtml(link(path, "style.css"))}">
</head>
<body>
<header><a href="${escapeHtml(link(path, "index.html"))}">effect-mcp API reference</a></header>
<div class="layout">
${nav}<main>
${main}</main>
</div>
</body>
</html>
`

rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
writeFileSync(join(out, "style.css"), `${style}\n`)

const inline = new Marked({ gfm: true })
const indexBody = packages
  .map(
    (pkg) => `<section class="package" id="${escapeHtml(pkg.name)}">
<h2>${escapeHtml(pkg.json.name ?? pkg.name)}</h2>
<p>${escapeHtml(pkg.json.description ?? "")}</p>
<dl>
${pkg.modules
  .map(
    (m) =>
      `<dt><a href="${escapeHtml(link("index.html", pageOf(pkg, m)))}">${escapeHtml(m.path)}</a></dt><dd>${inline.parseInline(m.overview)}</dd>`
  )
  .join("\n")}
</dl>
</section>
`
  )
  .join("")
writeFileSync(
  join(out, "index.html"),
  shell("index.html", "effect-mcp API reference", "", `<h1>effect-mcp API reference</h1>\n${indexBody}`)
)

for (const pkg of packages) {
  for (const module of pkg.modules) {
    const path = pageOf(pkg, module)
    const nav = `<nav>
<a href="${escapeHtml(link(path, `index.html#${pkg.name}`))}">${escapeHtml(pkg.json.name ?? pkg.name)}</a>
<ul>
${pkg.modules.map((m) => `<li><a href="${escapeHtml(link(path, pageOf(pkg, m)))}">${escapeHtml(m.path)}</a></li>`).join("\n")}
</ul>
</nav>
`
    mkdirSync(dirname(join(out, path)), { recursive: true })
    writeFileSync(
      join(out, path),
      shell(path, `${module.path} · ${pkg.json.name ?? pkg.name}`, nav, render(pkg, module))
    )
  }
}

const pages = packages.reduce((n, pkg) => n + pkg.modules.length, 0)
console.log(`site: ${packages.length} packages, ${pages} module pages in ${relative(process.cwd(), out) || "."}`)
