import * as Schema from "effect/Schema"
import { JsonRpcVersion, RequestId } from "../JsonRpc.js"
import { optional } from "./fields.js"

/** A typed JSON-RPC request for one method with required params. */
export const request = <const M extends string, P extends Schema.Schema.Any>(method: M, params: P) =>
  Schema.Struct({ jsonrpc: JsonRpcVersion, id: RequestId, method: Schema.Literal(method), params })

/** A typed JSON-RPC request for one method whose params may be omitted. */
export const requestOptionalParams = <const M extends string, P extends Schema.Schema.All>(method: M, params: P) =>
  Schema.Struct({ jsonrpc: JsonRpcVersion, id: RequestId, method: Schema.Literal(method), params: optional(params) })

/** A typed JSON-RPC notification with required params. */
export const notification = <const M extends string, P extends Schema.Schema.Any>(method: M, params: P) =>
  Schema.Struct({ jsonrpc: JsonRpcVersion, method: Schema.Literal(method), params })

/** A typed JSON-RPC notification whose params may be omitted. */
export const notificationOptionalParams = <const M extends string, P extends Schema.Schema.All>(method: M, params: P) =>
  Schema.Struct({ jsonrpc: JsonRpcVersion, method: Schema.Literal(method), params: optional(params) })
