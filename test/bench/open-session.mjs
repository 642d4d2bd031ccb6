// Opens a capture the way the app does (the built session worker's SessionCore.open: index pass, frame
// store, conversation list) and waits until the session is ready, for measuring peak RSS of the index pass:
//   /usr/bin/time -f '%M' node test/bench/open-session.mjs FILE [--conversations]
// Prints frames, messages and conversations; with --conversations also fetches the conversation list as
// the UI's conversation panel does (copied to the calling thread). Needs `npm run build` first.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { usage } from '../script-usage.mjs'

usage(
  `usage: node test/bench/open-session.mjs CAPTURE [--conversations] [--keylog FILE]
Opens CAPTURE the way the app does (the built session worker: index pass, frame store, conversation list),
waits until the session is ready and prints frames, messages and conversations; for measuring peak RSS:
  /usr/bin/time -f '%M' node test/bench/open-session.mjs CAPTURE
--conversations  also fetches the conversation list, as the UI's conversation panel does.
--keylog FILE    adds the keys in FILE first, as the app's key panel does.
Needs \`npm run build\` first. Its session files go to a temporary directory, removed at the end.
`,
  { options: ['--conversations', '--keylog'] }
)

const file = process.argv[2]
if (!file) {
  console.error('usage: open-session.mjs CAPTURE')
  process.exit(2)
}
const root = join(fileURLToPath(import.meta.url), '..', '..', '..')
const tempDir = mkdtempSync(join(tmpdir(), 'gamewire-open-bench-'))
const worker = new Worker(join(root, 'out/main/session-worker.js'), { workerData: { demoCapturePath: resolve(file), tempDir } })
let nextId = 1
const waiting = new Map()
worker.on('message', (m) => {
  if (m.type === 'event') return
  const w = waiting.get(m.id)
  waiting.delete(m.id)
  if (m.type === 'error') w.reject(new Error(m.message))
  else w.resolve(m.value)
})
const call = (method, ...args) =>
  new Promise((resolve, reject) => {
    const id = nextId++
    waiting.set(id, { resolve, reject })
    worker.postMessage({ type: 'call', id, method, args })
  })

try {
  const keylog = process.argv.indexOf('--keylog')
  if (keylog > 0) await call('addKeys', readFileSync(process.argv[keylog + 1], 'utf8'))
  const started = performance.now()
  const status = await call('open', resolve(file))
  if (process.argv.includes('--conversations')) {
    const list = await call('getConversations')
    if (list.length !== status.conversations) throw new Error(`getConversations gave ${list.length}, status says ${status.conversations}`)
  }
  console.log(
    `${status.frames} frames, ${status.messages} messages, ${status.conversations} conversations in ${((performance.now() - started) / 1000).toFixed(1)} s`
  )
  await call('close')
} finally {
  await worker.terminate()
  rmSync(tempDir, { recursive: true, force: true })
}
