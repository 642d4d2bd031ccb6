// The SFSObject/SFSArray codec: round trips through an independent encoder for every type tag, the
// quirks, malformed input (bad tags, lying counts, truncation, CLASS, nesting), and exact byte ranges.
import { describe, it, expect } from 'vitest'
import { FieldReader } from '../../../../src-shared/bytes/reader'
import { TreeBuilder } from '../../../../src-shared/bytes/tree'
import { jsonSafe, jsonText } from '../../../../src-shared/export/json'
import { decodeSfs } from '../../../../src-shared/protocols/sfs2x/sfsobject'
import { targetFromMessage, type FilterTarget } from '../../../../src-shared/filter'
import type { FieldNode, FieldScalar } from '../../../../src-shared/model/types'
import { encode, ext, find, findAll, harness, packet, rangeBytes, t, unhex, type TV } from './helpers'

function decode(bytes: Uint8Array, opts: { maxDepth?: number; recording?: boolean } = {}) {
  const tree = new TreeBuilder(opts.recording ?? true)
  const res = decodeSfs(new FieldReader(bytes, tree, 0), 'Body', { maxDepth: opts.maxDepth })
  return { ...res, tree: tree.roots }
}

const ALL: Record<string, TV> = {
  n: t.null(),
  b: t.bool(true),
  y: t.byte(250),
  s: t.short(-12345),
  i: t.int(-7),
  l: t.long(-9223372036854775808n),
  lmax: t.long(9223372036854775807n),
  f: t.float(Math.fround(1.1)),
  d: t.double(-2.5e-10),
  u: t.str('héllo 中 😀'),
  ba: t.boolArr([false, true]),
  by: t.bytes([0, 255, 16]),
  sa: t.shortArr([-1, 2]),
  ia: t.intArr([2147483647, -2147483648]),
  la: t.longArr([1n, -1n, 2n ** 62n]),
  fa: t.floatArr([Math.fround(0.1), 2]),
  da: t.doubleArr([0.1, -0]),
  ua: t.strArr(['', 'x', 'ü']),
  arr: t.arr(t.int(1), t.str('two'), t.null(), t.obj({ k: t.long(5n) }), t.arr(t.bool(false))),
  o: t.obj({ deep: t.obj({ x: t.text('text ' + 'y'.repeat(70000)) }) }),
  tx: t.text('')
}

