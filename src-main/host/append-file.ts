// A temporary file that is only appended to and read back: the frame store's frames (frame-store.ts) and a
// diff side's values (spilled-values.ts). Appends go through a write buffer (one write per MiB, not per
// record); reads take bytes from the file and from the buffer alike, so a record can be read as soon as
// it is appended. Where the system lets an open file be removed (not Windows), it is removed at once: a
// killed process leaves nothing behind in the temporary folder. Elsewhere it goes at close() or when the
// process exits.

import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const WRITE_BUFFER = 1 << 20
/**
 * view() reads this much from the asked bytes on, for records read in ascending order and close together:
 * a conversation's frames in a replay (message detail). With 64 KiB a conversation holding a thirtieth of
 * the frames got ~9 frames per read, and a replay copied several times the capture's size; a MiB costs
 * ~0.1 ms to copy and serves a replay in one pass over the file. (A diff side's values are read a
 * conversation at a time, each a few hundred KB from the last: they are read exactly, with read().)
 */
const READ_AHEAD = 1 << 20
const EMPTY = new Uint8Array(0)

/** Files whose folder could not be removed while open; removed when the process exits. */
const leftAtExit = new Set<AppendFile>()
let exitHook = false

/**
 * What another thread of this process needs to take a file over: its descriptor (good in every thread, but
 * closed when the worker that opened it ends: a file to hand back from a worker is opened by its caller).
 */
export interface AppendFileHandOver {
  fd: number
  size: number
  dir: string | null
}

export class AppendFile {
  /** The file's folder while it still exists (systems that cannot remove an open file). */
  private dir: string | null
  private readonly fd: number
  /** Bytes in the file, and those in the write buffer after them. */
  private written = 0
  private buf = Buffer.allocUnsafe(WRITE_BUFFER)
  private used = 0
  private isClosed = false
  /** The last read-ahead window: bytes [windowStart, windowStart + windowLength), in a buffer reused by view(). */
  private window: Buffer<ArrayBuffer> | null = null
  private windowStart = 0
  private windowLength = 0

  /** `prefix` names the folder made for the file in `parent` (gamewire-frames-, …); or the file another thread handed over. */
  constructor(from: string | AppendFileHandOver, parent = tmpdir()) {
    if (typeof from !== 'string') {
      this.fd = from.fd
      this.written = from.size
      this.dir = from.dir
      if (this.dir) this.leaveAtExit()
      return
    }
    const dir = mkdtempSync(join(parent, from))
    this.fd = openSync(join(dir, 'data.bin'), 'w+')
    try {
      rmSync(dir, { recursive: true })
      this.dir = null
    } catch {
      this.dir = dir
      this.leaveAtExit()
    }
  }

  private leaveAtExit(): void {
    leftAtExit.add(this)
    if (!exitHook) {
      exitHook = true
      process.once('exit', () => {
        for (const f of leftAtExit) f.close()
      })
    }
  }

  /**
   * Gives the file to another thread, which makes it an AppendFile again: its bytes written out, and this
   * object no longer reads it, closes it or removes it when this thread ends.
   */
  handOver(): AppendFileHandOver {
    if (this.isClosed) throw new Error('internal: temporary file used after close')
    this.flush()
    this.isClosed = true
    leftAtExit.delete(this)
    this.buf = Buffer.alloc(0)
    this.window = null
    return { fd: this.fd, size: this.written, dir: this.dir }
  }

  /** Whether close() was called. */
  get closed(): boolean {
    return this.isClosed
  }

  /** Bytes stored: in the file and still in the write buffer. */
  get size(): number {
    return this.written + this.used
  }

  /** Appends `a` then `b` as one record; returns where the record starts. */
  append(a: Uint8Array, b: Uint8Array = EMPTY): number {
    if (this.isClosed) throw new Error('internal: temporary file used after close')
    const start = this.size
    const length = a.length + b.length
    if (this.used + length > this.buf.length) this.flush()
    if (length > this.buf.length) {
      // A record larger than the buffer goes straight to the file.
      this.writeAll(a)
      this.writeAll(b)
      return start
    }
    this.buf.set(a, this.used)
    this.buf.set(b, this.used + a.length)
    this.used += length
    return start
  }

  /** The bytes at [start, start + length), from the file or the buffer, into `out` (or a new buffer). */
  read(start: number, length: number, out: Buffer<ArrayBuffer> = Buffer.allocUnsafe(length)): Buffer<ArrayBuffer> {
    if (this.isClosed) throw new Error('internal: temporary file used after close')
    if (start < 0 || start + length > this.size) throw new RangeError(`bytes ${start}..${start + length} are not in the temporary file`)
    let filled = 0
    if (start < this.written) {
      const fromFile = Math.min(length, this.written - start)
      while (filled < fromFile) {
        const n = readSync(this.fd, out, filled, fromFile - filled, start + filled)
        if (n <= 0) throw new Error('internal: temporary file shorter than written')
        filled += n
      }
    }
    if (filled < length) {
      const at = start + filled - this.written
      this.buf.copy(out, filled, at, at + (length - filled))
    }
    return out
  }

  /**
   * The bytes at [start, start + length) as a view of a read-ahead window, valid until the next call: the
   * window holds READ_AHEAD bytes from `start` on (or the record, when longer), so that reads going forward
   * through nearby records mostly come from memory. Bytes never change once appended, so a window stays
   * valid as records are added after it.
   */
  view(start: number, length: number): Buffer<ArrayBuffer> {
    if (!this.window || start < this.windowStart || start + length > this.windowStart + this.windowLength) {
      const size = Math.max(length, Math.min(READ_AHEAD, this.size - start))
      if (!this.window || this.window.length < size) this.window = Buffer.allocUnsafe(Math.max(size, READ_AHEAD))
      this.read(start, size, this.window)
      this.windowStart = start
      this.windowLength = size
    }
    const at = start - this.windowStart
    return this.window.subarray(at, at + length)
  }

  close(): void {
    if (this.isClosed) return
    this.isClosed = true
    leftAtExit.delete(this)
    try {
      closeSync(this.fd)
    } finally {
      if (this.dir) rmSync(this.dir, { recursive: true, force: true })
      this.buf = Buffer.alloc(0)
      this.window = null
    }
  }

  private flush(): void {
    if (this.used === 0) return
    this.writeAll(this.buf.subarray(0, this.used))
    this.used = 0
  }

  /** Writes bytes at the file's end (a write may take less than asked). */
  private writeAll(bytes: Uint8Array): void {
    let done = 0
    while (done < bytes.length) done += writeSync(this.fd, bytes, done, bytes.length - done, this.written + done)
    this.written += bytes.length
  }
}
