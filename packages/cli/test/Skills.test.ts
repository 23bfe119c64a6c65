/**
 * `skills list` and `skills show` with the built binary, against a stdio server that serves one
 * skill and misbehaves as asked: a wrong digest, a wrong size, a frontmatter that differs from
 * the listing. A refused skill prints none of its content, names the file and the field, and
 * exits 3.
 */
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { run } from "./support/cli.js"

const fixture = fileURLToPath(new URL("fixtures/skills-server.mjs", import.meta.url))
const server = (fault = "none") => ["--", process.execPath, fixture, fault]
const SKILL = "skill://pdf-processing/SKILL.md"

describe.concurrent("skills", () => {
  it("skills list prints names and descriptions, and the entries with --json", async () => {
    const list = await run(["skills", "list", ...server()])
    expect([list.code, list.stderr]).toStrictEqual([0, ""])
    expect(list.stdout).toMatch(/^pdf-processing +Extract, fill, and assemble PDF documents$/m)
    const json = await run(["skills", "list", "--json", ...server()])
    expect(JSON.parse(json.stdout).skills).toMatchObject([{ uri: SKILL, path: "pdf-processing" }])
  })

  it("skills show prints the verified SKILL.md, its files, and a file asked for", async () => {
    const show = await run(["skills", "show", "pdf-processing", "--file", "references/FORMS.md", ...server()])
    expect([show.code, show.stderr]).toStrictEqual([0, ""])
    expect(show.stdout).toContain("description: Extract, fill, and assemble PDF documents")
    expect(show.stdout).toMatch(/^files:\n {2}references\/FORMS\.md$/m)
    expect(show.stdout).toContain("Forms: fill every field.")
    const json = JSON.parse((await run(["skills", "show", SKILL, "--json", ...server()])).stdout)
    expect(json.instructions).toBe("# PDF processing\n\nFill forms as references/FORMS.md says.\n")
    expect(json.frontmatter.metadata).toStrictEqual({ version: "2.1.0" })
  })

  for (const [fault, field] of [
    ["digest", "digest"],
    ["size", "size"],
    ["frontmatter", "frontmatter.description"]
  ] as const) {
    it(`skills show refuses a SKILL.md with a wrong ${fault}`, async () => {
      const show = await run(["skills", "show", "pdf-processing", "--file", "references/FORMS.md", ...server(fault)])
      expect(show.code).toBe(3)
      expect(show.stdout).toBe("")
      expect(show.stderr).toContain(`${SKILL} failed verification (${field})`)
      const json = await run(["skills", "show", "pdf-processing", "--json", ...server(fault)])
      expect(JSON.parse(json.stderr).error).toMatchObject({ kind: "SkillVerificationFailed", exitCode: 3 })
    })
  }

  it("skills show of an unknown name is a usage error", async () => {
    const show = await run(["skills", "show", "no-such-skill", ...server()])
    expect(show.code).toBe(2)
    expect(show.stderr).toMatch(/no skill named no-such-skill/)
  })
})
