// The most recent frames, kept packed, for two users: a live capture's "save as pcapng" at any time, and a
// streaming decode's frames for their layers (`decode --layers`, a filter on a header field such as ip.ttl).
// A FIFO bounded by a span of frame numbers and a byte total, so a capture left running does not exhaust
// memory. The oldest frames go first and are counted in `dropped`.
//
// Frames are kept packed: their bytes back to back in chunks of up to 4 MiB, their record fields in typed
// columns used as a circular queue. A typed array per frame cost about 700 bytes of heap for a 81-byte
// datagram (the array, its buffer, the buffer's native record), four times what the byte limit counted,
// and a million of them made every major GC of the capture process slow enough to drop packets.

import { resizedColumns } from '../bytes/columns'
import type { CaptureFrame } from '../capture/types'
import type { FrameSource } from './layers'

export interface RingLimits {
  /** Frames kept: those among the last `frames` numbers (default 1,000,000). */
  frames?: number
  /** Most bytes kept, frame data plus a fixed per-frame overhead (default 256 MiB). */
  bytes?: number
}

export const DEFAULT_RING_FRAMES = 1_000_000
export const DEFAULT_RING_BYTES = 256 << 20
/** What a streaming decode keeps for its messages' frames: a message's frames are nearly always recent. */
export const RECENT_FRAME_LIMITS: Readonly<Required<RingLimits>> = { frames: 1 << 18, bytes: 64 << 20 }

const COLUMNS = {
  number: [new Float64Array(0), 1],
  tsSec: [new Float64Array(0), 1],
  tsNsec: [new Uint32Array(0), 1],
  originalLength: [new Uint32Array(0), 1],
  interfaceId: [new Uint32Array(0), 1],
  linkType: [new Uint32Array(0), 1],
  noTimestamp: [new Uint8Array(0), 1],
  length: [new Uint32Array(0), 1],
  /** The sequence number of the chunk holding the frame's bytes, and where in it they start. */
  chunkOf: [new Uint32Array(0), 1],
  offset: [new Uint32Array(0), 1]
} as const

/** What a kept frame costs beyond its bytes: its entries in the columns (45 bytes) and some slack. */
const FRAME_OVERHEAD = 48
/**
 * Frame bytes are stored in chunks of an eighth of the byte limit, from 64 KiB to 4 MiB (a larger frame
 * gets a chunk of its own). A frame that does not fit the rest of a chunk starts the next: with frames of
 * at most 256 KiB (MAX_SNAPLEN; cap snaps at 64 KiB) that leaves unused at most a sixteenth of a 4 MiB chunk.
 * The first chunks are smaller (FIRST_CHUNK, doubling), so that a ring holding a few frames holds little:
 * an engine's ring is copied with it into each of a message detail's checkpoints (Engine.fork).
 */
function chunkSize(maxBytes: number): number {
  return Math.max(FIRST_CHUNK, Math.min(4 << 20, 2 ** Math.ceil(Math.log2(maxBytes / 8))))
}
const FIRST_CHUNK = 64 << 10

export class FrameRing implements FrameSource {
  readonly maxFrames: number
  readonly maxBytes: number
  /** Frames pushed out by the limits, or too large for them. */
  dropped = 0
  private held = 0
  /** The last number pushed: numbers rise, and a frame pushed again is already here (or was dropped). */
  private newest = 0
  // The queue: `n` frames from slot `head` on, wrapping at the columns' length.
  private head = 0
  private n = 0
  private c = resizedColumns(COLUMNS, 0)
  /** pcapng frame comments, by number, for the frames kept (few have any). */
  private comments = new Map<number, string[]>()
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

