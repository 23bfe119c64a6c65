/**
 * The YAML parser, imported by `frontmatter.ts` at the first skill loaded (as a module of ours, so
 * that Node and a bundler resolve it as they do for a static import).
 */
export { parseDocument } from "yaml"
