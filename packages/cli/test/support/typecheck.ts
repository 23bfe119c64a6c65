/**
 * Type-checks generated TypeScript with the repository's `tsc` under the project's strict
 * settings: a `tsconfig.json` extending `tsconfig.base.json` is written into `dir` (a directory
 * inside the repository, so that the workspace's packages resolve, as built: their declarations).
 */
import { execFile } from "node:child_process"
import { writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

const base = fileURLToPath(new URL("../../../../tsconfig.base.json", import.meta.url))
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")

/** The compiler's complaints about the `.ts` files in `dir`; empty when there are none. */
export const typecheck = async (dir: string): Promise<string> => {
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      extends: relative(dir, base),
      compilerOptions: { composite: false, incremental: false, noEmit: true, customConditions: [] },
      include: ["*.ts"]
    })
  )
  return promisify(execFile)(process.execPath, [tsc, "-p", join(dir, "tsconfig.json")]).then(
    () => "",
    (error: { stdout?: string }) => error.stdout || String(error)
  )
}