  /** Copies the frame in (its `data` may be reused by the caller afterwards). Numbers must rise; a number not above the last is ignored. */
  push(f: CaptureFrame): void {
    const number = f.number
    if (number <= this.newest) return
    this.newest = number
    const length = f.data.length
    const cost = length + FRAME_OVERHEAD
    // A frame bigger than the whole byte limit is not kept (it would evict everything and still not fit).
    if (cost > this.maxBytes) {
      this.dropped++
      return
    }
    // Frames kept are those among the last maxFrames numbers, so never more than maxFrames of them.
    while (this.n > 0 && (this.c.number[this.head] <= number - this.maxFrames || this.held + cost > this.maxBytes)) this.evict()
    if (this.n === this.c.number.length) this.grow()
    let chunk = this.chunks[this.chunks.length - 1]
    if (!chunk || this.fill + length > chunk.length) {
      chunk = new Uint8Array(Math.max(Math.min(this.chunk, chunk ? 2 * chunk.length : FIRST_CHUNK), length))
      this.chunks.push(chunk)
      this.fill = 0
    }
    chunk.set(f.data, this.fill)
    const c = this.c
    const i = (this.head + this.n) % c.number.length
    c.number[i] = number
    c.tsSec[i] = f.tsSec
    c.tsNsec[i] = f.tsNsec
    c.originalLength[i] = f.originalLength
    c.interfaceId[i] = f.interfaceId
    c.linkType[i] = f.linkType
    c.noTimestamp[i] = f.noTimestamp ? 1 : 0
    c.length[i] = length
    c.chunkOf[i] = this.firstChunk + this.chunks.length - 1
    c.offset[i] = this.fill
    if (f.comments?.length) this.comments.set(number, f.comments)
    this.fill += length
    this.n++
    this.held += cost
  }

  /**
   * The frame numbered `number`, or undefined when it is not kept. Its `data` is a view of the ring's
   * storage, which stays as it is (chunks are written once, never reused).
   */
  get(number: number): CaptureFrame | undefined {
    if (this.n === 0) return undefined
    const c = this.c
    const capacity = c.number.length
    // Numbers are most often consecutive: try the slot they would give, then search the queue (they rise).
    let lo = 0
    let hi = this.n - 1
    let k = number - c.number[this.head]
    if (k < 0 || number > c.number[(this.head + hi) % capacity]) return undefined
    if (k > hi || c.number[(this.head + k) % capacity] !== number) {
      k = -1
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1
        const at = c.number[(this.head + mid) % capacity]
        if (at === number) {
          k = mid
          break
        }
        if (at < number) lo = mid + 1
        else hi = mid - 1
      }
      if (k < 0) return undefined
    }
    return this.frameAt((this.head + k) % capacity)
  }

  /** The kept frames, oldest first; each `data` is a view of the ring's storage, as from get(). */
  *frames(): IterableIterator<CaptureFrame> {
    const capacity = this.c.number.length
    for (let k = 0; k < this.n; k++) yield this.frameAt((this.head + k) % capacity)
  }

  /** Lets every frame go, and the ring's memory with them. */
  clear(): void {
    this.held = 0
    this.head = 0
    this.n = 0
    this.c = resizedColumns(COLUMNS, 0)
    this.comments.clear()
    this.chunks = []
    this.fill = 0
  }

  private frameAt(i: number): CaptureFrame {
    const c = this.c
    const number = c.number[i]
    const offset = c.offset[i]
    const f: CaptureFrame = {
      number,
      interfaceId: c.interfaceId[i],
      linkType: c.linkType[i],
      tsSec: c.tsSec[i],
      tsNsec: c.tsNsec[i],
      originalLength: c.originalLength[i],
      data: this.chunks[c.chunkOf[i] - this.firstChunk].subarray(offset, offset + c.length[i])
    }
    const comments = this.comments.get(number)
    if (comments) f.comments = comments
    if (c.noTimestamp[i]) f.noTimestamp = true
    return f
  }

  private evict(): void {
    const c = this.c
    const capacity = c.number.length
    this.held -= c.length[this.head] + FRAME_OVERHEAD
    this.comments.delete(c.number[this.head])
    this.head = (this.head + 1) % capacity
    this.n--
    this.dropped++
    // Chunks older than the oldest kept frame's hold nothing kept; the last one is still written to.
    const keepFrom = this.n > 0 ? c.chunkOf[this.head] : this.firstChunk + this.chunks.length - 1
    while (this.firstChunk < keepFrom) {
      this.chunks.shift()
      this.firstChunk++
    }
  }

  /** Room for twice as many frames (at most maxFrames), the queue unrolled to start at slot 0. */
  private grow(): void {
    const capacity = this.c.number.length
    const next = Math.min(this.maxFrames, Math.max(1024, capacity * 2))
    const grown = resizedColumns(COLUMNS, next, this.c)
    if (this.head > 0)
      for (const name in COLUMNS) {
        const from = this.c[name as keyof typeof COLUMNS]
        const to = grown[name as keyof typeof COLUMNS]
        to.set(from.subarray(this.head))
        to.set(from.subarray(0, this.head), capacity - this.head)
      }
    this.c = grown
    this.head = 0
  }
}
