// The frames a live capture keeps for "save as pcapng" at any time: a FIFO bounded by a frame count and
// a byte total, so a capture left running does not exhaust memory. The oldest frames go first and are
// counted in `dropped`.
//
// Frames are kept packed: their bytes back to back in chunks of up to 4 MiB, their numbers and lengths in typed
// columns used as a circular queue. A typed array per frame cost about 700 bytes of heap for a 81-byte
// datagram (the array, its buffer, the buffer's native record), four times what the byte limit counted,
// and a million of them made every major GC of the capture process slow enough to drop packets.

import { resized } from '../../src-shared/bytes/columns'

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
/** What a kept frame costs beyond its bytes: its entries in the columns (two 8-byte and five 4-byte numbers) and some slack. */
const FRAME_OVERHEAD = 40
/**
 * Frame bytes are stored in chunks of an eighth of the byte limit, from 64 KiB to 4 MiB (a larger frame
 * gets a chunk of its own). A frame that does not fit the rest of a chunk starts the next: with frames of
 * at most 256 KiB (MAX_SNAPLEN; cap snaps at 64 KiB) that leaves unused at most a sixteenth of a 4 MiB chunk.
 */
function chunkSize(maxBytes: number): number {
  return Math.max(64 << 10, Math.min(4 << 20, 2 ** Math.ceil(Math.log2(maxBytes / 8))))
}

export class FrameRing {
  readonly maxFrames: number
  readonly maxBytes: number
  /** Frames pushed out by the limits since the capture started. */
  dropped = 0
  private held = 0
  // The queue: `n` frames from slot `head` on, wrapping at the columns' length.
  private head = 0
  private n = 0
  private numbers = new Float64Array(0)
  private tsSecs = new Float64Array(0)
  private tsNsecs = new Uint32Array(0)
  private originalLengths = new Uint32Array(0)
  private lengths = new Uint32Array(0)
  /** Per frame: the sequence number of the chunk holding its bytes, and where in it they start. */
  private chunkOf = new Uint32Array(0)
  private offsets = new Uint32Array(0)
  /** Chunks still holding kept bytes, oldest first; chunks[0] has sequence number `firstChunk`. */
  private chunks: Uint8Array[] = []
  private firstChunk = 0
  /** Bytes written to the last chunk. */
  private fill = 0
  private readonly chunk: number

  constructor(limits: RingLimits = {}) {
    this.maxFrames = limits.frames ?? DEFAULT_RING_FRAMES
    this.maxBytes = limits.bytes ?? DEFAULT_RING_BYTES
    if (!Number.isInteger(this.maxFrames) || this.maxFrames < 1) throw new RangeError(`ring frame limit must be a positive integer, got ${limits.frames}`)
    if (!Number.isFinite(this.maxBytes) || this.maxBytes < 1) throw new RangeError(`ring byte limit must be positive, got ${limits.bytes}`)
    this.chunk = chunkSize(this.maxBytes)
  }

  get count(): number {
    return this.n
  }

  get bytes(): number {
    return this.held
  }

  /** Bytes of the chunks allocated for frame data (kept frames' bytes, plus at most the unused ends of two chunks). */
  get chunkBytes(): number {
    let total = 0
    for (const c of this.chunks) total += c.length
    return total
  }

  /** Copies the frame in (its `data` may be reused by the caller afterwards). */
  push(f: RingFrame): void {
    const length = f.data.length
    const cost = length + FRAME_OVERHEAD
    // A frame bigger than the whole byte limit is not kept (it would evict everything and still not fit).
    if (cost > this.maxBytes) {
      this.dropped++
      return
    }
    while (this.n > 0 && (this.n >= this.maxFrames || this.held + cost > this.maxBytes)) this.evict()
    if (this.n === this.numbers.length) this.grow()
    let chunk = this.chunks[this.chunks.length - 1]
    if (!chunk || this.fill + length > chunk.length) {
      chunk = new Uint8Array(Math.max(this.chunk, length))
      this.chunks.push(chunk)
      this.fill = 0
    }
    chunk.set(f.data, this.fill)
    const i = (this.head + this.n) % this.numbers.length
    this.numbers[i] = f.number
    this.tsSecs[i] = f.tsSec
    this.tsNsecs[i] = f.tsNsec
    this.originalLengths[i] = f.originalLength
    this.lengths[i] = length
    this.chunkOf[i] = this.firstChunk + this.chunks.length - 1
    this.offsets[i] = this.fill
    this.fill += length
    this.n++
    this.held += cost
  }

  private evict(): void {
    const capacity = this.numbers.length
    this.held -= this.lengths[this.head] + FRAME_OVERHEAD
    this.head = (this.head + 1) % capacity
    this.n--
    this.dropped++
    // Chunks older than the oldest kept frame's hold nothing kept; the last one is still written to.
    const keepFrom = this.n > 0 ? this.chunkOf[this.head] : this.firstChunk + this.chunks.length - 1
    while (this.firstChunk < keepFrom) {
      this.chunks.shift()
      this.firstChunk++
    }
  }

  /** Room for twice as many frames (at most maxFrames), the queue unrolled to start at slot 0. */
  private grow(): void {
    const capacity = this.numbers.length
    const next = Math.min(this.maxFrames, Math.max(1024, capacity * 2))
    const unrolled = <T extends Float64Array | Uint32Array>(a: T): T => {
      const out = resized(a, next)
      if (this.head > 0) {
        out.set(a.subarray(this.head))
        out.set(a.subarray(0, this.head), capacity - this.head)
      }
      return out
    }
    this.numbers = unrolled(this.numbers)
    this.tsSecs = unrolled(this.tsSecs)
    this.tsNsecs = unrolled(this.tsNsecs)
    this.originalLengths = unrolled(this.originalLengths)
    this.lengths = unrolled(this.lengths)
    this.chunkOf = unrolled(this.chunkOf)
    this.offsets = unrolled(this.offsets)
    this.head = 0
  }

  /** The kept frames, oldest first; each `data` is a view of the ring's storage (chunks are written once, never reused). */
  *frames(): IterableIterator<RingFrame> {
    const capacity = this.numbers.length
    for (let k = 0; k < this.n; k++) {
      const i = (this.head + k) % capacity
      const chunk = this.chunks[this.chunkOf[i] - this.firstChunk]
      yield {
        number: this.numbers[i],
        tsSec: this.tsSecs[i],
        tsNsec: this.tsNsecs[i],
        originalLength: this.originalLengths[i],
        data: chunk.subarray(this.offsets[i], this.offsets[i] + this.lengths[i])
      }
    }
  }
}
