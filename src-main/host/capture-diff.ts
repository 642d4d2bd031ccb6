// `gamewire diff`: decodes each capture through the export's one-thread pipeline without trees (values are
// the same at both depths) for the comparison (src-shared/analysis/diff), which decodes a capture a second
// time only for the values of messages that differ. B's side can be made in a worker thread
// (diff-side-worker.ts) while A decodes in the calling thread, and so can its second decode.

import { basename } from 'node:path'
import { deserialize } from 'node:v8'
import { Worker } from 'node:worker_threads'
import { CaptureFormatError } from '../../src-shared/capture/types'
import type { DecodeAsRule } from '../../src-shared/engine/engine'
import type { KeyEntry } from '../../src-shared/keys/keyfile'
import { KeyStore } from '../../src-shared/keys/store'
import type { SchemaPack } from '../../src-shared/schema/types'
import { decodeOnThread } from './run-decode'
import { DecodeFailure, workerScriptPath } from './worker-host'
import { SpilledValues, spilledValuesFor, type SpilledValuesHandOver } from './spilled-values'
import { SHARD_WORKER_LIMITS } from './worker-limits'
import {
  DiffSide,
  diffSources,
  diffSourcesStream,
  type DiffOptions,
  type DiffReport,
  type DiffSource,
  type DiffStream,
  type DiffValues
} from '../../src-shared/analysis/diff'
import type { DiffSideColumns } from '../../src-shared/analysis/diff/side'

type SourceOptions = {
  keys?: KeyStore
  schemas?: SchemaPack[]
  decodeAs?: DecodeAsRule[]
  pause?: () => Promise<void>
  /** Bytes read of the file, after each chunk (the CLI's progress line), in every decode of it. */
  progress?: (done: number, total: number) => void
  /** Where the values of many messages that differ go (spilled-values.ts): this folder, from this many values. */
  spill?: { dir?: string; at?: number }
}

/**
 * A capture file as a side of the diff. `pause` runs between read chunks (the app yields and cancels
 * there). `thread`: the side is made in a worker thread (the CLI's B; the app decodes in its own thread).
 */
export function fileDiffSource(path: string, o: SourceOptions & { thread?: boolean } = {}): DiffSource {
  const source: DiffSource = {
    file: basename(path),
    async decode(onMessage) {
      try {
        const session = await decodeOnThread(
          { file: path, format: 'ndjson', decodeAs: o.decodeAs, schemas: o.schemas },
          {
            keys: o.keys ?? new KeyStore(),
            recording: false,
            onMessage,
            pause: async (done, total) => {
              o.progress?.(done, total)
              await o.pause?.()
            }
          }
        )
        return session.engine.conversations()
      } catch (e) {
        // Two files are read: say which one is not a capture.
        throw e instanceof CaptureFormatError ? new CaptureFormatError(`${path}: ${e.message}`) : e
      }
    },
    valueStore: (count) => spilledValuesFor(count, o.spill?.dir, o.spill?.at)
  }
  if (o.thread) {
    let worker: SideWorker | undefined
    source.side = (options, onStop) => {
      // Only the diff's own options: callers pass wider objects (keys, callbacks) that cannot go to a thread.
      const diffOptions = { ignore: options.ignore, noDefaults: options.noDefaults }
      const job = {
        file: path,
        keys: o.keys?.list() ?? [],
        schemas: o.schemas,
        decodeAs: o.decodeAs,
        options: diffOptions,
        progress: !!o.progress,
        spill: o.spill
      }
      const w = new SideWorker(job, o.progress)
      worker = w
      onStop(() => w.stop())
      return w.side()
    }
    source.values = (wanted) => {
      if (!worker) throw new Error('internal: the values of a side not made')
      return worker.values(wanted)
    }
  }
  return source
}

/** What the side worker is given. */
export interface DiffSideJob {
  file: string
  keys: readonly KeyEntry[]
  schemas?: SchemaPack[]
  decodeAs?: DecodeAsRule[]
  options: DiffOptions
  /** Report the bytes read (at most every PROGRESS_MS). */
  progress: boolean
  spill?: SourceOptions['spill']
}

/**
 * What the side worker is asked after the side: the values of these message ids, from a second decode; in
 * `spill`, when many, a file this thread opened (a file a worker opens is closed when the worker ends).
 */
export interface DiffValuesRequest {
  type: 'values'
  ids: Float64Array<ArrayBuffer>
  spill?: SpilledValuesHandOver
}

