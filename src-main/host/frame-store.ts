// Every frame of the open capture, kept in a temporary file so the session can replay them (filters,
// exports, message detail, re-decoding with new keys) without holding the capture in memory. Per frame the
// heap holds its offset in the spill file and a link to the next frame of its conversation; per
// conversation, where that chain starts and ends (a few bytes, for a million tiny conversations too).

import { AppendFile } from './append-file'
import { resized } from '../../src-shared/bytes/columns'
import { copyBytes } from '../../src-shared/bytes/slab'
import type { CaptureFrame, CaptureInterface } from '../../src-shared/capture/types'
import type { FrameLengths } from '../../src-shared/engine/frame-lengths'

// Record header: interfaceId u32, linkType u32, tsSec f64, tsNsec u32, originalLength u32, capturedLength u32.
const HEADER = 28
const READ_BLOCK = 4 << 20

export class FrameStore implements FrameLengths {
  private readonly file: AppendFile
  /** A frame's record header, filled before the frame is appended. */
  private readonly head = Buffer.allocUnsafe(HEADER)
  private offsets = new Float64Array(1024)
  /** Per frame (index = number - 1): the next frame of its conversation, 0 after the last. */
  private nextFrame = new Uint32Array(1024)
  /** Per frame, one bit: it belongs to a conversation (a frame belongs to one at most). */
  private inConversation = new Uint8Array(1024 / 8)
  /** Per conversation (index = id - 1): first and last frame of its chain, frames in it, added out of order. */
  private convHead = new Uint32Array(0)
  private convTail = new Uint32Array(0)
  private convCount = new Uint32Array(0)
  private convUnsorted = new Uint8Array(0)
  count = 0
  readonly interfaces: CaptureInterface[] = []
  /** pcapng frame comments, by frame number (few frames have any; the frame node shows them). */
  private comments: Map<number, string[]> | undefined
  /** Original lengths of the frames cut by a snapshot length, by number (the rest were captured whole). */
  private cut: Map<number, number> | undefined

  constructor(parent?: string) {
    this.file = new AppendFile('gamewire-frames-', parent)
  }

  /** Appends a frame; frames must arrive numbered 1, 2, 3... */
  append(f: CaptureFrame): void {
    if (f.number !== this.count + 1) throw new Error(`frame store: expected frame ${this.count + 1}, got ${f.number}`)
    if (this.count === this.offsets.length) this.grow()
    if (f.comments?.length) (this.comments ??= new Map()).set(f.number, f.comments)
    if (f.originalLength !== f.data.length) (this.cut ??= new Map()).set(f.number, f.originalLength)
    this.header(this.head, f)
    this.offsets[this.count] = this.file.append(this.head, f.data)
    this.count++
  }

  /** Records that a frame went to a conversation (1-based id); a frame already recorded is ignored. */
  addToConversation(frameNumber: number, conversation: number): void {
    if (!Number.isInteger(conversation) || !Number.isInteger(frameNumber) || conversation < 1 || frameNumber < 1 || frameNumber > this.count) return
    const f = frameNumber - 1
    if (this.inConversation[f >> 3] & (1 << (f & 7))) return
    this.inConversation[f >> 3] |= 1 << (f & 7)
    if (conversation > this.convHead.length) this.growConversations(conversation)
    const c = conversation - 1
    if (this.convCount[c] === 0) {
      this.convHead[c] = frameNumber
    } else {
      this.nextFrame[this.convTail[c] - 1] = frameNumber
      // IP fragments of a datagram are reported when it completes, after later frames.
      if (this.convTail[c] > frameNumber) this.convUnsorted[c] = 1
    }
    this.convTail[c] = frameNumber
    this.convCount[c]++
  }

  /** Forgets which frames went to which conversation (the frames are decoded again). */
  clearConversations(): void {
    this.nextFrame.fill(0)
    this.inConversation.fill(0)
    this.convHead = new Uint32Array(0)
    this.convTail = new Uint32Array(0)
    this.convCount = new Uint32Array(0)
    this.convUnsorted = new Uint8Array(0)
  }

