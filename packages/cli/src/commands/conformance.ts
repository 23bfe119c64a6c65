/**
 * `effect-mcp conformance <url>`: the client side of the official conformance suite. The
 * runner starts a test server per scenario and runs this command with the server's URL and
 * `MCP_CONFORMANCE_SCENARIO`; we connect with the real client and transport, list the tools
 * and call the first one with arguments made from its input schema, answering elicitation
 * with the schema's defaults. Some scenarios need a different step: echoing a tool's input
 * schema back verbatim (JSON Schema 2020-12 preservation); listing and loading skills (SEP-2640).
 */

import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import { Authorizer, type McpClient, type OAuth, TokenStore } from "@effect-mcp/client"
import { ProtocolVersion } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { AuthSettings } from "../Authorization.js"
import { UsageError } from "../CliError.js"
import type { RunOptions, ServerOptions } from "../CommonOptions.js"
import { withClient } from "../Connect.js"
import { Output } from "../Output.js"
import { runCommand } from "./shared.js"

/** A sample value for a JSON Schema property: its default, first enum value, or one of its type. */
const sample = (schema: unknown): unknown => {
  if (typeof schema !== "object" || schema === null) return "test"
  const property = schema as {
    readonly default?: unknown
    readonly enum?: ReadonlyArray<unknown>
    readonly type?: unknown
  }
  if (property.default !== undefined) return property.default
  if (property.enum !== undefined && property.enum.length > 0) return property.enum[0]
  switch (property.type) {
    case "number":
    case "integer":
      return 1
    case "boolean":
      return true
    case "array":
      return []
    case "object":
      return {}
    default:
      return "test"
  }
}

/** Arguments for every property of a tool's input schema. */
export const sampleArguments = (tool: McpClient.Tool): { readonly [key: string]: unknown } =>
  Object.fromEntries(Object.entries(tool.inputSchema.properties ?? {}).map(([name, schema]) => [name, sample(schema)]))

/** A tool call the runner asks for by name (`MCP_CONFORMANCE_CONTEXT.toolCalls`). */
interface PlannedCall {
  readonly name: string
  readonly arguments?: { readonly [key: string]: unknown } | undefined
}

/** Uses every feature the server offers: each tool, resource and prompt once (the standard-headers scenario). */
const exerciseAll = (client: McpClient.McpClientService, tools: ReadonlyArray<McpClient.Tool>) =>
  Effect.gen(function* () {
    for (const tool of tools) yield* Effect.ignore(client.callTool(tool.name, sampleArguments(tool)))
    if (client.serverCapabilities.resources !== undefined) {
      for (const resource of yield* client.resources) yield* Effect.ignore(client.readResource(resource.uri))
    }
    if (client.serverCapabilities.prompts !== undefined) {
      for (const prompt of yield* client.prompts) {
        const args = Object.fromEntries((prompt.arguments ?? []).map((argument) => [argument.name, "test"]))
        yield* Effect.ignore(client.getPrompt(prompt.name, args))
      }
    }
  })

/**
 * The skills extension's scenarios (SEP-2640): list the skills, as a host does on connecting
 * (no skill file may be read then); except in the no-prefetch scenario, load the first skill,
 * as a model asking for it would, and read each of its other files through the loaded skill.
 * A skill whose SKILL.md fails verification is refused, and none of its files is read.
 */
const skillsStep = (scenario: string, client: McpClient.McpClientService) =>
  Effect.gen(function* () {
    const [first] = yield* client.skills.list
    if (scenario === "sep-2640-client-no-prefetch" || first === undefined) return
    const loaded = yield* client.skills.load(first.uri)
    for (const path of loaded.files) yield* loaded.readFile(path)
  })

const scenarioStep = (
  scenario: string,
  client: McpClient.McpClientService,
  planned: ReadonlyArray<PlannedCall> | undefined
) =>
  Effect.gen(function* () {
    if (scenario.startsWith("sep-2640-")) return yield* skillsStep(scenario, client)
    // A server without tools (the request-metadata scenario's) has nothing more to do.
    if (client.serverCapabilities.tools === undefined) return
    const tools = yield* client.tools
    // The runner's calls go as planned, even where they break the tool's schema (a null argument).
    if (planned !== undefined) {
      for (const call of planned) yield* client.callTool(call.name, call.arguments, { validateInput: false })
      return
    }
    // Listing is the point: the scenario checks that a $ref to the network is never fetched.
    if (scenario === "json-schema-ref-no-deref") return
    if (scenario === "http-standard-headers") return yield* exerciseAll(client, tools)
    if (scenario === "sep-2322-client-request-state" || scenario === "http-invalid-tool-headers") {
      for (const tool of tools) yield* Effect.ignore(client.callTool(tool.name, sampleArguments(tool)))
      return
    }
    if (scenario === "json-schema-2020-12-preservation") {
      const echo = tools.find((tool) => tool.name.endsWith("_echo"))
      const focal = tools.find((tool) => tool !== echo)
      if (echo === undefined || focal === undefined)
        return yield* new UsageError({ reason: "the server offers no echo tool and focal tool" })
      yield* client.callTool(echo.name, { schema: focal.inputSchema })
      return
    }
    const first = tools[0]
    if (first !== undefined) yield* client.callTool(first.name, sampleArguments(first))
  })

