/**
 * Texts as the lexical tool filter compares them: words split at anything that is not a letter
 * or a digit and between the parts of camelCase and kebab/snake names, lower-cased; one-letter
 * words, numbers and English stop words dropped (with the filler of requests: "please", "tool",
 * "use"); then a light suffix stemmer (`files` → `file`, `listing` → `list`, `queries` →
 * `query`), so a word and its plural meet.
 */

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
export const stem = (word: string): string => {
  if (word.length > 5 && word.endsWith("ing")) return word.slice(0, -3)
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`
  if (word.length > 4 && word.endsWith("ed")) return word.slice(0, -2)
  if (word.length > 4 && /(?:s|x|z|ch|sh)es$/.test(word)) return word.slice(0, -2)
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1)
  return word
}

/** The words of a text, split as the module says, lower-cased, before stop words and stemming. */
export const words = (text: string): ReadonlyArray<string> =>
  text
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? []

/** The terms of a text: its words without stop words, numbers and single letters, stemmed. */
export const terms = (text: string): ReadonlyArray<string> =>
  words(text).flatMap((word) => {
    if (word.length < 2 || /^\p{N}+$/u.test(word) || STOP_WORDS.has(word)) return []
    const stemmed = stem(word)
    return STOP_WORDS.has(stemmed) ? [] : [stemmed]
  })
