/**
 * Help's data as the bundled binary carries it: `scripts/bundle.mjs` replaces this module with
 * the catalogue it reads from the command tree at build time. Unbundled it is `undefined`, and
 * `bin.ts` reads the command tree itself.
 */
import type { Catalogue } from "../Help.js"

/** The catalogue embedded at build time, if any. */
export const embedded: Catalogue | undefined = undefined