describe('SFSObject codec', () => {
  it('round-trips every type tag (0-18, 20) through an independent encoder', () => {
    const v = t.obj(ALL)
    const res = decode(encode(v))
    expect(res.error).toBeNull()
    expect(res.value).toEqual(v) // bigint LONGs, Uint8Array BYTE_ARRAY, exact floats, nested order
    expect(jsonSafe(res.value)).toMatchObject({
      value: {
        l: { type: 'LONG', value: '-9223372036854775808' },
        by: { type: 'BYTE_ARRAY', value: '00ff10' },
        la: { value: ['1', '-1', '4611686018427387904'] }
      }
    })
    // row pass: same value, no tree
    const rows = decode(encode(v), { recording: false })
    expect(rows.value).toEqual(v)
    expect(rows.tree).toEqual([])
  })

  it('keeps repeated object keys by their bytes: a repeat, a hash collision, non-ASCII and long keys decode right', () => {
    // 'Aa' and 'BB' have the same hash in the key cache, so the second must be told apart by its bytes;
    // 'é' is 2 bytes for 1 char and 'ÿ' a lone 0xff byte in the raw form below (both never served from the cache).
    const long = 'k'.repeat(40)
    const v = t.obj({
      x: t.obj({ Aa: t.int(1), BB: t.int(2), é: t.int(3), [long]: t.int(4) }),
      y: t.obj({ BB: t.int(5), Aa: t.int(6), é: t.int(7), [long]: t.int(8) }),
      z: t.arr(t.obj({ Aa: t.int(9) }), t.obj({ BB: t.int(10) }))
    })
    for (const recording of [true, false]) {
      for (let pass = 0; pass < 2; pass++) expect(decode(encode(v), { recording }).value).toEqual(v)
    }
    // A key of one invalid byte (0xff) decodes to U+FFFD every time, and does not shadow an ASCII key.
    const raw = unhex('12 0002 0001 ff 04 00000001 0001 41 04 00000002')
    for (let pass = 0; pass < 2; pass++) {
      expect([...(decode(raw).value!.value as Map<string, unknown>).keys()]).toEqual(['\ufffd', 'A'])
    }
  })

  it('round-trips a top-level SFSArray', () => {
    const v = t.arr(t.obj({ a: t.int(1) }), t.strArr(['q']))
    expect(decode(encode(v)).value).toEqual(v)
  })

  it('keys every entry sfs2x.p.<path>, array elements sharing the array key, with labels', () => {
    const res = decode(encode(t.obj(ALL)))
    const root = res.tree[0]
    expect(root.key).toBe('sfs2x.object')
    expect(root.label).toBe(`Body (SFS_OBJECT, ${Object.keys(ALL).length} keys)`)
    expect(find(res.tree, 'sfs2x.p.u').label).toBe('u (UTF_STRING): "héllo 中 😀"')
    expect(find(res.tree, 'sfs2x.p.y').label).toBe('y (BYTE): 250')
    expect(find(res.tree, 'sfs2x.p.l').value).toBe(-9223372036854775808n)
    expect(find(res.tree, 'sfs2x.p.ia').label).toBe('ia (INT_ARRAY, 2): [2147483647, -2147483648]')
    expect(findAll(res.tree, 'sfs2x.p.ia').map((n) => n.value)).toEqual([undefined, 2147483647, -2147483648])
    expect(findAll(res.tree, 'sfs2x.p.arr.k').map((n) => n.value)).toEqual([5n])
    expect(find(res.tree, 'sfs2x.p.o.deep.x').label).toMatch(/^x \(TEXT\): "text y+"… \(70005 chars\)$/)
    expect(find(res.tree, 'sfs2x.p.by').label).toBe('by (BYTE_ARRAY): 3 bytes: 00ff10')
  })

  it('gives each entry the range of its tag and value', () => {
    const bytes = encode(t.obj({ c: t.str('move'), n: t.int(258), ia: t.intArr([1, 2]), o: t.obj({ z: t.bool(true) }) }))
    const res = decode(bytes)
    const src = [{ bytes }]
    expect([...rangeBytes(src, find(res.tree, 'sfs2x.p.c'))]).toEqual([0x08, 0x00, 0x04, ...Buffer.from('move')])
    expect([...rangeBytes(src, find(res.tree, 'sfs2x.p.n'))]).toEqual([0x04, 0, 0, 1, 2])
    const ia = findAll(res.tree, 'sfs2x.p.ia')
    expect([...rangeBytes(src, ia[0])]).toEqual([0x0c, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2])
    expect([...rangeBytes(src, ia[2])]).toEqual([0, 0, 0, 2])
    expect([...rangeBytes(src, find(res.tree, 'sfs2x.p.o'))]).toEqual([0x12, 0, 1, 0, 1, 0x7a, 0x01, 0x01])
    expect([...rangeBytes(src, find(res.tree, 'sfs2x.p.o.z'))]).toEqual([0x01, 0x01])
    expect(res.tree[0]).toMatchObject({ start: 0, length: bytes.length })
  })

  it('reads BYTE unsigned, BYTE_ARRAY and TEXT with 4-byte lengths, arrays with u16 counts', () => {
    const res = decode(unhex('120003 0001 62 02 ff  0002 6261 0a 00000002 abcd  0001 74 14 00000002 6869'))
    expect(jsonSafe(res.value)).toEqual({
      type: 'SFS_OBJECT',
      value: { b: { type: 'BYTE', value: 255 }, ba: { type: 'BYTE_ARRAY', value: 'abcd' }, t: { type: 'TEXT', value: 'hi' } }
    })
  })

  it('keeps wire order for integer-like keys in the export text', () => {
    const v = t.obj([
      ['10', t.int(1)],
      ['2', t.int(2)],
      [
        'b',
        t.obj([
          ['9', t.null()],
          ['0', t.bool(true)]
        ])
      ],
      ['1', t.str('x')]
    ])
    const res = decode(encode(v))
    expect(res.error).toBeNull()
    expect(jsonText(res.value)).toBe(
      '{"type":"SFS_OBJECT","value":{"10":{"type":"INT","value":1},"2":{"type":"INT","value":2},' +
        '"b":{"type":"SFS_OBJECT","value":{"9":{"type":"NULL","value":null},"0":{"type":"BOOL","value":true}}},"1":{"type":"UTF_STRING","value":"x"}}}'
    )
  })

  it('keeps a key named __proto__ as a plain key', () => {
    const bytes = unhex('120001 0009' + Buffer.from('__proto__').toString('hex') + '04 00000001')
    const res = decode(bytes)
    expect(res.error).toBeNull()
    expect([...(res.value!.value as Map<string, unknown>).keys()]).toEqual(['__proto__'])
    // JSON.parse makes __proto__ an own key, as the export does
    expect(jsonSafe(res.value)).toEqual(JSON.parse('{"type":"SFS_OBJECT","value":{"__proto__":{"type":"INT","value":1}}}'))
    expect(jsonText(res.value)).toBe('{"type":"SFS_OBJECT","value":{"__proto__":{"type":"INT","value":1}}}')
  })
})

