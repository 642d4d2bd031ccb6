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

export const tick = (): Promise<void> => new Promise((r) => setImmediate(r))

/** Work between two yields to the event loop, and the interval of progress events. */
export const SLICE_MS = 12
export const PROGRESS_MS = 100
