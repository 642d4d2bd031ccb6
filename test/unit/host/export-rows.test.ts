// The app's JSON export of chosen messages replays only their conversations, with trees only around the
// messages it writes (export-rows.ts). Its document must be byte for byte what `gamewire decode` writes for
// the same messages over the whole capture: for every committed capture, for selections that skip most
// messages and filters of every kind, in both formats and both tree modes.
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { SessionCore } from '../../../src-main/host/session-core'
import type { SessionContext } from '../../../src-main/host/session/context'
import { exportRows } from '../../../src-main/host/session/export-rows'
import { ViewPart } from '../../../src-main/host/session/view'
import type { DetailPart } from '../../../src-main/host/session/details'
import { Token } from '../../../src-main/host/session/cancel'
import type { DecodeJob } from '../../../src-main/host/decode-job'
import { decodeToText } from '../helpers/run-decode'
import { runDecode } from '../../../src-main/host/run-decode'
import { committedCaptures } from '../helpers/captures'
import { rng } from '../helpers/rng'
import type { InspectorEvent } from '../../../src-shared/api'
import { PcapngWriter } from '../../../src-shared/capture/pcapng-writer'
import { Conn, encode, ext, packet, t } from '../protocols/sfs2x/helpers'
import { resetFrames } from '../helpers/frames'

