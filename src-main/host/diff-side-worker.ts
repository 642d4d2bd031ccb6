// Worker-thread entry for comparing captures: makes one capture's side of the diff (decoded, its messages'
// digests) and sends its columns back while the other capture decodes in the calling thread. Asked for the
// values of some of its messages (those that differ from their partners'), it decodes the capture again
// for them while the other capture's second decode runs in the calling thread, and hands them over: in the
// file the calling thread lent it for them, or, when few, serialized.

import { serialize } from 'node:v8'
import { parentPort, workerData } from 'node:worker_threads'
import { decodeSide, type DiffSide } from '../../src-shared/analysis/diff'
import { columnBuffers } from '../../src-shared/analysis/diff/side'
import { KeyStore } from '../../src-shared/keys/store'
import { type DiffSideJob, type DiffSideReport, type DiffValuesRequest, fileDiffSource, PROGRESS_MS } from './capture-diff'
import { workerFailure } from './decode-job'
import { SpilledValues } from './spilled-values'

const port = parentPort!
const job = workerData as DiffSideJob

async function main(): Promise<void> {
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
    // The columns are copies (columns() cuts them): this thread keeps its side for the second decode.
    const columns = side.columns()
    port.postMessage({ type: 'side', columns } satisfies DiffSideReport, columnBuffers(columns))
    const request = await new Promise<DiffValuesRequest>((resolve) => port.once('message', resolve))
    port.postMessage(...(await values(side, source, request)))
  } catch (e) {
    port.postMessage({ type: 'fatal', message: workerFailure(e) } satisfies DiffSideReport)
  } finally {
    port.close()
  }
}

/** The values of the messages asked for, checked as compareSides checks its own, and how to post them. */
async function values(side: DiffSide, source: ReturnType<typeof fileDiffSource>, request: DiffValuesRequest): Promise<[DiffSideReport, ArrayBuffer[]]> {
  const wanted = new Set(request.ids)
  const spill = request.spill && new SpilledValues(request.spill)
  const map = new Map<number, unknown>()
  side.keepValuesIn(spill ?? map)
  await source.decode((m) => side.addValue(m, wanted))
  side.checkValues(wanted)
  if (spill) {
    const spilled = spill.handOver()
    return [{ type: 'values', spilled }, [spilled.ids.buffer, spilled.starts.buffer, spilled.lengths.buffer]]
  }
  // v8.serialize writes a byte array's own bytes; posting the Map would copy each whole buffer it is a view of.
  const serialized = new Uint8Array(serialize(map))
  return [{ type: 'values', serialized }, [serialized.buffer]]
}

void main()
