/**
 * The page's event stream read as a test would: every event kept in order, and a wait for the
 * first one that matches (bounded, so a missing event fails the test instead of hanging it).
 */
import * as Schema from "effect/Schema"
import * as Api from "../../src/Api.js"

export interface Events {
  readonly seen: Array<Api.Event>
  /** The first event (from the start) that matches, waiting up to `ms`. */
  readonly waitFor: <E extends Api.Event>(match: (event: Api.Event) => event is E, ms?: number) => Promise<E>
  readonly close: () => void
}

const decode = Schema.decodeUnknownSync(Schema.parseJson(Api.Event))

/** Opens `/api/events` with the token; resolves once connected. */
export const open = async (origin: string, token: string): Promise<Events> => {
  const controller = new AbortController()
  const response = await fetch(`${origin}/api/events`, {
    headers: { authorization: `Bearer ${token}` },
    signal: controller.signal
  })
  if (response.status !== 200 || response.body === null) throw new Error(`the event stream answered ${response.status}`)
  const seen: Array<Api.Event> = []
  const waiters = new Set<() => void>()
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  void (async () => {
    let buffer = ""
    try {
      while (true) {
        const { value, done } = await reader.read()
        if (done) return
        buffer += decoder.decode(value, { stream: true })
        let end = buffer.indexOf("\n\n")
        while (end !== -1) {
          const frame = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const data = frame
            .split("\n")
            .filter((line) => line.startsWith("data: "))
            .map((line) => line.slice(6))
            .join("\n")
          if (data !== "") seen.push(decode(data))
          end = buffer.indexOf("\n\n")
        }
        for (const wake of waiters) wake()
      }
    } catch {
      // Closed by the test.
    }
  })()
  return {
    seen,
    waitFor: <E extends Api.Event>(match: (event: Api.Event) => event is E, ms = 20_000) =>
      new Promise<E>((resolve, reject) => {
        const check = () => {
          const found = seen.find(match)
          if (found === undefined) return false
          waiters.delete(check)
          clearTimeout(timer)
          resolve(found)
          return true
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`no such event in ${ms} ms; seen: ${seen.map((event) => event._tag).join(", ")}`))
        }, ms)
        if (!check()) waiters.add(check)
      }),
    close: () => controller.abort()
  }
}

/** A matcher by tag and a further check. */
export const is =
  <T extends Api.Event["_tag"]>(tag: T, check: (event: Extract<Api.Event, { _tag: T }>) => boolean = () => true) =>
  (event: Api.Event): event is Extract<Api.Event, { _tag: T }> =>
    event._tag === tag && check(event as Extract<Api.Event, { _tag: T }>)
