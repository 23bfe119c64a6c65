/** The unions of messages each side may send, as the specification groups them. */
import * as Schema from "effect/Schema"
import { EmptyResult, Result } from "./Base.js"
import { CompleteRequest, CompleteResult } from "./Completion.js"
import { ElicitationCompleteNotification, ElicitRequest, ElicitResult } from "./Elicitation.js"
import { InitializedNotification, InitializeRequest, InitializeResult } from "./Lifecycle.js"
import { LoggingMessageNotification, SetLevelRequest } from "./Logging.js"
import {
  GetPromptRequest,
  GetPromptResult,
  ListPromptsRequest,
  ListPromptsResult,
  PromptListChangedNotification
} from "./Prompts.js"
import {
  ListResourcesRequest,
  ListResourcesResult,
  ListResourceTemplatesRequest,
  ListResourceTemplatesResult,
  ReadResourceRequest,
  ReadResourceResult,
  ResourceListChangedNotification,
  ResourceUpdatedNotification,
  SubscribeRequest,
  UnsubscribeRequest
} from "./Resources.js"
import { ListRootsRequest, ListRootsResult, RootsListChangedNotification } from "./Roots.js"
import { CreateMessageRequest, CreateMessageResult } from "./Sampling.js"
import {
  CancelTaskRequest,
  CancelTaskResult,
  GetTaskPayloadRequest,
  GetTaskPayloadResult,
  GetTaskRequest,
  GetTaskResult,
  ListTasksRequest,
  ListTasksResult,
  TaskStatusNotification
} from "./Tasks.js"
import {
  CallToolRequest,
  CallToolResult,
  ListToolsRequest,
  ListToolsResult,
  ToolListChangedNotification
} from "./Tools.js"
import { CancelledNotification, PingRequest, ProgressNotification } from "./Utilities.js"

/** Every request a client may send. */
export const ClientRequest = Schema.Union(
  InitializeRequest,
  PingRequest,
  ListResourcesRequest,
  ListResourceTemplatesRequest,
  ReadResourceRequest,
  SubscribeRequest,
  UnsubscribeRequest,
  ListPromptsRequest,
  GetPromptRequest,
  ListToolsRequest,
  CallToolRequest,
  GetTaskRequest,
  GetTaskPayloadRequest,
  CancelTaskRequest,
  ListTasksRequest,
  SetLevelRequest,
  CompleteRequest
).annotations({ identifier: "ClientRequest" })

/** The type of {@link ClientRequest}. */
export type ClientRequest = typeof ClientRequest.Type

/** Every notification a client may send. */
export const ClientNotification = Schema.Union(
  CancelledNotification,
  InitializedNotification,
  ProgressNotification,
  TaskStatusNotification,
  RootsListChangedNotification
).annotations({ identifier: "ClientNotification" })

/** The type of {@link ClientNotification}. */
export type ClientNotification = typeof ClientNotification.Type

/** Every result a client may send (specific shapes first; any result last). */
export const ClientResult = Schema.Union(
  GetTaskResult,
  ListTasksResult,
  CreateMessageResult,
  ListRootsResult,
  ElicitResult,
  CancelTaskResult,
  GetTaskPayloadResult,
  Result
).annotations({ identifier: "ClientResult" })

/** Every request a server may send. */
export const ServerRequest = Schema.Union(
  PingRequest,
  GetTaskRequest,
  GetTaskPayloadRequest,
  CancelTaskRequest,
  ListTasksRequest,
  CreateMessageRequest,
  ListRootsRequest,
  ElicitRequest
).annotations({ identifier: "ServerRequest" })

/** The type of {@link ServerRequest}. */
export type ServerRequest = typeof ServerRequest.Type

/** Every notification a server may send. */
export const ServerNotification = Schema.Union(
  CancelledNotification,
  ProgressNotification,
  ResourceListChangedNotification,
  ResourceUpdatedNotification,
  PromptListChangedNotification,
  ToolListChangedNotification,
  TaskStatusNotification,
  LoggingMessageNotification,
  ElicitationCompleteNotification
).annotations({ identifier: "ServerNotification" })

/** The type of {@link ServerNotification}. */
export type ServerNotification = typeof ServerNotification.Type

/** Every result a server may send (specific shapes first; any result last). */
export const ServerResult = Schema.Union(
  InitializeResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceResult,
  ListPromptsResult,
  GetPromptResult,
  ListToolsResult,
  CallToolResult,
  GetTaskResult,
  ListTasksResult,
  CompleteResult,
  CancelTaskResult,
  GetTaskPayloadResult,
  EmptyResult
).annotations({ identifier: "ServerResult" })
