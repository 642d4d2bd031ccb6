// `gamewire diff` on two captures of one scripted session (test/fixtures/analysis/scripted-session.ts):
// B is the "reimplementation", with other addresses and ports, other timings, ids and tokens, a changed
// max-players and gold amount, a Leave response it never sends, an event it sends in addition, and the
// Join event before the CreateGame response. The test says exactly which messages are only in A or B and
// which fields differ, and that the volatile ones (ids, tokens, sequence numbers) are skipped by default
// and shown with --no-default-ignores.
import { afterAll, describe, expect, it } from 'vitest'
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { diffFiles, fileDiffSource } from '../../../src-main/host/capture-diff'
import { alignKeys } from '../../../src-shared/analysis/diff/align'
import { leafDigest, leavesDigest } from '../../../src-shared/analysis/diff/digest'
import { FieldPatterns, valueLeaves } from '../../../src-shared/analysis/diff/fields'
import { ignoreRules } from '../../../src-shared/analysis/diff/rules'
import { columnBuffers, DiffSide } from '../../../src-shared/analysis/diff/side'
import {
  compareSides,
  decodeSide,
  diffCaptures,
  diffSideOf,
  diffSources,
  type DiffConversationInput,
  type DiffMessageInput,
  type DiffOptions,
  type DiffSides,
  type DiffReport,
  type DiffSource
} from '../../../src-shared/analysis/diff'
import { scriptedCapture } from '../../fixtures/analysis/scripted-session'
import { EXPECTED, REFERENCE_B_OPTIONS, facts } from '../../fixtures/analysis/diff-pair'
import { gw } from '../helpers/cli'
import { pv } from '../protocols/photon/gp-encoder'
import { writeGameCapture } from '../../bench/game-traffic'
import { SPILL_VALUES, SpilledValues } from '../../../src-main/host/spilled-values'