const ROOT = join(__dirname, '../../..')
const KEYS = readFileSync(join(ROOT, 'test/fixtures/ui/keys.txt'), 'utf8')
const tmp = mkdtempSync(join(tmpdir(), 'gamewire-export-rows-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

let core: SessionCore | undefined
/** The open session's state, for its keys. */
let session: SessionContext | undefined
afterEach(() => core?.close())

/** Filters of each kind: layers, index fields, presence, tree fields, dynamic families, negations, meta fields. */
const FILTERS = [
  'udp',
  'photon.ev',
  'photon.cmd',
  'entangle',
  'sfs2x.object',
  'photon.param.245',
  '!photon && !fignet',
  'gamewire.conversation == 2',
  'frame.number > 40'
]

/**
 * Opens `file` with the keys. With one job the keys come after opening, so the rows and the tail come from
 * the re-decode (replayAll); with more, before, so they come from the index pass in shards (here run on
 * this thread) and their merge.
 */
async function opened(file: string, emit: (e: InspectorEvent) => void = () => undefined, jobs = 1, checkpointSpacing?: number): Promise<SessionContext> {
  core = new SessionCore({ emit, demoCapturePath: () => file, tempDir: tmp, jobs, shardsInProcess: true, checkpointSpacing })
  if (jobs > 1) await core.addKeys(KEYS)
  await core.open(file)
  if (jobs === 1) await core.addKeys(KEYS)
  session = (core as unknown as { ctx: SessionContext }).ctx
  return session
}

/**
 * The export of `rows` written the fast way; null when it gave up. Its keys are the session's entries, as the
 * app passes them. With `details`, conversations replay from their detail checkpoints.
 */
async function fast(ctx: SessionContext, rows: number[], job: Omit<DecodeJob, 'file'>, details?: DetailPart): Promise<string | null> {
  const parts: Buffer[] = []
  const r = await exportRows(
    ctx,
    Uint32Array.from(rows),
    { file: '', keys: ctx.keys.list(), ...job },
    basename(ctx.source!.kind === 'file' ? ctx.source!.file : ''),
    { write: (b) => void parts.push(Buffer.from(b)), flush: () => undefined },
    new Token(),
    () => undefined,
    details
  )
  return r && Buffer.concat(parts).toString('utf8')
}

/** The CLI's export of the same messages, over the whole file, with the session's key entries (as the app's export of all messages). */
async function cli(file: string, job: Omit<DecodeJob, 'file'>): Promise<string> {
  return (await decodeToText({ file, keys: session!.keys.list(), ...job })).text
}

/** Row numbers of the messages an export holds (ndjson: one message per line, the summary last). */
function idsOf(ndjson: string): number[] {
  return ndjson
    .trim()
    .split('\n')
    .slice(0, -1)
    .map((l) => JSON.parse(l).id - 1)
}

/** Selections of a capture's rows: those `regular` picks, a random share, and the last row. */
function selectionsOf(total: number, regular: (row: number) => boolean, share: number, random: () => number): number[][] {
  const all = Array.from({ length: total }, (_, r) => r)
  return [all.filter(regular), all.filter(() => random() < share), total ? [total - 1] : []]
}

/** Each selection exported the fast way (JSON with trees; ndjson without, keys included) equals the CLI's. */
async function expectLikeCli(ctx: SessionContext, file: string, selections: number[][], details?: DetailPart): Promise<void> {
  for (const rows of selections) {
    const ids = rows.map((r) => r + 1)
    expect(await fast(ctx, rows, { format: 'json' }, details)).toBe(await cli(file, { format: 'json', ids }))
    expect(await fast(ctx, rows, { format: 'ndjson', tree: 'none', includeKeys: true }, details)).toBe(
      await cli(file, { format: 'ndjson', tree: 'none', includeKeys: true, ids })
    )
  }
}

describe('exporting chosen messages from their conversations alone', () => {
  const cases = [1, 2].flatMap((jobs) => committedCaptures().map((f) => [f.slice(ROOT.length + 1), jobs, f] as const))
  it.each(cases)('%s, indexed with %i job(s): selections and filters equal the CLI byte for byte', async (_n, jobs, file) => {
    const ctx = await opened(file, undefined, jobs)
    await expectLikeCli(
      ctx,
      file,
      selectionsOf(ctx.rows.count, (r) => r % 7 === 3, 0.1, rng(ctx.rows.count + 11))
    )
    for (const filter of FILTERS) {
      const expected = await cli(file, { format: 'ndjson', filter })
      // The rows come from the CLI's own matches here: this test is about the replay, not the filter.
      expect(await fast(ctx, idsOf(expected), { format: 'ndjson' })).toBe(expected)
    }
  })

  it.each(committedCaptures().map((f) => [f.slice(ROOT.length + 1), f] as const))(
    '%s: the same bytes when each conversation replays from its last detail checkpoint before the first row',
    async (_n, file) => {
      // A checkpoint every 3 messages, taken after the open; then selections that start deep in conversations.
      const ctx = await opened(file, undefined, 1, 3)
      const details = (core as unknown as { details: DetailPart }).details
      const before = await core!.detailCheckpoints()
      const total = ctx.rows.count
      await expectLikeCli(
        ctx,
        file,
        selectionsOf(total, (r) => r % 11 === 10, 0.05, rng(total + 5)),
        details
      )
      const perConversation = new Map<number, number>()
      for (let r = 0; r < total; r++) perConversation.set(ctx.rows.index.conversationAt(r), (perConversation.get(ctx.rows.index.conversationAt(r)) ?? 0) + 1)
      // Where a conversation is long, some of those replays started from a checkpoint.
      if ([...perConversation.values()].some((k) => k > 20)) expect((await core!.detailCheckpoints()).resumed).toBeGreaterThan(before.resumed)
    }
  )

  it('writes in id order a message its replay gives early (a stream cut mid-message ends before another conversation)', async () => {
    // Conversation 1 ends with half a packet: the whole-capture decode gives that message when the capture
    // ends, after conversation 2's; the replay gives it at its conversation's last frame, before them.
    resetFrames()
    const cut = packet(encode(ext('cut', { s: t.str('x'.repeat(40)) })))
    const first = new Conn(9933).c(packet(encode(ext('one', { n: t.int(1) })))).c(cut.subarray(0, 20))
    const second = new Conn(9934).c(packet(encode(ext('two', { n: t.int(2) })))).s(packet(encode(ext('three', { n: t.int(3) }))))
    const file = join(tmp, 'cut-first.pcapng')
    const w = new PcapngWriter()
    const frames = [...first.frames, ...second.frames]
    writeFileSync(file, Buffer.concat([w.header([{ linkType: 1, tsUnitsPerSecond: 1e6 }]), ...frames.map((f) => w.frame({ ...f, interfaceId: 0 }))]))
    const s = await opened(file)
    const all = JSON.parse(await cli(file, { format: 'json' })).messages as { id: number; frames: number[]; conversation: number; error: string | null }[]
    const early = all.find((m) => m.conversation === 1 && m.error)!
    expect(early.id).toBe(all.length)
    expect(Math.max(...early.frames)).toBeLessThan(Math.min(...all.filter((m) => m.conversation === 2).flatMap((m) => m.frames)))
    for (const rows of [all.map((m) => m.id - 1), [early.id - 1, early.id - 2]]) {
      const ids = rows.map((r) => r + 1).sort((a, b) => a - b)
      expect(
        await fast(
          s,
          [...ids].map((i) => i - 1),
          { format: 'json' }
        )
      ).toBe(await cli(file, { format: 'json', ids }))
    }
  })

  it('lists capture warnings where reading the file raised them, in the index, a re-decode, the held frames export and the CLI', async () => {
    // Frame 3's comment option claims more bytes than its block has: the reader warns and reads on. Frames 1
    // and 5 have no valid IPv4 header: the engine warns. Every way of decoding the file lists them in frame
    // order: the reader's warning goes back among the held frames where it was raised.
    resetFrames()
    const conn = new Conn(9933).c(packet(encode(ext('one', { n: t.int(1) }))))
    const badIp = (n: number) => ({
      ...conn.frames[0],
      number: n,
      data: Uint8Array.from([...conn.frames[0].data.subarray(0, 14), 0x44, ...conn.frames[0].data.subarray(15)])
    })
    const w = new PcapngWriter()
    const header = w.header([{ linkType: 1, tsUnitsPerSecond: 1e6 }])
    const commented = w.frame({ ...conn.frames[1], interfaceId: 0, comments: ['abcd'] })
    const at = Buffer.from(commented).indexOf('abcd')
    new DataView(commented.buffer, commented.byteOffset).setUint16(at - 2, 200, true)
    const frames = [badIp(1), ...conn.frames, badIp(5)]
    const file = join(tmp, 'warnings.pcapng')
    writeFileSync(file, Buffer.concat([header, ...frames.map((f, i) => (i === 2 ? commented : w.frame({ ...f, interfaceId: 0 })))]))
    const s = await opened(file)
    expect(s.warnings).toEqual([
      expect.stringMatching(/^frame 1: bad IPv4/),
      expect.stringMatching(/option 1 runs past/),
      expect.stringMatching(/^frame 5: bad IPv4/)
    ])
    const store = s.requireStore()
    const job: DecodeJob = { file: '', format: 'json', keys: s.keys.list(), ids: [1] }
    const parts: Buffer[] = []
    await runDecode(
      job,
      { write: (b) => void parts.push(Buffer.from(b)), flush: () => undefined },
      {
        name: 'warnings.pcapng',
        count: store.count,
        frames: () => store.range(1, store.count),
        warnings: s.readerWarnings
      }
    )
    const held = Buffer.concat(parts).toString('utf8')
    expect(held).toBe(await cli(file, { format: 'json', ids: [1] }))
    expect(JSON.parse(held).source.warnings).toEqual(s.warnings)
    expect(await fast(s, [0], { format: 'json' })).toBe(held)
    // A re-decode of the held frames (after a key or decode-as change) keeps that order.
    const again = await s.replayAll({ token: new Token(), recording: false, onMessage: () => undefined })
    expect(again.stats.warnings).toEqual(s.warnings)
  })

  it('past 1,000 capture warnings (where the list is cut) exports from the conversations alone, equal to the CLI', async () => {
    resetFrames()
    const conn = new Conn(9933).c(packet(encode(ext('one', { n: t.int(1) }))))
    const bad = conn.frames[0].data.slice()
    bad[14] = 0x44 // no valid IPv4 header: the engine warns once per frame
    const w = new PcapngWriter()
    const header = w.header([{ linkType: 1, tsUnitsPerSecond: 1e6 }])
    const frames = [...conn.frames, ...Array.from({ length: 1001 }, () => ({ ...conn.frames[0], data: bad }))]
    const file = join(tmp, 'many-warnings.pcapng')
    writeFileSync(file, Buffer.concat([header, ...frames.map((f) => w.frame({ ...f, interfaceId: 0 }))]))
    let finished!: () => void
    const done = new Promise<void>((resolve) => (finished = resolve))
    const s = await opened(file, (e) => {
      if (e.type === 'job' && e.job.state !== 'running') finished()
    })
    expect(s.warnings).toHaveLength(1000)
    expect(await fast(s, [0], { format: 'json' })).toBe(await cli(file, { format: 'json', ids: [1] }))
    core!.startExport({ format: 'json', scope: 'selected', ids: [1] }, { path: join(tmp, 'sel.json'), fileName: 'sel.json' })
    await done
    expect(readFileSync(join(tmp, 'sel.json'), 'utf8')).toBe(await cli(file, { format: 'json', ids: [1] }))
  })

  it('through the app: a filtered export takes this path and equals the CLI', async () => {
    const file = join(ROOT, 'resources/demo.pcapng')
    let finished!: () => void
    const done = new Promise<void>((resolve) => (finished = resolve))
    const ctx = await opened(file, (e) => {
      if (e.type === 'job' && e.job.state !== 'running') finished()
    })
    const filter = 'photon.ev && frame.number > 100'
    await core!.setView({ filter, sort: null, columns: [] })
    // The view is done, so its rows are reused: a replay now is the export's own.
    const replayed: number[][] = []
    const replay = ctx.replayConversations.bind(ctx)
    ctx.replayConversations = (conversations, o) => {
      replayed.push([...conversations])
      return replay(conversations, o)
    }
    core!.startExport({ format: 'ndjson', scope: 'filtered' }, { path: join(tmp, 'f.ndjson'), fileName: 'f.ndjson' })
    await done
    expect(replayed).toHaveLength(1)
    expect(replayed[0].length).toBeLessThan(ctx.conversations.conversationCount)
    const expected = await cli(file, { format: 'ndjson', filter })
    expect(idsOf(expected).length).toBeGreaterThan(10)
    expect(readFileSync(join(tmp, 'f.ndjson'), 'utf8')).toBe(expected)
  })

  /**
   * Opens the demo capture and sets a view on `filter`; as soon as the view says it is running, asks for an
   * export of the filtered view into `name`, then runs `then` (after that event's own turn, as requests from
   * the UI arrive). Resolves when the export is over.
   */
  async function exportWhileViewRuns(filter: string, name: string, then: () => void = () => undefined): Promise<void> {
    let finished!: () => void
    const done = new Promise<void>((resolve) => (finished = resolve))
    let asked = false
    await opened(join(ROOT, 'resources/demo.pcapng'), (e) => {
      if (e.type === 'job' && e.job.state !== 'running') finished()
      if (e.type === 'view' && e.view.filter === filter && e.view.state === 'running' && !asked) {
        asked = true
        queueMicrotask(() => {
          core!.startExport({ format: 'ndjson', scope: 'filtered' }, { path: join(tmp, name), fileName: name })
          then()
        })
      }
    })
    await core!.setView({ filter, sort: null, columns: [] })
    await done
    expect(asked).toBe(true)
  }

  it('an export asked for while the view still computes its filter waits for that view instead of evaluating it again', async () => {
    // A tree field: the view decodes the Photon conversations again.
    const filter = 'photon.param.245'
    const evaluated = vi.spyOn(ViewPart.prototype, 'evaluateRows')
    try {
      await exportWhileViewRuns(filter, 'w.ndjson')
      expect(evaluated).toHaveBeenCalledTimes(1)
    } finally {
      evaluated.mockRestore()
    }
    const expected = await cli(join(ROOT, 'resources/demo.pcapng'), { format: 'ndjson', filter })
    expect(idsOf(expected).length).toBeGreaterThan(10)
    expect(readFileSync(join(tmp, 'w.ndjson'), 'utf8')).toBe(expected)
  })

  it('an export waiting for a view keeps its filter when the view moves on to another', async () => {
    const filter = 'photon.param.245'
    await exportWhileViewRuns(filter, 'm.ndjson', () => void core!.setView({ filter: 'udp', sort: null, columns: [] }))
    expect(readFileSync(join(tmp, 'm.ndjson'), 'utf8')).toBe(await cli(join(ROOT, 'resources/demo.pcapng'), { format: 'ndjson', filter }))
  })
})
