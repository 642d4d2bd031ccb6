// The values of a diff side's messages that differ, kept in a temporary file instead of the JS heap. Two
// captures of different sessions differ in nearly every message: two 200,000-frame game captures held
// 1 GB of values as objects, and V8 let the heap grow to twice that before collecting. Each value goes
// through v8.serialize (it keeps Maps, byte arrays, bigints, undefined and -0, and writes a byte array's
// own bytes, not the buffer it is a view of) and is read back when its message is compared. That costs
// about 40 µs a message, so the diff keeps few values in memory and many here (SPILL_VALUES).

import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { deserialize, serialize } from 'node:v8'
import type { DiffValues } from '../../src-shared/analysis/diff'
import { resized } from '../../src-shared/bytes/columns'

/** From this many values a side's values go to a file (about 3 KB a value as objects: 75 MB). */
export const SPILL_VALUES = 25_000

const WRITE_BUFFER = 1 << 20

export class SpilledValues implements DiffValues {
  private dir: string | null
  private fd: number
  /** Per message id, its slot: where its bytes start in the file and how many there are. */
  private readonly slots = new Map<number, number>()
  private starts = new Float64Array(1024)
  private lengths = new Uint32Array(1024)
  /** Bytes in the file, and those still in the write buffer after them. */
  private written = 0
  private buf = Buffer.allocUnsafe(WRITE_BUFFER)
  private used = 0
  private closed = false

  constructor(parent = tmpdir()) {
    const dir = mkdtempSync(join(parent, 'gamewire-diff-values-'))
    this.fd = openSync(join(dir, 'values.bin'), 'w+')
    // Where a file may be removed while open (not on Windows), it goes now: nothing is left behind if the
    // process is killed. Else at close(), or when the process exits.
    try {
      rmSync(dir, { recursive: true })
      this.dir = null
    } catch {
      this.dir = dir
      process.once('exit', () => this.close())
    }
  }

  set(id: number, value: unknown): void {
    if (this.closed) throw new Error('internal: diff values used after close')
    const bytes = serialize(value)
    let slot = this.slots.get(id)
    if (slot === undefined) {
      slot = this.slots.size
      if (slot === this.starts.length) {
        this.starts = resized(this.starts, 2 * slot)
        this.lengths = resized(this.lengths, 2 * slot)
      }
      this.slots.set(id, slot)
    }
    if (this.used + bytes.length > this.buf.length) this.flush()
    this.starts[slot] = this.written + this.used
    this.lengths[slot] = bytes.length
    if (bytes.length > this.buf.length) {
      writeSync(this.fd, bytes, 0, bytes.length, this.written)
      this.written += bytes.length
    } else {
      bytes.copy(this.buf, this.used)
      this.used += bytes.length
    }
  }

  get(id: number): unknown {
    const slot = this.slots.get(id)
    if (slot === undefined || this.closed) return undefined
    const start = this.starts[slot]
    const length = this.lengths[slot]
    if (start >= this.written) return deserialize(this.buf.subarray(start - this.written, start - this.written + length))
    const bytes = Buffer.allocUnsafe(length)
    let read = 0
    while (read < length) {
      const n = readSync(this.fd, bytes, read, length - read, start + read)
      if (n === 0) throw new Error('internal: diff values file shorter than written')
      read += n
    }
    return deserialize(bytes)
  }

  /** Bytes the stored values take. */
  get size(): number {
    return this.written + this.used
  }

  has(id: number): boolean {
    return !this.closed && this.slots.has(id)
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    closeSync(this.fd)
    if (this.dir) rmSync(this.dir, { recursive: true, force: true })
    this.buf = Buffer.alloc(0)
  }

  private flush(): void {
    if (this.used === 0) return
    writeSync(this.fd, this.buf, 0, this.used, this.written)
    this.written += this.used
    this.used = 0
  }
}

/** A store for `count` values of a diff side: in a file from SPILL_VALUES on, else none (in memory). */
export function spilledValuesFor(count: number, parent?: string, spillAt = SPILL_VALUES): SpilledValues | undefined {
  return count >= spillAt ? new SpilledValues(parent) : undefined
}
