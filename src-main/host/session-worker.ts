// Worker-thread entry: owns the SessionCore so decoding never runs on the Electron main process's or the
// serve process's event loop. Calls come in as messages; results, errors and session events go back.

import { parentPort, workerData } from 'node:worker_threads'
import { foregroundActivity } from './session/cancel'
import { SessionCore } from './session-core'
import { defaultJobs } from './shard-pool'
import { CORE_METHODS, type HostToWorker, type SessionWorkerData, type WorkerToHost } from './session-protocol'

const port = parentPort!
const data = workerData as SessionWorkerData
const send = (m: WorkerToHost): void => port.postMessage(m)

const core = new SessionCore({
  emit: (event) => send({ type: 'event', event }),
  demoCapturePath: () => data.demoCapturePath,
  tempDir: data.tempDir,
  // On its own thread the session can start shard workers: open a capture on every core.
  jobs: data.jobs ?? defaultJobs()
})

port.on('message', (msg: HostToWorker) => {
  if (msg?.type !== 'call' || !(CORE_METHODS as readonly string[]).includes(msg.method)) return
  // Someone is using the app (stepping through messages, scrolling): background work gives them the CPU.
  foregroundActivity()
  const fn = (core[msg.method] as (...a: unknown[]) => unknown).bind(core)
  Promise.resolve()
    .then(() => fn(...msg.args))
    .then(
      (value) => send({ type: 'result', id: msg.id, value }),
      (e: Error) => send({ type: 'error', id: msg.id, name: e?.name ?? 'Error', message: e?.message ?? String(e) })
    )
})

process.on('exit', () => core.close())
