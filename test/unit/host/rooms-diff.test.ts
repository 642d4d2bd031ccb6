// The app's Rooms and Diff requests on the host session (issue 16): getRooms gives the document
// `gamewire rooms --json` prints for the same capture (a seeded bug, an encrypted replay before and after
// its key is added) with the message each named frame stands for, kept until the rows change and stopped
// when the capture is replaced; diffWith gives
// the report `gamewire diff --json` prints (with and without an ignore list), its pairs and their lines a
// page at a time (the pairs' lone and changed messages read back from their lines are the CLI's), each pair
// side by side: both columns in their own order, a lone message across an empty cell next to where its
// side has it, changed lines with their field differences; compactRows keeps the differences and their
// context.
// The CLI runs as a separate process on the built bin (vitest's global setup keeps out/ fresh).
import { afterAll, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionCore } from '../../../src-main/host/session-core'
import {
  DIFF_LINES_PAGE,
  DIFF_PAIRS_PAGE,
  MAX_DIFF_LINES_PER_REQUEST,
  MAX_DIFF_PAIRS_PER_REQUEST,
  REQUEST_NAMES,
  type CaptureDiff,
  type DiffLine,
  type DiffPairView,
  type DiffRow,
  type RoomsDocument,
  type RoomsView
} from '../../../src-shared/api'
import { ApiArgumentError, validateRequest } from '../../../src-shared/api-validate'
import { compactRows, type ConversationDiff, type DiffReport, type MessageRef } from '../../../src-shared/analysis/diff'
import { encryptedReplay, photonSession, removalIgnored } from '../analysis/helpers/photon-room-sessions'
import { scriptedCapture } from '../../fixtures/analysis/scripted-session'
import { REFERENCE_B_OPTIONS } from '../../fixtures/analysis/diff-pair'
import { writeConversationsCapture } from '../../bench/make-conversations-capture.mjs'
import { writeGameCapture } from '../../bench/game-traffic'
import { gw } from '../helpers/cli'
import { openFilesNamed } from '../helpers/open-files'

