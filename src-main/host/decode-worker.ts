// Worker-thread entry: runs a decode job off the main thread and sends the export bytes back in chunks
// (the export writer's own 1 MiB buffers, transferred, not copied). At most WINDOW chunks may be
// unacknowledged, so a slow consumer (a pipe, a disk) slows reading down instead of filling memory.

import { parentPort, workerData } from 'node:worker_threads'
import { type DecodeJob, type HostReply, type WorkerReport, workerFailure } from './decode-job'
import { runDecode } from './run-decode'

const WINDOW = 4

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
    const result = await runDecode(job, {
      // Each chunk has its own ArrayBuffer (the writer does not reuse it), so it can be transferred whole.
      write: (bytes) => port.postMessage({ type: 'out', bytes, seq: ++seq } satisfies WorkerReport, [bytes.buffer as ArrayBuffer]),
      async flush() {
        while (seq - acked > WINDOW) await new Promise<void>((r) => (wake = r))
      },
      progress: (p) => send({ type: 'progress', ...p })
    })
    send({ type: 'done', ...result })
  } catch (e) {
    send({ type: 'fatal', message: workerFailure(e) })
  } finally {
    port.close()
  }
}

void main()
