#!/usr/bin/env node
/**
 * The quick half of `npm run docgen`'s checks, for `npm run lint`: every module of a published
 * package's `exports` map has a `@since` in its header, and so does every export in it (a
 * declaration, an `export * as`, an `export *`, each name of an `export { … }`). docgen itself
 * also compiles and runs the examples, which takes minutes; this reads the sources with the
 * TypeScript parser in about a second.
 *
 *   node scripts/since.mjs     exits 1, naming each export without its @since
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import ts from "typescript"

const root = join(import.meta.dirname, "..")
const packages = ["protocol", "jsonrpc", "client", "node", "host", "gateway", "ai", "web", "cli"]

/** Whether a `@since` tag is in the doc comments right before `node` (or inside a specifier). */
const hasSince = (node, text) =>
  (ts.getLeadingCommentRanges(text, node.pos) ?? []).some((range) => /@since\s/.test(text.slice(range.pos, range.end)))

const isExported = (node) => ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Export

const missing = []
for (const name of packages) {
  const dir = join(root, "packages", name)
  const { exports } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
  for (const target of Object.values(exports)) {
    // A file exported as it is (`./package.json`) has no source module.
    if (typeof target === "string") continue
    const file = target["@effect-mcp/source"]
    const text = readFileSync(join(dir, file), "utf8")
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true)
    const where = (node) =>
      `packages/${name}/${file.replace(/^\.\//, "")}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`
    if (!/^\s*\/\*\*[\s\S]*?@since\s[\s\S]*?\*\//.test(text))
      missing.push(`packages/${name}/${file}: the module's header`)
    for (const statement of source.statements) {
      if (ts.isExportDeclaration(statement)) {
        const clause = statement.exportClause
        if (clause === undefined || ts.isNamespaceExport(clause)) {
          if (!hasSince(statement, text)) missing.push(`${where(statement)}: ${statement.getText().split("\n")[0]}`)
        } else {
          for (const element of clause.elements)
            if (!hasSince(element, text) && !(clause.elements.length === 1 && hasSince(statement, text)))
              missing.push(`${where(element)}: ${element.name.text}`)
        }
        continue
      }
      if (ts.isExportAssignment(statement) || !isExported(statement)) continue
      if (!hasSince(statement, text)) {
        const named = statement.name?.text ?? statement.declarationList?.declarations[0]?.name.getText() ?? "export"
        missing.push(`${where(statement)}: ${named}`)
      }
    }
  }
}
if (missing.length > 0) {
  console.error(`${missing.length} exports without @since (npm run docgen needs one on each):`)
  for (const line of missing) console.error(`  ${line}`)
  process.exit(1)
}