/** What the runner passes in `MCP_CONFORMANCE_CONTEXT` (the fields the auth scenarios use). */
const ScenarioContext = Schema.parseJson(
  Schema.Struct({
    name: Schema.String,
    client_id: Schema.optional(Schema.String),
    client_secret: Schema.optional(Schema.String),
    private_key_pem: Schema.optional(Schema.String),
    signing_algorithm: Schema.optional(Schema.Literal("ES256", "ES384", "RS256", "PS256")),
    valid_jwt: Schema.optional(Schema.String),
    idp_client_id: Schema.optional(Schema.String),
    idp_id_token: Schema.optional(Schema.String),
    idp_token_endpoint: Schema.optional(Schema.String),
    toolCalls: Schema.optional(
      Schema.Array(
        Schema.Struct({
          name: Schema.String,
          arguments: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
        })
      )
    )
  })
)

const contextOf = (raw: string | undefined) =>
  raw === undefined ? undefined : Option.getOrUndefined(Schema.decodeUnknownOption(ScenarioContext)(raw))

/** The Client ID Metadata Document URL the `auth/basic-cimd` scenario expects. */
const CONFORMANCE_CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"

/** The authorization the scenario asks for: machine credentials, pre-registered ones, or a client that registers itself. */
const authFor = (scenario: string, raw: string | undefined): AuthSettings => {
  const context = contextOf(raw)
  const options = ((): OAuth.OAuthOptions => {
    if (context?.client_id === undefined) return { clientMetadataUrl: CONFORMANCE_CLIENT_METADATA_URL }
    const clientId = context.client_id
    if (context.private_key_pem !== undefined)
      return {
        machine: {
          _tag: "PrivateKeyJwt",
          clientId,
          privateKeyPem: context.private_key_pem,
          ...(context.signing_algorithm === undefined ? {} : { algorithm: context.signing_algorithm })
        }
      }
    if (context.valid_jwt !== undefined)
      return { machine: { _tag: "JwtBearer", clientId, assertion: context.valid_jwt } }
    if (
      context.idp_id_token !== undefined &&
      context.idp_token_endpoint !== undefined &&
      context.idp_client_id !== undefined
    )
      return {
        machine: {
          _tag: "IdJag",
          clientId,
          ...(context.client_secret === undefined ? {} : { clientSecret: context.client_secret }),
          identityProvider: {
            tokenEndpoint: context.idp_token_endpoint,
            clientId: context.idp_client_id,
            idToken: context.idp_id_token
          }
        }
      }
    if (context.client_secret !== undefined && scenario.startsWith("auth/client-credentials"))
      return { machine: { _tag: "Secret", clientId, clientSecret: context.client_secret } }
    return {
      client: { clientId, ...(context.client_secret === undefined ? {} : { clientSecret: context.client_secret }) }
    }
  })()
  return {
    options: { clientName: "effect-mcp conformance", ...options },
    services: Layer.merge(Authorizer.followRedirect(), TokenStore.layerMemory)
  }
}

/** `conformance <url>`. */
export const conformance = Command.make(
  "conformance",
  { url: Args.text({ name: "url" }).pipe(Args.withDescription("The test server's URL (appended by the runner)")) },
  ({ url }) => {
    const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "initialize"
    const run: RunOptions = {
      json: false,
      verbose: process.env.MCP_CONFORMANCE_VERBOSE !== undefined,
      // No shorter request timeout than the client's default (60 s): the runner's per-scenario timeout governs.
      timeout: Option.none(),
      maxTime: Option.none(),
      retry: Option.none(),
      acceptDefaults: true,
      samplingCommand: Option.none(),
      roots: [],
      clientId: Option.none(),
      clientSecret: Option.none(),
      open: false,
      record: Option.none()
    }
    const server: ServerOptions = {
      stdio: Option.none(),
      url: Option.some(url),
      transport: "auto",
      headers: [],
      env: [],
      inheritEnv: false,
      cwd: Option.none(),
      name: Option.none(),
      config: Option.none(),
      persist: Option.none(),
      // The revision the runner asks for (MCP_CONFORMANCE_PROTOCOL_VERSION), else the automatic choice.
      protocolVersion: Option.getOrElse(
        Option.filter(Option.fromNullable(process.env.MCP_CONFORMANCE_PROTOCOL_VERSION), ProtocolVersion.isSupported),
        () => "auto" as const
      )
    }
    return runCommand(
      run,
      withClient(
        server,
        run,
        (client) => scenarioStep(scenario, client, contextOf(process.env.MCP_CONFORMANCE_CONTEXT)?.toolCalls),
        {
          auth: authFor(scenario, process.env.MCP_CONFORMANCE_CONTEXT)
        }
      ).pipe(Effect.tap(() => Effect.flatMap(Output, (output) => output.note(`conformance ${scenario}: done`))))
    )
  }
).pipe(
  Command.withDescription(
    "The client side of the official MCP conformance suite (run by the runner, which appends the URL).\n" +
      'Example: conformance client --command "effect-mcp conformance" --suite all'
  )
)
