/**
 * What a gateway sent to an official SDK client, as the client's transport read it off the wire,
 * before the SDK's own handling. The SDK clients (v1 and v2) handle a response at once and a
 * notification a microtask later, and drop the progress of a request already answered: a last
 * progress read in the same chunk as its result is lost on the client's side, whatever order the
 * wire had (modelcontextprotocol/typescript-sdk#2580; it happens with the reference server alone).
 * So a test of what the gateway sends reads it here.
 */

/** The messages a transport reads, in order; `Client.connect` keeps an `onmessage` set before it. */
export const recordWire = (transport: { onmessage?: ((message: never) => void) | undefined }): Array<unknown> => {
  const messages: Array<unknown> = []
  transport.onmessage = (message: unknown) => void messages.push(message)
  return messages
}

const isObject = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The last answered call among `messages`: its progress notifications (`progress 1/2`) and its
 * result (`result`), in the order they came.
 */
export const lastCall = (messages: ReadonlyArray<unknown>): ReadonlyArray<string> => {
  const answer = [...messages].reverse().find((message) => isObject(message) && "result" in message && "id" in message)
  const id = isObject(answer) ? answer.id : undefined
  return messages.flatMap((message) => {
    if (!isObject(message)) return []
    if (message === answer) return ["result"]
    const params = message.params
    return message.method === "notifications/progress" && isObject(params) && params.progressToken === id
      ? [`progress ${params.progress}/${params.total}`]
      : []
  })
}
