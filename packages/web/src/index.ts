/**
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 * @category re-exports
 */
export * as Api from "./Api.js"

/**
 * @since 0.1.0
 * @category re-exports
 */
export * as WebUi from "./WebUi.js"
