// Cancellation of long session work (opening, re-decoding, filtering, exporting): each run holds a Token
// and checks it where it yields to the event loop.

export class Cancelled extends Error {
  constructor() {
    super('cancelled')
    this.name = 'Cancelled'
  }
}

export class Token {
  cancelled = false
  cancel(): void {
    this.cancelled = true
  }
  check(): void {
    if (this.cancelled) throw new Cancelled()
  }
}

/** When foreground work (opening, a filter, an export) last yielded: background work waits while it runs. */
let foregroundAt = -Infinity

/** Foreground work's yield to the event loop, between two of its slices. */
export const tick = (): Promise<void> => {
  foregroundAt = performance.now()
  return new Promise((r) => setImmediate(r))
}

/** Background work's yield (detail checkpoints): it goes on once no foreground work has yielded for IDLE_MS. */
export async function idleTick(): Promise<void> {
  await new Promise((r) => setImmediate(r))
  while (performance.now() - foregroundAt < IDLE_MS) await new Promise((r) => setTimeout(r, IDLE_MS))
}

/** Work between two yields to the event loop, and the interval of progress events. */
export const SLICE_MS = 12
export const PROGRESS_MS = 100
/** Background work's slices are shorter: a request waits for at most one. */
export const BACKGROUND_SLICE_MS = 4
const IDLE_MS = 50