  /** The frame numbers of a conversation, ascending. */
  framesOf(conversation: number): Uint32Array {
    const c = conversation - 1
    if (!(c >= 0 && c < this.convHead.length)) return new Uint32Array(0)
    const out = new Uint32Array(this.convCount[c])
    for (let i = 0, f = this.convHead[c]; i < out.length; i++, f = this.nextFrame[f - 1]) out[i] = f
    return this.convUnsorted[c] ? out.sort() : out
  }

  private growConversations(need: number): void {
    const size = Math.max(1024, need, this.convHead.length * 2)
    this.convHead = resized(this.convHead, size)
    this.convTail = resized(this.convTail, size)
    this.convCount = resized(this.convCount, size)
    this.convUnsorted = resized(this.convUnsorted, size)
  }

  /** Where a frame's record ends in the file (the next one's start, or the file's size); throws for a number not stored. */
  private recordEnd(number: number): number {
    if (number < 1 || number > this.count) throw new RangeError(`frame ${number} is not in the capture`)
    return number < this.count ? this.offsets[number] : this.file.size
  }

  /** A frame's captured length, from where its record ends: no read. */
  capturedLength(number: number): number {
    return this.recordEnd(number) - this.offsets[number - 1] - HEADER
  }

  /** A frame's length on the wire: its captured length unless a snapshot length cut it. */
  originalLength(number: number): number {
    return this.cut?.get(number) ?? this.capturedLength(number)
  }

  /** One frame by number (1-based). */
  get(number: number): CaptureFrame {
    const end = this.recordEnd(number)
    const start = this.offsets[number - 1]
    // A conversation's replay (message detail) asks for its frames in ascending order, mostly close
    // together: the file's read-ahead window serves the next several. The frame's bytes are copied out
    // (into a slab, bytes/slab.ts): a decoder may keep them, and the window is overwritten by the next read.
    return this.decode(number, this.file.view(start, end - start), 0, true)
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
      const blockEnd = this.recordEnd(m)
      const block = this.file.read(blockStart, blockEnd - blockStart)
      for (let k = n; k <= m; k++) {
        if (select && !select(k)) continue
        yield this.decode(k, block, this.offsets[k - 1] - blockStart)
      }
      n = m + 1
    }
  }

  close(): void {
    this.file.close()
  }

  private grow(): void {
    const size = this.offsets.length * 2
    this.offsets = resized(this.offsets, size)
    this.nextFrame = resized(this.nextFrame, size)
    this.inConversation = resized(this.inConversation, size / 8)
  }

  private header(b: Buffer, f: CaptureFrame): void {
    b.writeUInt32LE(f.interfaceId >>> 0, 0)
    b.writeUInt32LE(f.linkType >>> 0, 4)
    b.writeDoubleLE(f.noTimestamp ? -1 : f.tsSec, 8)
    b.writeUInt32LE(f.tsNsec >>> 0, 16)
    b.writeUInt32LE(f.originalLength >>> 0, 20)
    b.writeUInt32LE(f.data.length, 24)
  }

  /** The frame stored at b[at]; its bytes are a view of `b`, or a copy with `copy`. */
  private decode(number: number, b: Buffer, at: number, copy = false): CaptureFrame {
    const tsSec = b.readDoubleLE(at + 8)
    const len = b.readUInt32LE(at + 24)
    const frame: CaptureFrame = {
      number,
      interfaceId: b.readUInt32LE(at),
      linkType: b.readUInt32LE(at + 4),
      tsSec: Math.max(tsSec, 0),
      tsNsec: b.readUInt32LE(at + 16),
      originalLength: b.readUInt32LE(at + 20),
      data: copy ? copyBytes(b, at + HEADER, at + HEADER + len) : new Uint8Array(b.buffer, b.byteOffset + at + HEADER, len)
    }
    if (tsSec < 0) frame.noTimestamp = true
    const comments = this.comments?.get(number)
    if (comments) frame.comments = comments
    return frame
  }
}
