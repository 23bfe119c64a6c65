/**
 * The documents' relative links: in README.md, ARCHITECTURE.md and every package's README.md, each
 * link or image to a path of the repository names a file or directory that exists, and each
 * `#anchor` into a markdown file names one of its headings (as GitHub makes anchors of headings).
 * Links to other sites are not followed.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..")

/** The documents checked, relative to the repository. */
const documents = [
  "README.md",
  "ARCHITECTURE.md",
  ...readdirSync(join(root, "packages"))
    .sort()
    .map((name) => `packages/${name}/README.md`)
    .filter((path) => existsSync(join(root, path)))
]

/** A document's lines outside fenced code blocks, each with its line number. */
const prose = (text: string): ReadonlyArray<readonly [number, string]> => {
  const lines: Array<readonly [number, string]> = []
  let fenced = false
  for (const [index, line] of text.split("\n").entries()) {
    if (line.trimStart().startsWith("```")) fenced = !fenced
    else if (!fenced) lines.push([index + 1, line])
  }
  return lines
}

/** The anchors GitHub gives a markdown file's headings (a repeated one gets `-1`, `-2`, …). */
const anchors = (text: string): ReadonlySet<string> => {
  const seen = new Map<string, number>()
  const found = new Set<string>()
  for (const [, line] of prose(text)) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line)?.[1]
    if (heading === undefined) continue
    const slug = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-")
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    found.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return found
}

interface Link {
  readonly document: string
  readonly line: number
  readonly target: string
}

/** The relative links of a document: `[text](target)` and `![alt](target)` outside code. */
const links = (document: string): ReadonlyArray<Link> =>
  prose(readFileSync(join(root, document), "utf8")).flatMap(([line, text]) =>
    [...text.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].flatMap((match) => {
      const target = match[1] ?? ""
      return /^[a-z][a-z0-9+.-]*:/i.test(target) ? [] : [{ document, line, target }]
    })
  )

/** What is wrong with a link, or undefined when it resolves. */
const problem = ({ document, target }: Link): string | undefined => {
  const [path = "", anchor] = target.split("#", 2)
  const file = path === "" ? join(root, document) : join(root, dirname(document), decodeURI(path))
  if (relative(root, file).startsWith("..")) return "points outside the repository"
  if (!existsSync(file)) return `no file ${relative(root, file)}`
  if (anchor === undefined || anchor === "") return undefined
  if (!file.endsWith(".md")) return undefined
  return anchors(readFileSync(file, "utf8")).has(anchor)
    ? undefined
    : `no heading #${anchor} in ${relative(root, file)}`
}

describe("the documents' links", () => {
  it("every package has a README, and the documents have relative links", () => {
    for (const name of readdirSync(join(root, "packages")))
      if (existsSync(join(root, "packages", name, "package.json")))
        expect(documents, name).toContain(`packages/${name}/README.md`)
    expect(documents.flatMap(links).length).toBeGreaterThan(20)
  })

  it("an anchor is made as GitHub makes it", () => {
    const made = anchors("# A `b` c: d\n## Quickstart\n```\n# not a heading\n```\n## Quickstart\n")
    expect([...made]).toStrictEqual(["a-b-c-d", "quickstart", "quickstart-1"])
  })

  it("every relative link resolves to a file, and every anchor to a heading", () => {
    const broken = documents.flatMap(links).flatMap((link) => {
      const why = problem(link)
      return why === undefined ? [] : [`${link.document}:${link.line}: (${link.target}) ${why}`]
    })
    expect(broken).toStrictEqual([])
  })
})
