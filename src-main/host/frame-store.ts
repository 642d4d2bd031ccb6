// Every frame of the open capture, kept in a temporary file so the session can replay them (filters,
// exports, message detail, re-decoding with new keys) without holding the capture in memory. Per frame the
// heap holds its offset in the spill file and its number in its conversation's frame list.

import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { CaptureFrame, CaptureInterface } from '../../src-shared/capture/types'

// Record header: interfaceId u32, linkType u32, tsSec f64, tsNsec u32, originalLength u32, capturedLength u32.
const HEADER = 28
const WRITE_BUFFER = 1 << 20
const READ_BLOCK = 4 << 20

export class FrameStore {
  private readonly dir: string
  private readonly fd: number
  /** Bytes already written to the file. */
  private written = 0
  private buf = Buffer.allocUnsafe(WRITE_BUFFER)
  private used = 0
  private offsets = new Float64Array(1024)
  /** Frame numbers per conversation (index = conversation id - 1). */
  private convFrames: { list: Uint32Array; count: number; sorted: boolean }[] = []
  count = 0
  readonly interfaces: CaptureInterface[] = []
  private closed = false

  constructor(parent = tmpdir()) {
    this.dir = mkdtempSync(join(parent, 'gamewire-frames-'))
    this.fd = openSync(join(this.dir, 'frames.bin'), 'w+')
  }

  /** Appends a frame; frames must arrive numbered 1, 2, 3... */
  append(f: CaptureFrame): void {
    if (f.number !== this.count + 1) throw new Error(`frame store: expected frame ${this.count + 1}, got ${f.number}`)
    if (this.count === this.offsets.length) this.grow()
    const size = HEADER + f.data.length
    if (this.used + size > this.buf.length) this.flush()
    this.offsets[this.count] = this.written + this.used
    this.count++
    if (size > this.buf.length) {
      // A frame bigger than the buffer goes straight to the file.
      const head = Buffer.allocUnsafe(HEADER)
      this.header(head, 0, f)
      writeSync(this.fd, head, 0, HEADER, this.written)
      writeSync(this.fd, f.data, 0, f.data.length, this.written + HEADER)
      this.written += size
      return
    }
    this.header(this.buf, this.used, f)
    this.buf.set(f.data, this.used + HEADER)
    this.used += size
  }

  /** Records that a frame went to a conversation (1-based id). */
  addToConversation(frameNumber: number, conversation: number): void {
    if (conversation < 1 || frameNumber < 1 || frameNumber > this.count) return
    while (this.convFrames.length < conversation) this.convFrames.push({ list: new Uint32Array(16), count: 0, sorted: true })
    const c = this.convFrames[conversation - 1]
    if (c.count === c.list.length) {
      const bigger = new Uint32Array(c.list.length * 2)
      bigger.set(c.list)
      c.list = bigger
    }
    // IP fragments of a datagram are reported when it completes, after later frames.
    if (c.count > 0 && c.list[c.count - 1] >= frameNumber) c.sorted = false
    c.list[c.count++] = frameNumber
  }

  /** Forgets which frames went to which conversation (the frames are decoded again). */
  clearConversations(): void {
    this.convFrames = []
  }

  /** The frame numbers of a conversation, ascending. */
  framesOf(conversation: number): Uint32Array {
    const c = this.convFrames[conversation - 1]
    if (!c) return new Uint32Array(0)
    if (!c.sorted) {
      const view = c.list.subarray(0, c.count).sort()
      // drop duplicates
      let w = 0
      for (let r = 0; r < view.length; r++) if (w === 0 || view[r] !== view[w - 1]) view[w++] = view[r]
      c.count = w
      c.sorted = true
    }
    return c.list.subarray(0, c.count)
  }

  /** One frame by number (1-based). */
  get(number: number): CaptureFrame {
    if (number < 1 || number > this.count) throw new RangeError(`frame ${number} is not in the capture`)
    const start = this.offsets[number - 1]
    const end = number < this.count ? this.offsets[number] : this.written + this.used
    const bytes = this.readBytes(start, end - start)
    return this.decode(number, bytes, 0)
  }

  /**
   * Frames `from`..`to` (1-based, inclusive) in order, read in large blocks. `select` skips frames
   * without reading their bytes into objects.
   */
  *range(from = 1, to = this.count, select?: (number: number) => boolean): Generator<CaptureFrame> {
    let n = Math.max(1, from)
    const last = Math.min(to, this.count)
    while (n <= last) {
      const blockStart = this.offsets[n - 1]
      // take as many whole frames as fit in one block (at least one)
      let m = n
      while (m < last && this.offsets[m] - blockStart < READ_BLOCK) m++
      const blockEnd = m < this.count ? this.offsets[m] : this.written + this.used
      const block = this.readBytes(blockStart, blockEnd - blockStart)
      for (let k = n; k <= m; k++) {
        if (select && !select(k)) continue
        yield this.decode(k, block, this.offsets[k - 1] - blockStart)
      }
      n = m + 1
    }
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    try {
      closeSync(this.fd)
    } finally {
      rmSync(this.dir, { recursive: true, force: true })
    }
  }

  private grow(): void {
    const o = new Float64Array(this.offsets.length * 2)
    o.set(this.offsets)
    this.offsets = o
  }

  private header(b: Buffer, at: number, f: CaptureFrame): void {
    b.writeUInt32LE(f.interfaceId >>> 0, at)
    b.writeUInt32LE(f.linkType >>> 0, at + 4)
    b.writeDoubleLE(f.noTimestamp ? -1 : f.tsSec, at + 8)
    b.writeUInt32LE(f.tsNsec >>> 0, at + 16)
    b.writeUInt32LE(f.originalLength >>> 0, at + 20)
    b.writeUInt32LE(f.data.length, at + 24)
  }

  private decode(number: number, b: Buffer, at: number): CaptureFrame {
    const tsSec = b.readDoubleLE(at + 8)
    const len = b.readUInt32LE(at + 24)
    const frame: CaptureFrame = {
      number,
      interfaceId: b.readUInt32LE(at),
      linkType: b.readUInt32LE(at + 4),
      tsSec: tsSec < 0 ? 0 : tsSec,
      tsNsec: b.readUInt32LE(at + 16),
      originalLength: b.readUInt32LE(at + 20),
      data: new Uint8Array(b.buffer, b.byteOffset + at + HEADER, len)
    }
    if (tsSec < 0) frame.noTimestamp = true
    return frame
  }

  private flush(): void {
    if (this.used === 0) return
    writeSync(this.fd, this.buf, 0, this.used, this.written)
    this.written += this.used
    this.used = 0
  }

  /** Bytes at [start, start+length) of the store, whether flushed or still buffered. */
  private readBytes(start: number, length: number): Buffer {
    const out = Buffer.allocUnsafe(length)
    let filled = 0
    if (start < this.written) {
      const fromFile = Math.min(length, this.written - start)
      while (filled < fromFile) {
        const n = readSync(this.fd, out, filled, fromFile - filled, start + filled)
        if (n <= 0) throw new Error('frame store: unexpected end of the spill file')
        filled += n
      }
    }
    if (filled < length) {
      const bufStart = start + filled - this.written
      this.buf.copy(out, filled, bufStart, bufStart + (length - filled))
    }
    return out
  }
}
