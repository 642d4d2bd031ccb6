// `--tree none` against `--tree full` on every committed capture: the same messages, byte for byte,
// without their `tree` key; and the engine runs without building trees (so the typed values shown are
// the ones a tree-less decode gives).
import { describe, it, expect, vi, afterEach } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { decodeToText } from '../helpers/run-decode'
import type { DecodeJob } from '../../../src-main/host/decode-job'
import { committedCaptures } from '../helpers/captures'

// Every DecodeSession's `recording`, `labels` and `interest` options, to see what run-decode asked the engine for.
const recording = vi.hoisted(() => [] as boolean[])
const labels = vi.hoisted(() => [] as boolean[])
const interest = vi.hoisted(() => [] as (readonly string[] | undefined)[])
vi.mock('../../../src-shared/engine/session', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src-shared/engine/session')>()
  class Watched extends real.DecodeSession {
    constructor(opts: ConstructorParameters<typeof real.DecodeSession>[0]) {
      super(opts)
      recording.push(opts.recording ?? true)
      labels.push(opts.labels ?? true)
      interest.push(opts.interest)
    }
  }
  return { ...real, DecodeSession: Watched }
})

const ROOT = join(__dirname, '../../..')
const KEYS = readFileSync(join(ROOT, 'test/fixtures/ui/keys.txt'), 'utf8')

const FILES = committedCaptures().sort()

/** A message line of the full export without its tree: the tree sits between `,"tree":` and the message's `,"sources":[` (a JSON string cannot hold that unescaped). */
function withoutTree(line: string): string {
  const start = line.indexOf(',"tree":[')
  const end = line.indexOf('],"sources":[', start)
  expect(start > 0 && end > start, line.slice(0, 200)).toBe(true)
  return line.slice(0, start) + line.slice(end + 1)
}

const lines = async (job: DecodeJob) => (await decodeToText(job)).text.split('\n')

describe('--tree none', () => {
  afterEach(() => {
    recording.length = 0
    labels.length = 0
    interest.length = 0
  })

  it('fixtures cover the protocols', () => {
    for (const dir of ['sfs2x', 'enet', 'ui', 'net'])
      expect(
        FILES.some((f) => f.includes(`/fixtures/${dir}/`)),
        dir
      ).toBe(true)
  })

  it.each(FILES.map((f) => [f.slice(ROOT.length + 1), f]))('%s: the full export without trees, values from a tree-less decode', async (_, file) => {
    for (const includeSourceBytes of [false, true]) {
      const full = await lines({ file, format: 'ndjson', keylog: KEYS, includeSourceBytes })
      const none = await lines({ file, format: 'ndjson', keylog: KEYS, includeSourceBytes, tree: 'none' })
      expect(recording).toEqual([true, false])
      recording.length = 0
      expect(none.length).toBe(full.length)
      // the summary line (last but the empty one after the final newline) is the same
      expect(none.slice(-2)).toEqual(full.slice(-2))
      for (let i = 0; i < full.length - 2; i++) {
        expect(none[i]).not.toContain('"tree":')
        expect(none[i]).toBe(withoutTree(full[i]))
      }
    }
  })

  it('builds trees anyway when the filter reads tree fields, without labels or other keys, and writes none', async () => {
    const file = join(ROOT, 'test/fixtures/ui/photon-session.pcapng')
    // photon.param_count is only in the tree (not an index field).
    const filter = 'photon.param_count > 1'
    const full = await lines({ file, format: 'ndjson', filter })
    const none = await lines({ file, format: 'ndjson', filter, tree: 'none' })
    const meta = await lines({ file, format: 'ndjson', filter: 'udp.port == 5056', tree: 'none' })
    expect(recording).toEqual([true, true, false])
    // The filter reads keys and values: the trees it alone needs go without labels, and keep only its keys.
    expect(labels).toEqual([true, false, false])
    expect(interest).toEqual([undefined, ['photon.param_count'], undefined])
    expect(full.length).toBeGreaterThan(100)
    expect(none).toEqual(full.map((l, i) => (i < full.length - 2 ? withoutTree(l) : l)))
    expect(meta.length).toBeGreaterThan(full.length)
  })

  it('matches a filter on index fields without trees, with the same messages', async () => {
    const file = join(ROOT, 'test/fixtures/ui/photon-session.pcapng')
    const filter = 'photon.ev.code == 1'
    const full = await lines({ file, format: 'ndjson', filter })
    const none = await lines({ file, format: 'ndjson', filter, tree: 'none' })
    expect(recording).toEqual([true, false])
    expect(full.length).toBeGreaterThan(100)
    expect(none).toEqual(full.map((l, i) => (i < full.length - 2 ? withoutTree(l) : l)))
  })

  it('the json document too', async () => {
    const file = join(ROOT, 'test/fixtures/sfs2x/sdk-ws.pcapng')
    const full = JSON.parse((await decodeToText({ file, format: 'json' })).text)
    const none = JSON.parse((await decodeToText({ file, format: 'json', tree: 'none' })).text)
    for (const m of full.messages) delete m.tree
    expect(none).toEqual(full)
  })
})
