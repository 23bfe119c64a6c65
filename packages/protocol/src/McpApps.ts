/**
 * The MCP Apps extension (`io.modelcontextprotocol/ui`, SEP-1865, revision 2026-01-26): a server
 * ships an interactive view for a tool as an HTML resource under `ui://`, and the host shows it in
 * a sandboxed frame that speaks JSON-RPC with the host over `postMessage`.
 *
 * Two groups of shapes live here:
 *
 * - what travels between client and server: the extension's client settings (the MIME types a host
 *   renders), a tool's `_meta.ui` (its view's address and who may call it) and a UI resource's
 *   `_meta.ui` (the domains its Content Security Policy allows, the browser permissions it asks for,
 *   a dedicated origin, a border preference);
 * - the view ↔ host messages: `ui/initialize` and its result, the notifications each side sends,
 *   and the `ui/…` requests a view makes. A view also sends core MCP messages (`tools/call`,
 *   `resources/read`, `ping`, `notifications/message`); those are the core method table's.
 *
 * Names are the extension's `schema.json` definitions without their `McpUi` prefix. Where the
 * specification's prose and the package's `schema.json` differ, these follow `schema.json` (a
 * tool's `_meta.ui` carries no CSP or permissions: those belong to the resource).
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { optional } from "./internal/fields.js"
import { Implementation } from "./schema/Base.js"
import { ContentBlock, EmbeddedResource, ResourceLink } from "./schema/Content.js"
import { Integer, JsonNumber, JsonObject, JsonValue, recordOf } from "./schema/Json.js"
import { StatelessCallToolResult, StatelessTool } from "./schema/Stateless.js"

/**
 * The extension's identifier, the key under `capabilities.extensions`.
 *
 * @since 0.1.0
 * @category constants
 */
export const EXTENSION = "io.modelcontextprotocol/ui"

/**
 * The MIME type of an MCP App's HTML view.
 *
 * @since 0.1.0
 * @category constants
 */
export const MIME_TYPE = "text/html;profile=mcp-app"

/**
 * The revision of the view ↔ host protocol (`protocolVersion` of `ui/initialize`).
 *
 * @since 0.1.0
 * @category constants
 */
export const PROTOCOL_VERSION = "2026-01-26"

/**
 * The scheme of a view's address.
 *
 * @since 0.1.0
 * @category constants
 */
export const URI_SCHEME = "ui://"

/**
 * The older flat key of a tool's view address in `_meta` (deprecated by the extension, still written
 * by its SDK beside `_meta.ui.resourceUri`).
 *
 * @since 0.1.0
 * @category constants
 */
export const LEGACY_RESOURCE_URI_KEY = "ui/resourceUri"

/**
 * Whether an address is a view's (`ui://…`).
 *
 * @since 0.1.0
 * @category predicates
 */
export const isUiUri = (uri: string): boolean => uri.startsWith(URI_SCHEME)

const Empty = Schema.Struct({})

// ---------------------------------------------------------------------------------------------
// Client ↔ server
// ---------------------------------------------------------------------------------------------

/**
 * The extension's settings a client declares: the view MIME types it renders.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ClientCapabilities = Schema.Struct({
  mimeTypes: optional(Schema.Array(Schema.String))
}).annotations({ identifier: "McpUiClientCapabilities" })

/**
 * The type of {@link ClientCapabilities}.
 *
 * @since 0.1.0
 * @category models
 */
export type ClientCapabilities = typeof ClientCapabilities.Type

/**
 * Who may call a tool: the model (`model`), or the view of the same server (`app`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolVisibility = Schema.Literal("model", "app").annotations({ identifier: "McpUiToolVisibility" })

/**
 * The type of {@link ToolVisibility}.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolVisibility = typeof ToolVisibility.Type

/**
 * A tool's `_meta.ui`: the address of its view and its visibility (absent: model and app).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolMeta = Schema.Struct({
  resourceUri: optional(Schema.String),
  visibility: optional(Schema.Array(ToolVisibility))
}).annotations({ identifier: "McpUiToolMeta" })

/**
 * The type of {@link ToolMeta}.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolMeta = typeof ToolMeta.Type

/**
 * The origins a view may reach, each list mapped to CSP directives (`connect-src`; `img-src`,
 * `script-src`, `style-src`, `font-src`, `media-src`; `frame-src`; `base-uri`). Absent or empty:
 * none.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResourceCsp = Schema.Struct({
  connectDomains: optional(Schema.Array(Schema.String)),
  resourceDomains: optional(Schema.Array(Schema.String)),
  frameDomains: optional(Schema.Array(Schema.String)),
  baseUriDomains: optional(Schema.Array(Schema.String))
}).annotations({ identifier: "McpUiResourceCsp" })

/**
 * The type of {@link ResourceCsp}.
 *
 * @since 0.1.0
 * @category models
 */