const tmp = mkdtempSync(join(tmpdir(), 'gamewire-rooms-diff-test-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const good = photonSession()
const ignored = removalIgnored()
const encrypted = encryptedReplay()
const F = {
  good: join(tmp, 'good.pcapng'),
  ignored: join(tmp, 'ignored.pcapng'),
  encrypted: join(tmp, 'encrypted.pcapng'),
  keys: join(tmp, 'keys.txt'),
  A: join(tmp, 'reference.pcapng'),
  B: join(tmp, 'reimplementation.pcapng')
}
writeFileSync(F.good, good.s.pcapng())
writeFileSync(F.ignored, ignored.s.pcapng())
writeFileSync(F.encrypted, encrypted.s.pcapng())
writeFileSync(F.keys, encrypted.s.keyFile())
writeFileSync(F.A, scriptedCapture())
writeFileSync(F.B, scriptedCapture(REFERENCE_B_OPTIONS))

function core(): SessionCore {
  return new SessionCore({ emit: () => undefined, demoCapturePath: () => F.good, tempDir: tmp })
}

function cli(...args: string[]): unknown {
  const r = gw(...args)
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
  return JSON.parse(r.stdout)
}

/** The rooms document without what only the app adds (messageAt). */
function roomsDoc(v: RoomsView): RoomsDocument {
  const { messageAt: _m, ...doc } = v
  return doc
}

/** `gamewire decode`'s messages that frame `frame` carries (first or last frame). */
function carried(file: string, frame: number): { id: number; name: string }[] {
  const r = gw('decode', file, '--format', 'ndjson', '--tree', 'none', '--jobs', '1')
  expect(r.code).toBe(0)
  const all = r.stdout
    .trim()
    .split('\n')
    .slice(0, -1)
    .map((l) => JSON.parse(l) as { id: number; name: string; frames: number[] })
  return all.filter((m) => m.frames[0] === frame || m.frames.at(-1) === frame)
}

type Line = Exclude<DiffLine, { gap: number }>

/** Every line of pair `view` (each page asked for until the end). */
function allLines(c: SessionCore, d: CaptureDiff, view: DiffPairView): DiffLine[] {
  const out = [...view.rows]
  while (out.length < view.lines) {
    const page = c.getDiffLines(d.report, view.index, out.length, MAX_DIFF_LINES_PER_REQUEST)
    expect(page.length).toBeGreaterThan(0)
    out.push(...page)
  }
  return out
}

/**
 * The report as the app gives it, made back into the CLI's document: its pairs from every page, each pair's
 * lone and changed messages read from its lines (B's lone ones sorted by id, as B has them), so that it can
 * be compared with `gamewire diff --json`. Pairs are short here: every line is there.
 */
function appReport(c: SessionCore, d: CaptureDiff): DiffReport {
  const { timelineIds: _t, pairs, report: _n, conversations: first, ...rest } = d
  const views = [...first]
  while (views.length < pairs) views.push(...c.getDiffPairs(d.report, views.length, MAX_DIFF_PAIRS_PER_REQUEST))
  const conversations = views.map((v): ConversationDiff => {
    const lines = allLines(c, d, v) as Line[]
    expect(lines.some((r) => 'gap' in r)).toBe(false)
    return {
      protocol: v.protocol,
      a: v.a,
      b: v.b,
      pairedBy: v.pairedBy,
      aligned: v.aligned,
      onlyA: lines.filter((r) => !r.b).map((r) => r.a!),
      onlyB: lines
        .filter((r) => !r.a)
        .map((r) => r.b!)
        .sort((x, y) => x.id - y.id),
      changed: lines.filter((r) => r.change).map((r) => r.change!)
    }
  })
  return { ...rest, conversations }
}

/** The CLI's document, its pairs' lone B messages sorted by id (the order appReport gives them in). */
function cliReport(...args: string[]): DiffReport {
  const r = cli('diff', ...args, '--json') as DiffReport
  for (const c of r.conversations) c.onlyB.sort((x, y) => x.id - y.id)
  return r
}

const line = (m: MessageRef | null) => (m ? `${m.direction} ${m.name}` : null)

describe('getRooms', () => {
  it('is the CLI document for the Photon-behaved session and for a seeded bug', async () => {
    const c = core()
    await c.open(F.good)
    const doc = await c.getRooms()
    expect(roomsDoc(doc)).toEqual(cli('rooms', F.good, '--json'))
    expect(doc.rooms[0].divergences).toEqual([])
    expect(doc.rooms[0].joins.length).toBeGreaterThanOrEqual(4)
    await c.open(F.ignored)
    const bug = await c.getRooms()
    expect(roomsDoc(bug)).toEqual(cli('rooms', F.ignored, '--json'))
    expect(bug.rooms[0].divergences.map((d) => [d.rule, d.frames])).toEqual([['removal-ignored', [ignored.frames.removal, ignored.frames.replay]]])
    // the frames' messages: the removal's RaiseEvent (after the ACKs that frame carries first), the replayed event
    const removal = carried(F.ignored, ignored.frames.removal)
    expect(removal.map((m) => m.name)).toEqual(['ACK', 'ACK', 'ACK', 'RaiseEvent'])
    expect(bug.messageAt![ignored.frames.removal]).toBe(removal[3].id)
    expect(bug.messageAt![ignored.frames.replay]).toBe(carried(F.ignored, ignored.frames.replay).find((m) => m.name === 'Event 22')!.id)
    const cyJoin = bug.rooms[0].joins[2].frame
    expect(bug.messageAt![cyJoin]).toBe(carried(F.ignored, cyJoin).find((m) => m.name === 'JoinGame response')!.id)
    c.close()
  })

  it('is kept until the rows change: an added key decodes again, and the unknown verdict becomes the bug', async () => {
    const c = core()
    await c.open(F.encrypted)
    const before = await c.getRooms()
    expect(roomsDoc(before)).toEqual(cli('rooms', F.encrypted, '--json'))
    expect(before.rooms[0].joins[2].verdict).toBe('unknown')
    expect(before.unknown.map((u) => u.frame)).toEqual([encrypted.frames.joinEvent, encrypted.frames.replay, encrypted.frames.live])
    // the same rows: the same computed document, not a second pass
    expect(await c.getRooms()).toBe(before)
    await c.addKeys(encrypted.s.keyFile())
    const after = await c.getRooms()
    expect(after).not.toBe(before)
    expect(roomsDoc(after)).toEqual(cli('rooms', F.encrypted, '--keylog', F.keys, '--json'))
    expect(after.unknown).toEqual([])
    expect(after.rooms[0].divergences.map((d) => [d.rule, d.frames])).toEqual([['global-replayed-as-sender', [encrypted.frames.replay]]])
    c.close()
  })

  it('a pass still running stops when another capture is opened; the next request is for the new capture', async () => {
    const big = join(tmp, 'conversations.pcap')
    await writeConversationsCapture(big, { udp: 1500, tcp: 1500 })
    const c = core()
    await c.open(big)
    const running = c.getRooms()
    // let the pass run its first slice, then replace the capture under it
    await new Promise((r) => setImmediate(r))
    const opened = c.open(F.ignored)
    await expect(running).rejects.toThrow('cancelled')
    await opened
    expect((await c.getRooms()).rooms[0].divergences[0].rule).toBe('removal-ignored')
    c.close()
  })

  it('with no capture open: an empty document', async () => {
    expect(await core().getRooms()).toEqual({ format: 'gamewire-rooms/1', rooms: [], unknown: [] })
  })
})

describe('diffWith', () => {
  it('is the CLI report for the same two captures, with and without an ignore list', async () => {
    const c = core()
    await c.open(F.A)
    const d = await c.diffWith(F.B)
    expect(d.timelineIds).toBe(true)
    expect(appReport(c, d)).toEqual(cliReport(F.A, F.B))
    expect(d.totals).toMatchObject({ changed: 2, onlyA: 1, onlyB: 1 })
    const less = await c.diffWith(F.B, { ignore: ['gold', '/parameters.248'] })
    expect(appReport(c, less)).toEqual(cliReport(F.A, F.B, '--ignore', 'gold', '--ignore', '/parameters.248'))
    expect(less.totals.changed).toBe(0)
    const all = await c.diffWith(F.B, { noDefaults: true })
    expect(appReport(c, all)).toEqual(cliReport(F.A, F.B, '--no-default-ignores'))
    c.close()
  })

  it('sends a report of many conversation pairs a page at a time: the pages together are the CLI report', async () => {
    const [a, b] = [join(tmp, 'pairs-a.pcap'), join(tmp, 'pairs-b.pcap')]
    await writeConversationsCapture(a, { udp: 90, tcp: 40, seed: 1 })
    await writeConversationsCapture(b, { udp: 80, tcp: 45, seed: 2 })
    const c = core()
    await c.open(a)
    const d = await c.diffWith(b)
    const whole = cliReport(a, b)
    expect(whole.conversations.length).toBeGreaterThan(2 * DIFF_PAIRS_PAGE)
    expect(d.pairs).toBe(whole.conversations.length)
    expect(d.conversations).toHaveLength(DIFF_PAIRS_PAGE)
    // Two more calls, the last cut short by the end; together the CLI's pairs in its order.
    const second = c.getDiffPairs(d.report, DIFF_PAIRS_PAGE, DIFF_PAIRS_PAGE)
    const rest = c.getDiffPairs(d.report, 2 * DIFF_PAIRS_PAGE, MAX_DIFF_PAIRS_PER_REQUEST)
    expect(second).toHaveLength(DIFF_PAIRS_PAGE)
    expect(rest).toHaveLength(whole.conversations.length - 2 * DIFF_PAIRS_PAGE)
    expect([...d.conversations, ...second, ...rest].map((v) => v.index)).toEqual(whole.conversations.map((_, k) => k))
    expect(appReport(c, d)).toEqual(whole)
    expect(c.getDiffPairs(d.report, whole.conversations.length, 10)).toEqual([])
    // A pair's counts are the CLI's.
    const last = rest.at(-1)!
    const cliLast = whole.conversations.at(-1)!
    expect([last.onlyA, last.onlyB, last.changed]).toEqual([cliLast.onlyA.length, cliLast.onlyB.length, cliLast.changed.filter((x) => x.fields.length).length])
    // A new comparison replaces the report; opening a capture drops it.
    const again = await c.diffWith(b, { noDefaults: true })
    expect(() => c.getDiffPairs(d.report, DIFF_PAIRS_PAGE, 10)).toThrow(/no longer current/)
    expect(() => c.getDiffLines(d.report, 0, 0, 10)).toThrow(/no longer current/)
    expect(c.getDiffPairs(again.report, DIFF_PAIRS_PAGE, 1)).toHaveLength(1)
    expect(() => c.getDiffLines(again.report, again.pairs, 0, 10)).toThrow(/has \d+ conversation pairs/)
    // the pairs past the first page are compared when asked for, under that comparison's rules
    expect(appReport(c, again)).toEqual(cliReport(a, b, '--no-default-ignores'))
    const hexIgnored = await c.diffWith(b, { ignore: ['hex'] })
    expect(whole.totals.changed).toBeGreaterThan(0)
    expect(hexIgnored.totals.changed).toBe(0)
    expect(appReport(c, hexIgnored)).toEqual(cliReport(a, b, '--ignore', 'hex'))
    await c.open(b)
    expect(() => c.getDiffPairs(again.report, DIFF_PAIRS_PAGE, 1)).toThrow(/no longer current/)
    c.close()
  })

  it('gives each pair side by side: both columns in order, lone messages beside an empty cell, changed lines with their fields', async () => {
    const c = core()
    await c.open(F.A)
    const d = await c.diffWith(F.B)
    for (const view of d.conversations) {
      const rows = allLines(c, d, view) as Line[]
      expect(rows.length).toBe(view.lines)
      // column A is every compared A message once, in A's order; column B every B message once
      const aIds = rows.flatMap((r) => (r.a ? [r.a.id] : []))
      expect(aIds).toEqual([...aIds].sort((x, y) => x - y))
      expect(aIds).toHaveLength(view.aligned + view.onlyA)
      expect(rows.flatMap((r) => (r.b ? [r.b.id] : [])).sort((x, y) => x - y)).toHaveLength(view.aligned + view.onlyB)
      for (const r of rows.filter((x) => x.change)) expect(r.change).toMatchObject({ a: r.a, b: r.b })
    }
    const photon = d.conversations[0].rows as Line[]
    const lines = photon.map((r) => [line(r.a), line(r.b)])
    // B sent a PropertiesChanged event after SetProperties (A did not): its line sits between them
    const lone = lines.findIndex(([a, b]) => a === null && b === 's2c PropertiesChanged event')
    expect(lines[lone - 1]).toEqual(['c2s SetProperties', 'c2s SetProperties'])
    expect(lines[lone + 1]).toEqual(['c2s RaiseEvent', 'c2s RaiseEvent'])
    // B never answered Leave: A's response right after the request, nothing beside it
    const leave = lines.findIndex(([a]) => a === 'c2s Leave')
    expect(lines[leave + 1]).toEqual(['s2c Leave response', null])
    const created = photon.find((r) => r.a?.name === 'CreateGame response')!
    expect(created.change!.fields).toEqual([{ path: 'parameters.248.255', a: 8, b: 4 }])
    c.close()
  })

  it('a long pair comes with its first lines and gives the rest a page at a time, each line once', async () => {
    // Two runs of the bench's game traffic (other seeds): pairs of hundreds of lines, each with differences.
    const [a, b] = [join(tmp, 'game-a.pcapng'), join(tmp, 'game-b.pcapng')]
    writeGameCapture(a, join(tmp, 'game-a.keys'), { frames: 4000, seed: 3 })
    writeGameCapture(b, join(tmp, 'game-b.keys'), { frames: 6000, seed: 4 })
    const c = core()
    await c.open(a)
    const d = await c.diffWith(b)
    const long = d.conversations.find((v) => v.lines > DIFF_LINES_PAGE)!
    expect(long.rows).toHaveLength(DIFF_LINES_PAGE)
    const pages: DiffLine[] = [...long.rows]
    while (pages.length < long.lines) {
      const page = c.getDiffLines(d.report, long.index, pages.length, DIFF_LINES_PAGE)
      expect(page.length).toBeGreaterThan(0) // each page brings lines (else this loop would never end)
      pages.push(...page)
    }
    expect(pages).toEqual(allLines(c, d, long))
    expect(c.getDiffLines(d.report, long.index, long.lines, 10)).toEqual([])
    const whole = cliReport(a, b).conversations[long.index]
    const rows = pages as Line[]
    expect(rows.filter((r) => !r.b).map((r) => r.a)).toEqual(whole.onlyA)
    // (through JSON, as the app gets them: -0 is 0 there)
    expect(JSON.parse(JSON.stringify(rows.filter((r) => r.change).map((r) => r.change)))).toEqual(whole.changed)
    expect(whole.changed.length + whole.onlyA.length).toBeGreaterThan(0)
    c.close()
  })

  it.runIf(existsSync('/proc/self/fd'))(
    'keeps many values that differ in files: the same report, each file freed when its comparison is replaced or the session closes',
    async () => {
      // This process's open files that are value stores (removed from their folder at once, still open).
      const stores = () => openFilesNamed('gamewire-diff-values-')
      const before = stores()
      const c = new SessionCore({ emit: () => undefined, demoCapturePath: () => F.good, tempDir: tmp, diffSpillAt: 1 })
      await c.open(F.A)
      const d = await c.diffWith(F.B)
      expect(appReport(c, d)).toEqual(cliReport(F.A, F.B))
      expect(stores()).toBe(before + 2)
      // ignoring more compares again from the same sides, their values read back from the files
      const less = await c.diffWith(F.B, { ignore: ['gold'] })
      expect(appReport(c, less)).toEqual(cliReport(F.A, F.B, '--ignore', 'gold'))
      expect(stores()).toBe(before + 2)
      // ignoring less decodes again: new sides, and the files of the replaced ones are closed
      const all = await c.diffWith(F.B, { noDefaults: true })
      expect(appReport(c, all)).toEqual(cliReport(F.A, F.B, '--no-default-ignores'))
      expect(stores()).toBe(before + 2)
      // another capture opened: the comparison was the old one's, and its files go
      await c.open(F.B)
      expect(stores()).toBe(before)
      await c.diffWith(F.A)
      expect(stores()).toBe(before + 2)
      c.close()
      expect(stores()).toBe(before)
      expect(readdirSync(tmp).filter((f) => f.startsWith('gamewire-diff-values-'))).toEqual([])
    }
  )

  it('the open capture against itself: every line a pair of the same message; bad paths fail with a message', async () => {
    const c = core()
    await c.open(F.A)
    const d = await c.diffWith(F.A)
    expect(d.totals).toMatchObject({ changed: 0, onlyA: 0, onlyB: 0 })
    for (const view of d.conversations) for (const r of allLines(c, d, view) as Line[]) expect(r.a!.id).toBe(r.b!.id)
    await expect(c.diffWith(join(tmp, 'missing.pcapng'))).rejects.toThrow(/no such file/)
    await expect(c.diffWith(tmp)).rejects.toThrow(/is a directory/)
    await expect(c.diffWith(F.keys)).rejects.toThrow()
    c.close()
  })
})

describe('compactRows', () => {
  const same = (id: number): { a: MessageRef; b: MessageRef } => ({
    a: { id, frames: [id], direction: 'c2s', name: 'x' },
    b: { id, frames: [id], direction: 'c2s', name: 'x' }
  })
  it('keeps the differing lines with their context and counts the rest as gaps', () => {
    const rows: DiffRow[] = Array.from({ length: 12 }, (_, i) => same(i + 1))
    rows[5] = { a: null, b: same(6).b }
    rows[6] = { ...same(7), changed: 0 }
    const out = compactRows(rows, 1, 100)
    expect(out).toEqual([{ gap: 4 }, rows[4], rows[5], rows[6], rows[7], { gap: 4 }])
    // at most `max` lines: the rest is one gap
    expect(compactRows(rows, 1, 2)).toEqual([{ gap: 4 }, rows[4], { gap: 7 }])
    expect(
      compactRows(
        rows.map((_, i) => same(i)),
        2,
        100
      )
    ).toEqual([{ gap: 12 }])
  })
})

describe('arguments from the untrusted side', () => {
  it('getRooms takes none; diffWith a path and optional { ignore, noDefaults } with field paths', () => {
    expect(REQUEST_NAMES).toEqual(expect.arrayContaining(['getRooms', 'diffWith', 'getDiffPairs', 'getDiffLines']))
    expect(validateRequest('getDiffPairs', [3, 50, 50])).toEqual([3, 50, 50])
    for (const bad of [[], [1, 0], [0, 0, 1], [1, -1, 1], [1, 0, MAX_DIFF_PAIRS_PER_REQUEST + 1], [1, 0.5, 1], ['1', 0, 1], [1, 0, 1, 2]]) {
      expect(() => validateRequest('getDiffPairs', bad)).toThrow(ApiArgumentError)
    }
    expect(validateRequest('getDiffLines', [3, 7, 100, 100])).toEqual([3, 7, 100, 100])
    for (const bad of [
      [1, 0, 0],
      [0, 0, 0, 1],
      [1, -1, 0, 1],
      [1, 0, -1, 1],
      [1, 0, 0, MAX_DIFF_LINES_PER_REQUEST + 1],
      [1, 0.5, 0, 1],
      [1, 0, 0, 1, 2]
    ]) {
      expect(() => validateRequest('getDiffLines', bad)).toThrow(ApiArgumentError)
    }
    expect(validateRequest('getRooms', [])).toEqual([])
    expect(() => validateRequest('getRooms', [1])).toThrow(ApiArgumentError)
    expect(validateRequest('diffWith', ['/a.pcapng'])).toEqual(['/a.pcapng'])
    expect(validateRequest('diffWith', ['/a.pcapng', { ignore: ['gold', '/parameters.248', 'p.*.uid'], noDefaults: true }])).toEqual([
      '/a.pcapng',
      { ignore: ['gold', '/parameters.248', 'p.*.uid'], noDefaults: true }
    ])
    for (const bad of [
      [],
      [''],
      [1],
      ['/a', { ignore: 'gold' }],
      ['/a', { ignore: ['a..b'] }],
      ['/a', { ignore: [' x'] }],
      ['/a', { noDefaults: 'yes' }],
      ['/a', { other: 1 }],
      ['/a', {}, 3],
      ['/a', { ignore: Array(300).fill('x') }]
    ]) {
      expect(() => validateRequest('diffWith', bad), JSON.stringify(bad).slice(0, 60)).toThrow(ApiArgumentError)
    }
  })
})
