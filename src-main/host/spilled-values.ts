// The values of a diff side's messages that differ, kept in a temporary file instead of the JS heap. Two
// captures of different sessions differ in nearly every message: two 200,000-frame game captures held
// 1 GB of values as objects, and V8 let the heap grow to twice that before collecting. Each value goes
// through v8.serialize (it keeps Maps, byte arrays, bigints, undefined and -0, and writes a byte array's
// own bytes, not the buffer it is a view of) and is read back when its message is compared. That costs
// about 40 µs a message, so the diff keeps few values in memory and many here (SPILL_VALUES).

import { deserialize, serialize } from 'node:v8'
import type { DiffValues } from '../../src-shared/analysis/diff'
import { resized } from '../../src-shared/bytes/columns'
import { AppendFile, type AppendFileHandOver } from './append-file'

/** From this many values a side's values go to a file (about 3 KB a value as objects: 75 MB). */
export const SPILL_VALUES = 25_000

/** Values another thread stored, for this one to read (SpilledValues.handOver). */
export interface SpilledValuesHandOver {
  file: AppendFileHandOver
  /** Per slot: its message id, where its bytes start and how many there are. */
  ids: Float64Array<ArrayBuffer>
  starts: Float64Array<ArrayBuffer>
  lengths: Uint32Array<ArrayBuffer>
}

export class SpilledValues implements DiffValues {
  private readonly file: AppendFile
  /** Per message id, its slot: where its bytes start in the file and how many there are. */
  private readonly slots = new Map<number, number>()
  private starts = new Float64Array(1024)
  private lengths = new Uint32Array(1024)

  /** A new file in `parent` (the system's temporary folder by default), or the values another thread handed over. */
  constructor(from?: string | SpilledValuesHandOver) {
    if (typeof from === 'object') {
      this.file = new AppendFile(from.file)
      this.starts = from.starts
      this.lengths = from.lengths
      for (let slot = 0; slot < from.ids.length; slot++) this.slots.set(from.ids[slot], slot)
      return
    }
    this.file = new AppendFile('gamewire-diff-values-', from)
  }

  /** Gives the values to another thread (new SpilledValues(handOver)); this object holds none afterwards. */
  handOver(): SpilledValuesHandOver {
    const n = this.slots.size
    const ids = new Float64Array(n)
    for (const [id, slot] of this.slots) ids[slot] = id
    const file = this.file.handOver()
    return { file, ids, starts: this.starts.slice(0, n), lengths: this.lengths.slice(0, n) }
  }

  set(id: number, value: unknown): void {
    if (this.file.closed) throw new Error('internal: diff values used after close')
    const bytes = serialize(value)
    let slot = this.slots.get(id)
    if (slot === undefined) {
      slot = this.slots.size
      if (slot === this.starts.length) {
        this.starts = resized(this.starts, Math.max(1024, 2 * slot))
        this.lengths = resized(this.lengths, Math.max(1024, 2 * slot))
      }
      this.slots.set(id, slot)
    }
    this.starts[slot] = this.file.append(bytes)
    this.lengths[slot] = bytes.length
  }

  get(id: number): unknown {
    const slot = this.slots.get(id)
    if (slot === undefined || this.file.closed) return undefined
    return deserialize(this.file.read(this.starts[slot], this.lengths[slot]))
  }

  /** Bytes the stored values take. */
  get size(): number {
    return this.file.size
  }

  has(id: number): boolean {
    return !this.file.closed && this.slots.has(id)
  }

  close(): void {
    this.file.close()
  }
}

/** A store for `count` values of a diff side: in a file from SPILL_VALUES on, else none (in memory). */
export function spilledValuesFor(count: number, parent?: string, spillAt = SPILL_VALUES): SpilledValues | undefined {
  return count >= spillAt ? new SpilledValues(parent) : undefined
}