export type ResourceCsp = typeof ResourceCsp.Type

/**
 * The browser permissions a view asks for (Permission Policy features of the frame).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResourcePermissions = Schema.Struct({
  camera: optional(Empty),
  microphone: optional(Empty),
  geolocation: optional(Empty),
  clipboardWrite: optional(Empty)
}).annotations({ identifier: "McpUiResourcePermissions" })

/**
 * The type of {@link ResourcePermissions}.
 *
 * @since 0.1.0
 * @category models
 */
export type ResourcePermissions = typeof ResourcePermissions.Type

/**
 * A UI resource's `_meta.ui` (on its `resources/list` entry or its `resources/read` contents):
 * CSP domains, permissions, a dedicated origin (host-defined format) and a border preference.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResourceMeta = Schema.Struct({
  csp: optional(ResourceCsp),
  permissions: optional(ResourcePermissions),
  domain: optional(Schema.String),
  prefersBorder: optional(Schema.Boolean)
}).annotations({ identifier: "McpUiResourceMeta" })

/**
 * The type of {@link ResourceMeta}.
 *
 * @since 0.1.0
 * @category models
 */
export type ResourceMeta = typeof ResourceMeta.Type

// ---------------------------------------------------------------------------------------------
// Shared by the view ↔ host messages
// ---------------------------------------------------------------------------------------------

/**
 * How a view is shown: in the flow of the host's content, over the whole window, or floating.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DisplayMode = Schema.Literal("inline", "fullscreen", "pip").annotations({
  identifier: "McpUiDisplayMode"
})

/**
 * The type of {@link DisplayMode}.
 *
 * @since 0.1.0
 * @category models
 */
export type DisplayMode = typeof DisplayMode.Type

/**
 * The host's color theme.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Theme = Schema.Literal("light", "dark").annotations({ identifier: "McpUiTheme" })

/**
 * The type of {@link Theme}.
 *
 * @since 0.1.0
 * @category models
 */
export type Theme = typeof Theme.Type

const tones = [
  "primary",
  "secondary",
  "tertiary",
  "inverse",
  "ghost",
  "info",
  "danger",
  "success",
  "warning",
  "disabled"
] as const
const textSizes = ["xs", "sm", "md", "lg"] as const
const headingSizes = ["xs", "sm", "md", "lg", "xl", "2xl", "3xl"] as const

/**
 * The standard CSS variables a host may pass to a view.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StyleVariableKey = Schema.Literal(
  ...tones.map((tone) => `--color-background-${tone}` as const),
  ...tones.map((tone) => `--color-text-${tone}` as const),
  ...tones.map((tone) => `--color-border-${tone}` as const),
  ...(["primary", "secondary", "inverse", "info", "danger", "success", "warning"] as const).map(
    (tone) => `--color-ring-${tone}` as const
  ),
  "--font-sans",
  "--font-mono",
  ...(["normal", "medium", "semibold", "bold"] as const).map((weight) => `--font-weight-${weight}` as const),
  ...textSizes.map((size) => `--font-text-${size}-size` as const),
  ...headingSizes.map((size) => `--font-heading-${size}-size` as const),
  ...textSizes.map((size) => `--font-text-${size}-line-height` as const),
  ...headingSizes.map((size) => `--font-heading-${size}-line-height` as const),
  ...(["xs", "sm", "md", "lg", "xl", "full"] as const).map((size) => `--border-radius-${size}` as const),
  "--border-width-regular",
  ...(["hairline", "sm", "md", "lg"] as const).map((size) => `--shadow-${size}` as const)
).annotations({ identifier: "McpUiStyleVariableKey" })

/**
 * The type of {@link StyleVariableKey}.
 *
 * @since 0.1.0
 * @category models
 */
