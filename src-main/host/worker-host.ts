// Starts a decode job in a worker thread and relays its output with flow control.

import { DECODE_WORKER_LIMITS } from './worker-limits'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { DecodeJob, WorkerReport } from './decode-job'
import type { DecodeIo, DecodeResult } from './run-decode'

export class DecodeFailure extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'DecodeFailure'
  }
}

/**
 * The built worker script sits next to the entry that imports this module, or one folder up from a shared
 * chunk. Run from source (the unit tests, src-main/host/), it is the build's (test/global-build.ts keeps it
 * as new as the source).
 */
export function workerScriptPath(name = 'decode-worker.js'): string {
  const here = dirname(fileURLToPath(import.meta.url))
  for (const candidate of [join(here, name), join(here, '..', name), join(here, '..', '..', 'out', 'main', name)]) {
    if (existsSync(candidate)) return candidate
  }
  throw new DecodeFailure(`worker script ${name} not found: run \`npm run build\``)
}

/** Like DecodeIo, but the worker hands over export text already encoded as UTF-8. */
export interface HostIo {
  write(bytes: Uint8Array): Promise<void> | void
  progress?: DecodeIo['progress']
}

export function decodeInWorker(job: DecodeJob, io: HostIo): Promise<DecodeResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerScriptPath(), { workerData: job, resourceLimits: DECODE_WORKER_LIMITS })
    let settled = false
    let chain: Promise<void> = Promise.resolve()
    const finish = (fn: () => void): void => {
      if (settled) return
      settled = true
      // Let queued writes land before resolving.
      chain.then(fn, (e) => reject(e))
    }
    worker.on('message', (r: WorkerReport) => {
      switch (r.type) {
        case 'out':
          chain = chain.then(async () => {
            await io.write(r.bytes)
            worker.postMessage({ type: 'ack', seq: r.seq })
          })
          break
        case 'progress':
          io.progress?.(r)
          break
        case 'done':
          finish(() => resolve({ frames: r.frames, messages: r.messages, matched: r.matched, errors: r.errors, warnings: r.warnings }))
          break
        case 'fatal':
          finish(() => reject(new DecodeFailure(r.message)))
          break
      }
    })
    worker.on('error', (e) => finish(() => reject(new DecodeFailure(`internal error: ${e.message}`))))
    worker.on('exit', (code) => finish(() => reject(new DecodeFailure(`decode worker exited with code ${code}`))))
  })
}
