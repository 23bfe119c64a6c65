/**
 * What each caller may do through the gateway, from a policy file (JSON): per principal (by its id;
 * `default` for the others) which servers' tools, resources and prompts it sees (`allow`, `deny`;
 * on top of the host's own lists; a hidden tool is an unknown tool to it), how many HTTP requests
 * it may send (`requests`: 429 with `Retry-After` beyond) and how often it may call each tool
 * (`tools`: a JSON-RPC error {@link RATE_LIMITED} with `retryAfter` in its data beyond). A limit is
 * `{"limit": N, "per": "1 minute"}`, a token bucket, or with `"kind": "quota"` N uses per window.
 *
 * A policy file:
 *
 * ```json
 * {
 *   "principals": {
 *     "ci": {
 *       "allow": [{ "server": "github", "tools": ["get_*", "list_*"] }],
 *       "requests": { "limit": 120, "per": "1 minute" },
 *       "tools": [{ "server": "github", "tool": "*", "limit": 1000, "per": "1 day", "kind": "quota" }]
 *     }
 *   },
 *   "default": { "deny": [{ "server": "admin" }] }
 * }
 * ```
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as ApiKeys from "./internal/apiKeys.js"
import * as GuardedHost from "./internal/guardedHost.js"
import * as InternalPolicy from "./internal/policy.js"

/**
 * A policy, for the server's `policy` option.
 *
 * @since 0.1.0
 * @category models
 */
export type Policy = InternalPolicy.Policy

/**
 * The policy file's Schema.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PolicyFile = InternalPolicy.PolicyFile

/**
 * A policy file (or key file) that cannot be used, naming the file and what is wrong (unknown keys are refused).
 *
 * @since 0.1.0
 * @category errors
 */
export const AccessFileError = InternalPolicy.AccessFileError

/**
 * The type of {@link AccessFileError}.
 *
 * @since 0.1.0
 * @category errors
 */
export type AccessFileError = InternalPolicy.AccessFileError

/**
 * The JSON-RPC error code of a tool call refused by a rate limit or quota.
 *
 * @since 0.1.0
 * @category constants
 */
export const RATE_LIMITED = GuardedHost.RATE_LIMITED

/**
 * The policy of a policy file's text; the API keys' own rules apply to the names it does not list.
 * Fails with {@link AccessFileError}; `source` names the text in it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const parse = (
  text: string,
  source: string,
  apiKeys: ReadonlyArray<ApiKeys.ApiKey> = []
): Effect.Effect<Policy, AccessFileError> =>
  Effect.map(InternalPolicy.parse(text, source), (file) => InternalPolicy.make(file, ApiKeys.rulesOf(apiKeys)))

/**
 * The policy of a policy file (see {@link parse}); a file that cannot be read is a {@link AccessFileError} too.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromFile = (
  path: string,
  apiKeys: ReadonlyArray<ApiKeys.ApiKey> = []
): Effect.Effect<Policy, AccessFileError, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(path)).pipe(
    Effect.mapError((error) => new InternalPolicy.AccessFileError({ source: path, reason: error.message })),
    Effect.flatMap((text) => parse(text, path, apiKeys))
  )
