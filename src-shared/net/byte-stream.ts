// One direction of a reassembled byte stream (TCP after reordering, or the raw bytes after a fake
// WebSocket preamble). Bytes arrive as chunks that remember which frame carried them, so whatever a
// stream decoder takes out knows every frame that contributed a byte of it.

export interface StreamChunk {
  data: Uint8Array
  frame: number
  time: number
}

export interface TakenBytes {
  bytes: Uint8Array
  /** Frame numbers that carried these bytes, ascending, without duplicates. */
  frames: number[]
  /**
   * Time of the frame that completed them: the latest (highest-numbered) frame that carried a byte of them,
   * which is not the frame of their last byte when segments arrived out of order.
   */
  time: number
  /** Stream offset of the first byte (bytes consumed from this direction before it). */
  offset: number
}

export class ByteStream {
  private chunks: StreamChunk[] = []
  private first = 0 // index of the first unconsumed chunk (consumed ones are dropped in batches)
  private head = 0 // bytes already consumed from chunks[first]
  private size = 0
  /** Chunks before this index are copies of their own (own() made them), not views of a frame's bytes. */
  private ownedTo = 0
  /** Total bytes consumed so far (the stream offset of the next byte). */
  consumed = 0

  get available(): number {
    return this.size
  }

  push(data: Uint8Array, frame: number, time: number): void {
    if (data.length === 0) return
    this.chunks.push({ data, frame, time })
    this.size += data.length
  }

  /** Byte at `offset` from the current position (caller checks `available`). */
  byteAt(offset: number): number {
    let off = offset + this.head
    for (let i = this.first; i < this.chunks.length; i++) {
      const c = this.chunks[i]
      if (off < c.data.length) return c.data[off]
      off -= c.data.length
    }
    throw new RangeError('byteAt past available bytes')
  }

  /** Copies (or views, when within one chunk) `n` bytes starting `offset` bytes ahead, without consuming. */
  peek(n: number, offset = 0): Uint8Array {
    if (offset + n > this.size) throw new RangeError('peek past available bytes')
    let off = offset + this.head
    let i = this.first
    while (i < this.chunks.length && off >= this.chunks[i].data.length) off -= this.chunks[i++].data.length
    if (n === 0) return new Uint8Array(0)
    const first = this.chunks[i].data
    if (off + n <= first.length) return first.subarray(off, off + n)
    const out = new Uint8Array(n)
    let w = 0
    for (; w < n; i++) {
      const d = this.chunks[i].data
      const part = Math.min(d.length - off, n - w)
      out.set(d.subarray(off, off + part), w)
      w += part
      off = 0
    }
    return out
  }

  /** Consumes `n` bytes, returning them with the frames that carried them. */
  take(n: number): TakenBytes {
    if (n > this.size) throw new RangeError('take past available bytes')
    const bytes = this.peek(n)
    const frames: number[] = []
    let time = 0
    let latest = -1
    let left = n
    const offset = this.consumed
    while (left > 0) {
      const c = this.chunks[this.first]
      const inChunk = c.data.length - this.head
      const used = Math.min(inChunk, left)
      if (frames[frames.length - 1] !== c.frame) frames.push(c.frame)
      if (c.frame >= latest) {
        latest = c.frame
        time = c.time
      }
      left -= used
      if (used === inChunk) {
        this.first++
        this.head = 0
      } else {
        this.head += used
      }
    }
    // Drop consumed chunks in one go (shifting one at a time is quadratic for many small chunks).
    if (this.first > 64 || this.first === this.chunks.length) {
      this.chunks.splice(0, this.first)
      this.ownedTo = Math.max(0, this.ownedTo - this.first)
      this.first = 0
    }
    this.size -= n
    this.consumed += n
    if (frames.length > 1) frames.sort((a, b) => a - b)
    return { bytes, frames: dedupeSorted(frames), time, offset }
  }

  /**
   * Copies the unconsumed bytes that are still views of the frames that brought them: called when a frame
   * has been handled, so that bytes waiting for the rest of a message keep only themselves alive, not the
   * frame's slab (bytes/slab.ts).
   */
  own(): void {
    for (let i = Math.max(this.ownedTo, this.first); i < this.chunks.length; i++) {
      const c = this.chunks[i]
      if (i === this.first) {
        c.data = c.data.slice(this.head)
        this.head = 0
      } else c.data = c.data.slice()
    }
    this.ownedTo = this.chunks.length
  }

  /** Consumes everything available. */
  takeAll(): TakenBytes {
    return this.take(this.size)
  }

  /** Frame of the next unconsumed byte, if any (for messages that end before they start). */
  get nextFrame(): number | undefined {
    return this.chunks[this.first]?.frame
  }
}

/** The time of the latest frame over several takes (a message made of several WebSocket frames). */
export function latestTime(parts: readonly TakenBytes[]): number {
  let frame = -1
  let time = 0
  for (const p of parts) {
    const f = p.frames[p.frames.length - 1] ?? -1
    if (f >= frame) {
      frame = f
      time = p.time
    }
  }
  return time
}

function dedupeSorted(a: number[]): number[] {
  if (a.length < 2) return a
  const out = [a[0]]
  for (let i = 1; i < a.length; i++) if (a[i] !== out[out.length - 1]) out.push(a[i])
  return out
}
