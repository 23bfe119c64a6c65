/**
 * The plain steps of the one request path: a request is prepared (the session ready, the
 * capability declared, the params encoded and taken down to the revision the session speaks) and
 * its raw result decoded. Each is a total function returning an `Either`: no effect, so a Promise
 * adapter takes the very same steps.
 */

import type * as Peer from "@effect-mcp/jsonrpc/Peer"
import { McpSchema, Methods, Revision } from "@effect-mcp/protocol"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import {
  CapabilityNotSupported,
  DecodeError,
  InvalidInput,
  type RequestError,
  SessionUnavailable
} from "../../McpError.js"
import type { SessionState } from "../../SessionState.js"
import type { Established, Prepared, RequestOptions, SessionService } from "./types.js"

/** The server capability a request needs, if any (`tasks/list` and `tasks/cancel` by the receiver's `tasks`). */
const serverCapabilityOf = (method: Methods.RequestMethodName): Methods.Capability | undefined =>
  method === "tasks/list" || method === "tasks/cancel"
    ? Methods.taskCapability(method, "server")
    : Methods.requestCapability(method)

/** What the steps read of the session, as it is when each runs. */
export interface StepsOptions {
  readonly server: () => string
  readonly state: () => SessionState
  readonly established: () => Established
}

/** The steps. */
export interface Steps extends Pick<SessionService, "prepare" | "prepareExtension" | "decode"> {
  /** Encodes and takes down to the revision, with no gate (the handshake's own requests). */
  readonly prepareUngated: <M extends Methods.RequestMethodName>(
    method: M,
    params: Methods.RequestParamsOf<M> | undefined,
    options: RequestOptions
  ) => Either.Either<Prepared, RequestError>
  /** A request for the revision the session speaks now, from params already encoded (recovery's refresh). */
  readonly preparedFor: (
    method: string,
    encoded: Peer.WireObject | undefined,
    options: RequestOptions
  ) => Either.Either<Prepared, RequestError>
  /** A notification of the method table: the session ready, the params encoded for the revision. */
  readonly prepareNotification: <M extends Methods.NotificationMethodName>(
    method: M,
    params: Methods.NotificationParamsOf<M> | undefined
  ) => Either.Either<Peer.WireObject | undefined, RequestError>
  /** Why the session cannot take requests now, if it cannot. */
  readonly unavailable: () => SessionUnavailable | undefined
  readonly invalid: (method: string, reason: string) => InvalidInput
}

/** The steps of a session. */
export const make = (options: StepsOptions): Steps => {
  const invalid = (method: string, reason: string) => new InvalidInput({ server: options.server(), method, reason })
  /** A request for the revision the session speaks now (the steps shared by `prepare` and recovery). */
  const preparedFor = (
    method: string,
    encoded: Peer.WireObject | undefined,
    requestOptions: RequestOptions
  ): Either.Either<Prepared, RequestError> => {
    const version = options.established().protocolVersion
    return Either.map(Revision.requestParams(version, method, encoded), (wire) => ({
      method,
      encoded,
      wire,
      version,
      options: requestOptions
    }))
  }

  /** Fails unless the session is ready. */
  const unavailable = (): SessionUnavailable | undefined => {
    const current = options.state()
    return current._tag === "Ready"
      ? undefined
      : new SessionUnavailable({
          server: options.server(),
          reason: current._tag === "Failed" ? current.cause.message : `the session is ${current._tag}`
        })
  }
  /** The capability a request of `method` needs, when the server did not declare it. */
  const undeclared = (method: Methods.RequestMethodName): CapabilityNotSupported | undefined => {
    const capability = serverCapabilityOf(method)
    return capability?.side === "server" &&
      !Methods.declares(options.established().serverCapabilities, capability, options.established().protocolVersion)
      ? new CapabilityNotSupported({ server: options.server(), method, capability: capability.path.join(".") })
      : undefined
  }

  /** Encodes typed params to the newest revision's wire form. */
  const encode = <M extends Methods.RequestMethodName>(
    method: M,
    params: Methods.RequestParamsOf<M> | undefined
  ): Either.Either<Peer.WireObject | undefined, InvalidInput> => {
    if (params === undefined) return Either.right(undefined)
    const encoded = Methods.encodeRequestParams(method, params, options.established().protocolVersion)
    if (Either.isLeft(encoded)) {
      return Either.left(invalid(method, ParseResult.TreeFormatter.formatErrorSync(encoded.left)))
    }
    return McpSchema.isJsonObject(encoded.right)
      ? Either.right(encoded.right)
      : Either.left(invalid(method, "params must be an object"))
  }
  /** Encodes and takes down to the revision, with no gate (the handshake's own requests). */
  const prepareUngated = <M extends Methods.RequestMethodName>(
    method: M,
    params: Methods.RequestParamsOf<M> | undefined,
    requestOptions: RequestOptions
  ) => Either.flatMap(encode(method, params), (encoded) => preparedFor(method, encoded, requestOptions))

  const prepare: Steps["prepare"] = (method, params, requestOptions = {}, checkCapability = true) => {
    const refused = unavailable() ?? (checkCapability ? undeclared(method) : undefined)
    return refused === undefined ? prepareUngated(method, params, requestOptions) : Either.left(refused)
  }

  const prepareExtension: Steps["prepareExtension"] = (method, params, requestOptions = {}) => {
    const refused = unavailable()
    return refused === undefined ? preparedFor(method, params, requestOptions) : Either.left(refused)
  }

  const decode: Steps["decode"] = (method, raw) =>
    Either.mapLeft(
      Methods.decodeResult(method, raw, options.established().protocolVersion),
      (error) =>
        new DecodeError({ server: options.server(), method, issue: ParseResult.TreeFormatter.formatErrorSync(error) })
    )

  const prepareNotification: Steps["prepareNotification"] = (method, params) => {
    const refused = unavailable()
    if (refused !== undefined) return Either.left(refused)
    const encoded =
      params === undefined
        ? Either.right(undefined)
        : Methods.encodeNotificationParams(method, params, options.established().protocolVersion)
    if (Either.isLeft(encoded))
      return Either.left(invalid(method, ParseResult.TreeFormatter.formatErrorSync(encoded.left)))
    return Revision.notificationParams(
      options.established().protocolVersion,
      method,
      McpSchema.isJsonObject(encoded.right) ? encoded.right : undefined
    )
  }

  return { prepare, prepareExtension, prepareUngated, prepareNotification, preparedFor, decode, unavailable, invalid }
}
