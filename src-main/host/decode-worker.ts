// Worker-thread entry: runs a decode job off the main thread and sends the export text back in chunks.
// At most WINDOW chunks may be unacknowledged, so a slow consumer (a pipe, a disk) slows reading down
// instead of filling memory.

import { parentPort, workerData } from 'node:worker_threads'
import { CaptureFormatError } from '../../src-shared/capture/types'
import type { DecodeJob, HostReply, WorkerReport } from './decode-job'
import { runDecode } from './run-decode'

const WINDOW = 4
const CHUNK = 1 << 20

/**
 * Encodes export text straight into 1 MiB buffers (Buffer.write, no intermediate strings or copies) and
 * hands each full buffer to `send`, which transfers it to the host.
 */
class OutputBuffer {
  private buf = Buffer.allocUnsafeSlow(CHUNK)
  private used = 0

  constructor(private readonly send: (bytes: Uint8Array) => void) {}

  write(text: string): void {
    const need = Buffer.byteLength(text)
    if (this.used + need > this.buf.length) {
      this.flushAll()
      if (need > this.buf.length) {
        this.send(new Uint8Array(Buffer.from(text, 'utf8')))
        return
      }
    }
    // Pure-ASCII text (the usual JSON) is copied as latin1, which skips UTF-8 encoding.
    this.used += this.buf.write(text, this.used, need === text.length ? 'latin1' : 'utf8')
  }

  flushIfFull(): void {
    if (this.used > CHUNK / 2) this.flushAll()
  }

  flushAll(): void {
    if (this.used === 0) return
    // A buffer this size has its own ArrayBuffer (not the shared pool), so it can be transferred whole.
    this.send(new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.used))
    this.buf = Buffer.allocUnsafeSlow(CHUNK)
    this.used = 0
  }
}

async function main(): Promise<void> {
  const port = parentPort!
  const job = workerData as DecodeJob
  let seq = 0
  let acked = 0
  let wake: (() => void) | undefined
  port.on('message', (msg: HostReply) => {
    if (msg.type === 'ack') {
      acked = Math.max(acked, msg.seq)
      wake?.()
    }
  })
  const send = (r: WorkerReport): void => port.postMessage(r)
  try {
    const out = new OutputBuffer((bytes) => port.postMessage({ type: 'out', bytes, seq: ++seq } satisfies WorkerReport, [bytes.buffer as ArrayBuffer]))
    const result = await runDecode(job, {
      write: (text) => out.write(text),
      async flush() {
        out.flushIfFull()
        while (seq - acked > WINDOW) await new Promise<void>((r) => (wake = r))
      },
      progress: (p) => send({ type: 'progress', ...p })
    })
    out.flushAll()
    send({ type: 'done', ...result })
  } catch (e) {
    const err = e as Error
    const message = err instanceof CaptureFormatError || err.name === 'KeyFileError' || err.name === 'FilterError' ? err.message : `internal error: ${err.message}`
    send({ type: 'fatal', message })
  } finally {
    port.close()
  }
}

void main()
