/**
 * The host's registry: which servers it has, with their configs and supervisors, in
 * configuration order. An immutable value: every change builds a new registry that replaces
 * the old one in one step, so a reader sees the servers either before or after a change, never
 * half-way (a reload never hides a server whose config did not change).
 */
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import type { Supervisor } from "./supervisor.js"
import type { ServerConfig } from "./types.js"

/** One server in the registry. */
export interface Entry {
  /** The server's configuration, as given (never changed by `enable` or `disable`). */
  readonly config: ServerConfig
  readonly supervisor: Supervisor
  /**
   * What `enable` or `disable` last said (absent: neither was called): it overrides the config's
   * `enabled`, and outlives reloads that leave the server's configuration unchanged.
   */
  readonly switchedOn?: boolean
}

/** Whether the server runs: as `enable`/`disable` last said, else as its configuration says (default: yes). */
export const isEnabled = (entry: Entry): boolean => entry.switchedOn ?? entry.config.options?.enabled !== false

/** The servers, by name and in configuration order. */
export interface Registry {
  readonly order: ReadonlyArray<string>
  readonly byName: HashMap.HashMap<string, Entry>
}

/** A registry of these entries, in this order (later entries of the same name win). */
export const fromEntries = (entries: Iterable<Entry>): Registry => {
  const list = Array.from(entries)
  const byName = HashMap.fromIterable(list.map((entry) => [entry.config.name, entry] as const))
  return { order: [...new Set(list.map((entry) => entry.config.name))], byName }
}

/** The empty registry. */
export const empty: Registry = fromEntries([])

/** Every entry, in configuration order. */
export const entries = (registry: Registry): ReadonlyArray<Entry> =>
  registry.order.flatMap((name) => Option.toArray(HashMap.get(registry.byName, name)))

/** The entry of a server. */
export const get = (registry: Registry, name: string): Option.Option<Entry> => HashMap.get(registry.byName, name)

/** The registry with this entry added at the end, or replacing the entry of the same name in place. */
export const put = (registry: Registry, entry: Entry): Registry =>
  HashMap.has(registry.byName, entry.config.name)
    ? { order: registry.order, byName: HashMap.set(registry.byName, entry.config.name, entry) }
    : { order: [...registry.order, entry.config.name], byName: HashMap.set(registry.byName, entry.config.name, entry) }

/** The registry without this server. */
export const remove = (registry: Registry, name: string): Registry => ({
  order: registry.order.filter((known) => known !== name),
  byName: HashMap.remove(registry.byName, name)
})

/** Two configs are the same when their JSON forms are. */
export const sameConfig = (a: ServerConfig, b: ServerConfig): boolean => JSON.stringify(a) === JSON.stringify(b)

/** How a new list of configs compares with the registry. */
export interface Plan {
  readonly added: ReadonlyArray<string>
  readonly removed: ReadonlyArray<string>
  readonly restarted: ReadonlyArray<string>
  readonly unchanged: ReadonlyArray<string>
}

/** Compares the registry with the configs a reload wants. */
export const plan = (registry: Registry, configs: ReadonlyArray<ServerConfig>): Plan => {
  const wanted = new Set(configs.map((config) => config.name))
  const added: Array<string> = []
  const restarted: Array<string> = []
  const unchanged: Array<string> = []
  for (const config of configs) {
    const known = get(registry, config.name)
    if (Option.isNone(known)) added.push(config.name)
    else if (sameConfig(known.value.config, config)) unchanged.push(config.name)
    else restarted.push(config.name)
  }
  return { added, removed: registry.order.filter((name) => !wanted.has(name)), restarted, unchanged }
}
