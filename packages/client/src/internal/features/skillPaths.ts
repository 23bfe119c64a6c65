/**
 * Where a skill's files are: the skill path of its `SKILL.md` URI (scheme and `/SKILL.md` left
 * off), its root directory, a file reference resolved against that root (never above it), and a
 * file's path relative to the root. Plain string work: nothing here reads anything.
 */

const SKILL_MD = "/SKILL.md"
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i

/** Whether a reference is a URI (it starts with a scheme), not a path or a name. */
export const hasScheme = (reference: string): boolean => HAS_SCHEME.test(reference)

/** The skill path of a `SKILL.md` URI: without the scheme and without `/SKILL.md`. */
export const skillPath = (uri: string): string => {
  const afterScheme = uri.includes("://") ? uri.slice(uri.indexOf("://") + 3) : uri.replace(HAS_SCHEME, "")
  return afterScheme.endsWith(SKILL_MD) ? afterScheme.slice(0, -SKILL_MD.length) : afterScheme
}

/** The skill's root directory URI: its `SKILL.md` URI without `/SKILL.md`. */
export const rootOf = (uri: string): string =>
  uri.endsWith(SKILL_MD) ? uri.slice(0, -SKILL_MD.length) : uri.slice(0, Math.max(0, uri.lastIndexOf("/")))

/**
 * A file reference resolved against the skill's root, as a filesystem path would resolve (`.`
 * and `..` segments; none may climb above the root). A URI stays as it is. None: it escapes.
 */
export const resolve = (root: string, reference: string): string | undefined => {
  if (HAS_SCHEME.test(reference)) return reference
  const segments: Array<string> = []
  for (const segment of reference.split("/")) {
    if (segment === "" || segment === ".") continue
    if (segment === "..") {
      if (segments.pop() === undefined) return undefined
      continue
    }
    segments.push(segment)
  }
  return segments.length === 0 ? undefined : `${root}/${segments.join("/")}`
}

/** A file's URI as a path relative to the skill's root (a URI outside it stays whole). */
export const relativeTo = (root: string, uri: string): string =>
  uri.startsWith(`${root}/`) ? uri.slice(root.length + 1) : uri
