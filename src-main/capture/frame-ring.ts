// The frames a live capture keeps for "save as pcapng" at any time: a FIFO bounded by a frame count and
// a byte total, so a capture left running does not exhaust memory. The oldest frames go first and are
// counted in `dropped`.

export interface RingLimits {
  /** Most frames kept (default 1,000,000). */
  frames?: number
  /** Most bytes kept, frame data plus a fixed per-frame overhead (default 256 MiB). */
  bytes?: number
}

export interface RingFrame {
  /** 1-based number in the live capture. */
  number: number
  tsSec: number
  tsNsec: number
  originalLength: number
  data: Uint8Array
}

export const DEFAULT_RING_FRAMES = 1_000_000
export const DEFAULT_RING_BYTES = 256 << 20
// What a kept frame costs beyond its bytes: the record object and the typed-array header.
const FRAME_OVERHEAD = 96

export class FrameRing {
  readonly maxFrames: number
  readonly maxBytes: number
  private items: RingFrame[] = []
  private head = 0
  private held = 0
  /** Frames pushed out by the limits since the capture started. */
  dropped = 0

  constructor(limits: RingLimits = {}) {
    this.maxFrames = limits.frames ?? DEFAULT_RING_FRAMES
    this.maxBytes = limits.bytes ?? DEFAULT_RING_BYTES
    if (!Number.isInteger(this.maxFrames) || this.maxFrames < 1) throw new RangeError(`ring frame limit must be a positive integer, got ${limits.frames}`)
    if (!Number.isFinite(this.maxBytes) || this.maxBytes < 1) throw new RangeError(`ring byte limit must be positive, got ${limits.bytes}`)
  }

  get count(): number {
    return this.items.length - this.head
  }

  get bytes(): number {
    return this.held
  }

  push(f: RingFrame): void {
    const cost = f.data.length + FRAME_OVERHEAD
    // A frame bigger than the whole byte limit is not kept (it would evict everything and still not fit).
    if (cost > this.maxBytes) {
      this.dropped++
      return
    }
    this.items.push(f)
    this.held += cost
    while (this.count > this.maxFrames || this.held > this.maxBytes) this.evict()
  }

  private evict(): void {
    const f = this.items[this.head]
    this.items[this.head] = undefined as unknown as RingFrame
    this.head++
    this.held -= f.data.length + FRAME_OVERHEAD
    this.dropped++
    // Compact now and then, so the array does not grow with everything ever pushed.
    if (this.head > 4096 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head)
      this.head = 0
    }
  }

  /** The kept frames, oldest first. */
  *frames(): IterableIterator<RingFrame> {
    for (let i = this.head; i < this.items.length; i++) yield this.items[i]
  }
}
