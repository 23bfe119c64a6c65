/**
 * What each caller may do: a policy file's rules per principal (by id; `default` for the others),
 * on top of the host's own allow and deny lists. Visibility: `allow` (when given, only what one of
 * its rules matches is visible) and `deny` (what one of its rules matches is hidden), each rule a
 * server and the names of its tools, resources (URIs) or prompts, as that server gives them, `*`
 * matching any run of characters; a rule that names no kind matches everything of its server.
 * Limits: `requests`, the HTTP requests (POSTs) a principal may send, and `tools`, its calls of each
 * matching tool, each a rate (token bucket) or a quota (fixed window). The file is decoded with a
 * Schema, unknown keys refused, so a typo is an error and not a rule silently ignored.
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { Principal } from "./principal.js"
import type * as RateLimit from "./rateLimit.js"

/** A duration as text (`"1 minute"`, `"30 seconds"`, `"500 millis"`). */
const DurationText = Schema.transformOrFail(Schema.String, Schema.DurationFromSelf, {
  strict: true,
  decode: (text, _, ast) =>
    Option.match(Duration.decodeUnknown(text), {
      onNone: () =>
        ParseResult.fail(new ParseResult.Type(ast, text, `not a duration: ${text} (say "1 minute", "30 seconds")`)),
      onSome: (duration) =>
        Duration.toMillis(duration) > 0 && Duration.isFinite(duration)
          ? ParseResult.succeed(duration)
          : ParseResult.fail(new ParseResult.Type(ast, text, `not a positive, finite duration: ${text}`))
    }),
  encode: (duration) => ParseResult.succeed(Duration.format(duration))
})

const Names = Schema.Array(Schema.String)

/** A visibility rule: a server (default any) and, optionally, names of its tools, resources and prompts. */
export const Rule = Schema.Struct({
  server: Schema.optionalWith(Schema.String, { default: () => "*" }),
  tools: Schema.optional(Names),
  resources: Schema.optional(Names),
  prompts: Schema.optional(Names)
})

/** `limit` uses per `per`: a token bucket (`rate`, the default) or a fixed window (`quota`). */
export const Limit = Schema.Struct({
  limit: Schema.Int.pipe(Schema.positive()),
  per: DurationText,
  kind: Schema.optionalWith(Schema.Literal("rate", "quota"), { default: () => "rate" as const })
})

/** A limit on each tool of a server (default any) whose name (the server's) matches `tool` (default any). */
export const ToolLimit = Schema.extend(
  Limit,
  Schema.Struct({
    server: Schema.optionalWith(Schema.String, { default: () => "*" }),
    tool: Schema.optionalWith(Schema.String, { default: () => "*" })
  })
)

/** One principal's rules. */
export const Rules = Schema.Struct({
  allow: Schema.optional(Schema.Array(Rule)),
  deny: Schema.optional(Schema.Array(Rule)),
  requests: Schema.optional(Limit),
  tools: Schema.optional(Schema.Array(ToolLimit))
})

/** The type of {@link Rules}. */
export type Rules = typeof Rules.Type

/** A policy file: rules by principal id, and `default` for principals it does not name. */
export const PolicyFile = Schema.Struct({
  principals: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Rules }), { default: () => ({}) }),
  default: Schema.optional(Rules)
})

/** The type of {@link PolicyFile}. */
export type PolicyFile = typeof PolicyFile.Type

/**
 * An access file (a policy file, an API key file) that cannot be used: unreadable, not JSON, or
 * not what it should hold (the Schema's explanation, the entry named).
 */
export class AccessFileError extends Data.TaggedError("AccessFileError")<{
  readonly source: string
  readonly reason: string
}> {
  override get message(): string {
    return `${this.source}: ${this.reason}`
  }
}

const decodeFile = Schema.decodeUnknown(Schema.parseJson(PolicyFile), { onExcessProperty: "error", errors: "all" })

/** A policy file's text decoded; `source` names it in errors. */
export const parse = (text: string, source: string): Effect.Effect<PolicyFile, AccessFileError> =>
  Effect.mapError(
    decodeFile(text),
    (error) => new AccessFileError({ source, reason: ParseResult.TreeFormatter.formatErrorSync(error) })
  )

