/**
 * Effect's metrics in the Prometheus text exposition format (version 0.0.4): counters, gauges,
 * histograms (cumulative buckets, `+Inf` last), summaries (quantiles) and frequencies (one series
 * per value), each with its tags as labels.
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import type * as MetricPair from "effect/MetricPair"
import * as MetricState from "effect/MetricState"
import * as Option from "effect/Option"

/** A metric or label name as Prometheus allows it. */
const nameOf = (name: string): string => name.replace(/[^a-zA-Z0-9_:]/g, "_").replace(/^([0-9])/, "_$1")

/** A label value, escaped. */
const escaped = (value: string): string => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"')

const labelsOf = (labels: ReadonlyArray<readonly [string, string]>): string =>
  labels.length === 0 ? "" : `{${labels.map(([key, value]) => `${nameOf(key)}="${escaped(value)}"`).join(",")}}`

const numberOf = (value: number | bigint): string =>
  typeof value === "bigint"
    ? value.toString()
    : Number.isNaN(value)
      ? "NaN"
      : value === Number.POSITIVE_INFINITY
        ? "+Inf"
        : value === Number.NEGATIVE_INFINITY
          ? "-Inf"
          : String(value)

/** One metric's series lines, and its type for the `# TYPE` line. */
const seriesOf = (pair: MetricPair.MetricPair.Untyped): { type: string; lines: Array<string> } => {
  const name = nameOf(pair.metricKey.name)
  const tags: ReadonlyArray<readonly [string, string]> = pair.metricKey.tags.map((tag) => [tag.key, tag.value])
  const state = pair.metricState
  if (MetricState.isCounterState(state)) {
    return { type: "counter", lines: [`${name}${labelsOf(tags)} ${numberOf(state.count)}`] }
  }
  if (MetricState.isGaugeState(state)) {
    return { type: "gauge", lines: [`${name}${labelsOf(tags)} ${numberOf(state.value)}`] }
  }
  if (MetricState.isHistogramState(state)) {
    const buckets = state.buckets.map(
      ([bound, count]) => `${name}_bucket${labelsOf([...tags, ["le", numberOf(bound)]])} ${count}`
    )
    const last = state.buckets[state.buckets.length - 1]
    if (last === undefined || last[0] !== Number.POSITIVE_INFINITY) {
      buckets.push(`${name}_bucket${labelsOf([...tags, ["le", "+Inf"]])} ${state.count}`)
    }
    return {
      type: "histogram",
      lines: [
        ...buckets,
        `${name}_sum${labelsOf(tags)} ${numberOf(state.sum)}`,
        `${name}_count${labelsOf(tags)} ${state.count}`
      ]
    }
  }
  if (MetricState.isSummaryState(state)) {
    return {
      type: "summary",
      lines: [
        ...state.quantiles.flatMap(([quantile, value]) =>
          Option.isSome(value)
            ? [`${name}${labelsOf([...tags, ["quantile", String(quantile)]])} ${numberOf(value.value)}`]
            : []
        ),
        `${name}_sum${labelsOf(tags)} ${numberOf(state.sum)}`,
        `${name}_count${labelsOf(tags)} ${state.count}`
      ]
    }
  }
  if (MetricState.isFrequencyState(state)) {
    return {
      type: "counter",
      lines: [...state.occurrences].map(([value, count]) => `${name}${labelsOf([...tags, ["value", value]])} ${count}`)
    }
  }
  return { type: "untyped", lines: [] }
}

/** Renders metric pairs: one `# HELP`/`# TYPE` per metric name, then its series. */
export const render = (pairs: ReadonlyArray<MetricPair.MetricPair.Untyped>): string => {
  const byName = new Map<string, { help: string | undefined; type: string; lines: Array<string> }>()
  for (const pair of pairs) {
    const name = nameOf(pair.metricKey.name)
    const { type, lines } = seriesOf(pair)
    const entry = byName.get(name)
    if (entry === undefined) {
      byName.set(name, { help: Option.getOrUndefined(pair.metricKey.description), type, lines })
    } else {
      entry.lines.push(...lines)
    }
  }
  const out: Array<string> = []
  for (const [name, { help, type, lines }] of [...byName].sort(([a], [b]) => a.localeCompare(b))) {
    if (help !== undefined) out.push(`# HELP ${name} ${help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}`)
    out.push(`# TYPE ${name} ${type}`, ...lines)
  }
  return `${out.join("\n")}\n`
}

/** Every metric of the process, rendered. */
export const scrape: Effect.Effect<string> = Effect.map(Metric.snapshot, render)
