// Worker-thread entry for comparing captures: makes one capture's side of the diff (decoded, its messages'
// digests) and sends its columns back, transferred, while the other capture decodes in the calling thread.

import { parentPort, workerData } from 'node:worker_threads'
import { decodeSide } from '../../src-shared/analysis/diff'
import { columnBuffers } from '../../src-shared/analysis/diff/side'
import { KeyStore } from '../../src-shared/keys/store'
import { type DiffSideJob, type DiffSideReport, fileDiffSource, PROGRESS_MS } from './capture-diff'
import { workerFailure } from './decode-job'

async function main(): Promise<void> {
  const port = parentPort!
  const job = workerData as DiffSideJob
  try {
    const keys = new KeyStore()
    keys.addAll(job.keys)
    let sent = 0
    const progress = (done: number, total: number) => {
      const now = performance.now()
      if (now - sent < PROGRESS_MS) return
      sent = now
      port.postMessage({ type: 'progress', done, total } satisfies DiffSideReport)
    }
    const source = fileDiffSource(job.file, { keys, schemas: job.schemas, decodeAs: job.decodeAs, progress: job.progress ? progress : undefined })
    const side = await decodeSide(source, job.options)
    const columns = side.columns()
    port.postMessage({ type: 'side', columns } satisfies DiffSideReport, columnBuffers(columns))
  } catch (e) {
    port.postMessage({ type: 'fatal', message: workerFailure(e) } satisfies DiffSideReport)
  } finally {
    port.close()
  }
}

void main()
