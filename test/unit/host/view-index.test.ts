// The timeline's filters and added columns answered over the message index: whatever path a view takes
// (index only, index plus the conversations of one layer decoded again, or a full pass), its rows and cells
// must equal the CLI's full decode with trees (`gamewire decode --filter`), the independent reference here.
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionCore } from '../../../src-main/host/session-core'
import { decodeDepth, formatCell, ViewMatcher } from '../../../src-main/host/view-matcher'
import { DecodeSession } from '../../../src-shared/engine/session'
import { messageMetaFields } from '../../../src-shared/engine/meta-fields'
import { RecentFrameLengths } from '../../../src-shared/engine/frame-lengths'
import { FrameRing } from '../../../src-shared/net/frame-ring'
import { compileFilter, targetFromMessage, type FilterTarget } from '../../../src-shared/filter'
import { parseKeyFile } from '../../../src-shared/keys/keyfile'
import { KeyStore } from '../../../src-shared/keys/store'
import { tsharkFrameLengths, writeCutCapture } from '../helpers/frame-lengths'

const ROOT = join(__dirname, '../../..')
const DEMO = join(ROOT, 'resources/demo.pcapng')
const KEYS = readFileSync(join(ROOT, 'test/fixtures/ui/keys.txt'), 'utf8')
const tmp = mkdtempSync(join(tmpdir(), 'gamewire-view-index-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/**
 * Every message of the demo with its full-tree filter target, decoded the CLI's way; with `layers`, its
 * frames' groups first in the tree, as `decode --layers` writes them (frame.len, ip.ttl…).
 */
function reference(layers = false): FilterTarget[] {
  const keys = new KeyStore()
  keys.addAll(parseKeyFile(KEYS).keys)
  const out: FilterTarget[] = []
  const s = new DecodeSession({ keys, layers, onMessage: (m, conv, dir) => out.push(targetFromMessage(m, messageMetaFields(m, conv!, dir!))) })
  s.push(new Uint8Array(readFileSync(DEMO)))
  s.end()
  return out
}

let core: SessionCore | undefined
afterEach(() => core?.close())

async function openDemo(): Promise<SessionCore> {
  core = new SessionCore({ emit: () => undefined, demoCapturePath: () => DEMO, tempDir: tmp })
  await core.open(DEMO)
  await core.addKeys(KEYS)
  return core
}

describe('views over the message index', () => {
  const filters = [
    // index only
    'udp.port == 5055',
    'photon.op.code == 253 || sfs2x.cmd',
    'fignet.msg_id && !(fignet.channel == 0)',
    'gamewire.error || gamewire.warning',
    'frame.number > 20 && frame.number < 90 && tcp',
    'enet.cmd.number == 6 or litenetlib',
    'gamewire.summary contains "Raise"',
    // a field the index does not keep: the photon conversations are decoded again
    'photon.key == 245 || sfs2x.controller == 1',
    // subtrees of index fields only: a message has them when it has one of their fields
    'photon.ev || (photon.op && tcp)',
    // the four Photon conversations of seven: one pass over the capture that skips the other three's frames
    'photon.param_count > 1 || photon.cmd.seq == 3',
    // a group the index keeps as presence
    '!photon.cmd && photon',
    // Entangle model fields belong to FigNet conversations; whether a message has one, the index keeps
    'entangle.room_id && udp',
    'entangle && udp',
    '!entangle && fignet',
    // a field family that is no layer: every conversation is decoded again
    'datagram.index == 2',
    // parameters by code: their presence is in the index, and their short scalar values except on rows
    // marked as holding others
    'photon.param.245 && !photon.param.244',
    'photon.param.244 > 0 || photon.param.252',
    'photon.param.254 == 1 || photon.param.245 contains 01',
    'photon.param.255 != 0 && !photon.param.251',
    // SFS2X request and extension parameters by name: the same
    'sfs2x.p.p.zn == "QuizZone" || sfs2x.p.p.p._id > 2',
    'sfs2x.p.p.p.buildings && !sfs2x.p.p.p.target',
    'sfs2x.p.p.p.buildings.lvl > 1'
  ]

  it('decodes with trees for the output or a filter on tree fields, with labels and every node for the output only', () => {
    expect(decodeDepth(true, undefined)).toEqual({ recording: true, labels: true })
    expect(decodeDepth(true, compileFilter('photon.param_count > 1'))).toEqual({ recording: true, labels: true })
    // Trees for the filter alone keep only the keys it reads.
    expect(decodeDepth(false, compileFilter('photon.param_count > 1 && udp.port == 5055'))).toEqual({
      recording: true,
      labels: false,
      interest: ['photon.param_count', 'udp.port']
    })
    expect(decodeDepth(false, compileFilter('udp.port == 5055 && photon.ev.code == 1'))).toEqual({ recording: false, labels: false })
    expect(decodeDepth(false, undefined)).toEqual({ recording: false, labels: false })
  })

  it('plans which filters need a decode again', () => {
    expect(new ViewMatcher('udp.port == 5055 && photon.ev.code == 1', []).plan).toEqual({
      replayLayers: new Set(),
      treeMarks: [],
      readsSummary: false,
      frameLayers: []
    })
    expect(new ViewMatcher('photon.param_count == 2', ['entangle.position']).plan).toEqual({
      replayLayers: new Set(['photon', 'fignet']),
      treeMarks: [],
      readsSummary: false,
      frameLayers: []
    })
    // Parameter codes are an index field: no decode again
    expect(new ViewMatcher('photon.key == 245', []).plan).toEqual({ replayLayers: new Set(), treeMarks: [], readsSummary: false, frameLayers: [] })
    // A subtree of index fields only: whether a message has one of them
    expect(new ViewMatcher('photon.ev || photon.op', []).plan).toEqual({ replayLayers: new Set(), treeMarks: [], readsSummary: false, frameLayers: [] })
    expect(new ViewMatcher('photon.cmd', []).plan).toEqual({ replayLayers: new Set(), treeMarks: [], readsSummary: false, frameLayers: [] })
    expect(new ViewMatcher('photon.cmd.seq', []).plan.replayLayers).toEqual(new Set(['photon']))
    expect(new ViewMatcher('datagram.index', []).plan.replayLayers).toBe('all')
    expect(new ViewMatcher('entangle.room_id', []).plan.replayLayers).toEqual(new Set(['fignet']))
    expect(new ViewMatcher('entangle.room_id', []).needsTree).toBe(true)
    // a covering group: whether a message has any Entangle model field
    expect(new ViewMatcher('entangle', []).plan).toEqual({ replayLayers: new Set(), treeMarks: [], readsSummary: false, frameLayers: [] })
    expect(new ViewMatcher('photon && ip', []).needsTree).toBe(false)
    expect(new ViewMatcher('gamewire.summary contains "x"', []).plan.readsSummary).toBe(true)
    // Which parameters a message has is in the index
    expect(new ViewMatcher('photon.param.245 || !photon.param.0', []).plan).toEqual({
      replayLayers: new Set(),
      treeMarks: [],
      readsSummary: false,
      frameLayers: []
    })
    expect(new ViewMatcher('photon.param.245', []).needsTree).toBe(false)
    // ...their short scalar values too, except on the rows marked as holding others (those are decoded again)
    expect(new ViewMatcher('photon.param.245 && photon.param.254 == 1', []).plan).toEqual({
      replayLayers: new Set(),
      treeMarks: ['has:photon.param.254'],
      readsSummary: false,
      frameLayers: []
    })
    expect(new ViewMatcher('photon.param.245', ['photon.param.245']).plan).toEqual({
      replayLayers: new Set(),
      treeMarks: ['has:photon.param.245'],
      readsSummary: false,
      frameLayers: []
    })
    expect(new ViewMatcher('photon.param.245 == 1', []).needsTree).toBe(true)
    // an entry under a parameter is not in the index
    expect(new ViewMatcher('photon.param.245.1', []).plan.replayLayers).toEqual(new Set(['photon']))
    expect(new ViewMatcher('sfs2x.p.p.p.buildings && sfs2x.p.p.zn == "x"', []).plan).toEqual({
      replayLayers: new Set(),
      treeMarks: ['has:sfs2x.p.p.zn'],
      readsSummary: false,
      frameLayers: []
    })
    expect(new ViewMatcher('sfs2x.p.p.p.buildings.lvl == 1', []).plan.replayLayers).toEqual(new Set(['sfs2x']))
    // frame lengths come from the stored frames; other header fields are read from the frames again
    expect(new ViewMatcher('frame.len > 60', ['frame.cap_len'], { lengths: new RecentFrameLengths() }).plan).toEqual({
      replayLayers: new Set(),
      treeMarks: [],
      readsSummary: false,
      frameLayers: []
    })
    // without them, frame.len would read as absent on every decoded message
    expect(() => new ViewMatcher('frame.len > 60', [])).toThrow(/without the frames' lengths/)
    expect(() => new ViewMatcher('ip.ttl > 60', [])).toThrow(/without the frames/)
    // header fields: parsed again from each row's stored frames, except TCP's relative numbers, which need the
    // TCP conversations decoded again (from the connection's first sequence numbers)
    const frames = { frames: new FrameRing() }
    expect(new ViewMatcher('ip.ttl < 64 && photon.ev.code == 1', ['eth.src'], frames).plan).toEqual({
      replayLayers: new Set(),
      treeMarks: [],
      readsSummary: false,
      frameLayers: ['ip.ttl', 'eth.src']
    })
    expect(new ViewMatcher('tcp.seq > 1 || ip.ttl', [], frames).plan).toMatchObject({ replayLayers: new Set(['tcp']), frameLayers: ['ip.ttl'] })
    expect(new ViewMatcher('ip.ttl < 64', [], frames).needsTree).toBe(false)
  })

  // A message's frame lengths are those of its frames, and its header fields (ip.ttl…) theirs too, as the frame
  // groups of its tree with layers give them: from the stored frames (their lengths, or the frames parsed
  // again), or for TCP's relative numbers by decoding the TCP conversations again.
  const LENGTHS = ['frame.len', 'frame.cap_len']
  const HEADERS = [...LENGTHS, 'udp.length', 'frame.time_epoch', 'ip.ttl']
  it.each([
    ['frame.len > 100 || frame.cap_len < 60', LENGTHS],
    ['frame.len >= 70 && photon && frame.cap_len != 81', LENGTHS],
    ['(frame.len > 60 && ip.ttl == 64) || udp.port == 5055', LENGTHS],
    ['udp.length > 100 && !photon.ev', HEADERS],
    ['tcp.flags.push == true && sfs2x.cmd', HEADERS],
    ['eth.src && ip.ttl == 64 && photon.param.245 contains 01', HEADERS],
    ['tcp.seq > 100 && tcp.flags.push == true', [...HEADERS, 'tcp.seq']]
  ])('%s gives the rows and cells of the full decode with layers', async (filter, columns) => {
    const ref = reference(true)
    const want = ref.flatMap((t, i) => (compileFilter(filter).matches(t) ? [i + 1] : []))
    expect(want.length).toBeGreaterThan(0)
    expect(want.length).toBeLessThan(ref.length)
    const c = await openDemo()
    const view = await c.setView({ filter, sort: null, columns })
    expect(view.state).toBe('done')
    const rows = c.getRows(view.id, 0, 100_000).rows
    expect(rows.map((r) => r.id)).toEqual(want)
    for (const row of rows) expect({ id: row.id, cells: row.cells }).toEqual({ id: row.id, cells: columns.map((k) => formatCell(ref[row.id - 1].values(k))) })
  })

  it.each([
    ['test/fixtures/capture/pcapng-handmade.pcapng', 'of every link type'],
    ['test/fixtures/sfs2x/vanilla-tcp.pcapng', 'several to a message'],
    ['test/fixtures/net/tcp-overlap.pcapng', 'overlapping and retransmitted'],
    ['', 'cut by a snapshot length']
  ])("reads frame lengths as tshark gives them for each message's frames (%s, frames %s)", async (name) => {
    const file = name ? join(ROOT, name) : writeCutCapture(tmp)
    const of = tsharkFrameLengths(file)
    if (!name) expect([1, 2, 3].map(of)).toEqual(Array(3).fill({ len: 122, capLen: 64 }))
    const frames: number[][] = []
    const s = new DecodeSession({ recording: false, onMessage: (m) => frames.push(m.frames) })
    s.push(new Uint8Array(readFileSync(file)))
    s.end()
    core = new SessionCore({ emit: () => undefined, demoCapturePath: () => DEMO, tempDir: tmp })
    await core.open(file)
    const view = await core.setView({ filter: '', sort: { column: 'frame.len', desc: true }, columns: ['frame.len', 'frame.cap_len'] })
    const rows = core.getRows(view.id, 0, 100).rows
    expect(rows).toHaveLength(frames.length)
    if (name.includes('sfs2x')) expect(frames.some((f) => f.length > 2)).toBe(true)
    for (const row of rows)
      expect(row.cells).toEqual([formatCell(frames[row.id - 1].map((n) => of(n).len)), formatCell(frames[row.id - 1].map((n) => of(n).capLen))])
    // sorted by the added column, longest first
    const lens = rows.map((r) => Number(r.cells[0]))
    expect(lens).toEqual([...lens].sort((x, y) => y - x))
  })

  it.each(filters)('%s gives the rows of the full decode', async (filter) => {
    const ref = reference()
    const want = ref.flatMap((t, i) => (compileFilter(filter).matches(t) ? [i + 1] : []))
    const c = await openDemo()
    const view = await c.setView({ filter, sort: null, columns: [] })
    expect(view.state).toBe('done')
    expect(c.getRows(view.id, 0, 100_000).rows.map((r) => r.id)).toEqual(want)
  })

  it('fills added columns from the index and from decoding again, as the full decode shows them', async () => {
    const ref = reference()
    const columns = ['photon.ev.code', 'sfs2x.cmd', 'udp.srcport', 'photon.param.245', 'fignet.payload.model', 'photon.param.254', 'photon.param.252']
    const c = await openDemo()
    const view = await c.setView({ filter: '', sort: null, columns })
    const rows = c.getRows(view.id, 0, 100_000).rows
    expect(rows).toHaveLength(ref.length)
    for (const row of rows) expect({ id: row.id, cells: row.cells }).toEqual({ id: row.id, cells: columns.map((k) => formatCell(ref[row.id - 1].values(k))) })
    expect(rows.some((r) => r.cells[0] !== '') && rows.some((r) => r.cells[1] !== '') && rows.some((r) => r.cells[3] !== '')).toBe(true)
  })

  it('shows a message of a view decoded again with its whole tree (that view decoded trees with its keys only)', async () => {
    const keys = new KeyStore()
    keys.addAll(parseKeyFile(KEYS).keys)
    const nodes = (ns: readonly { children?: readonly unknown[] }[]): number => ns.reduce((n, x) => n + 1 + nodes((x.children ?? []) as typeof ns), 0)
    const reference: number[] = []
    const s = new DecodeSession({ keys, layers: true, onMessage: (m) => reference.push(nodes(m.tree)) })
    s.push(new Uint8Array(readFileSync(DEMO)))
    s.end()
    const c = await openDemo()
    const view = await c.setView({ filter: 'photon.param_count > 1', sort: null, columns: ['photon.param.245'] })
    const ids = c.getRows(view.id, 0, 100_000).rows.map((r) => r.id)
    expect(ids.length).toBeGreaterThan(10)
    for (const id of [ids[0], ids[Math.floor(ids.length / 2)], ids[ids.length - 1]]) {
      const tree = c.getMessage(id).tree
      expect({ id, nodes: nodes(tree) }).toEqual({ id, nodes: reference[id - 1] })
      expect(tree.every((n) => n.label !== '')).toBe(true)
    }
  })

  it('sorts on index columns: time, length, protocol and summary, ties in capture order', async () => {
    const c = await openDemo()
    for (const column of ['time', 'length', 'protocol', 'summary'] as const) {
      for (const desc of [false, true]) {
        const view = await c.setView({ filter: '', sort: { column, desc }, columns: [] })
        const rows = c.getRows(view.id, 0, 100_000).rows
        const key = (r: (typeof rows)[number]) => r[column]
        const sorted = [...rows].sort((a, b) => {
          const x = key(a)
          const y = key(b)
          const cmp = typeof x === 'number' ? x - (y as number) : String(x).localeCompare(String(y))
          return cmp !== 0 ? (desc ? -cmp : cmp) : a.id - b.id
        })
        expect(
          rows.map((r) => r.id),
          `${column} ${desc}`
        ).toEqual(sorted.map((r) => r.id))
      }
    }
  })
})

describe('opening a capture in shards', () => {
  it('gives the same rows, conversations, filters and details as one engine', async () => {
    const one = new SessionCore({ emit: () => undefined, demoCapturePath: () => DEMO, tempDir: tmp })
    const three = new SessionCore({ emit: () => undefined, demoCapturePath: () => DEMO, tempDir: tmp, jobs: 3, shardsInProcess: true })
    try {
      for (const c of [one, three]) await c.open(DEMO)
      expect(three.status()).toMatchObject({
        frames: one.status().frames,
        messages: one.status().messages,
        warnings: one.status().warnings,
        linkTypes: one.status().linkTypes
      })
      expect(three.getConversationPage({ start: 0, count: 5000 })).toEqual(one.getConversationPage({ start: 0, count: 5000 }))
      for (const filter of ['', 'udp.port == 5055 || sfs2x.cmd', 'photon.key == 245', 'ip.src == 127.0.0.1']) {
        const [a, b] = await Promise.all([
          one.setView({ filter, sort: null, columns: ['photon.ev.code'] }),
          three.setView({ filter, sort: null, columns: ['photon.ev.code'] })
        ])
        expect(three.getRows(b.id, 0, 100_000).rows).toEqual(one.getRows(a.id, 0, 100_000).rows)
      }
      for (let id = 1; id <= one.status().messages; id += 7) expect(three.getMessage(id)).toEqual(one.getMessage(id))
    } finally {
      one.close()
      three.close()
    }
  })
})
