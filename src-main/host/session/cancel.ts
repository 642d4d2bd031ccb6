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

/**
 * When foreground work last ran: a request from the app, or long work (a filter, an export) yielding
 * between its slices. Background work waits while there is some.
 */
let foregroundAt = -Infinity

/** Notes foreground work: background work waits until none has run for IDLE_MS. */
export function foregroundActivity(): void {
  foregroundAt = performance.now()
}

/** Foreground work's yield to the event loop, between two of its slices. */
export const tick = (): Promise<void> => {
  foregroundActivity()
  return new Promise((r) => setImmediate(r))
}

/** Background work's yield (detail checkpoints): it goes on once no foreground work has run for IDLE_MS. */
export async function idleTick(): Promise<void> {
  await new Promise((r) => setImmediate(r))
  for (let quiet = performance.now() - foregroundAt; quiet < IDLE_MS; quiet = performance.now() - foregroundAt) {
    await new Promise((r) => setTimeout(r, IDLE_MS - quiet))
  }
}

/** Work between two yields to the event loop, and the interval of progress events. */
export const SLICE_MS = 12
export const PROGRESS_MS = 100
/** Background work's slices are shorter: a request waits for at most one. */
export const BACKGROUND_SLICE_MS = 4
/** How long background work waits after the last foreground work (a burst of key presses is one). */
export const IDLE_MS = 300