export type StyleVariableKey = typeof StyleVariableKey.Type

/**
 * CSS variable values by name; a host passes any subset (the specification's
 * `Record<key, string | undefined>`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Styles = Schema.partialWith(Schema.Record({ key: StyleVariableKey, value: Schema.String }), {
  exact: true
}).annotations({ identifier: "McpUiStyles" })

/**
 * The type of {@link Styles}.
 *
 * @since 0.1.0
 * @category models
 */
export type Styles = typeof Styles.Type

/**
 * CSS blocks a view may inject: font loading (`@font-face`, `@import`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const HostCss = Schema.Struct({ fonts: optional(Schema.String) }).annotations({ identifier: "McpUiHostCss" })

/**
 * The host's styles: CSS variables and CSS blocks.
 *
 * @since 0.1.0
 * @category schemas
 */
export const HostStyles = Schema.Struct({
  variables: optional(Styles),
  css: optional(HostCss)
}).annotations({ identifier: "McpUiHostStyles" })

/**
 * The type of {@link HostStyles}.
 *
 * @since 0.1.0
 * @category models
 */
export type HostStyles = typeof HostStyles.Type

const Height = Schema.Union(Schema.Struct({ height: JsonNumber }), Schema.Struct({ maxHeight: optional(JsonNumber) }))
const Width = Schema.Union(Schema.Struct({ width: JsonNumber }), Schema.Struct({ maxWidth: optional(JsonNumber) }))

/**
 * The size of the view's container: per axis fixed (`height`, `width`), bounded (`maxHeight`,
 * `maxWidth`) or unbounded (neither).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContainerDimensions = Schema.extend(Height, Width).annotations({ identifier: "McpUiContainerDimensions" })

/**
 * The type of {@link ContainerDimensions}.
 *
 * @since 0.1.0
 * @category models
 */
export type ContainerDimensions = typeof ContainerDimensions.Type

/**
 * What a host tells a view about where it is shown: the tool call it belongs to, theme, styles,
 * display mode, container size, locale, time zone, platform and device.
 *
 * @since 0.1.0
 * @category schemas
 */
export const HostContext = Schema.Struct({
  toolInfo: optional(Schema.Struct({ id: optional(Schema.Union(Schema.String, Integer)), tool: StatelessTool })),
  theme: optional(Theme),
  styles: optional(HostStyles),
  displayMode: optional(DisplayMode),
  availableDisplayModes: optional(Schema.Array(DisplayMode)),
  containerDimensions: optional(ContainerDimensions),
  locale: optional(Schema.String),
  timeZone: optional(Schema.String),
  userAgent: optional(Schema.String),
  platform: optional(Schema.Literal("web", "desktop", "mobile")),
  deviceCapabilities: optional(Schema.Struct({ touch: optional(Schema.Boolean), hover: optional(Schema.Boolean) })),
  safeAreaInsets: optional(Schema.Struct({ top: JsonNumber, right: JsonNumber, bottom: JsonNumber, left: JsonNumber }))
}).annotations({ identifier: "McpUiHostContext" })

/**
 * The type of {@link HostContext}.
 *
 * @since 0.1.0
 * @category models
 */
export type HostContext = typeof HostContext.Type

/**
 * The kinds of content a host accepts in `ui/message` or `ui/update-model-context`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SupportedContentBlockModalities = Schema.Struct({
  text: optional(Empty),
  image: optional(Empty),
  audio: optional(Empty),
  resource: optional(Empty),
  resourceLink: optional(Empty),
  structuredContent: optional(Empty)
}).annotations({ identifier: "McpUiSupportedContentBlockModalities" })

const Experimental = recordOf(JsonObject)
const ListChanged = Schema.Struct({ listChanged: optional(Schema.Boolean) })

/**
 * What a view offers (in `ui/initialize`): tools of its own, the display modes it supports.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AppCapabilities = Schema.Struct({
  experimental: optional(Experimental),
  tools: optional(ListChanged),
  availableDisplayModes: optional(Schema.Array(DisplayMode))
}).annotations({ identifier: "McpUiAppCapabilities" })

/**
 * The type of {@link AppCapabilities}.
 *
 * @since 0.1.0
 * @category models
 */
