// A sharded decode must give exactly what one engine gives: the same message ids, conversation ids, export
// text, rows, warnings and conversation list, whatever the number of shards. The oracle is the one-engine
// DecodeSession the CLI has always used. Shards run in-process here (the pool's inProcess mode); the
// worker threads are checked end to end through the CLI in test/unit/cli/jobs.test.ts.
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CaptureReader } from '../../../src-shared/capture/reader'
import type { CaptureFrame } from '../../../src-shared/capture/types'
import { DecodeSession } from '../../../src-shared/engine/session'
import type { RowMessage } from '../../../src-shared/engine/shard'
import { messageText } from '../../../src-shared/export/json'
import { parseKeyFile } from '../../../src-shared/keys/keyfile'
import { KeyStore } from '../../../src-shared/keys/store'
import type { ConversationInfo } from '../../../src-shared/model/types'
import { ShardPool } from '../../../src-main/host/shard-pool'
import { committedCaptures } from '../helpers/captures'

const ROOT = join(__dirname, '../../..')
const KEYS = parseKeyFile(readFileSync(join(ROOT, 'test/fixtures/ui/keys.txt'), 'utf8')).keys

const files = committedCaptures()

function frames(file: string): { frames: CaptureFrame[]; readerWarnings: string[] } {
  const out: CaptureFrame[] = []
  const readerWarnings: string[] = []
  const r = new CaptureReader({ onFrame: (f) => out.push({ ...f, data: Uint8Array.from(f.data) }), onWarning: (w) => readerWarnings.push(w) })
  try {
    r.push(new Uint8Array(readFileSync(file)))
    r.end()
  } catch {
    // corrupt-capture fixtures: the frames read so far count
  }
  return { frames: out, readerWarnings }
}

function oneEngine(list: CaptureFrame[]) {
  const keys = new KeyStore()
  keys.addAll(KEYS)
  const texts: string[] = []
  const rows: Omit<RowMessage, 'wireDir'>[] = []
  const s = new DecodeSession({
    keys,
    onMessage: (m) => {
      texts.push(messageText(m))
      rows.push({
        time: m.time,
        frames: m.frames,
        conversation: m.conversation,
        direction: m.direction,
        protocol: m.protocol,
        stack: m.stack,
        name: m.name,
        summary: m.summary,
        length: m.sources[0]?.bytes.length ?? 0,
        error: m.error,
        warnings: m.warnings
      })
    }
  })
  for (const f of list) s.addFrame(f)
  s.end()
  return { texts, rows, conversations: s.engine.conversationList(), warnings: s.engine.stats.warnings, stats: s.engine.stats }
}

/** Runs the sharded decode in-process, feeding frames in chunks with a drain between, as a file read does. */
async function sharded(list: CaptureFrame[], jobs: number, mode: 'index' | 'export') {
  const texts: string[] = []
  const rows: Omit<RowMessage, 'wireDir'>[] = []
  const warnings: string[] = []
  const convIds: number[] = []
  const pool = new ShardPool(
    jobs,
    { mode, keys: [...KEYS] },
    {
      conversation: (id) => convIds.push(id),
      body: (id, conv, body) => {
        if (body) texts.push(`{"id":${id},"conversation":${conv}${new TextDecoder().decode(body)}`)
      },
      row: (id, r) => {
        expect(id).toBe(rows.length + 1)
        const { wireDir: _w, indexed: _i, ...rest } = r
        rows.push(rest)
      },
      warning: (w) => {
        if (warnings.length < 1000 && !warnings.includes(w)) warnings.push(w)
      }
    },
    true
  )
  for (let i = 0; i < list.length; i++) {
    pool.push(list[i])
    if (i % 7 === 6) await pool.drain()
  }
  const result = await pool.end()
  expect(convIds).toEqual(convIds.map((_, i) => i + 1))
  return { texts, rows, warnings, result }
}

describe('sharded decode equals one engine', () => {
  it.each(files.map((f) => [f.slice(ROOT.length + 1), f]))('%s', async (_name, file) => {
    const { frames: list } = frames(file)
    const want = oneEngine(list)
    for (const jobs of [1, 2, 3, 4]) {
      const ex = await sharded(list, jobs, 'export')
      expect(ex.texts.length, `jobs ${jobs}`).toBe(want.texts.length)
      for (let i = 0; i < want.texts.length; i++) expect(ex.texts[i], `jobs ${jobs} message ${i + 1}`).toBe(want.texts[i])
      expect([...ex.result.conversations.conversations()]).toEqual(want.conversations as ConversationInfo[])
      expect(ex.warnings).toEqual(want.warnings)
      expect({ frames: ex.result.frames, messages: ex.result.messages, errors: ex.result.errors, linkTypes: ex.result.linkTypes }).toEqual({
        frames: want.stats.frames,
        messages: want.stats.messages,
        errors: want.stats.errors,
        linkTypes: want.stats.linkTypes
      })
      const ix = await sharded(list, jobs, 'index')
      expect(ix.rows, `jobs ${jobs} rows`).toEqual(want.rows)
    }
  })

  it('spreads conversations over the shards (not all on one)', async () => {
    const { frames: list } = frames(join(ROOT, 'resources/demo.pcapng'))
    const per = new Map<number, number>()
    const pool = new ShardPool(3, { mode: 'index', keys: [] }, { warning: () => undefined }, true)
    // Route only: which shard would each frame's conversation use.
    const router = (pool as unknown as { router: { route(f: CaptureFrame): { shard: number } | null } }).router
    for (const f of list) {
      const r = router.route(f)
      if (r) per.set(r.shard, (per.get(r.shard) ?? 0) + 1)
    }
    pool.close()
    expect(per.size).toBeGreaterThan(1)
  })
})
