/** Roots: the directories or files a client exposes to servers. */
import * as Schema from "effect/Schema"
import { optional } from "../internal/fields.js"
import { notificationOptionalParams, requestOptionalParams } from "../internal/messages.js"
import { NotificationParams, RequestParams } from "./Base.js"
import { Meta, Uri } from "./Json.js"

/** A root: a `file://` URI (for now) and an optional name. */
export const Root = Schema.Struct({
  uri: Uri,
  name: optional(Schema.String),
  _meta: optional(Meta)
}).annotations({ identifier: "Root" })

/** The type of {@link Root}. */
export type Root = typeof Root.Type

/** `roots/list` (server to client) */
export const ListRootsRequest = requestOptionalParams("roots/list", RequestParams).annotations({
  identifier: "ListRootsRequest"
})

/** The client's answer to `roots/list`. */
export const ListRootsResult = Schema.Struct({
  _meta: optional(Meta),
  roots: Schema.Array(Root)
}).annotations({ identifier: "ListRootsResult" })

/** `notifications/roots/list_changed` (client to server) */
export const RootsListChangedNotification = notificationOptionalParams(
  "notifications/roots/list_changed",
  NotificationParams
).annotations({ identifier: "RootsListChangedNotification" })
