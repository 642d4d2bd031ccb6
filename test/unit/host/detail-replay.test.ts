// Message detail rebuilds one message by replaying its conversation, decoding the messages before it without
// trees and turning trees on at its first frame. Every message of every committed capture, visited forwards,
// backwards and at random, must equal the full decode with trees and the frames' layers (the CLI's
// `decode --layers`), tree and sources alike: replayed from the conversation's start, and from checkpoints
// (copies of a conversation's engine part way through it) taken every few messages.
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionCore } from '../../../src-main/host/session-core'
import { capTree, capValueText } from '../../../src-main/host/session/details'
import { DecodeSession } from '../../../src-shared/engine/session'
import { messageJson } from '../export/reference'
import { parseKeyFile } from '../../../src-shared/keys/keyfile'
import { KeyStore } from '../../../src-shared/keys/store'
import type { DecodedMessage } from '../../../src-shared/model/types'
import { rng } from '../helpers/rng'
import { DETAIL_INLINE_BYTES, DETAIL_MAX_NODES, DETAIL_MAX_VALUE_CHARS, MAX_SOURCE_PAGE, type TreeNode } from '../../../src-shared/api'
import { writeBigBodyCapture } from '../helpers/big-capture'
import { captureFiles } from '../helpers/captures'

const ROOT = join(__dirname, '../../..')
const KEYS = readFileSync(join(ROOT, 'test/fixtures/ui/keys.txt'), 'utf8')
const tmp = mkdtempSync(join(tmpdir(), 'gamewire-detail-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const files = [
  ...captureFiles(join(ROOT, 'test/fixtures/sfs2x')),
  ...captureFiles(join(ROOT, 'test/fixtures/ui')),
  ...captureFiles(join(ROOT, 'test/fixtures/enet')),
  join(ROOT, 'test/fixtures/net/loopback.pcapng'),
  join(ROOT, 'test/fixtures/net/tcp-reordered.pcapng'),
  join(ROOT, 'resources/demo.pcapng')
]

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

/** Each detail, in the order given, must equal the full decode's message. */
function visit(core: SessionCore, order: DecodedMessage[]): void {
  for (const m of order) {
    const d = core.getMessage(m.id)
    const j = messageJson(m, { includeSourceBytes: true }) as { tree: unknown; sources: { name: string; hex: string }[] }
    expect({ id: d.id, frames: d.frames, name: d.name, summary: d.summary, tree: d.tree, sources: d.sources, error: d.error }).toEqual({
      id: m.id,
      frames: m.frames,
      name: m.name,
      summary: m.summary,
      tree: j.tree,
      sources: j.sources.map((s) => ({ name: s.name, length: s.hex.length / 2, hex: s.hex.slice(0, 2 * DETAIL_INLINE_BYTES) })),
      error: m.error
    })
  }
}

describe('message detail from a partial replay', () => {
  it.each(files.map((f) => [f.slice(ROOT.length + 1), f]))('%s: every message equals the full decode in any visiting order', async (_n, file) => {
    const expected = fullDecode(file)
    core = new SessionCore({ emit: () => undefined, demoCapturePath: () => file, tempDir: tmp })
    await core.open(file)
    await core.addKeys(KEYS)
    const random = rng(7)
    visit(core, [...expected, ...[...expected].reverse(), ...expected.map(() => expected[Math.floor(random() * expected.length)])])
  })
})

describe('message detail from checkpoints', () => {
  it.each(files.map((f) => [f.slice(ROOT.length + 1), f]))('%s: every message equals the full decode, replayed from checkpoints', async (_n, file) => {
    const expected = fullDecode(file)
    // A checkpoint every 3 messages: the background pass takes them through every conversation of more than 3.
    core = new SessionCore({ emit: () => undefined, demoCapturePath: () => file, tempDir: tmp, checkpointSpacing: 3 })
    await core.open(file)
    await core.addKeys(KEYS)
    const perConversation = new Map<number, number>()
    for (const m of expected) perConversation.set(m.conversation, (perConversation.get(m.conversation) ?? 0) + 1)
    const long = [...perConversation.values()].some((k) => k > 20)
    const prepared = await core.detailCheckpoints()
    if (long) expect(prepared.kept).toBeGreaterThan(0)
    // The first visits at random (each conversation's first is from a checkpoint), then forwards and backwards.
    const random = rng(11)
    const order = [...expected.map(() => expected[Math.floor(random() * expected.length)]), ...expected, ...[...expected].reverse()]
    visit(core, order)
    // A conversation of a few messages may have no checkpoint before any of them (TCP segments reordered so
    // each message begins before the frame of the checkpoint ahead of it); a longer one has.
    const used = await core.detailCheckpoints()
    if (long) expect(used.resumed).toBeGreaterThan(0)
  })
})

describe('a detail is bounded, whatever the message decompresses to', () => {
  const count = (nodes: TreeNode[]): number => nodes.reduce((n, x) => n + 1 + count(x.children), 0)

  it('cuts a tree at the node budget, depth first, saying how many more there are at each cut', () => {
    const leaf = (i: number): TreeNode => ({ key: 'x.leaf', label: `leaf ${i}`, type: 'u8', children: [] })
    const tree: TreeNode[] = [
      { key: 'x.a', label: 'a', type: 'none', children: [leaf(1), leaf(2), leaf(3)] },
      { key: 'x.b', label: 'b', type: 'none', children: [leaf(4)] },
      leaf(5)
    ]
    expect(capTree(tree, 100)).toEqual(tree)
    const cut = capTree(tree, 3)
    expect(cut.map((n) => n.label)).toEqual(['a', '… 3 more fields not shown (the JSON export has them all)'])
    expect(cut[0].children.map((n) => n.label)).toEqual(['leaf 1', 'leaf 2', '… 1 more field not shown (the JSON export has them all)'])
    expect(capValueText('abcdef', 6)).toBe('abcdef')
    expect(capValueText('abcdefgh', 6)).toBe('abcdef\n… (cut at 6 characters: the JSON export has the whole value)')
  })

  it('a zlib packet of 8 MiB sends its first 64 KiB inline, the rest in pages, and a capped tree and value', async () => {
    const file = join(tmp, 'big-body.pcapng')
    const body = writeBigBodyCapture(file)
    expect(body.length).toBeGreaterThan(8_000_000)
    core = new SessionCore({ emit: () => undefined, demoCapturePath: () => file, tempDir: tmp })
    const st = await core.open(file)
    expect(st.messages).toBe(1)
    const d = core.getMessage(1)
    const inflated = d.sources.find((s) => /Decompressed/.test(s.name))!
    expect(inflated.length).toBe(body.length)
    expect(inflated.hex.length / 2).toBe(DETAIL_INLINE_BYTES)
    expect(inflated.hex).toBe(Buffer.from(body.subarray(0, DETAIL_INLINE_BYTES)).toString('hex'))
    // the whole reply stays small: no 8 MB hex, no million-node tree
    expect(JSON.stringify(d).length).toBeLessThan(12 << 20)
    expect(count(d.tree)).toBeLessThanOrEqual(DETAIL_MAX_NODES + 64)
    const note = JSON.stringify(d.tree).match(/… (\d+) more fields not shown/)
    expect(note).not.toBeNull()
    expect(d.valueJson.length).toBeLessThan(DETAIL_MAX_VALUE_CHARS + 200)
    // pages: exact bytes at any offset, never more than a page, the end clipped
    const src = d.sources.indexOf(inflated)
    for (const [offset, length] of [
      [0, 16],
      [DETAIL_INLINE_BYTES, 4096],
      [5_000_001, 100],
      [body.length - 10, 100]
    ]) {
      const page = core.getSourceBytes(1, src, offset, length)
      expect(page.offset).toBe(offset)
      expect(page.hex).toBe(Buffer.from(body.subarray(offset, offset + length)).toString('hex'))
    }
    expect(core.getSourceBytes(1, src, 0, MAX_SOURCE_PAGE).hex.length / 2).toBe(MAX_SOURCE_PAGE)
    expect(core.getSourceBytes(1, src, body.length + 5, 10)).toEqual({ offset: body.length, hex: '' })
    expect(() => core!.getSourceBytes(1, 99, 0, 10)).toThrow(/no data source 99/)
  }, 120_000)
})
