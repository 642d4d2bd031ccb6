// The recent frames a streaming decode keeps for their layers (`decode --layers`, a filter on a header field
// such as ip.ttl): their bytes in one ring of bytes and their record fields in typed columns, so keeping a
// frame copies its bytes once and allocates nothing. A frame per object and a copy of its bytes each
// (before) cost about twice the bytes kept again in the heap, and kept the collector busy.

import { resizedColumns, type ColumnsOf } from '../bytes/columns'
import type { CaptureFrame } from '../capture/types'
import type { FrameSource } from './layers'

const SLOT_COLUMNS = {
  number: [new Float64Array(0), 1],
  /** Where the frame's bytes start in the stream of bytes kept (see `written`). */
  start: [new Float64Array(0), 1],
  capturedLength: [new Uint32Array(0), 1],
  originalLength: [new Uint32Array(0), 1],
  interfaceId: [new Uint32Array(0), 1],
  linkType: [new Uint32Array(0), 1],
  tsSec: [new Float64Array(0), 1],
  tsNsec: [new Uint32Array(0), 1],
  noTimestamp: [new Uint8Array(0), 1]
} as const

const FIRST_SLOTS = 4096
const FIRST_BYTES = 1 << 20

/**
 * The most recent frames, up to `maxFrames` of them and `maxBytes` of their bytes: a frame's slot is its
 * number modulo the slots, its bytes are where the ring of bytes had got to. A message's frames are nearly
 * always recent; one older than either limit is reported missing (undefined), as a frame not held.
 * Both rings start small and grow to their limit before they first wrap, so a small capture (or a shard
 * given few frames) does not pay for the limits.
 */
export class FrameKeep implements FrameSource {
  private slots!: ColumnsOf<typeof SLOT_COLUMNS>
  private ring!: Uint8Array
  /** Bytes written to the ring since it began, gaps included: a frame's bytes are intact while they are among the last `ring.length`. */
  private written = 0
  /** pcapng frame comments, by number, for the frames held (few have any). */
  private comments = new Map<number, string[]>()

  constructor(
    private readonly maxBytes = 64 << 20,
    private readonly maxFrames = 1 << 18
  ) {
    this.clear()
  }

  /** Lets every frame go, and the rings' memory with them. */
  clear(): void {
    this.slots = resizedColumns(SLOT_COLUMNS, Math.min(FIRST_SLOTS, this.maxFrames))
    this.ring = new Uint8Array(Math.min(FIRST_BYTES, this.maxBytes))
    this.written = 0
    this.comments.clear()
  }

  put(f: CaptureFrame): void {
    const n = f.number
    const data = f.data
    if (data.length > this.maxBytes) return
    while (n >= this.slots.number.length && this.slots.number.length < this.maxFrames) this.growSlots()
    const s = n % this.slots.number.length
    const old = this.slots.number[s]
    if (old) this.comments.delete(old)
    // A frame's bytes stay in one piece: one that would run past the ring's end starts at its beginning.
    while (this.written + data.length > this.ring.length && this.ring.length < this.maxBytes) this.growRing()
    let at = this.written % this.ring.length
    if (at + data.length > this.ring.length) {
      this.written += this.ring.length - at
      at = 0
    }
    this.ring.set(data, at)
    const c = this.slots
    c.number[s] = n
    c.start[s] = this.written
    c.capturedLength[s] = data.length
    c.originalLength[s] = f.originalLength
    c.interfaceId[s] = f.interfaceId
    c.linkType[s] = f.linkType
    c.tsSec[s] = f.tsSec
    c.tsNsec[s] = f.tsNsec
    c.noTimestamp[s] = f.noTimestamp ? 1 : 0
    if (f.comments?.length) this.comments.set(n, f.comments)
    this.written += data.length
  }

  /**
   * The frame numbered `n`, or undefined when it is not held. Its `data` is a view of the ring, good until
   * the next put(): a caller that keeps the frame copies it.
   */
  get(n: number): CaptureFrame | undefined {
    const c = this.slots
    const s = n % c.number.length
    if (n < 1 || c.number[s] !== n || this.written - c.start[s] > this.ring.length) return undefined
    const at = c.start[s] % this.ring.length
    const f: CaptureFrame = {
      number: n,
      interfaceId: c.interfaceId[s],
      linkType: c.linkType[s],
      tsSec: c.tsSec[s],
      tsNsec: c.tsNsec[s],
      originalLength: c.originalLength[s],
      data: this.ring.subarray(at, at + c.capturedLength[s])
    }
    const comments = this.comments.get(n)
    if (comments) f.comments = comments
    if (c.noTimestamp[s]) f.noTimestamp = true
    return f
  }

  // Before a ring first wraps, every entry sits at its own index (a frame's number, a byte's position), which
  // a longer ring keeps.
  private growSlots(): void {
    this.slots = resizedColumns(SLOT_COLUMNS, Math.min(this.slots.number.length * 2, this.maxFrames), this.slots)
  }

  private growRing(): void {
    const next = new Uint8Array(Math.min(this.ring.length * 2, this.maxBytes))
    next.set(this.ring.subarray(0, this.written))
    this.ring = next
  }
}
