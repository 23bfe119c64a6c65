/**
 * Who the client is at an authorization server: the configured client, else the one this
 * session or an earlier run registered there for this redirect URI, else its Client ID
 * Metadata Document URL when the server supports them, else a new Dynamic Client
 * Registration (RFC 7591), which is saved for next time.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { AuthorizationError } from "../AuthError.js"
import { registrationAuthMethod } from "../ClientAuthentication.js"
import * as Discovery from "../Discovery.js"
import { RegistrationResponse } from "../Metadata.js"
import type { ClientCredentials } from "../OAuthOptions.js"
import type { StoredClient } from "../TokenStore.js"
import { post } from "./oauthHttp.js"
import type { FlowContext, State } from "./state.js"

/** A configured client, as the store keeps clients. */
export const configured = (client: ClientCredentials): StoredClient => ({
  client_id: client.clientId,
  ...(client.clientSecret === undefined ? {} : { client_secret: client.clientSecret }),
  ...(client.tokenEndpointAuthMethod === undefined
    ? {}
    : { token_endpoint_auth_method: client.tokenEndpointAuthMethod })
})

const accepts = (client: StoredClient, redirectUri: string) =>
  (client.redirect_uris ?? [redirectUri]).includes(redirectUri)

/** The client to authorize as at `discovered`'s issuer, redirected to `redirectUri`. */
export const identify = (
  ctx: FlowContext,
  discovered: Discovery.Discovered,
  redirectUri: string,
  known: State["registration"]
): Effect.Effect<StoredClient, AuthorizationError> =>
  Effect.gen(function* () {
    const { issuer, metadata } = discovered
    if (ctx.options.client !== undefined) return configured(ctx.options.client)
    if (Option.isSome(known) && known.value.issuer === issuer && accepts(known.value.client, redirectUri))
      return known.value.client
    const stored = yield* ctx.store.client(issuer)
    if (Option.isSome(stored) && accepts(stored.value, redirectUri)) return stored.value
    if (ctx.options.clientMetadataUrl !== undefined && metadata.client_id_metadata_document_supported === true)
      return { client_id: ctx.options.clientMetadataUrl, token_endpoint_auth_method: "none" }
    return yield* register(ctx, discovered, redirectUri)
  })

/** Dynamic Client Registration of a native client for `redirectUri`, saved in the store. */
const register = (ctx: FlowContext, discovered: Discovery.Discovered, redirectUri: string) =>
  Effect.gen(function* () {
    const { issuer, metadata } = discovered
    if (metadata.registration_endpoint === undefined)
      return yield* ctx.failed(
        "registration",
        `${issuer} offers no dynamic registration; configure a client id registered with it`
      )
    yield* Discovery.ensureSecure(ctx.server, "registration endpoint", metadata.registration_endpoint)
    const registered = yield* post(
      ctx.requester,
      "registration",
      metadata.registration_endpoint,
      {
        json: {
          client_name: ctx.options.clientName ?? "effect-mcp",
          redirect_uris: [redirectUri],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: registrationAuthMethod(metadata),
          application_type: "native"
        }
      },
      RegistrationResponse
    )
    const client: StoredClient = {
      client_id: registered.client_id,
      ...(registered.client_secret === undefined ? {} : { client_secret: registered.client_secret }),
      ...(registered.token_endpoint_auth_method === undefined
        ? {}
        : { token_endpoint_auth_method: registered.token_endpoint_auth_method }),
      redirect_uris: registered.redirect_uris ?? [redirectUri]
    }
    yield* ctx.store.saveClient(issuer, client)
    return client
  })
