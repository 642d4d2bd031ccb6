// The tree-less index pass must answer filters exactly as the full decode does. The oracle is the full
// tree: every committed capture is decoded twice, once with trees (targetFromMessage, which the CLI filter
// uses) and once without (MessageIndex + IndexTarget, which the app's timeline filter uses), and every key
// the index claims to answer must give the same values and presence for every message.

import { describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { allFields, indexSubtree, isIndexField, isPresenceField, presenceKey } from '../../../src-shared/bytes/fields'
import type { FieldNode, FieldScalar } from '../../../src-shared/model/types'
import type { EngineOptions } from '../../../src-shared/engine/engine'
import { IndexTarget, MessageIndex } from '../../../src-shared/engine/message-index'
import { META_KEYS, messageMetaFields } from '../../../src-shared/engine/meta-fields'
import { RecentFrameLengths } from '../../../src-shared/engine/frame-lengths'
import { compileFilter, targetFromMessage, type FilterTarget } from '../../../src-shared/filter'
import { SchemaSet } from '../../../src-shared/schema/set'
import { validateSchemaPack } from '../../../src-shared/schema/validate'
import { filterNeedsTree } from '../../../src-main/host/view-matcher'
import { committedCaptures, decodeCaptureFile } from '../helpers/captures'

const root = join(__dirname, '../../..')

const files = committedCaptures()

/** Decodes a file; `each` sees every message with its conversation and wire direction; `lengths` keeps its frames'. */
function decode(file: string, recording: boolean, each: EngineOptions['onMessage'], schemas?: SchemaSet, lengths?: RecentFrameLengths): void {
  decodeCaptureFile(file, { schemas, recording, onMessage: each, onFrame: (f) => lengths?.put(f) })
}

/** The same values in the same order (bytes byte by byte). */
function sameValues(got: readonly FieldScalar[], want: readonly FieldScalar[]): boolean {
  const same = (a: FieldScalar, b: FieldScalar) =>
    Object.is(a, b) || (a instanceof Uint8Array && b instanceof Uint8Array && a.length === b.length && a.every((x, j) => x === b[j]))
  return got.length === want.length && got.every((v, i) => same(v, want[i]))
}

/** The index of a file's messages, and its frames' lengths (as the app's frame store keeps them). */
function indexed(file: string, schemas?: SchemaSet): { index: MessageIndex; lengths: RecentFrameLengths } {
  const index = new MessageIndex()
  const lengths = new RecentFrameLengths()
  decode(file, false, (m, conv, dir) => index.add(m, conv, dir), schemas, lengths)
  return { index, lengths }
}

/**
 * With `params`, also collects the SFS2X parameters' keys the trees hold (`sfs2x.p.p.<name>`, `sfs2x.p.p.p.<name>`).
 * The frame lengths are the CLI's: the decode's own (view-index.test.ts checks them against tshark).
 */
function full(file: string, schemas?: SchemaSet, params?: Set<string>): FilterTarget[] {
  const out: FilterTarget[] = []
  const lengths = new RecentFrameLengths()
  decode(
    file,
    true,
    (m, conv, dir) => {
      out.push(targetFromMessage(m, messageMetaFields(m, conv, dir, lengths)))
      if (params) {
        walk(m.tree, (k) => {
          for (const family of ['sfs2x.p.p.', 'sfs2x.p.p.p.']) if (k.startsWith(family)) params.add(family + k.slice(family.length).split('.')[0])
        })
      }
    },
    schemas,
    lengths
  )
  return out
}

function walk(nodes: readonly FieldNode[], each: (key: string) => void): void {
  for (const n of nodes) {
    each(n.key)
    if (n.children) walk(n.children, each)
  }
}

const LAYERS = ['udp', 'tcp', 'websocket', 'http', 'photon', 'sfs2x', 'fignet', 'enet', 'litenetlib', 'unknown', 'ip', 'ipv6', 'frame', 'gamewire']
// The meta fields (frame number, time and lengths, addresses, ports, gamewire.*; an index target reads
// the frame lengths from the frames' lengths it is given, as the app's frame store); the other
// frame/IP/UDP/TCP fields are the frames' layers, which only a tree built with layers holds (net/layers.ts).
const META = [...META_KEYS]
const LAYER_ONLY = allFields()
  .filter((f) => /^(frame|eth|ip|ipv6|udp|tcp)\./.test(f.key) && !META_KEYS.has(f.key))
  .map((f) => f.key)
const INDEXED = allFields()
  .filter((f) => f.index)
  .map((f) => f.key)
// Subtrees of index fields only (`photon.ev`): the index answers whether a message has them.
const SUBTREES = [...new Set(allFields().flatMap((f) => f.key.split('.').map((_, i, parts) => parts.slice(0, i).join('.'))))].filter(
  (k) => k && indexSubtree(k) !== undefined
)
// Keys whose presence alone the index keeps (not their values): a Photon body's parameters by code.
const PRESENCES = Array.from({ length: 256 }, (_, code) => `photon.param.${code}`)

describe('index pass answers filters as the full decode does', () => {
  it('declares a useful set of index fields', () => {
    for (const k of ['photon.op.code', 'photon.ev.code', 'sfs2x.cmd', 'sfs2x.controller', 'fignet.msg_id', 'enet.channel']) expect(isIndexField(k)).toBe(true)
    expect(SUBTREES).toEqual(expect.arrayContaining(['photon.ev', 'photon.op']))
    for (const k of [...META, ...INDEXED, ...LAYERS, ...SUBTREES]) expect(IndexTarget.answers(k)).toBe(true)
    for (const k of ['photon.param.key', 'photon.cmd.seq', 'photon.msg', 'entangle.room_name']) expect(IndexTarget.answers(k), k).toBe(false)
    // a group declared as an index field, and one that covers fields with no node of its own: the index
    // keeps which messages have it
    expect(IndexTarget.answers('photon.cmd')).toBe(true)
    expect(IndexTarget.answers('entangle')).toBe(true)
    expect(META.length).toBeGreaterThan(15)
    expect(LAYER_ONLY).toEqual(expect.arrayContaining(['ip.ttl', 'frame.interface_id', 'tcp.seq', 'eth.src', 'udp.length']))
    for (const k of LAYER_ONLY) expect(IndexTarget.answers(k), k).toBe(false)
    for (const k of ['frame.len', 'frame.cap_len']) expect(META, k).toContain(k)
    // A parameter's presence, not its values, and not an entry under it.
    for (const k of PRESENCES) expect([IndexTarget.answers(k), isPresenceField(k)], k).toEqual([false, true])
    for (const k of ['photon.param.245.1', 'photon.param.x', 'photon.param.', 'photon.param', 'photon.value.1']) expect(isPresenceField(k), k).toBe(false)
  })

  it.each(files.map((f) => [f.slice(root.length + 1), f]))('%s', (_name, file) => {
    const { index, lengths } = indexed(file)
    const sfsParams = new Set<string>()
    const trees = full(file, undefined, sfsParams)
    expect(index.count).toBe(trees.length)
    const t = index.target(lengths)
    let compared = 0
    const present = { photon: 0, sfs2x: 0 }
    const keptValues = { photon: 0, sfs2x: 0 }
    for (let r = 0; r < trees.length; r++) {
      t.at(r)
      for (const key of [...META, ...INDEXED, ...LAYERS, ...SUBTREES]) {
        if (key === 'gamewire.summary' && index.summaryCutAt(r)) continue // cut in the index: the view decodes such rows again
        const want = trees[r].values(key)
        const got = t.values(key)
        if (!sameValues(got, want)) {
          expect({ row: r, key, values: got }).toEqual({ row: r, key, values: want })
        }
        expect({ row: r, key, has: t.has(key) }).toEqual({ row: r, key, has: trees[r].has(key) })
        compared += want.length
      }
      // Parameters (Photon's by code, SFS2X's by name): presence always, values unless the row is marked as
      // one whose tree holds values the index does not keep (its presence entry).
      const families = [
        ['photon', 'photon.param', PRESENCES],
        ['sfs2x', 'sfs2x.p.p', [...sfsParams, 'sfs2x.p.p.nosuch']]
      ] as const
      for (const [family, group, keys] of families) {
        if (!trees[r].has(group)) {
          for (const key of keys) if (t.has(key)) expect({ row: r, key, has: true }).toEqual({ row: r, key, has: false })
          continue
        }
        for (const key of keys) {
          const has = trees[r].has(key)
          if (has !== t.has(key)) expect({ row: r, key, has: t.has(key) }).toEqual({ row: r, key, has })
          if (!has) continue
          present[family]++
          if (index.fields.get(presenceKey(key))?.has(r)) continue
          const want = trees[r].values(key)
          if (!sameValues(t.values(key), want)) expect({ row: r, key, values: t.values(key) }).toEqual({ row: r, key, values: want })
          keptValues[family] += want.length
        }
      }
    }
    if (trees.length) expect(compared).toBeGreaterThan(0)
    if (trees.some((tt) => tt.has('photon.param'))) expect([present.photon, keptValues.photon].map((n) => n > 0)).toEqual([true, true])
    if (sfsParams.size) expect([present.sfs2x, keptValues.sfs2x].map((n) => n > 0)).toEqual([true, true])
    if (file.endsWith('lastwar-tcp.pcapng')) expect([...sfsParams].filter((k) => k.startsWith('sfs2x.p.p.p.')).length).toBeGreaterThan(2)
  })

  it('the demo capture has index-field values for every protocol', () => {
    const { index, lengths } = indexed(join(root, 'resources/demo.pcapng'))
    const t = index.target(lengths)
    const seen = new Set<string>()
    for (let r = 0; r < index.count; r++) for (const k of INDEXED) if (t.at(r).values(k).length) seen.add(k.split('.')[0])
    expect([...seen].sort()).toEqual(expect.arrayContaining(['enet', 'fignet', 'photon', 'sfs2x']))
  })

  it('matches the same rows for filters that mix meta and index fields', () => {
    const file = join(root, 'resources/demo.pcapng')
    const { index, lengths } = indexed(file)
    const trees = full(file)
    const t = index.target(lengths)
    for (const expr of [
      'udp.port == 5055',
      'photon.ev.code == 253 || sfs2x.cmd',
      'fignet && !(fignet.channel == 0)',
      'ip.src == 127.0.0.1 && tcp',
      'gamewire.error',
      'frame.number > 20 && frame.number < 60',
      // frame lengths: the index target's from the frames' lengths, the tree's from its frame groups
      'frame.len > 100 && photon || frame.cap_len < 60',
      'photon.cmd.type == 6 and udp.srcport != 5055',
      // One field named several times, and two alternating (the target keeps the last field it read).
      'photon.key == 1 || photon.key == 245 || photon.key == 0',
      'photon.key == 245 && !(photon.key == 1)',
      'photon.ev.code == 253 || photon.key == 245 || photon.ev.code == 255',
      // subtrees of index fields only: whether a message has them at all
      'photon.ev',
      'photon.op && !photon.ev.code',
      '!photon.op && photon',
      // a group the index keeps as presence (it has no value)
      'photon.cmd && !photon.ev',
      '!photon.cmd && photon',
      // parameters by code, tested for presence
      'photon.param.245',
      'photon.param.252 || photon.param.245 && !photon.param.244',
      'not photon.param.0 && photon.op.code == 230'
    ]) {
      const f = compileFilter(expr)
      const want = trees.flatMap((tt, r) => (f.matches(tt) ? [r] : []))
      const got: number[] = []
      for (let r = 0; r < index.count; r++) if (f.matches(t.at(r))) got.push(r)
      expect({ expr, rows: got }).toEqual({ expr, rows: want })
    }
  })

  it('gives the same index values with schema packs loaded (names, real codes, layouts)', () => {
    // Packs over the demo's three protocols: Photon events by code and by a parameter's value, an SFS2X
    // extension, FigNet ids the demo sends; the demo capture, decoded at both depths.
    const packs = new SchemaSet([
      validateSchemaPack({
        format: 'gamewire-schema/1',
        name: 'Demo photon',
        photon: {
          parameters: { '245': 'content' },
          events: [
            { code: 12, name: 'Cached' },
            { code: 202, codeParameter: 254, name: 'FromActor1' }
          ]
        }
      }),
      validateSchemaPack({ format: 'gamewire-schema/1', name: 'Demo fignet', fignet: { messages: [{ id: 60406, name: 'Update', codec: 'MemoryPack' }] } })
    ])
    const file = join(root, 'resources/demo.pcapng')
    const { index, lengths } = indexed(file, packs)
    const trees = full(file, packs)
    expect(index.count).toBe(trees.length)
    const t = index.target(lengths)
    let named = 0
    for (let r = 0; r < trees.length; r++) {
      t.at(r)
      for (const key of INDEXED) {
        expect({ row: r, key, values: t.values(key) }).toEqual({ row: r, key, values: trees[r].values(key) })
      }
      for (const key of PRESENCES) {
        expect({ row: r, key, has: t.has(key) }).toEqual({ row: r, key, has: trees[r].has(key) })
        if (!index.fields.get(presenceKey(key))?.has(r)) expect({ row: r, key, values: t.values(key) }).toEqual({ row: r, key, values: trees[r].values(key) })
      }
      if (trees[r].values('schema.name').length) named++
    }
    expect(named).toBeGreaterThan(0)
  })
})

// The CLI, shards and live capture match filters on index fields without building trees: a message decoded
// without a tree carries its index fields' values, and targetFromMessage reads them.
describe('a message decoded without a tree answers index-field filters as its tree does', () => {
  it('filterNeedsTree asks for trees only for keys that are neither meta keys nor index fields', () => {
    expect(filterNeedsTree(['photon.ev.code', 'udp.port', 'gamewire.name', 'photon', 'photon.ev', 'photon.op'])).toBe(false)
    expect(filterNeedsTree(['photon.ev.code', 'entangle.room_name'])).toBe(true)
    expect(filterNeedsTree(['entangle'])).toBe(false)
    expect(filterNeedsTree(['photon.cmd'])).toBe(false)
    expect(filterNeedsTree(['photon.cmd.seq'])).toBe(true)
    // header fields: the frames' layers, which the tree-less pass builds when asked (needsLayers)
    expect(filterNeedsTree(['ip.ttl'])).toBe(false)
    expect(filterNeedsTree(['ip.ttl', 'entangle.room_name'])).toBe(true)
    // A parameter by code: its presence is in the index, its values are not.
    expect(filterNeedsTree(['photon.param.245'])).toBe(true)
    expect(filterNeedsTree(['photon.param.245', 'photon.ev.code'], ['photon.param.245'])).toBe(false)
    expect(filterNeedsTree(['photon.param.245.1'], ['photon.param.245.1'])).toBe(true)
    expect(filterNeedsTree(['entangle.room_name'], ['entangle.room_name'])).toBe(true)
  })

  it.each(files.map((f) => [f.slice(root.length + 1), f]))('%s', (_name, file) => {
    const trees = full(file)
    const fast: FilterTarget[] = []
    decode(file, false, (m, conv, dir) => fast.push(targetFromMessage(m, messageMetaFields(m, conv, dir))))
    expect(fast.length).toBe(trees.length)
    for (let r = 0; r < trees.length; r++) {
      for (const k of [...INDEXED, ...SUBTREES]) {
        expect(fast[r].values(k), `message ${r + 1} ${k}`).toEqual(trees[r].values(k))
        expect(fast[r].has(k), `message ${r + 1} has ${k}`).toBe(trees[r].has(k))
      }
      for (const k of PRESENCES) if (fast[r].has(k) !== trees[r].has(k)) expect(fast[r].has(k), `message ${r + 1} has ${k}`).toBe(trees[r].has(k))
    }
    for (const expr of [
      'photon.ev.code == 253 || sfs2x.cmd',
      'fignet.channel == 0 && udp',
      'photon.key == 245 && !(photon.key == 1)',
      'photon.op || photon.ev',
      'photon.cmd && !photon.op',
      'photon.param.245 && !photon.param.244'
    ]) {
      const f = compileFilter(expr)
      expect(
        fast.map((t) => f.matches(t)),
        expr
      ).toEqual(trees.map((t) => f.matches(t)))
    }
  })
})
