// Prints one hash of everything the decoders produce for a capture, in both depths, overall and per
// protocol: for checking that a speed change changes no output. Run it before and after; the lines must
// be equal.
//   node test/bench/index-dump.mjs CAPTURE [KEYFILE]   (KEYFILE defaults to CAPTURE.keys when it exists)
// "index" hashes what the tree-less pass gives each message (ids, frames, time, conversation, direction,
// protocol, stack, name, summary, warnings, error and the index-field values); "trees" adds the typed
// value and the whole tree with its byte ranges.

import { createHash } from 'node:crypto'
import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { runnerImport } from 'vite'
import { usage } from '../script-usage.mjs'

usage(`usage: node test/bench/index-dump.mjs CAPTURE [KEYFILE]
Decodes CAPTURE twice (tree-less index pass, then with trees) and prints a hash of every message's output,
overall and per protocol, so that a speed change can be checked to change nothing. KEYFILE defaults to
CAPTURE.keys when that exists.
`)

const [file, keyArg] = process.argv.slice(2)
if (!file) {
  console.error('usage: index-dump.mjs CAPTURE [KEYFILE]')
  process.exit(2)
}
const keyFile = keyArg ?? (existsSync(`${file}.keys`) ? `${file}.keys` : undefined)
const load = async (path) => (await runnerImport(fileURLToPath(new URL(`../../${path}`, import.meta.url)), { configFile: false, logLevel: 'error' })).module
const { DecodeSession } = await load('src-shared/engine/session.ts')
const { KeyStore } = await load('src-shared/keys/store.ts')
const { parseKeyFile } = await load('src-shared/keys/keyfile.ts')

// Maps and typed arrays as plain JSON, so that a hash sees their contents. Tree nodes in one key order,
// as the export writes them: a decoder that sets a node's value after opening it changes no output.
const NODE_KEYS = ['key', 'label', 'type', 'value', 'source', 'start', 'length', 'children', 'alias']
const replacer = (_k, v) => {
  if (v && typeof v === 'object' && typeof v.key === 'string' && typeof v.label === 'string' && 'type' in v) {
    const o = {}
    for (const k of NODE_KEYS) if (v[k] !== undefined) o[k] = v[k]
    return o
  }
  if (v instanceof Map) return { map: [...v] }
  if (ArrayBuffer.isView(v)) return { bytes: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex') }
  if (typeof v === 'bigint') return `${v}n`
  return v
}

function pass(recording) {
  const keys = new KeyStore()
  if (keyFile) keys.addAll(parseKeyFile(readFileSync(keyFile, 'utf8')).keys)
  const all = createHash('sha256')
  const perProtocol = new Map()
  let messages = 0
  const session = new DecodeSession({
    keys,
    recording,
    onMessage: (m) => {
      messages++
      const shown = recording ? { ...m, sources: m.sources.map((s) => [s.name, s.bytes.length]) } : { ...m, sources: undefined, tree: undefined }
      const line = JSON.stringify(shown, replacer)
      all.update(line)
      if (!perProtocol.has(m.protocol)) perProtocol.set(m.protocol, createHash('sha256'))
      perProtocol.get(m.protocol).update(line)
    }
  })
  const fd = openSync(file, 'r')
  const chunk = Buffer.alloc(1 << 20)
  for (;;) {
    const n = readSync(fd, chunk, 0, chunk.length, null)
    if (n === 0) break
    session.push(chunk.subarray(0, n))
  }
  closeSync(fd)
  session.end()
  const parts = [...perProtocol].sort(([a], [b]) => a.localeCompare(b)).map(([p, h]) => `${p}:${h.digest('hex').slice(0, 8)}`)
  console.log(`${recording ? 'trees' : 'index'} ${messages} messages ${all.digest('hex').slice(0, 16)} ${parts.join(' ')}`)
}

pass(false)
pass(true)
