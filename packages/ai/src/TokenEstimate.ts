/**
 * How many tokens a text costs a model, without a tokenizer. The rule: **one token per four
 * bytes of UTF-8, rounded up**. Providers send a tool result and a tool definition as JSON
 * text, so what is measured is that JSON text (`JSON.stringify`). English prose and JSON run
 * close to four bytes a token with the common tokenizers; code and non-Latin scripts run
 * denser, so the estimate is a guide, not a bound. When the provider can count (an
 * `@effect/ai` `Tokenizer` in the context), {@link ResultBudget} uses its counts instead.
 *
 * @since 0.1.0
 */

/**
 * Bytes of UTF-8 per estimated token.
 *
 * @since 0.1.0
 * @category constants
 */
export const BYTES_PER_TOKEN = 4

/**
 * The UTF-8 size of a text.
 *
 * @since 0.1.0
 * @category measuring
 */
export const utf8Bytes = (text: string): number => Buffer.byteLength(text, "utf8")

/**
 * Estimated tokens of so many bytes of UTF-8.
 *
 * @since 0.1.0
 * @category measuring
 */
export const ofBytes = (bytes: number): number => Math.ceil(bytes / BYTES_PER_TOKEN)

/**
 * Estimated tokens of a text.
 *
 * @since 0.1.0
 * @category measuring
 */
export const ofText = (text: string): number => ofBytes(utf8Bytes(text))

/**
 * Estimated tokens of a JSON value as a provider sends it (its `JSON.stringify` text); `undefined` costs nothing.
 *
 * @since 0.1.0
 * @category measuring
 */
export const ofJson = (value: unknown): number => ofText(JSON.stringify(value) ?? "")
