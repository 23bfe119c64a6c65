/**
 * The `-32042` error path of URL-mode elicitation: a server refuses a request until the user
 * has visited a URL. The CLI shows each URL with the server's message, offers to open it on a
 * terminal, and says to retry the request once done there.
 *
 * @since 0.1.0
 */
import * as Prompt from "@effect/cli/Prompt"
import type { McpError } from "@effect-mcp/client"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { openBrowser } from "./internal/browser.js"
import { Output } from "./Output.js"
import { display, type ServerNames } from "./ServerNames.js"

/**
 * What the CLI uses of one requested URL elicitation.
 *
 * @since 0.1.0
 * @category schemas
 */
export const UrlRequest = Schema.Struct({ url: Schema.String, message: Schema.String, elicitationId: Schema.String })

const decodeData = Schema.decodeUnknownOption(Schema.Struct({ elicitations: Schema.Array(UrlRequest) }))

/**
 * The URL elicitations a failure asks for: none unless it is a `-32042` error with well-formed data.
 *
 * @since 0.1.0
 * @category accessors
 */
export const urlsOf = (failure: { readonly _tag: string }): ReadonlyArray<typeof UrlRequest.Type> =>
  failure._tag === "RpcError" && "code" in failure && failure.code === -32042 && "data" in failure
    ? Option.match(decodeData(failure.data), { onNone: () => [], onSome: (data) => data.elicitations })
    : []

/**
 * Shows what a `-32042` error asks the user to open (and, on a terminal, offers to open it);
 * then fails with the error itself, so that the exit code stays that of a refused request.
 *
 * @since 0.1.0
 * @category error handling
 */
export const explain = (
  error: McpError.RpcError,
  interactive: boolean
): Effect.Effect<never, McpError.RpcError, Output | Prompt.Prompt.Environment | ServerNames> =>
  Effect.gen(function* () {
    const output = yield* Output
    const server = yield* display(error.server)
    const urls = urlsOf(error)
    yield* output.status(undefined)
    for (const request of urls) {
      yield* output.note(`${server} needs you to open ${request.url}\n  ${request.message}`)
      if (interactive) {
        const open = yield* Prompt.run(
          Prompt.confirm({
            message: `Open ${URL.canParse(request.url) ? new URL(request.url).host : "the page"} in your browser?`,
            initial: true
          })
        ).pipe(Effect.orElseSucceed(() => false))
        if (open) yield* openBrowser(request.url)
      }
    }
    if (urls.length > 0) yield* output.note("when you are done there, run the same command again")
    return yield* Effect.fail(error)
  })
