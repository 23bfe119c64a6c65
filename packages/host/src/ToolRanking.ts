/**
 * Tools ranked against a query, lexically and without a model: the rule the chat's tool
 * selection and the gateway's tool search share.
 *
 * Texts become terms (split at anything that is not a letter or a digit and between the parts of
 * camelCase and kebab/snake names, lower-cased; one-letter words, numbers and English stop words
 * dropped, with the filler of requests: "please", "tool", "use"; then a light suffix stemmer, so
 * `files` meets `file` and `listing` meets `list`). A tool's terms are those of its host-wide name
 * (server and tool) and its title (weight 3 each) and of its description (weight 1). Its score
 * sums, over the distinct query terms it has, the term's weight times its rarity among the tools,
 * `ln(1 + tools / tools with the term)`. {@link rank} keeps the tools scoring above zero, best
 * first, ties in the given order.
 *
 * @since 0.1.0
 */
import type { McpClient } from "@effect-mcp/client"

const STOP_WORDS = new Set(
  (
    "about above after again against all also am an and any are as at be because been before being below between " +
    "both but by can could did do does doing done down during each either else ever every few for from further " +
    "had has have having he her here hers herself him himself his how however if in into is it its itself just " +
    "let like me might mine more most much must my myself need no nor not now of off on once one only onto or other " +
    "our ours ourselves out over own please same shall she should so some such than thank thanks that the their " +
    "theirs them themselves then there these they this those through thus to too under until up upon us very want " +
    "was we were what whatever when where whether which while who whom whose why will with within without would " +
    "yes yet you your yours yourself yourselves hi hello hey ok okay tool tools use used uses using"
  ).split(" ")
)

/** A word without its common English suffix. */
const stem = (word: string): string => {
  if (word.length > 5 && word.endsWith("ing")) return word.slice(0, -3)
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`
  if (word.length > 4 && word.endsWith("ed")) return word.slice(0, -2)
  if (word.length > 4 && /(?:s|x|z|ch|sh)es$/.test(word)) return word.slice(0, -2)
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1)
  return word
}

/** The words of a text, split as the module says, lower-cased, before stop words and stemming. */
const words = (text: string): ReadonlyArray<string> =>
  text
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? []

/**
 * The terms of a text: its words without stop words, numbers and single letters, stemmed.
 *
 * @since 0.1.0
 * @category parsing
 */
export const terms = (text: string): ReadonlyArray<string> =>
  words(text).flatMap((word) => {
    if (word.length < 2 || /^\p{N}+$/u.test(word) || STOP_WORDS.has(word)) return []
    const stemmed = stem(word)
    return STOP_WORDS.has(stemmed) ? [] : [stemmed]
  })

/**
 * What ranking reads of a tool: its host-wide name and the tool as its server lists it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Fields {
  readonly name: string
  readonly tool: Pick<McpClient.Tool, "title" | "description" | "annotations">
}

/**
 * A tool and its score against a query.
 *
 * @since 0.1.0
 * @category models
 */
export interface Scored<T> {
  readonly tool: T
  readonly score: number
}

const NAME_WEIGHT = 3

const weightsOf = (fields: Fields): ReadonlyMap<string, number> => {
  const weights = new Map<string, number>()
  for (const term of terms(fields.tool.description ?? "")) weights.set(term, 1)
  const title = fields.tool.title ?? fields.tool.annotations?.title ?? ""
  for (const term of terms(`${fields.name} ${title}`)) weights.set(term, NAME_WEIGHT)
  return weights
}

/**
 * Every tool's score against the query, in the tools' order (`fieldsOf` reads a tool's name and definition).
 *
 * @since 0.1.0
 * @category scoring
 */
export const score = <T>(
  tools: ReadonlyArray<T>,
  query: string,
  fieldsOf: (tool: T) => Fields
): ReadonlyArray<Scored<T>> => {
  const weights = tools.map((tool) => weightsOf(fieldsOf(tool)))
  const frequency = new Map<string, number>()
  for (const byTerm of weights) for (const term of byTerm.keys()) frequency.set(term, (frequency.get(term) ?? 0) + 1)
  const asked = [...new Set(terms(query))]
  return tools.map((tool, index) => {
    let total = 0
    for (const term of asked) {
      const weight = weights[index]?.get(term)
      if (weight !== undefined) total += weight * Math.log(1 + tools.length / (frequency.get(term) ?? 1))
    }
    return { tool, score: total }
  })
}

/**
 * Options of {@link rank}.
 *
 * @since 0.1.0
 * @category options
 */
export interface RankOptions {
  /** At most this many tools. Default: all that match. */
  readonly limit?: number
  /** Only tools scoring at least this much. Default: 0 (any shared term). */
  readonly minScore?: number
}

/**
 * The tools that match the query, best first (ties in the given order).
 *
 * @since 0.1.0
 * @category scoring
 */
export const rank = <T>(
  tools: ReadonlyArray<T>,
  query: string,
  fieldsOf: (tool: T) => Fields,
  options: RankOptions = {}
): ReadonlyArray<Scored<T>> =>
  score(tools, query, fieldsOf)
    .map((scored, index) => ({ scored, index }))
    .filter(({ scored }) => scored.score > 0 && scored.score >= (options.minScore ?? 0))
    .sort((a, b) => b.scored.score - a.scored.score || a.index - b.index)
    .slice(0, Math.max(0, options.limit ?? tools.length))
    .map(({ scored }) => scored)
