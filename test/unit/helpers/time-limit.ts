// A hard time limit for decoding: vitest's timeout cannot stop a synchronous loop, so a decoder that
// never makes progress would hang the whole run. The decode runs in a worker thread that is terminated
// when the limit passes, and the test fails saying so.
import { Worker } from 'node:worker_threads'
import { join } from 'node:path'

/** Time allowed to load the module in the worker (Vite transform), apart from the run's own limit. */
const LOAD_SECONDS = 60

/**
 * Runs `fn(...args)` exported by the TypeScript module `file` (absolute path; it must not import vitest)
 * in a worker thread; resolves with its result (structured-cloned), rejects when it throws or when it
 * has not finished `seconds` after the module loaded.
 */
export function withinTimeLimit<T>(file: string, fn: string, args: unknown[], seconds: number): Promise<T> {
  const worker = new Worker(join(__dirname, 'time-limit-worker.mjs'), { workerData: { file, fn, args } })
  return new Promise<T>((resolve, reject) => {
    let done = false
    const finish = (f: () => void) => {
      if (done) return
      done = true
      clearTimeout(timer)
      void worker.terminate()
      f()
    }
    const limit = (s: number, what: string) =>
      setTimeout(
        () => finish(() => reject(new Error(`${what} did not finish within ${s} s; the worker was terminated (a loop that makes no progress?)`))),
        s * 1000
      )
    let timer = limit(LOAD_SECONDS, `loading ${file}`)
    worker.on('message', (m: { ready?: true; result?: T; error?: string }) => {
      if (m.ready) {
        clearTimeout(timer)
        timer = limit(seconds, `${fn}() in ${file.split('/test/unit/').pop()}`)
      } else if (m.error !== undefined) finish(() => reject(new Error(m.error)))
      else finish(() => resolve(m.result as T))
    })
    worker.on('error', (e) => finish(() => reject(e)))
    worker.on('exit', (code) => finish(() => reject(new Error(`the worker exited (code ${code}) before ${fn}() finished`))))
  })
}
