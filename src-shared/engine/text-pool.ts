// Distinct short texts (the message index's summaries), each kept once as bytes rather than as a JS
// string. Why: summaries are built by concatenation, and V8 keeps such a string as a tree of its pieces (a
// "cons string": 32 bytes per node, plus every piece), several hundred bytes for a 58-character summary;
// a 4M-frame capture has 1.3 million distinct ones. Here a text costs its bytes, 10 bytes (start, length,
// hash) and a slot of the hash table that finds it again. The bytes go in blocks of 4 KiB at first, each
// twice the one before up to 1 MiB, so that a small index stays small. Each UTF-16 code unit is kept as 1
// to 3 bytes, as UTF-8 encodes the characters below U+10000: ASCII takes one byte, and any string, lone
// surrogates too, comes back exactly as it went in.

import { resized } from '../bytes/columns'

const BLOCK_BITS = 20
const BLOCK = 1 << BLOCK_BITS
/** A start is a block number and an offset in 32 bits: at most 4,096 blocks (4 GiB of text). */
const MAX_BLOCKS = 1 << (32 - BLOCK_BITS)
/** Longest text kept, in UTF-16 code units (its count is kept in 16 bits; 3 bytes each fit a block). */
export const TEXT_POOL_MAX = 0xffff

/** FNV-1a over a text's UTF-16 code units. */
export function hashText(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h >>> 0
}

export class TextPool {
  /** Texts so far; their ids are 0 .. count - 1 in the order they were first added. */
  count = 0
  private readonly blocks: Uint8Array[] = []
  /** Bytes used of the last block, and its size. */
  private used = 0
  private blockSize = 0
  /** Per id: where its bytes start (block number << 20 | offset), its length in code units, its hash. */
  private starts = new Uint32Array(1024)
  private lengths = new Uint16Array(1024)
  private hashes = new Uint32Array(1024)
  /** Open addressing over the hashes: id + 1 per slot, 0 when free; kept at most half full. */
  private table = new Uint32Array(2048)

  /** The text's id, adding it when it is new. RangeError for a text over TEXT_POOL_MAX or past 4 GiB of text. */
  id(text: string): number {
    if (text.length > TEXT_POOL_MAX) throw new RangeError(`text pool: ${text.length} characters, at most ${TEXT_POOL_MAX}`)
    const h = hashText(text)
    const mask = this.table.length - 1
    let slot = h & mask
    for (let e = this.table[slot]; e !== 0; slot = (slot + 1) & mask, e = this.table[slot]) {
      if (this.hashes[e - 1] === h && this.equals(e - 1, text)) return e - 1
    }
    return this.append(text, h, slot)
  }

  text(id: number): string {
    if (!(id >= 0 && id < this.count)) throw new RangeError(`text pool: no text ${id}`)
    const block = this.blocks[this.starts[id] >>> BLOCK_BITS]
    let at = this.starts[id] & (BLOCK - 1)
    const units: number[] = new Array(this.lengths[id])
    for (let i = 0; i < units.length; i++) {
      const b = block[at]
      if (b < 0x80) {
        units[i] = b
        at += 1
      } else if (b < 0xe0) {
        units[i] = ((b & 0x1f) << 6) | (block[at + 1] & 0x3f)
        at += 2
      } else {
        units[i] = ((b & 0x0f) << 12) | ((block[at + 1] & 0x3f) << 6) | (block[at + 2] & 0x3f)
        at += 3
      }
    }
    return String.fromCharCode.apply(null, units)
  }

  /** Every text, by id (for sorting by them). */
  all(): string[] {
    const out = new Array<string>(this.count)
    for (let id = 0; id < this.count; id++) out[id] = this.text(id)
    return out
  }

  /** Bytes held: the blocks and the per-text arrays. */
  byteSize(): number {
    let blocks = 0
    for (const b of this.blocks) blocks += b.length
    return blocks + this.starts.byteLength + this.lengths.byteLength + this.hashes.byteLength + this.table.byteLength
  }

  private equals(id: number, text: string): boolean {
    if (this.lengths[id] !== text.length) return false
    const block = this.blocks[this.starts[id] >>> BLOCK_BITS]
    let at = this.starts[id] & (BLOCK - 1)
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (c < 0x80) {
        if (block[at] !== c) return false
        at += 1
      } else if (c < 0x800) {
        if (block[at] !== (0xc0 | (c >>> 6)) || block[at + 1] !== (0x80 | (c & 0x3f))) return false
        at += 2
      } else {
        if (block[at] !== (0xe0 | (c >>> 12)) || block[at + 1] !== (0x80 | ((c >>> 6) & 0x3f)) || block[at + 2] !== (0x80 | (c & 0x3f))) return false
        at += 3
      }
    }
    return true
  }

  private append(text: string, hash: number, slot: number): number {
    if (this.used + text.length * 3 > this.blockSize) {
      if (this.blocks.length === MAX_BLOCKS) throw new RangeError('text pool: 4 GiB of text, the most it can address')
      this.blockSize = Math.min(BLOCK, Math.max(4096, this.blockSize * 2, text.length * 3))
      this.blocks.push(new Uint8Array(this.blockSize))
      this.used = 0
    }
    const block = this.blocks[this.blocks.length - 1]
    const start = this.used
    let at = start
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (c < 0x80) {
        block[at++] = c
      } else if (c < 0x800) {
        block[at++] = 0xc0 | (c >>> 6)
        block[at++] = 0x80 | (c & 0x3f)
      } else {
        block[at++] = 0xe0 | (c >>> 12)
        block[at++] = 0x80 | ((c >>> 6) & 0x3f)
        block[at++] = 0x80 | (c & 0x3f)
      }
    }
    if (this.count === this.starts.length) {
      this.starts = resized(this.starts, this.count * 2)
      this.lengths = resized(this.lengths, this.count * 2)
      this.hashes = resized(this.hashes, this.count * 2)
    }
    const id = this.count++
    this.starts[id] = ((this.blocks.length - 1) << BLOCK_BITS) | start
    this.lengths[id] = text.length
    this.hashes[id] = hash
    this.used = at
    this.table[slot] = id + 1
    if (this.count * 2 > this.table.length) this.rehash()
    return id
  }

  private rehash(): void {
    const table = new Uint32Array(this.table.length * 2)
    const mask = table.length - 1
    for (let id = 0; id < this.count; id++) {
      let slot = this.hashes[id] & mask
      while (table[slot] !== 0) slot = (slot + 1) & mask
      table[slot] = id + 1
    }
    this.table = table
  }
}
