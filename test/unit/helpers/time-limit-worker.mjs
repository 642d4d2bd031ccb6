// The worker side of time-limit.ts: loads a TypeScript module through Vite's module runner (the same
// transform vitest uses), tells the parent it is ready, runs one exported function and posts its result.
import { parentPort, workerData } from 'node:worker_threads'
import { runnerImport } from 'vite'

const { file, fn, args } = workerData
try {
  const { module } = await runnerImport(file, { configFile: false, logLevel: 'silent' })
  if (typeof module[fn] !== 'function') throw new Error(`${file} exports no function ${fn}`)
  parentPort.postMessage({ ready: true })
  parentPort.postMessage({ result: await module[fn](...args) })
} catch (e) {
  parentPort.postMessage({ error: e instanceof Error ? `${e.name}: ${e.message}\n${e.stack}` : String(e) })
}
