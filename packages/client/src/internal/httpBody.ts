/** Reading HTTP bodies with a size limit, so a huge or endless body is an error, not memory. */
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

const collect = (response: HttpClientResponse.HttpClientResponse, maxBytes: number) =>
  Effect.gen(function* () {
    const chunks: Array<Uint8Array> = []
    let size = 0
    let over = false
    yield* response.stream.pipe(
      Stream.mapError((error) => `reading the body failed: ${error.message}`),
      Stream.runForEachWhile((chunk) => {
        const room = maxBytes - size
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room))
          size = maxBytes
          over = true
          return Effect.succeed(false)
        }
        chunks.push(chunk)
        size += chunk.length
        return Effect.succeed(true)
      })
    )
    const bytes = new Uint8Array(size)
    let offset = 0
    for (const chunk of chunks) {
      bytes.set(chunk, offset)
      offset += chunk.length
    }
    return { text: new TextDecoder().decode(bytes), over }
  })

/** The body as text, failing with a reason when it is larger than `maxBytes`. */
export const readBody = (
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number
): Effect.Effect<string, string> =>
  Effect.flatMap(collect(response, maxBytes), ({ text, over }) =>
    over ? Effect.fail(`the body exceeded the maximum size of ${maxBytes} bytes`) : Effect.succeed(text)
  )

/** The first `maxBytes` of the body as text (for error messages); empty when it cannot be read. */
export const readExcerpt = (response: HttpClientResponse.HttpClientResponse, maxBytes: number): Effect.Effect<string> =>
  collect(response, maxBytes).pipe(
    Effect.map(({ text, over }) => (over ? `${text}…` : text)),
    Effect.orElseSucceed(() => "")
  )

/** An HTTP client error with its underlying cause (for example `ECONNREFUSED`), in one line. */
export const describeHttpError = (error: HttpClientError.HttpClientError): string => {
  const cause = error.cause
  const detail =
    cause instanceof Error
      ? `${"code" in cause && typeof cause.code === "string" ? `${cause.code} ` : ""}${cause.message}`
      : undefined
  return detail === undefined ? error.message : `${error.message}: ${detail}`
}
