// Opens a capture the way the app does (the built session worker's SessionCore.open: index pass, frame
// store, conversation list) and waits until the session is ready, for measuring peak RSS of the index pass:
//   /usr/bin/time -f '%M' node test/bench/open-session.mjs FILE [--conversations]
// Prints frames, messages and conversations; with --conversations also fetches pages of the conversation
// list as the UI's conversation panel does (its first entries, then sorted by bytes, its last), copied to
// the calling thread. Needs `npm run build` first.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { usage } from '../script-usage.mjs'

usage(
  `usage: node test/bench/open-session.mjs CAPTURE [--jobs N] [--conversations] [--keylog FILE] [--filter EXPR]... [--sort FIELD]... [--diff FILE]...
Opens CAPTURE the way the app does (the built session worker: index pass, frame store, conversation list),
waits until the session is ready and prints frames, messages and conversations; for measuring peak RSS:
  /usr/bin/time -f '%M' node test/bench/open-session.mjs CAPTURE
--jobs N         decoding threads for the open (default: the app's, cores - 1).
--conversations  also fetches pages of the conversation list, as the UI's conversation panel does.
--keylog FILE    adds the keys in FILE first, as the app's key panel does.
--filter EXPR    then applies the display filter EXPR to the whole index, as typing it and Enter does,
                 three times, and prints the rows it shows, the first time and the best (repeatable).
--sort FIELD     then adds FIELD as a column and sorts every row by it, three times (repeatable); a
                 built-in column (time, name, summary, length…) is sorted as it is.
--diff FILE      then compares the open capture with FILE, as the Diff tab does, and prints the time to
                 its report's first page and its totals (repeatable; give FILE's keys with --keylog).
Needs \`npm run build\` first. Its session files go to a temporary directory, removed at the end.
`,
  { options: ['--jobs', '--conversations', '--keylog', '--filter', '--sort', '--diff'] }
)

// The timeline's built-in columns (src-shared/api.ts BUILTIN_COLUMNS).
const BUILTIN = ['id', 'time', 'conversation', 'direction', 'protocol', 'name', 'length', 'summary']
const file = process.argv[2]
if (!file) {
  console.error('usage: open-session.mjs CAPTURE')
  process.exit(2)
}
const root = join(fileURLToPath(import.meta.url), '..', '..', '..')
const tempDir = mkdtempSync(join(tmpdir(), 'gamewire-open-bench-'))
const jobsOption = () => {
  const at = process.argv.indexOf('--jobs')
  if (at < 0) return {}
  const jobs = Number(process.argv[at + 1])
  if (!Number.isInteger(jobs) || jobs < 1) {
    console.error('open-session.mjs: --jobs needs a whole number of at least 1')
    process.exit(2)
  }
  return { jobs }
}
const worker = new Worker(join(root, 'out/main/session-worker.js'), { workerData: { demoCapturePath: resolve(file), tempDir, ...jobsOption() } })
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
    // What the Conversations panel asks: the first entries, then sorted by bytes and scrolled to the end.
    let t = performance.now()
    const first = await call('getConversationPage', { start: 0, count: 200 })
    const firstMs = performance.now() - t
    const end = Math.max(0, status.conversations - 200)
    t = performance.now()
    const last = await call('getConversationPage', { sort: 'bytes', desc: true, start: end, count: 200 })
    console.log(`conversation list: first page ${firstMs.toFixed(0)} ms, its end sorted by bytes ${(performance.now() - t).toFixed(0)} ms`)
    if (first.total !== status.conversations || last.total !== status.conversations || last.conversations.length !== status.conversations - end)
      throw new Error(
        `getConversationPage gave ${first.total} and ${last.total} (${last.conversations.length} at the end), status says ${status.conversations}`
      )
  }
  console.log(
    `${status.frames} frames, ${status.messages} messages, ${status.conversations} conversations in ${((performance.now() - started) / 1000).toFixed(1)} s`
  )
  // Views as the timeline asks for them: a filter over every message, or every message sorted by a column.
  const views = process.argv.flatMap((a, i) =>
    a === '--filter'
      ? [{ what: `filter ${process.argv[i + 1]}`, spec: { filter: process.argv[i + 1], sort: null, columns: [] } }]
      : a === '--sort'
        ? [
            {
              what: `sort by ${process.argv[i + 1]}`,
              // A built-in column sorts as it is; a field is added as a column first.
              spec: {
                filter: '',
                sort: { column: process.argv[i + 1], desc: false },
                columns: BUILTIN.includes(process.argv[i + 1]) ? [] : [process.argv[i + 1]]
              }
            }
          ]
        : []
  )
  for (const { what, spec } of views) {
    let best = Infinity
    let first = 0
    let count = 0
    for (let k = 0; k < 3; k++) {
      // From the unfiltered, unsorted view each time: asking for the view already shown costs nothing.
      await call('setView', { filter: '', sort: null, columns: [] })
      const t = performance.now()
      count = (await call('setView', spec)).count
      const took = performance.now() - t
      if (k === 0) first = took
      best = Math.min(best, took)
    }
    console.log(`${what}: ${count} rows, first ${first.toFixed(0)} ms, best of 3 ${best.toFixed(0)} ms`)
  }
  for (const [i, a] of process.argv.entries()) {
    if (a !== '--diff') continue
    const t = performance.now()
    const d = await call('diffWith', resolve(process.argv[i + 1]))
    const { aligned, changed, onlyA, onlyB } = d.totals
    console.log(
      `diff with ${process.argv[i + 1]}: ${d.pairs} conversation pairs, ${aligned} aligned, ${changed} changed, ${onlyA} only in A, ${onlyB} only in B, first page in ${((performance.now() - t) / 1000).toFixed(1)} s`
    )
  }
  await call('close')
} finally {
  await worker.terminate()
  rmSync(tempDir, { recursive: true, force: true })
}
