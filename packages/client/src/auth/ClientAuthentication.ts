/**
 * How a client authenticates at the token endpoint (RFC 6749 §2.3, RFC 8414): its registered
 * method, else the best the server offers for a client with a secret (`client_secret_basic`,
 * then `client_secret_post`), else `none`; and what a registering client asks for (a public
 * client when the server allows one).
 */
import type { AuthorizationServerMetadata } from "./Metadata.js"
import type { StoredClient } from "./TokenStore.js"

/** The headers and form fields that authenticate a client. */
export interface Authentication {
  readonly headers: Record<string, string>
  readonly fields: Record<string, string>
}

const basic = (id: string, secret: string) => `Basic ${btoa(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`)}`

/** How a client authenticates at the token endpoint: its own choice, else the best the server offers. */
export const authMethodOf = (client: StoredClient, metadata: AuthorizationServerMetadata): string => {
  if (client.token_endpoint_auth_method !== undefined) return client.token_endpoint_auth_method
  if (client.client_secret === undefined) return "none"
  const supported = metadata.token_endpoint_auth_methods_supported ?? ["client_secret_basic"]
  if (supported.includes("client_secret_basic")) return "client_secret_basic"
  if (supported.includes("client_secret_post")) return "client_secret_post"
  return "client_secret_basic"
}

/** The headers and form fields that authenticate `client` at `metadata`'s token endpoint. */
export const clientAuthentication = (client: StoredClient, metadata: AuthorizationServerMetadata): Authentication => {
  const method = authMethodOf(client, metadata)
  if (method === "client_secret_basic" && client.client_secret !== undefined)
    return { headers: { authorization: basic(client.client_id, client.client_secret) }, fields: {} }
  if (method === "client_secret_post" && client.client_secret !== undefined)
    return { headers: {}, fields: { client_id: client.client_id, client_secret: client.client_secret } }
  return { headers: {}, fields: { client_id: client.client_id } }
}

/** What a registering client asks for: a public client when the server allows one. */
export const registrationAuthMethod = (metadata: AuthorizationServerMetadata): string => {
  const supported = metadata.token_endpoint_auth_methods_supported ?? ["client_secret_basic"]
  if (supported.includes("none")) return "none"
  if (supported.includes("client_secret_basic")) return "client_secret_basic"
  if (supported.includes("client_secret_post")) return "client_secret_post"
  return "none"
}
