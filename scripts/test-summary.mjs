#!/usr/bin/env node
/** Prints vitest's JSON report (build/vitest-report.json) as one plain closing line: "N passed, N failed". */
import { readFileSync } from "node:fs"

const report = JSON.parse(readFileSync(new URL("../build/vitest-report.json", import.meta.url), "utf8"))
const skipped = report.numPendingTests + report.numTodoTests
console.log(
  `tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`
)
