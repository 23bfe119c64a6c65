/** Counting fiber starts, to tell a call started with no fiber from one that ran its effect. */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Supervisor from "effect/Supervisor"

/** Counts the fibers started in the runtime it is installed in. */
export class Starts extends Supervisor.AbstractSupervisor<number> {
  count = 0
  get value() {
    return Effect.sync(() => this.count)
  }
  override onStart() {
    this.count++
  }
}

/**
 * The layer with the supervisor installed before it is built, so that the fibers of runtimes the
 * client captures while building (the session's recovery) are counted too.
 */
export const counted = <A, E>(layer: Layer.Layer<A, E>, starts: Starts) =>
  layer.pipe(Layer.provideMerge(Supervisor.addSupervisor(starts)))