export type AppCapabilities = typeof AppCapabilities.Type

/**
 * What a host offers a view (in the result of `ui/initialize`): links, downloads, the server's tools
 * and resources, logging, the sandbox it applied, model context, messages, sampling.
 *
 * @since 0.1.0
 * @category schemas
 */
export const HostCapabilities = Schema.Struct({
  experimental: optional(Experimental),
  openLinks: optional(Empty),
  downloadFile: optional(Empty),
  serverTools: optional(ListChanged),
  serverResources: optional(ListChanged),
  logging: optional(Empty),
  sandbox: optional(Schema.Struct({ permissions: optional(ResourcePermissions), csp: optional(ResourceCsp) })),
  updateModelContext: optional(SupportedContentBlockModalities),
  message: optional(SupportedContentBlockModalities),
  sampling: optional(Schema.Struct({ tools: optional(Empty) }))
}).annotations({ identifier: "McpUiHostCapabilities" })

/**
 * The type of {@link HostCapabilities}.
 *
 * @since 0.1.0
 * @category models
 */
export type HostCapabilities = typeof HostCapabilities.Type

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------

const message = <M extends string, P extends Schema.Schema.Any>(method: M, params: P, identifier: string) =>
  Schema.Struct({ method: Schema.Literal(method), params }).annotations({ identifier })

const messageOptionalParams = <M extends string, P extends Schema.Schema.Any>(
  method: M,
  params: P,
  identifier: string
) => Schema.Struct({ method: Schema.Literal(method), params: optional(params) }).annotations({ identifier })

/** A result that carries only an error flag (open: other members are allowed). */
const flagResult = (identifier: string) =>
  Schema.Struct({ isError: optional(Schema.Boolean) }).annotations({ identifier })

/**
 * Params of `ui/initialize`: the view's identity, capabilities and protocol revision.
 *
 * @since 0.1.0
 * @category schemas
 */
export const InitializeRequestParams = Schema.Struct({
  appInfo: Implementation,
  appCapabilities: AppCapabilities,
  protocolVersion: Schema.String
}).annotations({ identifier: "McpUiInitializeRequestParams" })

/**
 * `ui/initialize` (view → host): the view's handshake.
 *
 * @since 0.1.0
 * @category schemas
 */
export const InitializeRequest = message("ui/initialize", InitializeRequestParams, "McpUiInitializeRequest")

/**
 * The result of `ui/initialize`: the host's revision, identity, capabilities and context.
 *
 * @since 0.1.0
 * @category schemas
 */
export const InitializeResult = Schema.Struct({
  protocolVersion: Schema.String,
  hostInfo: Implementation,
  hostCapabilities: HostCapabilities,
  hostContext: HostContext
}).annotations({ identifier: "McpUiInitializeResult" })

/**
 * The type of {@link InitializeResult}.
 *
 * @since 0.1.0
 * @category models
 */
export type InitializeResult = typeof InitializeResult.Type

/**
 * `ui/notifications/initialized` (view → host): the handshake is done; the host may send.
 *
 * @since 0.1.0
 * @category schemas
 */
export const InitializedNotification = messageOptionalParams(
  "ui/notifications/initialized",
  Empty,
  "McpUiInitializedNotification"
)

/**
 * `ui/open-link` (view → host): open a URL in the user's browser.
 *
 * @since 0.1.0
 * @category schemas
 */
export const OpenLinkRequest = message("ui/open-link", Schema.Struct({ url: Schema.String }), "McpUiOpenLinkRequest")

/**
 * The result of `ui/open-link`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const OpenLinkResult = flagResult("McpUiOpenLinkResult")

/**
 * `ui/message` (view → host): a user message for the host's conversation.
 *
 * @since 0.1.0
 * @category schemas
 */
export const MessageRequest = message(
  "ui/message",
  Schema.Struct({ role: Schema.Literal("user"), content: Schema.Array(ContentBlock) }),
  "McpUiMessageRequest"
)

