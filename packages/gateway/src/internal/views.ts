/**
 * MCP Apps (`io.modelcontextprotocol/ui`) through the gateway: every view address (`ui://…`) a
 * server gives is rewritten to name that server, so that two servers' views never share an address
 * and a read of one reaches its own server only; a client that did not declare the extension is
 * shown no views; and a view's call by the bare name its server knows is taken back to that server.
 *
 * The address: `ui://<server>/<the original address after ui://>`, the server's name percent-encoded
 * (`encodeURIComponent`), so it holds no `/` and the first path segment is always the server. The
 * scheme stays `ui://`, as the extension requires. `ui://weather/view.html` of server `alpha` is
 * `ui://alpha/weather/view.html`; the way back drops the first segment.
 */
import type { McpClient } from "@effect-mcp/client"
import type { Aggregate, McpHost } from "@effect-mcp/host"
import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import { McpApps, McpSchema, type Methods } from "@effect-mcp/protocol"
import * as Effect from "effect/Effect"

/**
 * The `_meta` key under which a client says which view a `tools/call` or `resources/read` comes
 * from: the view's address as the gateway gave it. A view's call by a bare tool name then goes to
 * that view's server; a call or read that reaches another server is refused.
 */
export const VIEW_META_KEY = "effect-mcp/view"

/** A view address of `server`'s as the gateway gives it (any other address is left as it is). */
export const address = (server: string, uri: string): string =>
  McpApps.isUiUri(uri)
    ? `${McpApps.URI_SCHEME}${encodeURIComponent(server)}/${uri.slice(McpApps.URI_SCHEME.length)}`
    : uri

/** A view address the gateway gave, as its server gave it: the server and the original address. */
export interface Origin {
  readonly server: string
  readonly uri: string
}

/** The server and original address behind a view address the gateway gave; none for any other address. */
export const origin = (uri: string): Origin | undefined => {
  if (!McpApps.isUiUri(uri)) return undefined
  const rest = uri.slice(McpApps.URI_SCHEME.length)
  const slash = rest.indexOf("/")
  if (slash <= 0) return undefined
  try {
    return { server: decodeURIComponent(rest.slice(0, slash)), uri: `${McpApps.URI_SCHEME}${rest.slice(slash + 1)}` }
  } catch {
    // A malformed percent-encoding: no address the gateway gave.
    return undefined
  }
}

/** Whether a client declared the extension (in its capabilities at `initialize`, or a request's envelope). */
export const declared = (capabilities: McpSchema.ClientCapabilities): boolean =>
  capabilities.extensions?.[McpApps.EXTENSION] !== undefined

/** A `_meta` with its view addresses (`ui.resourceUri`, the flat `ui/resourceUri`) rewritten for `server`. */
const meta = <M extends { readonly [key: string]: unknown } | undefined>(server: string, value: M): M => {
  if (value === undefined) return value
  const ui = value.ui
  const flat = value[McpApps.LEGACY_RESOURCE_URI_KEY]
  if (!(McpSchema.isJsonObject(ui) && typeof ui.resourceUri === "string") && typeof flat !== "string") return value
  return {
    ...value,
    ...(McpSchema.isJsonObject(ui) && typeof ui.resourceUri === "string"
      ? { ui: { ...ui, resourceUri: address(server, ui.resourceUri) } }
      : {}),
    ...(typeof flat === "string" ? { [McpApps.LEGACY_RESOURCE_URI_KEY]: address(server, flat) } : {})
  }
}

/** A `_meta` without the extension's keys (for a client that did not declare it). */
const withoutViews = (value: { readonly [key: string]: unknown }): { readonly [key: string]: unknown } | undefined => {
  const { ui: _, [McpApps.LEGACY_RESOURCE_URI_KEY]: __, ...rest } = value
  return Object.keys(rest).length === 0 ? undefined : rest
}

/**
 * A host tool as a client sees it: its view's address rewritten for its server when the client
 * declared the extension; otherwise without a view (its `_meta.ui` removed), and none at all when
 * only a view may call it (its visibility lacks `model`).
 */
export const tool = (entry: Aggregate.HostTool, views: boolean): Aggregate.HostTool | undefined => {
  const { _meta, ...rest } = entry.tool
  if (_meta === undefined) return entry
  if (views) return { ...entry, tool: { ...rest, _meta: meta(entry.server, _meta) } }
  if (!McpApps.visibleToModel(entry.tool.ui)) return undefined
  const { ui: _, ...plain } = rest
  const kept = withoutViews(_meta)
  return { ...entry, tool: kept === undefined ? plain : { ...plain, _meta: kept } }
}

/** A content block with its view addresses rewritten for `server` (links, embedded resources). */
const block = (server: string, content: McpSchema.ContentBlock): McpSchema.ContentBlock => {
  switch (content.type) {
    case "resource_link":
      return { ...content, uri: address(server, content.uri) }
    case "resource":
      return { ...content, resource: { ...content.resource, uri: address(server, content.resource.uri) } }
    default:
      return content
  }
}

/** A tool's result with its view addresses rewritten for `server`: its content blocks and its `_meta`. */
export const result = (server: string, called: McpClient.CallToolResult): McpClient.CallToolResult => ({
  ...called,
  content: called.content.map((content) => block(server, content)),
  ...(called._meta === undefined ? {} : { _meta: meta(server, called._meta) })
})

/** A read's result with its contents' view addresses rewritten for `server`. */
export const read = (
  server: string,
  contents: Methods.ResultOf<"resources/read">
): Methods.ResultOf<"resources/read"> => ({
  ...contents,
  contents: contents.contents.map((content) => ({ ...content, uri: address(server, content.uri) }))
})

/** A listed resource as a client sees it: a view's rewritten for its server, or none when the client shows no views. */
export const resource = (entry: Aggregate.HostResource, views: boolean): McpSchema.Resource | undefined =>
  !McpApps.isUiUri(entry.resource.uri)
    ? entry.resource
    : views
      ? { ...entry.resource, uri: address(entry.server, entry.resource.uri) }
      : undefined

/** A listed template as a client sees it, as {@link resource}. */
export const template = (
  entry: Aggregate.HostResourceTemplate,
  views: boolean
): McpSchema.ResourceTemplate | undefined =>
  !McpApps.isUiUri(entry.template.uriTemplate)
    ? entry.template
    : views
      ? { ...entry.template, uriTemplate: address(entry.server, entry.template.uriTemplate) }
      : undefined

/** The server of the view a request says it comes from (`_meta["effect-mcp/view"]`), if it says one the gateway gave. */
export const viewServer = (request: Peer.InboundRequest): string | undefined => {
  const requestMeta = request.params?._meta
  const view = McpSchema.isJsonObject(requestMeta) ? requestMeta[VIEW_META_KEY] : undefined
  return typeof view === "string" ? origin(view)?.server : undefined
}

/** Whether any ready server declares the extension (the gateway then declares it too). */
export const offered = (host: McpHost.McpHostService): Effect.Effect<boolean> =>
  Effect.flatMap(host.servers, (servers) =>
    Effect.exists(
      servers.filter((server) => server.status._tag === "Ready"),
      (server) =>
        host.client(server.name).pipe(
          Effect.map((client) => client.serverCapabilities.extensions?.[McpApps.EXTENSION] !== undefined),
          Effect.orElseSucceed(() => false)
        )
    )
  )

/** The extension as the gateway declares it in its capabilities. */
export const extension: McpSchema.ServerCapabilities["extensions"] = { [McpApps.EXTENSION]: {} }
