// The worker side of time-limit.ts: loads a TypeScript module through Vite's module runner (the same
// transform vitest uses), tells the parent it is ready, runs one exported function and posts its result.
import { parentPort, workerData } from 'node:worker_threads'
import { runnerImport } from 'vite'
import { usage } from '../../script-usage.mjs'

usage(`usage: new Worker('test/unit/helpers/time-limit-worker.mjs', { workerData: { file, fn, args } })
Not a command: the worker thread of test/unit/helpers/time-limit.ts. Loads the TypeScript module \`file\`
through Vite's module runner and posts the result of its export \`fn(...args)\` to the parent. Writes no files.
`)

const { file, fn, args } = workerData
try {
  const { module } = await runnerImport(file, { configFile: false, logLevel: 'silent' })
  if (typeof module[fn] !== 'function') throw new Error(`${file} exports no function ${fn}`)
  parentPort.postMessage({ ready: true })
  parentPort.postMessage({ result: await module[fn](...args) })
} catch (e) {
  parentPort.postMessage({ error: e instanceof Error ? `${e.name}: ${e.message}\n${e.stack}` : String(e) })
}
