/** What every measured client offers the workloads: one connected session, promise-based. */

/** Where the benchmark server is. */
export type Target =
  | { readonly kind: "stdio"; readonly command: string; readonly args: ReadonlyArray<string> }
  | { readonly kind: "http"; readonly url: string }

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
  readonly close: () => Promise<void>
}

/** A client under measurement. */
export interface Client {
  readonly name: string
  /** Connects and completes the handshake. */
  readonly connect: (target: Target) => Promise<Session>
}
