/**
 * `instanceof` for error classes whose instances may come from another copy of this package:
 * `@effect-mcp/node/NodePromiseClient` is a bundle holding its own copy of `effect` and of these
 * modules, and its errors must still be instances of the classes a program imports. An instance
 * carries its tag under a global symbol; the class recognises its own instances as usual, and
 * another copy's by that tag.
 */
import * as Predicate from "effect/Predicate"

const ErrorTypeId = Symbol.for("@effect-mcp/jsonrpc/PeerError")

/** The classes of `classes` (each keyed by its tag) recognise instances of every copy of themselves. */
export const recognizeAcrossCopies = (classes: Readonly<Record<string, { readonly prototype: object }>>): void => {
  for (const [tag, errorClass] of Object.entries(classes)) {
    Object.defineProperty(errorClass.prototype, ErrorTypeId, { value: tag })
    Object.defineProperty(errorClass, Symbol.hasInstance, {
      value(this: unknown, value: unknown): boolean {
        // `this` is a subclass when the check is against one: only the class itself takes another copy's.
        if (typeof this === "function" && Function.prototype[Symbol.hasInstance].call(this, value)) return true
        return this === errorClass && Predicate.hasProperty(value, ErrorTypeId) && value[ErrorTypeId] === tag
      }
    })
  }
}