/** What a principal is checked against, in the kinds a rule may name. */
export type Kind = "tools" | "resources" | "prompts"

/** A glob (`*` any run of characters) as a test. */
const glob = (pattern: string): ((name: string) => boolean) => {
  if (pattern === "*") return () => true
  const source = pattern
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*")
  const regex = new RegExp(`^${source}$`)
  return (name) => regex.test(name)
}

/** A rule compiled: its server's test, and each kind's names (none: every item of the server). */
interface Compiled {
  readonly server: (server: string) => boolean
  /** `undefined`: the rule names no kind (it matches everything of its server). */
  readonly kinds: Partial<Record<Kind, (name: string) => boolean>> | undefined
}

const compile = (rule: typeof Rule.Type): Compiled => {
  const kinds: Partial<Record<Kind, (name: string) => boolean>> = {}
  for (const kind of ["tools", "resources", "prompts"] as const) {
    const names = rule[kind]
    if (names !== undefined) {
      const tests = names.map(glob)
      kinds[kind] = (name) => tests.some((test) => test(name))
    }
  }
  return { server: glob(rule.server), kinds: Object.keys(kinds).length === 0 ? undefined : kinds }
}

const matches = (rule: Compiled, kind: Kind, server: string, name: string): boolean =>
  rule.server(server) && (rule.kinds === undefined || rule.kinds[kind]?.(name) === true)

/** A tool limit compiled: the tools it covers. */
export interface ToolLimit {
  /** Its place in the rules (a key of its own, so two limits on one tool are both kept). */
  readonly index: number
  readonly covers: (server: string, tool: string) => boolean
  readonly limit: RateLimit.Limit
}

/** One principal's rules, compiled. */
export interface Access {
  /** Whether the item named so on `server` is visible. */
  readonly visible: (kind: Kind, server: string, name: string) => boolean
  /** Whether nothing of `server` is visible (its client is not reachable at all). */
  readonly hidesServer: (server: string) => boolean
  /** The limit on the principal's HTTP requests, if any. */
  readonly requests: RateLimit.Limit | undefined
  /** The limits on the principal's calls of tools. */
  readonly tools: ReadonlyArray<ToolLimit>
}

/** Everything visible, nothing limited. */
export const open: Access = { visible: () => true, hidesServer: () => false, requests: undefined, tools: [] }

const access = (rules: Rules): Access => {
  const allow = rules.allow?.map(compile)
  const deny = (rules.deny ?? []).map(compile)
  return {
    visible: (kind, server, name) =>
      (allow === undefined || allow.some((rule) => matches(rule, kind, server, name))) &&
      !deny.some((rule) => matches(rule, kind, server, name)),
    hidesServer: (server) =>
      (allow !== undefined && !allow.some((rule) => rule.server(server))) ||
      deny.some((rule) => rule.kinds === undefined && rule.server(server)),
    requests: rules.requests,
    tools: (rules.tools ?? []).map((limit, index) => {
      const server = glob(limit.server)
      const tool = glob(limit.tool)
      return {
        index,
        covers: (on: string, name: string) => server(on) && tool(name),
        limit: { kind: limit.kind, limit: limit.limit, per: limit.per }
      }
    })
  }
}

/** A policy: each principal's access. */
export interface Policy {
  readonly accessOf: (principal: Principal) => Access
}

/** Everyone sees everything, unlimited. */
export const unrestricted: Policy = { accessOf: () => open }

/**
 * The policy of a file, with `extra` rules by principal (an API key file's own allow and deny
 * lists), which the file's own rules for that principal override field by field.
 */
export const make = (file: PolicyFile, extra: Readonly<Record<string, Rules>> = {}): Policy => {
  const named = new Map<string, Access>()
  for (const id of new Set([...Object.keys(extra), ...Object.keys(file.principals)])) {
    // Field by field: what the file says of a principal wins over its key's own rules.
    named.set(id, access({ ...extra[id], ...file.principals[id] }))
  }
  const fallback = file.default === undefined ? open : access(file.default)
  return { accessOf: (principal) => named.get(principal.id) ?? fallback }
}
