/**
 * The plain-code form of an effectful function: the same operation started from plain code with
 * no effect run (a Promise adapter's calls), carried by the function value itself, not by the
 * service that holds it.
 *
 * That placement is the point. A program that decorates a service the normal way (a new `send`,
 * `execute` or `callTool` that wraps the old one) makes a new function, which has no plain form:
 * every call through it runs the effect, so nothing goes around a decoration. A combinator that
 * knows what it adds (the session's bound on requests in flight) may give its result a plain form
 * that does the same.
 *
 * @since 0.1.0
 */

/**
 * The property that carries a function's plain form (shared by every copy of this module).
 *
 * @since 0.1.0
 * @category symbols
 */
export const TypeId: unique symbol = Symbol.for("@effect-mcp/jsonrpc/PlainForm")

/**
 * The type of `TypeId`.
 *
 * @since 0.1.0
 * @category symbols
 */
export type TypeId = typeof TypeId

/**
 * A function that may carry a plain form `P`. Any function of the right shape is one (it carries none).
 *
 * @since 0.1.0
 * @category models
 */
export interface Carrier<P> {
  readonly [TypeId]?: P | undefined
}

/**
 * Gives `f` the plain form `plain` and returns it (`f` must be a function made for this, not one
 * shared with other code).
 *
 * @since 0.1.0
 * @category constructors
 */
export const attach = <F extends object, P>(f: F, plain: P): F & { readonly [TypeId]: P } =>
  Object.assign(f, { [TypeId]: plain })

/**
 * The plain form `f` carries, if any.
 *
 * @since 0.1.0
 * @category getters
 */
export const of = <P>(f: Carrier<P>): P | undefined => f[TypeId]
