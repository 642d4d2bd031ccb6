// Message detail rebuilds one message by replaying its conversation, decoding the messages before it without
// trees and turning trees on at its first frame. Every message of every committed capture, visited forwards,
// backwards and at random, must equal the full decode with trees and the frames' layers (the CLI's
// `decode --layers`), tree and sources alike.
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionCore } from '../../../src-main/host/session-core'
import { DecodeSession } from '../../../src-shared/engine/session'
import { messageJson } from '../export/reference'
import { parseKeyFile } from '../../../src-shared/keys/keyfile'
import { KeyStore } from '../../../src-shared/keys/store'
import type { DecodedMessage } from '../../../src-shared/model/types'
import { rng } from '../helpers/rng'

const ROOT = join(__dirname, '../../..')
const KEYS = readFileSync(join(ROOT, 'test/fixtures/ui/keys.txt'), 'utf8')
const tmp = mkdtempSync(join(tmpdir(), 'gamewire-detail-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

function captures(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n)
    return statSync(p).isDirectory() ? captures(p) : /\.(pcap|pcapng)$/.test(n) ? [p] : []
  })
}
const files = [...captures(join(ROOT, 'test/fixtures/sfs2x')), ...captures(join(ROOT, 'test/fixtures/ui')), ...captures(join(ROOT, 'test/fixtures/enet')), join(ROOT, 'test/fixtures/net/loopback.pcapng'), join(ROOT, 'test/fixtures/net/tcp-reordered.pcapng'), join(ROOT, 'resources/demo.pcapng')]

function fullDecode(file: string): DecodedMessage[] {
  const keys = new KeyStore()
  // As the app adds them: keys typed or imported there have no key-file line to name.
  keys.addAll(parseKeyFile(KEYS).keys.map((k) => ({ ...k, line: 0 })))
  const out: DecodedMessage[] = []
  const s = new DecodeSession({ keys, layers: true, onMessage: (m) => out.push(m) })
  s.push(new Uint8Array(readFileSync(file)))
  s.end()
  return out
}

let core: SessionCore | undefined
afterEach(() => core?.close())

describe('message detail from a partial replay', () => {
  it.each(files.map((f) => [f.slice(ROOT.length + 1), f]))('%s: every message equals the full decode in any visiting order', async (_n, file) => {
    const expected = fullDecode(file)
    core = new SessionCore({ emit: () => undefined, demoCapturePath: () => file, tempDir: tmp })
    await core.open(file)
    await core.addKeys(KEYS)
    const random = rng(7)
    const order = [...expected, ...[...expected].reverse(), ...expected.map(() => expected[Math.floor(random() * expected.length)])]
    for (const m of order) {
      const d = core.getMessage(m.id)
      const j = messageJson(m, { includeSourceBytes: true }) as { tree: unknown; sources: { name: string; hex: string }[] }
      expect({ id: d.id, frames: d.frames, name: d.name, summary: d.summary, tree: d.tree, sources: d.sources, error: d.error }).toEqual({
        id: m.id, frames: m.frames, name: m.name, summary: m.summary, tree: j.tree, sources: j.sources.map((s) => ({ name: s.name, hex: s.hex })), error: m.error
      })
    }
  })
})