describe('SFSObject codec: malformed input', () => {
  it('reports an unknown type tag with its offset, keeping what came before', () => {
    const res = decode(unhex('120002 0001 61 04 00000001 0001 62 55 00'))
    expect(res.error!.message).toBe('unknown type tag 85 (0x55) at offset 14')
    expect(res.error!.offset).toBe(14)
    expect(jsonSafe(res.value)).toEqual({ type: 'SFS_OBJECT', value: { a: { type: 'INT', value: 1 } } })
    expect(find(res.tree, 'sfs2x.p.a').value).toBe(1)
  })

  it('checks counts against the bytes left before reading (no huge allocation)', () => {
    expect(decode(unhex('12ffff 00')).error!.message).toBe('SFSObject claims 65535 keys but only 1 bytes follow the count at offset 1')
    expect(decode(unhex('120001 0001 61 11 ffff')).error!.message).toBe('SFSArray claims 65535 elements but only 0 bytes follow the count at offset 7')
    expect(decode(unhex('120001 0001 61 0d 1000 00')).error!.message).toBe(
      'LONG_ARRAY claims 4096 elements (32768 bytes) but only 1 bytes follow the count at offset 7'
    )
    expect(decode(unhex('120001 0001 61 0a 7fffffff 00')).error!.message).toMatch(/^BYTE_ARRAY: needs 2147483647 bytes at offset 11, only 1 present$/)
    expect(decode(unhex('120001 0001 61 0a ffffffff')).error!.message).toBe('BYTE_ARRAY length -1 is negative at offset 7')
    expect(decode(unhex('120001 0001 61 14 fffffff0')).error!.message).toBe('TEXT length -16 is negative at offset 7')
  })

  it('reports truncation with the offset where bytes ran out', () => {
    const full = encode(t.obj({ s: t.str('hello'), i: t.int(5) }))
    const res = decode(full.subarray(0, 10))
    expect(res.error!.message).toBe('UTF_STRING: needs 5 bytes at offset 9, only 1 present')
    expect(res.error!.offset).toBe(9)
    expect(decode(new Uint8Array(0)).error!.message).toMatch(/offset 0/)
  })

  it('reports bytes left after the top-level object', () => {
    const res = decode(unhex('120000 aabb'))
    expect(res.error!.message).toBe('2 bytes left after the SFSObject at offset 3')
    expect(res.trailing).toBe(true)
    expect(res.objectEnd).toBe(3)
  })

  it('rejects a body that is not an SFSObject or SFSArray', () => {
    expect(decode(unhex('04 00000001')).error!.message).toBe('body does not start with an SFSObject (0x12) or SFSArray (0x11) tag: 0x04 at offset 0')
  })

  it('shows CLASS (19) as undecodable, with the rest of the body as its bytes', () => {
    const bytes = unhex('120002 0001 61 04 00000001 0003 636c73 13 120001 0002 2443 0800 01 41')
    const res = decode(bytes)
    expect(res.error!.message).toBe(
      'CLASS (19) value cannot be decoded (no length on the wire; the rest of the body, 11 bytes, is kept as its bytes) at offset 16'
    )
    expect(res.error!.offset).toBe(16)
    expect(jsonSafe(res.value)).toEqual({
      type: 'SFS_OBJECT',
      value: { a: { type: 'INT', value: 1 }, cls: { type: 'CLASS', value: '1200010002244308000141' } }
    })
    const node = find(res.tree, 'sfs2x.p.cls')
    expect(node.label).toMatch(/^cls \(CLASS\): undecodable, 11 bytes to the end of the body: 1200010002244308000141$/)
    expect([...rangeBytes([{ bytes }], node)]).toEqual([...bytes.subarray(16)])
  })

  it('caps nesting depth', () => {
    let v: TV = t.int(1)
    for (let i = 0; i < 70; i++) v = t.obj({ k: v })
    const res = decode(encode(v))
    expect(res.error!.message).toMatch(/^nesting deeper than 64 levels at offset \d+$/)
    expect(res.error!.offset).toBe(64 * 6) // 3-byte top, then 6 bytes per level (key + tag + count)
    const ok = decode(encode(v), { maxDepth: 100 })
    expect(ok.error).toBeNull()
    // a deep SFSArray chain too
    let a: TV = t.null()
    for (let i = 0; i < 200; i++) a = t.arr(a)
    expect(decode(encode(t.obj({ a }))).error!.message).toMatch(/nesting deeper than 64 levels/)
  })

  it('warns about values the SDKs refuse (BOOL other than 0/1, keys over 255 bytes, duplicate keys)', () => {
    const long = 'k'.repeat(300)
    const res = decode(unhex(`120003 0001 62 01 02 012c ${Buffer.from(long).toString('hex')} 00 0001 62 00`))
    expect(res.error).toBeNull()
    expect(res.warnings).toEqual([
      'BOOL value 2 at offset 7 (only 0 and 1 are valid)',
      'key of 300 bytes at offset 8 (the SDKs accept at most 255)',
      'duplicate key "b" at offset 311'
    ])
  })

  it('never throws on random input, and the row pass agrees with the tree pass', () => {
    let seed = 12345
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed)
    const base = encode(t.obj(ALL))
    for (let n = 0; n < 300; n++) {
      const b = base.slice(0, 20 + (rnd() % 200))
      for (let k = 0; k < 3; k++) b[rnd() % b.length] = rnd() & 0xff
      const a = decode(b)
      const r = decode(b, { recording: false })
      expect(r.error?.message).toBe(a.error?.message)
      expect(jsonSafe(r.value)).toEqual(jsonSafe(a.value))
    }
  })
})