export type DiffSideReport =
  | { type: 'side'; columns: DiffSideColumns }
  /** The values, in the file the worker wrote, or (few of them) a Map through v8.serialize. */
  | { type: 'values'; spilled: SpilledValuesHandOver }
  | { type: 'values'; serialized: Uint8Array<ArrayBuffer> }
  | { type: 'progress'; done: number; total: number }
  | { type: 'fatal'; message: string }

/** How often the side worker reports its progress. */
export const PROGRESS_MS = 200

/**
 * A side made in a worker thread: first its side, then (if asked) the values of some of its messages from a
 * second decode there. Each answer settles the one request waiting; stop() ends the thread, failing it.
 */
class SideWorker {
  private readonly worker: Worker
  private waiting: { resolve(r: DiffSideReport): void; reject(e: Error): void } | null = null
  private ended: Error | null = null

  constructor(
    private readonly job: DiffSideJob,
    progress?: (done: number, total: number) => void
  ) {
    // The shard threads' smaller young generation: a million TCP connections against themselves peaked at
    // 1,092 MiB with it, 1,345 MiB with the decode worker's, in the same time.
    this.worker = new Worker(workerScriptPath('diff-side-worker.js'), { workerData: job, resourceLimits: SHARD_WORKER_LIMITS })
    this.worker.on('message', (r: DiffSideReport) => {
      if (r.type === 'progress') progress?.(r.done, r.total)
      else if (r.type === 'fatal') this.end(new DecodeFailure(r.message))
      else this.answer(r)
    })
    this.worker.on('error', (e) => this.end(new DecodeFailure(`internal error: ${e.message}`)))
    this.worker.on('exit', (code) => this.end(new DecodeFailure(`diff worker exited with code ${code}`)))
  }

  async side(): Promise<DiffSide> {
    const r = await this.next()
    if (r.type !== 'side') throw new Error(`internal: the diff worker answered ${r.type}`)
    return new DiffSide(this.job.options, { columns: r.columns })
  }

  async values(wanted: ReadonlySet<number>): Promise<DiffValues> {
    const ids = Float64Array.from(wanted)
    const spill = spilledValuesFor(wanted.size, this.job.spill?.dir, this.job.spill?.at)?.handOver()
    const answer = this.next()
    this.worker.postMessage({ type: 'values', ids, spill } satisfies DiffValuesRequest, [ids.buffer])
    let r: DiffSideReport
    try {
      r = await answer
      if (r.type !== 'values') throw new Error(`internal: the diff worker answered ${r.type}`)
    } catch (e) {
      // The lent file goes with the failure (the worker no longer holds it).
      if (spill) new SpilledValues(spill).close()
      throw e
    }
    return 'spilled' in r ? new SpilledValues(r.spilled) : (deserialize(r.serialized) as Map<number, unknown>)
  }

  stop(): void {
    this.end(new DecodeFailure('the comparison stopped'))
  }

  private next(): Promise<DiffSideReport> {
    if (this.ended) return Promise.reject(this.ended)
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }))
  }

  private answer(r: DiffSideReport): void {
    const w = this.waiting
    this.waiting = null
    w?.resolve(r)
  }

  /** Ends the thread (once); a request waiting fails with `e`. */
  private end(e: Error): void {
    if (this.ended) return
    this.ended = e
    void this.worker.terminate()
    const w = this.waiting
    this.waiting = null
    w?.reject(e)
  }
}

/** `thread`: B's side is made in a worker thread while A decodes in this one (needs the build's worker script). */
type FilesOptions = {
  keysA?: KeyStore
  keysB?: KeyStore
  schemas?: SchemaPack[]
  decodeAs?: DecodeAsRule[]
  thread?: boolean
  progressA?: SourceOptions['progress']
  progressB?: SourceOptions['progress']
} & DiffOptions

function sources(a: string, b: string, o: FilesOptions): [DiffSource, DiffSource] {
  return [
    fileDiffSource(a, { keys: o.keysA, schemas: o.schemas, decodeAs: o.decodeAs, progress: o.progressA }),
    fileDiffSource(b, { keys: o.keysB, schemas: o.schemas, decodeAs: o.decodeAs, thread: o.thread, progress: o.progressB })
  ]
}

/** The report of two capture files, as it is read (the CLI writes it so: a million pairs are not held). */
export function diffFilesStream(a: string, b: string, o: FilesOptions = {}): Promise<DiffStream> {
  return diffSourcesStream(...sources(a, b, o), o)
}

export function diffFiles(a: string, b: string, o: FilesOptions = {}): Promise<DiffReport> {
  return diffSources(...sources(a, b, o), o)
}