/**
 * The result of `ui/message`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const MessageResult = flagResult("McpUiMessageResult")

/**
 * `ui/request-display-mode` (view → host): ask to be shown another way.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RequestDisplayModeRequest = message(
  "ui/request-display-mode",
  Schema.Struct({ mode: DisplayMode }),
  "McpUiRequestDisplayModeRequest"
)

/**
 * The result of `ui/request-display-mode`: the mode the host actually set.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RequestDisplayModeResult = Schema.Struct({ mode: DisplayMode }).annotations({
  identifier: "McpUiRequestDisplayModeResult"
})

/**
 * `ui/update-model-context` (view → host): context for the model's next turns (each replaces the
 * last).
 *
 * @since 0.1.0
 * @category schemas
 */
export const UpdateModelContextRequest = message(
  "ui/update-model-context",
  Schema.Struct({ content: optional(Schema.Array(ContentBlock)), structuredContent: optional(JsonObject) }),
  "McpUiUpdateModelContextRequest"
)

/**
 * `ui/download-file` (view → host): offer resources to the user as downloads.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DownloadFileRequest = message(
  "ui/download-file",
  Schema.Struct({ contents: Schema.Array(Schema.Union(EmbeddedResource, ResourceLink)) }),
  "McpUiDownloadFileRequest"
)

/**
 * The result of `ui/download-file`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DownloadFileResult = flagResult("McpUiDownloadFileResult")

/**
 * `ui/notifications/size-changed` (view → host): the view's content size in pixels.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SizeChangedNotification = message(
  "ui/notifications/size-changed",
  Schema.Struct({ width: optional(JsonNumber), height: optional(JsonNumber) }),
  "McpUiSizeChangedNotification"
)

/**
 * `ui/notifications/request-teardown` (view → host): the view asks to be closed.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RequestTeardownNotification = messageOptionalParams(
  "ui/notifications/request-teardown",
  Empty,
  "McpUiRequestTeardownNotification"
)

/**
 * `ui/notifications/sandbox-proxy-ready` (sandbox proxy → host): it can take the view's HTML.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SandboxProxyReadyNotification = message(
  "ui/notifications/sandbox-proxy-ready",
  Empty,
  "McpUiSandboxProxyReadyNotification"
)

/**
 * `ui/notifications/sandbox-resource-ready` (host → sandbox proxy): the view's HTML, with the CSP
 * domains and permissions to load it under.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SandboxResourceReadyNotification = message(
  "ui/notifications/sandbox-resource-ready",
  Schema.Struct({
    html: Schema.String,
    sandbox: optional(Schema.String),
    csp: optional(ResourceCsp),
    permissions: optional(ResourcePermissions)
  }),
  "McpUiSandboxResourceReadyNotification"
)

const ToolArguments = Schema.Struct({ arguments: optional(JsonObject) })

/**
 * `ui/notifications/tool-input` (host → view): the tool call's complete arguments.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolInputNotification = message("ui/notifications/tool-input", ToolArguments, "McpUiToolInputNotification")

/**
 * `ui/notifications/tool-input-partial` (host → view): arguments as they stream, best effort.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolInputPartialNotification = message(
  "ui/notifications/tool-input-partial",
  ToolArguments,
  "McpUiToolInputPartialNotification"
)

/**
 * `ui/notifications/tool-result` (host → view): the tool call's result.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolResultNotification = message(
  "ui/notifications/tool-result",
  StatelessCallToolResult,
  "McpUiToolResultNotification"
)

/**
 * `ui/notifications/tool-cancelled` (host → view): the tool call was cancelled.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolCancelledNotification = message(
  "ui/notifications/tool-cancelled",
  Schema.Struct({ reason: optional(Schema.String) }),
  "McpUiToolCancelledNotification"
)

/**
 * `ui/notifications/host-context-changed` (host → view): the members of the context that changed.
 *
 * @since 0.1.0
 * @category schemas
 */
export const HostContextChangedNotification = message(
  "ui/notifications/host-context-changed",
  HostContext,
  "McpUiHostContextChangedNotification"
)