describe('packets: malformed bodies', () => {
  it('a bad tag inside a packet: error with offset, fields before it kept', () => {
    const body = unhex('120002 0001 63 02 01 0001 61 33 00')
    const { m, draft } = harness().decode(packet(body))
    expect(draft.error).toBe('unknown type tag 51 (0x33) at offset 14')
    expect(find(m.draft.tree.roots, 'sfs2x.p.c').value).toBe(1)
    expect(jsonSafe(m.value)).toMatchObject({ length: 13, body: { type: 'SFS_OBJECT', value: { c: { type: 'BYTE', value: 1 } } } })
  })
})

// The index keeps the parameters of requests and responses (`sfs2x.p.p.<name>`) and of extension calls
// (`sfs2x.p.p.p.<name>`): a short scalar's value, otherwise that the message has it. The tree is the oracle:
// every first-level key it holds must be in the index, with the same values where the index keeps them.
describe('packets: parameters in the index', () => {
  const FAMILIES = ['sfs2x.p.p.p.', 'sfs2x.p.p.']
  function both(body: TV | Uint8Array): { kept: Map<string, FieldScalar[]>; present: Set<string>; tree: FilterTarget } {
    const bytes = packet(body)
    const roots = harness().decode(bytes).m.draft.tree.roots
    const ix = harness({ recording: false }).decode(bytes).m.draft.tree.indexed
    const kept = new Map<string, FieldScalar[]>()
    const present = new Set<string>()
    for (let i = 0; i < (ix?.keys.length ?? 0); i++) {
      const k = ix!.keys[i]
      if (k.startsWith('has:sfs2x.p.p.')) present.add(k.slice(4))
      else if (k.startsWith('sfs2x.p.p.')) kept.set(k, [...(kept.get(k) ?? []), ix!.values[i]])
    }
    const inTree = new Set<string>()
    const walk = (nodes: readonly FieldNode[]): void => {
      for (const n of nodes) {
        for (const f of FAMILIES) if (n.key.startsWith(f) && n.key.length > f.length) inTree.add(f + n.key.slice(f.length).split('.')[0])
        if (n.children) walk(n.children)
      }
    }
    walk(roots)
    const tree = targetFromMessage({ tree: roots, protocol: '', stack: [] })
    expect(new Set([...kept.keys(), ...present])).toEqual(inTree)
    for (const [k, vs] of kept) if (!present.has(k)) expect({ k, vs }).toEqual({ k, vs: tree.values(k) })
    return { kept, present, tree }
  }

  it('keeps short scalars as values and marks the rest, whatever puts a node under a key', () => {
    const body = t.obj([
      ['c', t.byte(1)],
      ['a', t.short(13)],
      [
        'p',
        t.obj({
          c: t.str('move'),
          r: t.int(3),
          n: t.long(5n),
          'a.b': t.int(1),
          big: t.str('x'.repeat(65)),
          ints: t.intArr([1, 2]),
          p: t.obj({ x: t.int(7), f: t.float(1.5), s: t.text('hi'), none: t.null(), objs: t.arr(t.obj({ y: t.int(9) })), sub: t.obj({ z: t.null() }) })
        })
      ],
      ['p.p.q', t.bool(true)]
    ])
    const { kept, present } = both(body)
    expect(Object.fromEntries([...kept].filter(([k]) => !present.has(k)))).toEqual({
      'sfs2x.p.p.c': ['move'],
      'sfs2x.p.p.r': [3],
      'sfs2x.p.p.n': [5n],
      'sfs2x.p.p.p.x': [7],
      'sfs2x.p.p.p.f': [1.5],
      'sfs2x.p.p.p.s': ['hi'],
      'sfs2x.p.p.p.none': [null],
      'sfs2x.p.p.p.q': [true]
    })
    expect([...present].sort()).toEqual(['sfs2x.p.p.a', 'sfs2x.p.p.big', 'sfs2x.p.p.ints', 'sfs2x.p.p.p', 'sfs2x.p.p.p.objs', 'sfs2x.p.p.p.sub'])
  })

  it('keeps the entries of objects in an array under the array key, as the tree does', () => {
    const { kept, present } = both(t.obj({ c: t.byte(1), a: t.short(13), p: t.arr(t.obj({ k: t.int(1) }), t.obj({ k: t.int(2), p: t.obj({ e: t.int(3) }) })) }))
    expect([kept.get('sfs2x.p.p.k'), kept.get('sfs2x.p.p.p.e'), [...present]]).toEqual([[1, 2], [3], ['sfs2x.p.p.p']])
  })

  it('keeps no values when a key is held twice (the tree has both, the parsed object the last)', () => {
    const bytes = encode(ext('move', { x: t.int(1), w: t.int(2) }))
    const w = bytes.findLastIndex((b, i) => b === 0x77 && bytes[i - 1] === 1 && bytes[i - 2] === 0)
    bytes[w] = 0x78 // the key 'w' becomes a second 'x'
    const { kept, present, tree } = both(bytes)
    expect(tree.values('sfs2x.p.p.p.x')).toEqual([1, 2])
    expect(kept.size).toBe(0)
    expect(present.has('sfs2x.p.p.p.x')).toBe(true)
  })

  it('marks a parameter cut short (its nodes so far are in the tree)', () => {
    const whole = encode(ext('move', { x: t.int(1), list: t.arr(t.int(5), t.int(6)) }))
    const { present, tree } = both(whole.subarray(0, whole.length - 3))
    expect(tree.values('sfs2x.p.p.p.list')).toEqual([5])
    expect(present.has('sfs2x.p.p.p.list')).toBe(true)
  })
})
