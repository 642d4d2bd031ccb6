// A pcapng file written while capturing: PcapngWriter's blocks collected in a buffer and written with
// writeSync, so the file on disk always ends on a whole block (it stays readable if the process is
// killed) and a capture loop never waits on a stream's callbacks.

import { closeSync, openSync, writeSync } from 'node:fs'
import { PcapngWriter, type PcapngWriterInterface, type PcapngWriterOptions } from '../../src-shared/capture/pcapng-writer'

const FLUSH_AT = 256 << 10

export interface PcapngFrame {
  tsSec: number
  tsNsec: number
  originalLength: number
  data: Uint8Array
}

export class PcapngFile {
  private readonly fd: number
  private readonly writer = new PcapngWriter()
  private pending: Uint8Array[] = []
  private pendingBytes = 0
  private closed = false
  /** Frames written (or buffered for writing). */
  frames = 0

  /** Opens (truncates) `path`; throws the fs error (with its code) when it cannot. */
  constructor(readonly path: string) {
    this.fd = openSync(path, 'w')
  }

  /** Writes the section header and the one interface every later frame belongs to. */
  header(iface: PcapngWriterInterface, opts: PcapngWriterOptions = {}): void {
    this.append(this.writer.header([iface], opts))
  }

  frame(f: PcapngFrame): void {
    this.append(
      this.writer.frame({ interfaceId: 0, tsSec: f.tsSec, tsNsec: f.tsNsec, data: f.data, originalLength: Math.max(f.originalLength, f.data.length) })
    )
    this.frames++
    if (this.pendingBytes >= FLUSH_AT) this.flush()
  }

  private append(block: Uint8Array): void {
    if (this.closed) throw new Error(`pcapng file ${this.path} is closed`)
    this.pending.push(block)
    this.pendingBytes += block.length
  }

  flush(): void {
    if (!this.pendingBytes) return
    const all = Buffer.concat(this.pending, this.pendingBytes)
    this.pending = []
    this.pendingBytes = 0
    let off = 0
    while (off < all.length) off += writeSync(this.fd, all, off, all.length - off)
  }

  close(): void {
    if (this.closed) return
    try {
      this.flush()
    } finally {
      this.closed = true
      closeSync(this.fd)
    }
  }
}