const tmp = mkdtempSync(join(tmpdir(), 'gamewire-diff-test-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

let games: [string, string] | undefined
/**
 * Two runs of the bench's game traffic (other seeds), written once: nearly every message differs, with values
 * of every kind the decoders give (Maps, byte arrays, 64-bit integers, typed wrappers).
 */
function gamePair(): [string, string] {
  if (games) return games
  games = [join(tmp, 'game-a.pcapng'), join(tmp, 'game-b.pcapng')]
  games.forEach((file, i) => writeGameCapture(file, `${file}.keys`, { frames: 3000, seed: 5 + i }))
  return games
}

/**
 * One volatile-field pattern on a whole path, written here as the reference FieldPatterns is checked
 * against: the path split at '.', the pattern's segments matched against each run (only the first, with
 * a leading '/'), `*` matching any one segment.
 */
function compilePattern(pattern: string): (path: string) => boolean {
  const anchored = pattern.startsWith('/')
  const p = (anchored ? pattern.slice(1) : pattern).split('.').filter((s) => s !== '')
  return (path) => {
    const s = path.split('.')
    for (let i = 0; i + p.length <= s.length; i++) {
      let ok = true
      for (let k = 0; k < p.length && ok; k++) ok = p[k] === '*' || p[k] === s[i + k]
      if (ok) return true
      if (anchored) return false
    }
    return false
  }
}

const DEFAULT_SKIP = new FieldPatterns(['/responseTo', '/responseTimeMs', '/sentTime', '/reliableSeq', '_id'])
const A = join(tmp, 'reference.pcapng')
const B = join(tmp, 'reimplementation.pcapng')
writeFileSync(A, scriptedCapture())
writeFileSync(B, scriptedCapture(REFERENCE_B_OPTIONS))

describe('capture diff', () => {
  it('reports exactly what is only in A, only in B, and the changed fields; volatile fields skipped', async () => {
    const r = await diffFiles(A, B)
    expect(r.format).toBe('gamewire-diff/1')
    expect(facts(r)).toEqual(EXPECTED)
    // message ids and frames point into each capture
    const leave = r.conversations[0].onlyA[0]
    expect(leave.frames).toHaveLength(1)
    expect(r.totals).toEqual({ aligned: r.conversations.reduce((n, c) => n + c.aligned, 0), changed: 2, onlyA: 1, onlyB: 1 })
    // 13 Photon messages in A (Init … Leave response), 12 of them with a partner in B
    expect(r.conversations.map((c) => c.aligned)).toEqual([12, 11, 7])
    const op = (name: string) => r.summary.find((s) => s.name === name)!
    expect(op('Leave response')).toMatchObject({ protocol: 'photon', direction: 's2c', a: 1, b: 0, aligned: 0, onlyA: 1, onlyB: 0 })
    expect(op('CreateGame response')).toMatchObject({ a: 1, b: 1, aligned: 1, changed: 1 })
    expect(op('CallExtension mail.read')).toMatchObject({ a: 2, b: 2, aligned: 2, changed: 0 })
  })

  it('the defaults hide ids, tokens and sequence numbers; without them they show', async () => {
    const r = await diffFiles(A, B, { noDefaults: true })
    const paths = new Set(r.conversations.flatMap((c) => c.changed.flatMap((x) => x.fields.map((f) => `${c.protocol} ${f.path}`))))
    for (const p of [
      'photon peerId',
      'photon parameters.221',
      'photon responseTimeMs',
      'sfs2x body.p.tk',
      'sfs2x body.p.p._id',
      'sfs2x requestId',
      'sfs2x body.p.id',
      'fignet callbackId',
      'fignet responseTimeMs'
    ]) {
      expect(paths, p).toContain(p)
    }
    expect(r.ignored).toEqual({})
    // the real differences are still there
    expect(paths).toContain('photon parameters.248.255')
    expect(paths).toContain('sfs2x body.p.p.gold')
  })

  it('--ignore skips the fields it names, wherever they are', async () => {
    const r = await diffFiles(A, B, { ignore: ['/parameters.248', 'gold'] })
    expect(facts(r)[0].changed).toEqual([{ name: 's2c CreateGame response', reordered: true, fields: [] }])
    expect(facts(r)[1].changed).toEqual([])
    expect(r.ignored['*']).toEqual(['/responseTo', '/responseTimeMs', '/decryptedWith', '/parameters.248', 'gold'])
    expect(r.totals.changed).toBe(0)
  })

  it('one capture against itself: everything aligned, nothing different', async () => {
    const r = await diffFiles(A, A)
    expect(r.totals).toMatchObject({ changed: 0, onlyA: 0, onlyB: 0 })
    expect(r.conversations.every((c) => c.pairedBy === 'server-port' && c.changed.length === 0)).toBe(true)
  })

  it('alignment and field paths', () => {
    // an LCS: the extra and the missing message do not shift the pairs after them
    expect(alignKeys(['a', 'b', 'x', 'c', 'd'], ['a', 'y', 'b', 'c', 'd'])).toEqual([
      [0, 0],
      [1, 2],
      [3, 3],
      [4, 4]
    ])
    expect(alignKeys([], ['a'])).toEqual([])
    const leaves = valueLeaves({ code: 227, parameters: new Map([['248', pv.hash([pv.byte(255), pv.byte(8)], [pv.str('map'), pv.str('dunes')])]]) })
    expect([...leaves]).toEqual([
      ['code', { value: 227 }],
      ['parameters.248.255', { value: 8, type: 'Byte' }],
      ['parameters.248.map', { value: 'dunes', type: 'String' }]
    ])
    expect(compilePattern('_id')('body.p.p._id')).toBe(true)
    expect(compilePattern('/_id')('body.p.p._id')).toBe(false)
    expect(compilePattern('/enet')('enet.sentTime')).toBe(true)
    expect(compilePattern('p.*.uid')('body.p.p.uid')).toBe(true)
    expect(compilePattern('parameters.221')('parameters.2210')).toBe(false)
  })

  it('pairs each conversation with the first one left on the other side with its server port, then the rest in order', () => {
    const conv = (id: number, port: number, protocol = 'photon'): DiffConversationInput => ({
      id,
      protocol,
      client: `10.0.0.${id}:5000${id}`,
      server: `10.1.0.1:${port}`
    })
    // Listed out of id order: pairing goes by id (the order the conversations began in).
    const a = [conv(4, 7000), conv(1, 7000), conv(2, 7000), conv(3, 8000), conv(5, 9000), conv(6, 6000, 'sfs2x')]
    const b = [conv(11, 8000), conv(12, 7000), conv(13, 7000), conv(14, 5000), conv(15, 5001), conv(16, 6000, 'sfs2x'), conv(17, 6000, 'sfs2x')]
    const r = diffCaptures(diffSideOf([], a), diffSideOf([], b))
    expect(r.conversations.map((c) => [c.protocol, c.a?.id ?? null, c.b?.id ?? null, c.pairedBy])).toEqual([
      ['photon', 1, 12, 'server-port'],
      ['photon', 2, 13, 'server-port'],
      ['photon', 3, 11, 'server-port'],
      // Port 7000 has no B conversation left: the first of B's unpaired ones, in order.
      ['photon', 4, 14, 'order'],
      ['photon', 5, 15, 'order'],
      ['sfs2x', 6, 16, 'server-port'],
      ['sfs2x', null, 17, null]
    ])
  })

  it("keeps a side's conversations compactly and gives them back as they were given, IPv6 and odd endpoints too", () => {
    const list: DiffConversationInput[] = [
      { id: 3, protocol: 'photon', client: '10.0.0.1:50000', server: '192.168.1.20:5055' },
      { id: 4, protocol: 'sfs2x', client: '[2001:db8::1]:41000', server: '[2001:db8::2]:9933' },
      { id: 9, protocol: 'photon', client: '0.0.0.0:0', server: '255.255.255.255:65535' },
      { id: 12, protocol: 'fignet', client: '10.0.0.01:5', server: '10.0.0.2:7777' }
    ]
    const side = diffSideOf([], list)
    expect(side.conversations.count).toBe(list.length)
    expect(list.map((_, i) => side.conversations.get(i))).toEqual(list)
    expect(list.map((_, i) => side.conversations.port(i))).toEqual(['5055', '9933', '65535', '7777'])
  })

  it('gives equal digests exactly where the leaves have no difference outside the skipped fields', async () => {
    // The independent answer: compare every leaf as the report does.
    const leafChanges = (x: unknown, y: unknown, skip: (path: string) => boolean) => {
      const la = valueLeaves(x)
      const lb = valueLeaves(y)
      return [...new Set([...la.keys(), ...lb.keys()])].filter((path) => {
        const l = la.get(path)
        const r = lb.get(path)
        return !skip(path) && !(l && r && l.value === r.value && l.type === r.type)
      })
    }
    const digest = (v: unknown, skip: FieldPatterns) => {
      const out = new Uint32Array(2)
      leafDigest(v, skip, out, 0)
      return `${out[0]}:${out[1]}`
    }
    const same = (x: unknown, y: unknown, skip: FieldPatterns) => digest(x, skip) === digest(y, skip)
    // The places of a value's leaves, to change one: a container and its key.
    const places = (v: unknown, out: [object, unknown][] = []): [object, unknown][] => {
      if (v instanceof Uint8Array) return out
      if (v instanceof Map) for (const [k, x] of v) typeof x === 'object' && x !== null && !(x instanceof Uint8Array) ? places(x, out) : out.push([v, k])
      else if (v !== null && typeof v === 'object')
        for (const [k, x] of Object.entries(v)) typeof x === 'object' && x !== null && !(x instanceof Uint8Array) ? places(x, out) : out.push([v, k])
      return out
    }
    const changed = (x: unknown) =>
      typeof x === 'number'
        ? x + 1
        : typeof x === 'string'
          ? `${x}!`
          : typeof x === 'boolean'
            ? !x
            : x instanceof Uint8Array
              ? Uint8Array.from(x, (b, i) => (i === 0 ? b ^ 1 : b))
              : 'other'
    const none = new FieldPatterns([])
    const values: unknown[] = []
    for (const file of [A, B]) await fileDiffSource(file).decode((m) => values.push(m.value))
    let kept = 0
    let found = 0
    for (const [k, value] of values.entries()) {
      // The same value in other objects: the same digest.
      expect(same(value, structuredClone(value), none)).toBe(true)
      const list = places(value)
      if (!list.length) continue
      const copy = structuredClone(value)
      const [container, key] = places(copy)[k % list.length]
      const before = container instanceof Map ? container.get(key) : (container as Record<string, unknown>)[key as string]
      const after = changed(before)
      if (container instanceof Map) container.set(key, after)
      else (container as Record<string, unknown>)[key as string] = after
      const paths = leafChanges(value, copy, () => false)
      if (paths.length === 0) continue
      // A real difference is never passed over; covered by a skip pattern, the values are the same.
      expect(same(value, copy, none)).toBe(false)
      found++
      const skipIt = (path: string) => paths.includes(path) || paths.some((p) => path.startsWith(`${p}.`))
      expect(leafChanges(value, copy, skipIt)).toEqual([])
      expect(same(value, copy, new FieldPatterns(paths.map((p) => `/${p}`)))).toBe(true)
      kept++
    }
    expect(found).toBeGreaterThan(40)
    expect(kept).toBe(found)
    // Against messages of the other capture: equal exactly where the leaves agree outside the skipped fields.
    const skip = (path: string) => DEFAULT_SKIP.test(path)
    let agreed = 0
    for (let i = 0; i < values.length; i++) {
      const j = (i * 7 + 3) % values.length
      const agree = leafChanges(values[i], values[j], skip).length === 0
      expect(same(values[i], values[j], DEFAULT_SKIP)).toBe(agree)
      if (agree) agreed++
    }
    expect(agreed).toBeGreaterThan(0)
    // Edge cases: an empty key at the root adds no dot to the path; bytes by content; a wrapper's type counts;
    // the order of the leaves does not; a number is not the same string; nor is a leaf moved to another path.
    expect(same({ '': { x: 1 } }, { '': { x: 2 } }, new FieldPatterns(['/x']))).toBe(true)
    expect(same({ b: new Uint8Array([1, 2]) }, { b: new Uint8Array([1, 2]) }, none)).toBe(true)
    expect(same({ b: new Uint8Array([1, 2]) }, { b: new Uint8Array([1, 3]) }, none)).toBe(false)
    expect(same({ v: { type: 'Int32', value: 1 } }, { v: { type: 'Int64', value: 1 } }, none)).toBe(false)
    expect(same({ v: {} }, { v: [] }, none)).toBe(false)
    expect(same({ a: 1, b: 2 }, { b: 2, a: 1 }, none)).toBe(true)
    expect(same({ a: 1 }, { a: '1' }, none)).toBe(false)
    expect(same({ a: 'x', b: '' }, { a: '', b: 'x' }, none)).toBe(false)
    expect(same({ a: 0 }, { a: -0 }, none)).toBe(true)
    // A difference inside each kind of container.
    expect(same({ list: [1, 2] }, { list: [1, 3] }, none)).toBe(false)
    expect(same(new Map([[1, 'a']]), new Map([[1, 'b']]), none)).toBe(false)
    expect(same([{ key: 1, value: 'a' }], [{ key: 1, value: 'b' }], none)).toBe(false)
    expect(same([{ key: 1, value: 'a' }], [{ key: 1, value: 'b' }], new FieldPatterns(['/1']))).toBe(true)
  })

  it("gives, walking the value, the digest of valueLeaves' map under the same patterns", async () => {
    const walked = (v: unknown, patterns: FieldPatterns) => {
      const out = new Uint32Array(2)
      leafDigest(v, patterns, out, 0)
      return [...out]
    }
    // The definition: valueLeaves' map (a repeated path keeps its last leaf), less the paths a pattern matches.
    const mapped = (v: unknown, patterns: FieldPatterns) => {
      const out = new Uint32Array(2)
      leavesDigest(v, (path) => patterns.test(path), out, 0)
      return [...out]
    }
    const patternSets = [
      [],
      ['/responseTo', '/sentTime', '/parameters.221', '_id', '/body.p.tk'],
      ['*'],
      ['/*'],
      ['p.*.uid', 'value', '/x.y', 'b'],
      ['/'],
      ['/a.b', '/.x']
    ].map((list) => new FieldPatterns(list))
    const values: unknown[] = []
    for (const file of [A, B]) await fileDiffSource(file).decode((m) => values.push(m.value))
    let deep: unknown = 1
    for (let i = 0; i < 60; i++) deep = { d: deep }
    const oneAndOne = new Map<unknown, unknown>([
      [1, 'x'],
      ['1', 'y']
    ])
    values.push(
      // Paths that come twice: a dotted key and a nested one; a Map's 1 and '1'; empty keys at the root.
      { 'a.b': 1, a: { b: 2 } },
      { a: { b: 2 }, 'a.b': 1 },
      oneAndOne,
      { '': 1, x: { '': 2 } },
      { '': { '': 3 } },
      { '.x': 1, 'x.': 2, '..': 3, 'a.b': { c: 4 } },
      // Every kind of leaf.
      { n: Number.NaN, i: Number.POSITIVE_INFINITY, z: -0, g: 12n, u: undefined, t: true, s: '', nul: null },
      { short: new Uint8Array([0, 15, 16, 255]), long: new Uint8Array(40).map((_, i) => i * 7) },
      { sparse: Object.assign(new Array(3), { 0: 1, 2: 3 }), empty: [], none: {}, map: new Map() },
      { w: { type: 'Custom', value: new Uint8Array([1]), decoded: { x: 1 } }, e: { type: 'Array', value: [] } },
      [
        { key: { type: 'Byte', value: 7 }, value: 'a' },
        { key: null, value: 'b' },
        { key: {}, value: 'c' }
      ],
      deep,
      5,
      'root',
      undefined
    )
    for (const patterns of patternSets) for (const v of values) expect(walked(v, patterns)).toEqual(mapped(v, patterns))
    // The repeated paths are there: one leaf each in the map, two in the value.
    expect([...valueLeaves({ 'a.b': 1, a: { b: 2 } })]).toEqual([['a.b', { value: 2 }]])
    expect([...valueLeaves(oneAndOne)]).toEqual([['1', { value: 'y' }]])
    // The patterns by segments agree with the same patterns on whole paths (compilePattern, one at a time).
    const list = ['_id', '/_id', '/enet', 'p.*.uid', 'parameters.221', '/a.b', '*', '/*.x']
    const all = new FieldPatterns(list)
    const paths = [
      'body.p.p._id',
      '_id',
      'enet.sentTime',
      'enetx',
      'x.p.q.uid',
      'parameters.2210',
      'parameters.221.x',
      'a.b',
      'q.a.b',
      'a',
      'c.x',
      'q.c.x',
      '',
      'q.x'
    ]
    for (const path of paths) {
      expect(all.test(path)).toBe(list.some((p) => compilePattern(p)(path)))
      for (const p of list.slice(0, -2)) {
        const segments = path.split('.')
        expect(segments.some((_, i) => new FieldPatterns([p]).endsAt(segments, i))).toBe(compilePattern(p)(path))
      }
    }
  })

  it('decodes a capture again only for the values of messages that differ, and gives the report of the values held in memory', async () => {
    // Sources that count their decodes and keep every message (the values the report is checked against).
    const counting = (file: string) => {
      const source = fileDiffSource(file)
      const counted: { decodes: number; seen: DiffMessageInput[]; conversations: DiffConversationInput[]; source: DiffSource } = {
        decodes: 0,
        seen: [],
        conversations: [],
        source: {
          file: source.file,
          async decode(onMessage) {
            counted.decodes++
            const first = counted.decodes === 1
            const list = await source.decode((m) => {
              if (first) counted.seen.push(m)
              onMessage(m)
            })
            if (!first) return list
            counted.conversations = [...list]
            return counted.conversations
          }
        }
      }
      return counted
    }
    const a = counting(A)
    const b = counting(B)
    const r = await diffSources(a.source, b.source)
    expect(facts(r)).toEqual(EXPECTED)
    // Two messages differ (and the ids and tokens the defaults skip): each capture decoded twice.
    expect([a.decodes, b.decodes]).toEqual([2, 2])
    const inMemory = diffCaptures(
      diffSideOf(a.seen, a.conversations, {}, 'reference.pcapng'),
      diffSideOf(b.seen, b.conversations, {}, 'reimplementation.pcapng')
    )
    expect(r).toEqual(inMemory)
    // The same capture: no aligned message differs, no second decode.
    const a2 = counting(A)
    const a3 = counting(A)
    expect((await diffSources(a2.source, a3.source)).totals.changed).toBe(0)
    expect([a2.decodes, a3.decodes]).toEqual([1, 1])
  })

  it('ends a side given its messages out of id order sorted: the same rows, digests and report as in order', async () => {
    // The decoder hands held messages (roles not yet known) over after later ones; end() sorts by id.
    const decoded = async (file: string) => {
      const messages: DiffMessageInput[] = []
      const conversations = [...(await fileDiffSource(file).decode((m) => messages.push(m)))]
      return { messages: messages.sort((x, y) => x.id - y.id), conversations }
    }
    const a = await decoded(A)
    const b = await decoded(B)
    expect(a.messages.length).toBeGreaterThan(20)
    // every third message moved to the end, the rest reversed: no message stays where it was in order
    const shuffled = [...a.messages.filter((_, i) => i % 3 !== 0).reverse(), ...a.messages.filter((_, i) => i % 3 === 0)]
    for (const options of [{}, { noDefaults: true }] as DiffOptions[]) {
      const inOrder = diffSideOf(a.messages, a.conversations, options)
      const outOfOrder = diffSideOf(shuffled, a.conversations, options)
      // each message's row, read back (keys and protocols are numbered in the order first seen, so not the ids)
      const rows = (side: DiffSide) =>
        Array.from({ length: side.count }, (_, i) => [side.id(i), side.conversation(i), side.key(i).text, side.protocol(i), side.isPhotonOp(i), side.frames(i)])
      expect(rows(outOfOrder)).toEqual(rows(inOrder))
      expect(rows(inOrder).map((r) => r[5])).toEqual(a.messages.map((m) => m.frames))
      expect(Array.from({ length: inOrder.count }, (_, i) => outOfOrder.sameDigest(i, inOrder, i))).not.toContain(false)
      const other = diffSideOf(b.messages, b.conversations, options)
      expect(diffCaptures(outOfOrder, other)).toEqual(diffCaptures(inOrder, other))
    }
  })

  it('compares again with the sides of an earlier comparison when it ignores more, and decodes again when it ignores less', async () => {
    let decodes = 0
    const counted = (file: string): DiffSource => {
      const source = fileDiffSource(file)
      return { file: source.file, decode: (onMessage) => (decodes++, source.decode(onMessage)) }
    }
    const report = async (options: DiffOptions, known?: DiffSides) => {
      const { A: a, B: b } = await compareSides(counted(A), counted(B), options, known)
      return diffCaptures(a, b, options)
    }
    const first = await compareSides(counted(A), counted(B))
    expect(decodes).toBe(4)
    // More ignored: the same report as a fresh comparison, from the sides kept.
    for (const options of [{ ignore: ['gold'] }, { ignore: ['gold', '/parameters.248'] }]) {
      const again = await report(options, first)
      expect(decodes).toBe(4)
      expect(again).toEqual(await diffSources(fileDiffSource(A), fileDiffSource(B), options))
    }
    expect((await report({ ignore: ['gold'] }, first)).totals.changed).toBe(1)
    // Less ignored (the defaults left out): decoded again.
    const all = await report({ noDefaults: true }, first)
    expect(decodes).toBe(8)
    expect(all).toEqual(await diffSources(fileDiffSource(A), fileDiffSource(B), { noDefaults: true }))
    expect(ignoreRules({ ignore: ['x'] }).covers(ignoreRules({}))).toBe(true)
    expect(ignoreRules({}).covers(ignoreRules({ ignore: ['x'] }))).toBe(false)
    expect(ignoreRules({ noDefaults: true }).covers(ignoreRules({}))).toBe(false)
    expect(ignoreRules({ ignore: ['/peerId'] }).covers(ignoreRules({ noDefaults: true, ignore: ['/peerId'] }))).toBe(true)
  })

  it('a capture that decodes differently the second time is an error, not a wrong report', async () => {
    const source = fileDiffSource(B)
    let decodes = 0
    // The second decode renames the CreateGame response (as other keys or a changed file could).
    const changing: DiffSource = {
      file: 'changing.pcapng',
      decode(onMessage) {
        decodes++
        return source.decode((m) => onMessage(decodes > 1 && m.name === 'CreateGame response' ? { ...m, name: 'JoinGame response' } : m))
      }
    }
    await expect(diffSources(fileDiffSource(A), changing)).rejects.toThrow(/decoded differently the second time in changing\.pcapng: compare again/)
    // A message that is not there at all the second time.
    let drops = 0
    const dropping: DiffSource = {
      file: 'dropping.pcapng',
      decode(onMessage) {
        drops++
        return source.decode((m) => (drops > 1 && m.name === 'CreateGame response' ? undefined : onMessage(m)))
      }
    }
    await expect(diffSources(fileDiffSource(A), dropping)).rejects.toThrow(
      /message #\d+ was not there when the capture was decoded again in dropping\.pcapng: compare again/
    )
  })

  it('through the CLI: --json is the same report, the text names each difference, bad arguments exit 2', () => {
    const j = gw('diff', A, B, '--json')
    expect(j.stderr).toBe('')
    expect(j.code).toBe(0)
    const doc = JSON.parse(j.stdout) as DiffReport
    expect(doc.format).toBe('gamewire-diff/1')
    expect(facts(doc)).toEqual(EXPECTED)
    expect(doc.a.file).toBe('reference.pcapng')
    const text = gw('diff', A, B)
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/only in A: #\d+ s2c Leave response \(frame \d+\)/)
    expect(text.stdout).toMatch(/only in B: #\d+ s2c PropertiesChanged event/)
    expect(text.stdout).toMatch(/parameters\.248\.255: 8 -> 4/)
    expect(text.stdout).toMatch(/body\.p\.p\.gold: 90 -> 80/)
    expect(text.stdout).toMatch(/total: \d+ aligned, 2 with differences, 1 only in A, 1 only in B/)
    const ignored = JSON.parse(gw('diff', A, B, '--json', '--ignore', 'gold', '-i', '/parameters.248').stdout) as DiffReport
    expect(ignored.totals.changed).toBe(0)
    expect(gw('diff', A).code).toBe(2)
    expect(gw('diff', A, join(tmp, 'missing.pcapng')).stderr).toMatch(/capture file not found/)
    expect(gw('diff', A, B, '--ignore', 'a..b').code).toBe(2)
    // A file that is not a capture, on either side (B's side is made in a worker thread): one line, exit 2.
    const notCapture = join(tmp, 'not-a-capture.pcapng')
    writeFileSync(notCapture, 'this is not a capture file, only text in a file named like one')
    for (const args of [
      [notCapture, B],
      [A, notCapture]
    ]) {
      const bad = gw('diff', ...args)
      expect(bad.code).toBe(2)
      expect(bad.stderr).toMatch(/^gamewire: [^\n]*not-a-capture[^\n]*\n$/)
      expect(bad.stderr).not.toMatch(/internal error/)
    }
  })

  it('gives the same report with the values of the messages that differ kept in a file', async () => {
    const [gameA, gameB] = gamePair()
    const spillDir = mkdtempSync(join(tmp, 'spill-'))
    // the file source's own store from one value on, each one made kept to see that it was used and freed
    const made: SpilledValues[] = []
    const spilled = (file: string): DiffSource => {
      const source = fileDiffSource(file, { spill: { dir: spillDir, at: 1 } })
      return { ...source, valueStore: (count) => made[made.push(source.valueStore!(count) as SpilledValues) - 1] }
    }
    for (const [a, b] of [
      [A, B],
      [gameA, gameB]
    ]) {
      for (const options of [{}, { noDefaults: true }, { ignore: ['gold'] }] as DiffOptions[]) {
        const expected = await diffSources(fileDiffSource(a), fileDiffSource(b), options)
        expect(expected.totals.changed).toBeGreaterThan(0)
        made.length = 0
        expect(await diffSources(spilled(a), spilled(b), options)).toEqual(expected)
        expect(made).toHaveLength(2)
        expect(made.map((v) => v.size)).not.toContain(0)
        // A's store held the first changed message's value, and no longer does: the report freed it
        expect(made[0].has(expected.conversations.find((c) => c.changed.length)!.changed[0].a.id)).toBe(false)
      }
    }
    expect(fileDiffSource(A).valueStore!(SPILL_VALUES - 1)).toBeUndefined()
    // the game pair differs in hundreds of messages, more than the scripted one
    expect((await diffSources(fileDiffSource(gameA), fileDiffSource(gameB))).totals.changed).toBeGreaterThan(300)
    expect(readdirSync(spillDir)).toEqual([])
  })

  it('gives the same report with a side made in another thread, its columns transferred', async () => {
    // A source whose side is decoded here, then sent through structured cloning as a worker's would be.
    const sentSide = (file: string): DiffSource => {
      const source = fileDiffSource(file)
      return {
        ...source,
        async side(options) {
          const columns = (await decodeSide(source, options)).columns()
          return new DiffSide(options, { columns: structuredClone(columns, { transfer: columnBuffers(columns) }) })
        }
      }
    }
    for (const options of [{}, { noDefaults: true }, { ignore: ['gold'] }] as DiffOptions[]) {
      const expected = await diffSources(fileDiffSource(A), fileDiffSource(B), options)
      expect(expected.totals.changed + expected.totals.onlyA).toBeGreaterThan(0)
      expect(await diffSources(fileDiffSource(A), sentSide(B), options)).toEqual(expected)
      expect(await diffSources(sentSide(A), sentSide(B), options)).toEqual(expected)
    }
    // The columns are cut to the side's messages: nothing of the doubled room is sent.
    const side = await decodeSide(fileDiffSource(B), {})
    const columns = side.columns()
    expect(columns.messages.ids.length).toBe(side.count)
    expect(columns.messages.digests.length).toBe(2 * side.count)
    expect(columns.conversations.rows.ids.length).toBe(side.conversations.count)
    // Every typed array in them, wherever it sits, is transferred: none is left behind to be copied.
    const views = (o: unknown): ArrayBufferView[] => (ArrayBuffer.isView(o) ? [o] : o !== null && typeof o === 'object' ? Object.values(o).flatMap(views) : [])
    const all = views(columns)
    expect(all.length).toBeGreaterThan(10)
    structuredClone(columns, { transfer: columnBuffers(columns) })
    expect(all.filter((v) => v.byteLength !== 0)).toEqual([])
  })

  it('gives the same report with sides and second decodes made in worker threads, their values in a file or serialized', async () => {
    const [gameA, gameB] = gamePair()
    const spillDir = mkdtempSync(join(tmp, 'worker-spill-'))
    for (const at of [1, SPILL_VALUES]) {
      // Each worker's values, as handed over: read only after the worker has ended.
      const stores: unknown[] = []
      const threaded = (file: string): DiffSource => {
        const source = fileDiffSource(file, { thread: true, spill: { dir: spillDir, at } })
        return { ...source, values: async (wanted) => stores[stores.push(await source.values!(wanted)) - 1] as SpilledValues }
      }
      for (const [a, b] of [
        [A, B],
        [gameA, gameB]
      ]) {
        const expected = await diffSources(fileDiffSource(a), fileDiffSource(b))
        stores.length = 0
        expect(await diffSources(fileDiffSource(a), threaded(b))).toEqual(expected)
        expect(await diffSources(threaded(a), threaded(b))).toEqual(expected)
        expect(stores).toHaveLength(3)
        for (const s of stores) expect(s).toBeInstanceOf(at === 1 ? SpilledValues : Map)
        const first = expected.conversations.find((c) => c.changed.length)!.changed[0]
        // B's values held the first changed message's; in a file, the report freed them
        expect((stores[0] as Map<number, unknown>).has(first.b.id)).toBe(at !== 1)
      }
    }
    expect(readdirSync(spillDir)).toEqual([])
    // A file changed between the two decodes (the worker's second decode reads it again): an error, not a wrong report.
    const changing = join(tmp, 'worker-changing.pcapng')
    copyFileSync(B, changing)
    const source = fileDiffSource(changing, { thread: true })
    const replaced: DiffSource = {
      ...source,
      values: (wanted) => {
        copyFileSync(A, changing)
        return source.values!(wanted)
      }
    }
    await expect(diffSources(fileDiffSource(A), replaced)).rejects.toThrow(
      /(decoded differently the second time|was not there when the capture was decoded again) in worker-changing\.pcapng: compare again/
    )
  })
})
