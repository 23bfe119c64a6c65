/**
 * Whether the live status line may still be drawn: Ctrl-C closes it for good (`bin.ts` prints
 * what it cancelled at once, and nothing may be drawn or erased after that line). Plain module
 * state, so that `bin.ts` sets it without loading `effect`.
 */
let open = true

/** No status line is drawn or erased from now on. */
export const close = (): void => {
  open = false
}

/** Whether the status line may still be drawn. */
export const isOpen = (): boolean => open
