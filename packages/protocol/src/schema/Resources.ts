/** Resources: data a server exposes by URI, their templates, reads and subscriptions. */
import * as Schema from "effect/Schema"
import { optional } from "../internal/fields.js"
import { notification, notificationOptionalParams, request, requestOptionalParams } from "../internal/messages.js"
import {
  Annotations,
  BaseMetadata,
  Icons,
  NotificationParams,
  PaginatedRequestParams,
  PaginatedResult,
  RequestParams
} from "./Base.js"
import { Base64, Integer, Meta, Uri, UriTemplate } from "./Json.js"

/** The common part of a resource's contents. */
export const ResourceContents = Schema.Struct({
  uri: Uri,
  mimeType: optional(Schema.String),
  _meta: optional(Meta)
}).annotations({ identifier: "ResourceContents" })

/** Text contents of a resource. */
export const TextResourceContents = Schema.Struct({
  ...ResourceContents.fields,
  text: Schema.String
}).annotations({ identifier: "TextResourceContents" })

/** The type of {@link TextResourceContents}. */
export type TextResourceContents = typeof TextResourceContents.Type

/** Binary contents of a resource, base64-encoded. */
export const BlobResourceContents = Schema.Struct({
  ...ResourceContents.fields,
  blob: Base64
}).annotations({ identifier: "BlobResourceContents" })

/** The type of {@link BlobResourceContents}. */
export type BlobResourceContents = typeof BlobResourceContents.Type

/** Text or binary resource contents. */
export const ResourceContentsUnion = Schema.Union(TextResourceContents, BlobResourceContents)

/** A known resource the server can read. */
export const Resource = Schema.Struct({
  ...BaseMetadata.fields,
  uri: Uri,
  description: optional(Schema.String),
  mimeType: optional(Schema.String),
  annotations: optional(Annotations),
  size: optional(Integer),
  ...Icons.fields,
  _meta: optional(Meta)
}).annotations({ identifier: "Resource" })

/** The type of {@link Resource}. */
export type Resource = typeof Resource.Type

/** A template (RFC 6570) for resources the server can read. */
export const ResourceTemplate = Schema.Struct({
  ...BaseMetadata.fields,
  uriTemplate: UriTemplate,
  description: optional(Schema.String),
  mimeType: optional(Schema.String),
  annotations: optional(Annotations),
  ...Icons.fields,
  _meta: optional(Meta)
}).annotations({ identifier: "ResourceTemplate" })

/** The type of {@link ResourceTemplate}. */
export type ResourceTemplate = typeof ResourceTemplate.Type

/** Params naming one resource by URI. */
export const ResourceRequestParams = Schema.Struct({
  ...RequestParams.fields,
  uri: Uri
}).annotations({ identifier: "ResourceRequestParams" })

/** `resources/list` */
export const ListResourcesRequest = requestOptionalParams("resources/list", PaginatedRequestParams).annotations({
  identifier: "ListResourcesRequest"
})

/** The result of `resources/list`. */
export const ListResourcesResult = Schema.Struct({
  ...PaginatedResult.fields,
  resources: Schema.Array(Resource)
}).annotations({ identifier: "ListResourcesResult" })

/** `resources/templates/list` */
export const ListResourceTemplatesRequest = requestOptionalParams(
  "resources/templates/list",
  PaginatedRequestParams
).annotations({ identifier: "ListResourceTemplatesRequest" })

/** The result of `resources/templates/list`. */
export const ListResourceTemplatesResult = Schema.Struct({
  ...PaginatedResult.fields,
  resourceTemplates: Schema.Array(ResourceTemplate)
}).annotations({ identifier: "ListResourceTemplatesResult" })

/** Params of `resources/read`. */
export const ReadResourceRequestParams = ResourceRequestParams.annotations({ identifier: "ReadResourceRequestParams" })

/** `resources/read` */
export const ReadResourceRequest = request("resources/read", ReadResourceRequestParams).annotations({
  identifier: "ReadResourceRequest"
})

/** The result of `resources/read`. */
export const ReadResourceResult = Schema.Struct({
  _meta: optional(Meta),
  contents: Schema.Array(ResourceContentsUnion)
}).annotations({ identifier: "ReadResourceResult" })

/** Params of `resources/subscribe`. */
export const SubscribeRequestParams = ResourceRequestParams.annotations({ identifier: "SubscribeRequestParams" })

/** `resources/subscribe` */
export const SubscribeRequest = request("resources/subscribe", SubscribeRequestParams).annotations({
  identifier: "SubscribeRequest"
})

/** Params of `resources/unsubscribe`. */
export const UnsubscribeRequestParams = ResourceRequestParams.annotations({ identifier: "UnsubscribeRequestParams" })

/** `resources/unsubscribe` */
export const UnsubscribeRequest = request("resources/unsubscribe", UnsubscribeRequestParams).annotations({
  identifier: "UnsubscribeRequest"
})

/** `notifications/resources/list_changed` */
export const ResourceListChangedNotification = notificationOptionalParams(
  "notifications/resources/list_changed",
  NotificationParams
).annotations({ identifier: "ResourceListChangedNotification" })

/** Params of `notifications/resources/updated`. */
export const ResourceUpdatedNotificationParams = Schema.Struct({
  _meta: optional(Meta),
  uri: Uri
}).annotations({ identifier: "ResourceUpdatedNotificationParams" })

/** `notifications/resources/updated`: a subscribed resource changed. */
export const ResourceUpdatedNotification = notification(
  "notifications/resources/updated",
  ResourceUpdatedNotificationParams
).annotations({ identifier: "ResourceUpdatedNotification" })
