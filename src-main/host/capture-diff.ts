// `gamewire diff`: decodes each capture through the export's one-thread pipeline without trees (values are
// the same at both depths) for the comparison (src-shared/analysis/diff), which decodes a capture a second
// time only for the values of messages that differ. B's side can be made in a worker thread
// (diff-side-worker.ts) while A decodes in the calling thread.

import { basename } from 'node:path'
import { Worker } from 'node:worker_threads'
import { CaptureFormatError } from '../../src-shared/capture/types'
import type { DecodeAsRule } from '../../src-shared/engine/engine'
import type { KeyEntry } from '../../src-shared/keys/keyfile'
import { KeyStore } from '../../src-shared/keys/store'
import type { SchemaPack } from '../../src-shared/schema/types'
import { decodeOnThread } from './run-decode'
import { DecodeFailure, workerScriptPath } from './worker-host'
import { spilledValuesFor } from './spilled-values'
import { SHARD_WORKER_LIMITS } from './worker-limits'
import { DiffSide, diffSources, diffSourcesStream, type DiffOptions, type DiffReport, type DiffSource, type DiffStream } from '../../src-shared/analysis/diff'
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
    source.side = (options, onStop) => {
      // Only the diff's own options: callers pass wider objects (keys, callbacks) that cannot go to a thread.
      const diffOptions = { ignore: options.ignore, noDefaults: options.noDefaults }
      const job = { file: path, keys: o.keys?.list() ?? [], schemas: o.schemas, decodeAs: o.decodeAs, options: diffOptions, progress: !!o.progress }
      return sideInWorker(job, onStop, o.progress)
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
}

export type DiffSideReport = { type: 'side'; columns: DiffSideColumns } | { type: 'progress'; done: number; total: number } | { type: 'fatal'; message: string }

/** How often the side worker reports its progress. */
export const PROGRESS_MS = 200

function sideInWorker(job: DiffSideJob, onStop: (stop: () => void) => void, progress?: (done: number, total: number) => void): Promise<DiffSide> {
  return new Promise((resolve, reject) => {
    // The shard threads' smaller young generation: a million TCP connections against themselves peaked at
    // 1,092 MiB with it, 1,345 MiB with the decode worker's, in the same time.
    const worker = new Worker(workerScriptPath('diff-side-worker.js'), { workerData: job, resourceLimits: SHARD_WORKER_LIMITS })
    let settled = false
    const finish = (fn: () => void): void => {
      if (settled) return
      settled = true
      void worker.terminate()
      fn()
    }
    onStop(() => finish(() => reject(new DecodeFailure('the comparison stopped'))))
    worker.on('message', (r: DiffSideReport) => {
      if (r.type === 'progress') progress?.(r.done, r.total)
      else finish(() => (r.type === 'side' ? resolve(new DiffSide(job.options, { columns: r.columns })) : reject(new DecodeFailure(r.message))))
    })
    worker.on('error', (e) => finish(() => reject(new DecodeFailure(`internal error: ${e.message}`))))
    worker.on('exit', (code) => finish(() => reject(new DecodeFailure(`diff worker exited with code ${code}`))))
  })
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
