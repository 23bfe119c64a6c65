/** "Did you mean": the known names closest to a mistyped one. */

/** The edit distance (insertions, deletions, substitutions, adjacent swaps) between two words. */
export const distance = (a: string, b: string): number => {
  const rows: Array<Array<number>> = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0))
  )
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const row = rows[i] ?? []
      const above = rows[i - 1] ?? []
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min((above[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (above[j - 1] ?? 0) + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, (rows[i - 2]?.[j - 2] ?? 0) + 1)
      row[j] = best
    }
  return rows[a.length]?.[b.length] ?? 0
}

/**
 * Up to `limit` names close to `typed`: within a few edits (case ignored), or containing it
 * or contained in it; nearest first.
 */
export const closest = (typed: string, names: ReadonlyArray<string>, limit = 3): ReadonlyArray<string> => {
  const wanted = typed.toLowerCase()
  const budget = Math.max(2, Math.floor(wanted.length / 3))
  return names
    .map((name) => {
      const lower = name.toLowerCase()
      const edits = distance(wanted, lower)
      const related = wanted.length >= 3 && (lower.includes(wanted) || wanted.includes(lower))
      return { name, score: related ? Math.min(edits, budget) : edits }
    })
    .filter(({ score }) => score <= budget)
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
    .slice(0, limit)
    .map(({ name }) => name)
}
