/**
 * Recordings of a session's JSON-RPC traffic (`--record FILE`), and reading them back
 * (`effect-mcp replay FILE`). A recording is newline-delimited JSON: a header line, then one line
 * per message with its direction (`send`: to the server, `receive`: from it) and the milliseconds
 * since the start. The transport is recorded, not the peer, so the era probe is in it too. Text
 * values under names that hold secrets (`token`, `secret`, `password`, `apiKey`, `authorization`,
 * `cookie`, `credential`, …; not `progressToken`) are masked before they are written, and so is
 * every secret value the run knows (see {@link secretValues}) wherever it appears in a text, as
 * a part of it too: a server may echo what it was given (the reference server's `get-env`).
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { PlainForm, TokenStore, type Transport } from "@effect-mcp/client"
import { JsonRpc } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { isSecretName } from "./secretNames.js"

/** The first line of a recording. */
export const Header = Schema.Struct({
  recording: Schema.Literal("effect-mcp"),
  version: Schema.Literal(1),
  server: Schema.String,
  startedAt: Schema.String
})

/** One recorded message. */
export const Line = Schema.Struct({
  t: Schema.Number,
  dir: Schema.Literal("send", "receive"),
  message: JsonRpc.JSONRPCMessage
})
export type Line = typeof Line.Type

/** What stands in for a masked value. */
export const MASK = "[masked]"

/** Secret values shorter than this are masked only under a secret's name: `DEBUG=1` is no secret, and its `1` is in every text. */
const SHORTEST = 4

/**
 * The values a recording must not hold: those of the server's environment and HTTP headers as
 * given (`--env`, `--header`, a config entry's `env` and `headers`, expanded), a header's
 * credentials after its scheme (`Bearer …`) too, and those of the inherited environment under a
 * secret's name (`GITHUB_TOKEN`).
 */
export const secretValues = (given: {
  readonly env?: { readonly [name: string]: string }
  readonly headers?: { readonly [name: string]: string }
  readonly inherited?: { readonly [name: string]: string | undefined }
}): ReadonlyArray<string> => {
  const named = (entries: ReadonlyArray<readonly [string, string | undefined]>, all: boolean) =>
    entries.flatMap(([name, value]) =>
      value !== undefined && value !== "" && (isSecretName(name) || (all && value.length >= SHORTEST)) ? [value] : []
    )
  const headers = Object.entries(given.headers ?? {})
  return [
    ...named(Object.entries(given.env ?? {}), true),
    ...named(headers, true),
    ...named(
      headers.map(([name, value]) => [name, /^\S+\s+(\S.*)$/.exec(value)?.[1]] as const),
      true
    ),
    ...named(Object.entries(given.inherited ?? {}), false)
  ]
}

/** `text` with every occurrence of a secret (as it is, and as it is inside a JSON string) masked. */
const maskText = (text: string, secrets: ReadonlyArray<string>): string =>
  secrets.reduce((masking, secret) => masking.split(secret).join(MASK), text)

/** The forms a secret takes in texts, longest first (so that a secret inside another goes with it). */
const formsOf = (secrets: ReadonlyArray<string>): ReadonlyArray<string> =>
  [...new Set(secrets.flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1)]))].sort(
    (a, b) => b.length - a.length
  )

/**
 * A copy of a JSON value with every text member named like a secret masked (a schema's
 * `maxTokens` property is not text), and every `secrets` value in any text masked.
 */
export const masked = (value: unknown, secrets: ReadonlyArray<string> = []): unknown => {
  const forms = formsOf(secrets)
  const mask = (member: unknown): unknown => {
    if (typeof member === "string") return maskText(member, forms)
    if (Array.isArray(member)) return member.map(mask)
    if (typeof member !== "object" || member === null) return member
    return Object.fromEntries(
      Object.entries(member).map(([key, inner]) => [
        key,
        typeof inner === "string" && isSecretName(key) ? MASK : mask(inner)
      ])
    )
  }
  return mask(value)
}

/** A message masked, its envelope kept (`jsonrpc`, `id`, `method`), so that the recording can be replayed. */
const maskedMessage = (message: JsonRpc.JSONRPCMessage, secrets: ReadonlyArray<string>): unknown => {
  const { jsonrpc, ...rest } = message
  const kept = Object.fromEntries(
    Object.entries(rest).map(([key, value]) => [key, key === "id" || key === "method" ? value : masked(value, secrets)])
  )
  return { jsonrpc, ...kept }
}

/**
 * The token store, every OAuth token and client secret it gives or takes told to `note` (as the
 * secrets of a recording: the server may echo its token).
 */
