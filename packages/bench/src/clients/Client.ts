/** What every measured client offers the workloads: one connected session, promise-based. */

/** Where the benchmark server is. */
export type Target = (
  | { readonly kind: "stdio"; readonly command: string; readonly args: ReadonlyArray<string> }
  | { readonly kind: "http"; readonly url: string }
) & {
  /** effect-mcp only: a bound on requests in flight (the others have none to set). */
  readonly maxInFlight?: number
  /** The process serving it, when the benchmark started one (`gateway` workloads read its CPU and RSS). */
  readonly serverPid?: number
}

/** One connected client session. */
export interface Session {
  /** Lists the tools; the number of tools. */
  readonly list: () => Promise<number>
  /** Calls `echo`. */
  readonly echo: (message: string) => Promise<void>
  /** Calls `blob`; the length of the text received. */
  readonly blob: (kb: number) => Promise<number>
  /** Calls `sleep`. */
  readonly sleep: (ms: number) => Promise<void>
  /**
   * Runs `n` calls of `echo` with `concurrency` in flight as the client's own loop, giving each
   * call's latency (ms) to `timed`: an Effect program's loops are Effect (`program.ts`). Without
   * it, the workloads loop in Promise code over `echo`.
   */
  readonly echoes?: (n: number, concurrency: number, timed?: (ms: number) => void) => Promise<void>
  readonly close: () => Promise<void>
}

/** A client under measurement. */
export interface Client {
  readonly name: string
  /** Loads what sessions to `target` need (a transport's modules), before anything is measured. */
  readonly prepare?: (target: Target) => Promise<void>
  /** Connects and completes the handshake. */
  readonly connect: (target: Target) => Promise<Session>
}

/** The total length of the text blocks of a tool result's content. */
const textLength = (result: unknown): number => {
  const content = typeof result === "object" && result !== null && "content" in result ? result.content : undefined
  return Array.isArray(content)
    ? content.reduce(
        (sum: number, block: { readonly type?: unknown; readonly text?: unknown }) =>
          sum + (block.type === "text" && typeof block.text === "string" ? block.text.length : 0),
        0
      )
    : 0
}

/** A session over an official SDK client (v1 or v2): the workloads as tool calls, with a long timeout. */
export const sdkSession = (sdk: {
  readonly listTools: () => Promise<{ readonly tools: ReadonlyArray<unknown> }>
  readonly callTool: (name: string, args: { readonly [key: string]: unknown }) => Promise<unknown>
  readonly close: () => Promise<void>
}): Session => ({
  list: async () => (await sdk.listTools()).tools.length,
  echo: async (message) => {
    await sdk.callTool("echo", { message })
  },
  blob: async (kb) => textLength(await sdk.callTool("blob", { kb })),
  sleep: async (ms) => {
    await sdk.callTool("sleep", { ms })
  },
  close: () => sdk.close()
})

/** The timeout of every benchmark call through an SDK client. */
export const SDK_CALL_TIMEOUT_MS = 120_000