/**
 * `ui/resource-teardown` (host → view): the view is about to be removed; the host waits for the
 * answer.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResourceTeardownRequest = message("ui/resource-teardown", Empty, "McpUiResourceTeardownRequest")

/**
 * The result of `ui/resource-teardown`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResourceTeardownResult = recordOf(JsonValue).annotations({
  identifier: "McpUiResourceTeardownResult"
})

/**
 * Every `ui/…` request a view sends.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ViewRequest = Schema.Union(
  InitializeRequest,
  OpenLinkRequest,
  MessageRequest,
  RequestDisplayModeRequest,
  UpdateModelContextRequest,
  DownloadFileRequest
).annotations({ identifier: "McpUiViewRequest" })

/**
 * The type of {@link ViewRequest}.
 *
 * @since 0.1.0
 * @category models
 */
export type ViewRequest = typeof ViewRequest.Type

/**
 * Every `ui/…` notification a view (or the sandbox proxy around it) sends.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ViewNotification = Schema.Union(
  InitializedNotification,
  SizeChangedNotification,
  RequestTeardownNotification,
  SandboxProxyReadyNotification
).annotations({ identifier: "McpUiViewNotification" })

/**
 * The type of {@link ViewNotification}.
 *
 * @since 0.1.0
 * @category models
 */
export type ViewNotification = typeof ViewNotification.Type

/**
 * Every `ui/…` notification a host sends a view (or its sandbox proxy).
 *
 * @since 0.1.0
 * @category schemas
 */
export const HostNotification = Schema.Union(
  ToolInputNotification,
  ToolInputPartialNotification,
  ToolResultNotification,
  ToolCancelledNotification,
  HostContextChangedNotification,
  SandboxResourceReadyNotification
).annotations({ identifier: "McpUiHostNotification" })

/**
 * The type of {@link HostNotification}.
 *
 * @since 0.1.0
 * @category models
 */
export type HostNotification = typeof HostNotification.Type

/**
 * The result Schema of each `ui/…` request, by method (a view's requests and the host's teardown).
 *
 * @since 0.1.0
 * @category constants
 */
export const results = {
  "ui/initialize": InitializeResult,
  "ui/open-link": OpenLinkResult,
  "ui/message": MessageResult,
  "ui/request-display-mode": RequestDisplayModeResult,
  "ui/update-model-context": recordOf(JsonValue),
  "ui/download-file": DownloadFileResult,
  "ui/resource-teardown": ResourceTeardownResult
} as const

/**
 * A tool's view as a client reads it from the tool's `_meta`: `ui.resourceUri`, else the older flat
 * `ui/resourceUri`, and the visibility (absent: model and app).
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolUi {
  readonly resourceUri: string | undefined
  readonly visibility: ReadonlyArray<ToolVisibility>
}

/**
 * Whether a tool is given to the model (its visibility has `model`).
 *
 * @since 0.1.0
 * @category predicates
 */
export const visibleToModel = (ui: ToolUi | undefined): boolean => ui === undefined || ui.visibility.includes("model")

/**
 * Whether a view may call the tool (its visibility has `app`).
 *
 * @since 0.1.0
 * @category predicates
 */
export const visibleToApp = (ui: ToolUi | undefined): boolean => ui === undefined || ui.visibility.includes("app")

const decodeToolMeta = Schema.decodeUnknownEither(ToolMeta)

/**
 * Reads a tool's view from its `_meta`; `undefined` when the tool names no view and no
 * visibility. Fails with the parse error of a malformed `_meta.ui` (or a flat `ui/resourceUri`
 * that is not a string).
 *
 * @since 0.1.0
 * @category decoding
 */
export const toolUi = (
  meta: { readonly [key: string]: unknown } | undefined
): Either.Either<ToolUi | undefined, ParseResult.ParseError> => {
  if (meta === undefined) return Either.right(undefined)
  const nested = meta.ui
  const flat = meta[LEGACY_RESOURCE_URI_KEY]
  if (nested === undefined && flat === undefined) return Either.right(undefined)
  return Either.gen(function* () {
    const ui = nested === undefined ? {} : yield* decodeToolMeta(nested)
    const legacy = flat === undefined ? undefined : yield* Schema.decodeUnknownEither(Schema.String)(flat)
    const resourceUri = ui.resourceUri ?? legacy
    if (resourceUri === undefined && ui.visibility === undefined) return undefined
    return { resourceUri, visibility: ui.visibility ?? ["model", "app"] }
  })
}