export const notingTokens = (
  note: (values: ReadonlyArray<string>) => Effect.Effect<void>
): Layer.Layer<TokenStore.TokenStore, never, TokenStore.TokenStore> =>
  Layer.effect(
    TokenStore.TokenStore,
    Effect.map(TokenStore.TokenStore, (store): TokenStore.TokenStoreService => {
      const ofTokens = (tokens: TokenStore.StoredTokens) =>
        note([tokens.access_token, ...(tokens.refresh_token === undefined ? [] : [tokens.refresh_token])])
      const ofClient = (client: TokenStore.StoredClient) =>
        note(client.client_secret === undefined ? [] : [client.client_secret])
      const found =
        <A>(f: (value: A) => Effect.Effect<void>) =>
        (value: Option.Option<A>) =>
          Option.match(value, { onNone: () => Effect.void, onSome: f })
      return {
        ...store,
        client: (issuer) => Effect.tap(store.client(issuer), found(ofClient)),
        saveClient: (issuer, client) => Effect.zipRight(ofClient(client), store.saveClient(issuer, client)),
        tokens: (key) => Effect.tap(store.tokens(key), found(ofTokens)),
        latest: (serverUrl) =>
          Effect.tap(
            store.latest(serverUrl),
            found((entry: TokenStore.StoredEntry) => ofTokens(entry.tokens))
          ),
        entries: Effect.tap(store.entries, (entries) => Effect.forEach(entries, (entry) => ofTokens(entry.tokens))),
        saveTokens: (key, tokens) => Effect.zipRight(ofTokens(tokens), store.saveTokens(key, tokens))
      }
    })
  )

/**
 * The transport with its traffic recorded: every message sent and received (the era probe and its
 * answer included) is kept, and the recording is written to `path` when the scope closes, masked:
 * with the `secrets` known then (an OAuth token may come after the first message).
 */
export const recorded = (
  transport: Transport.TransportService,
  path: string,
  server: string,
  secrets: Effect.Effect<ReadonlyArray<string>>
): Effect.Effect<Transport.TransportService, never, FileSystem.FileSystem | Scope.Scope> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const started = Date.now()
    const header = JSON.stringify({
      recording: "effect-mcp",
      version: 1,
      server,
      startedAt: new Date(started).toISOString()
    })
    const kept: Array<{ readonly t: number; readonly dir: Line["dir"]; readonly message: JsonRpc.JSONRPCMessage }> = []
    const keep = (dir: Line["dir"], message: JsonRpc.JSONRPCMessage) => {
      kept.push({ t: Date.now() - started, dir, message })
    }
    const text = Effect.map(secrets, (known) =>
      [
        header,
        ...kept.map(({ t, dir, message }) => JSON.stringify({ t, dir, message: maskedMessage(message, known) }))
      ].join("\n")
    )
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(text, (lines) => fs.writeFileString(path, `${lines}\n`)).pipe(
        Effect.catchAll((error) => Effect.logWarning(`the recording could not be written to ${path}`, error.message))
      )
    )
    const { probe } = transport
    const sendNow = PlainForm.of(transport.send)
    const send: Transport.TransportService["send"] = (message, headers) =>
      Effect.zipRight(
        Effect.sync(() => keep("send", message)),
        transport.send(message, headers)
      )
    // The recording writes in the caller when the transport does, and keeps what it writes.
    return {
      ...transport,
      run: (deliver) =>
        transport.run((item) => {
          if (item._tag === "Message") keep("receive", item.message)
          deliver(item)
        }),
      send:
        sendNow === undefined
          ? send
          : PlainForm.attach(send, (message: JsonRpc.JSONRPCMessage) => {
              keep("send", message)
              return sendNow(message)
            }),
      ...(probe === undefined
        ? {}
        : {
            probe: (request: JsonRpc.JSONRPCRequest, timeout: Parameters<typeof probe>[1]) =>
              Effect.zipRight(
                Effect.sync(() => keep("send", request)),
                Effect.tap(probe(request, timeout), (outcome) =>
                  Effect.sync(() => {
                    if (outcome._tag === "Answered") keep("receive", outcome.message)
                  })
                )
              )
          })
    }
  })

/** A recording read back: its header and its lines, each checked; `Left` says which line is wrong. */
export const parse = (
  text: string
): Either.Either<{ readonly header: typeof Header.Type; readonly lines: ReadonlyArray<Line> }, string> => {
  const [first = "", ...rest] = text.split("\n").filter((line) => line.trim() !== "")
  const decodeLine = <A, I>(schema: Schema.Schema<A, I>, line: string, number: number) =>
    Either.mapLeft(
      Schema.decodeEither(Schema.parseJson(schema))(line),
      () => `line ${number} is not a recorded message`
    )
  return Either.flatMap(
    Either.mapLeft(
      decodeLine(Header, first, 1),
      () => "this is not an effect-mcp recording (its first line is not the header)"
    ),
    (header) =>
      Either.map(Either.all(rest.map((line, index) => decodeLine(Line, line, index + 2))), (lines) => ({
        header,
        lines
      }))
  )
}
