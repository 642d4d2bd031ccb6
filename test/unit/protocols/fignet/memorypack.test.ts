// MemoryPack: the vectors of docs/fignet.md (Codecs and ENet on the wire) (writer reproduces them, reader decodes
// them), the reader's primitives against the test writer, hostile lengths and counts, and the generic
// member guessing for models without a schema.
//
// Which expectations are independent of the decoder's own reading of the spec: the object-header codes
// (0–249 member count, 255 null, 250–254 refused) are MemoryPack's own: MemoryPackCode.cs and its test
// WriterTest.WriteObjectHeaderTest. Every byte vector here (the strings, TransformLite, EntangleEntityState)
// was derived by hand from MemoryPack's README "Binary wire format specification", the same text the
// decoder follows, so it checks the decoder against the spec as we read it, not against MemoryPack: there
// is no MemoryPack runtime that runs here (it is .NET only) and its repository has no byte-level vectors.
import { describe, it, expect } from 'vitest'
import { DecodeError, FieldReader } from '../../../../src-shared/bytes/reader'
import { TreeBuilder } from '../../../../src-shared/bytes/tree'
import { MemoryPackReader, guessMembers, readGuessedMembers } from '../../../../src-shared/protocols/fignet/memorypack'
import { decodeMemoryPackModel } from '../../../../src-shared/protocols/fignet/models'
import { dynamicDef } from '../../../../src-shared/protocols/fignet/payload-fields'
import type { TypedFields } from '../../../../src-shared/protocols/fignet/typed'
import { rng } from '../../helpers/rng'
import { MpWriter, hex, unhex, writeModel } from './encoders'
import { checkLeaves, checkNesting, find, plain } from './helpers'

const STR = dynamicDef('test.s', 'S', 'string')
const BYTES = dynamicDef('test.b', 'B', 'bytes')

function reader(bytes: Uint8Array, recording = true): { mp: MemoryPackReader; tree: TreeBuilder; r: FieldReader } {
  const tree = new TreeBuilder(recording)
  const r = new FieldReader(bytes, tree, 0)
  return { mp: new MemoryPackReader(r), tree, r }
}

function model(bytes: Uint8Array, name: string) {
  const tree = new TreeBuilder(true)
  const r = new FieldReader(bytes, tree, 0)
  return { dec: decodeMemoryPackModel(r, name, null), tree, r }
}

describe('MemoryPack vectors (docs/fignet.md, Codecs and ENet on the wire)', () => {
  it('strings: UTF-8 form, UTF-16 form, null', () => {
    expect(hex(new MpWriter().string('abc').done())).toBe('fcffffff03000000616263')
    expect(hex(new MpWriter().string('abc', 'utf16').done())).toBe('03000000610062006300')
    expect(hex(new MpWriter().string(null).done())).toBe('ffffffff')
    expect(hex(new MpWriter().bytes(null).done())).toBe('ffffffff')
    for (const v of ['fcffffff03000000616263', '03000000610062006300']) {
      const { mp, tree, r } = reader(unhex(v))
      expect(mp.string(STR)).toBe('abc')
      expect(r.remaining).toBe(0)
      expect(checkLeaves(tree.roots, unhex(v), 'le')).toBeGreaterThanOrEqual(2)
    }
    expect(reader(unhex('ffffffff')).mp.string(STR)).toBeNull()
    expect(reader(unhex('ffffffff')).mp.bytes(BYTES)).toBeNull()
    expect(reader(unhex('00000000')).mp.string(STR)).toBe('')
  })

  it('TransformLite {[1,2,3], 0x0007, 0x0102}', () => {
    const v = '03 03000000 010203 0700 0201'
    expect(hex(writeModel(new MpWriter(), 'TransformLite', { TransformData: [1, 2, 3], ConfigFlags: 7, SequenceNumber: 0x0102 }).done())).toBe(hex(unhex(v)))
    const { dec, tree } = model(unhex(v), 'TransformLite')
    expect(dec.error).toBeUndefined()
    expect(plain(dec.payload)).toMatchObject({
      TransformData: { type: 'byte[]', value: '010203' },
      ConfigFlags: { type: 'ushort', value: 7, flags: ['IncludeZ', 'IncludeRotation', 'IncludeScaleX'] },
      SequenceNumber: { type: 'ushort', value: 0x0102 }
    })
    // 3 bytes cannot hold X, Y, Z, rotation and scale X: reported, not fatal.
    expect(dec.warnings.join(' ')).toMatch(/TransformData has 3 bytes, ConfigFlags 0x7 describe 24/)
    expect(find(tree.roots, 'entangle.sequence_number').start).toBe(10)
  })

  it('EntangleEntityState with one delta, and with Delta = null', () => {
    const v1 = '03 01 01000000 02 05 02000000 aabb 1000'
    const v2 = '03 01 ffffffff 1000'
    const w1 = writeModel(new MpWriter(), 'EntangleEntityState', { DeliveryMethod: 1, Delta: [{ Key: 5, Data: [0xaa, 0xbb] }], SequenceNumber: 16 })
    const w2 = writeModel(new MpWriter(), 'EntangleEntityState', { DeliveryMethod: 1, Delta: null, SequenceNumber: 16 })
    expect(hex(w1.done())).toBe(hex(unhex(v1)))
    expect(hex(w2.done())).toBe(hex(unhex(v2)))
    const a = model(unhex(v1), 'EntangleEntityState')
    expect(a.dec.error).toBeUndefined()
    expect(plain(a.dec.payload)).toEqual({
      DeliveryMethod: { type: 'byte', value: 1, name: 'Reliable' },
      Delta: {
        type: 'List<NetworkedObjectBinary>',
        value: [{ type: 'NetworkedObjectBinary', value: { Key: { type: 'byte', value: 5 }, Data: { type: 'byte[]', value: 'aabb' } } }]
      },
      SequenceNumber: { type: 'ushort', value: 16 }
    })
    expect(checkLeaves(a.tree.roots, unhex(v1), 'le')).toBeGreaterThanOrEqual(7)
    checkNesting(a.tree.roots, unhex(v1))
    const b = model(unhex(v2), 'EntangleEntityState')
    expect(plain(b.dec.payload)).toMatchObject({ Delta: { value: null }, SequenceNumber: { value: 16 } })
  })
})

describe('MemoryPack reader', () => {
  it('unmanaged values round-trip little-endian', () => {
    const rand = rng(303)
    for (let i = 0; i < 200; i++) {
      const vals = {
        byte: Math.floor(rand() * 256),
        sbyte: Math.floor(rand() * 256) - 128,
        short: Math.floor(rand() * 65536) - 32768,
        ushort: Math.floor(rand() * 65536),
        int: Math.floor(rand() * 2 ** 32) - 2 ** 31,
        uint: Math.floor(rand() * 2 ** 32),
        float: Math.fround((rand() - 0.5) * 1e6),
        double: (rand() - 0.5) * 1e300,
        long: BigInt.asIntN(64, BigInt(Math.floor(rand() * 2 ** 53)) * 4099n),
        ulong: BigInt.asUintN(64, BigInt(Math.floor(rand() * 2 ** 53)) * 4099n)
      }
      const w = new MpWriter()
      for (const [k, v] of Object.entries(vals)) w.prim(k as never, v)
      const bytes = w.done()
      const { mp, r } = reader(bytes)
      for (const [k, v] of Object.entries(vals)) expect(mp.unmanaged(k as never, dynamicDef('test.v', k, 'none'))).toBe(v)
      expect(r.remaining).toBe(0)
    }
  })

  it('Nullable<T>: hasValue, padding, value', () => {
    const bytes = new MpWriter().nullable('int', 7).nullable('int', null).nullable('byte', 9).nullable('long', -5n).done()
    expect(hex(bytes.subarray(0, 8))).toBe('0100000007000000')
    const { mp, tree, r } = reader(bytes)
    expect(mp.nullable('int', dynamicDef('test.n', 'a', 'none'))).toBe(7)
    expect(mp.nullable('int', dynamicDef('test.n', 'b', 'none'))).toBeNull()
    expect(mp.nullable('byte', dynamicDef('test.n', 'c', 'none'))).toBe(9)
    expect(mp.nullable('long', dynamicDef('test.n', 'd', 'none'))).toBe(-5n)
    expect(r.remaining).toBe(0)
    expect(checkLeaves(tree.roots, bytes, 'le')).toBeGreaterThanOrEqual(8)
  })

  it('version-tolerant header and varints', () => {
    const values = [0, 127, -1, -120, 200, -128, 40000, -30000, 3_000_000_000, -2_000_000_000, 2n ** 40n, -(2n ** 40n)]
    const w = new MpWriter()
    for (const v of values) w.varint(v)
    const bytes = w.done()
    const { mp, tree } = reader(bytes)
    for (const v of values) expect(BigInt(mp.varint(dynamicDef('fignet.memorypack.varint', 'Varint', 'i64')))).toBe(BigInt(v))
    expect(checkLeaves(tree.roots, bytes, 'le')).toBe(values.length)

    const vt = new MpWriter().header(2).varint(11).varint(1).string('abcdefg'.slice(0, 3)).prim('byte', 1).done()
    const h = reader(vt).mp.versionTolerantHeader('VT')
    expect(h).toEqual({ count: 2, lengths: [11, 1] })
    expect(() => reader(new MpWriter().header(1).varint(100).done()).mp.versionTolerantHeader('VT')).toThrow(/members need 100 bytes/)
    expect(() => reader(new MpWriter().header(1).varint(-5).done()).mp.versionTolerantHeader('VT')).toThrow(/not a byte length/)
  })

  it('object headers: 0–249 member count, 255 null, 250–254 reserved (independent: MemoryPackCode.cs, WriterTest.WriteObjectHeaderTest)', () => {
    expect(reader(unhex('ff')).mp.objectHeader('X')).toBeNull()
    for (let b = 0; b < 250; b++) expect(reader(Uint8Array.of(b)).mp.objectHeader('X')).toBe(b)
    for (const b of [250, 251, 252, 253, 254]) {
      expect(() => reader(Uint8Array.of(b)).mp.objectHeader('X')).toThrow(new RegExp(`reserved object header ${b} at offset 0`))
    }
  })

  it('hostile lengths fail before allocating, with the offset', () => {
    const cases: [string, Uint8Array, (mp: MemoryPackReader) => unknown, RegExp][] = [
      [
        'byte[] count 2^31-1',
        new MpWriter().i32(0x7fffffff).raw([1, 2]).done(),
        (m) => m.bytes(BYTES),
        /count 2147483647 at offset 0, but 2147483647 elements of at least 1 byte cannot fit in the 2 bytes/
      ],
      ['count -2^31', new MpWriter().i32(-(2 ** 31)).done(), (m) => m.collectionCount('L', 1), /negative count -2147483648 at offset 0/],
      ['count -7', new MpWriter().i32(-7).done(), (m) => m.bytes(BYTES), /negative count -7/],
      [
        'UTF-16 length 2^30',
        new MpWriter()
          .i32(2 ** 30)
          .raw([0x41, 0])
          .done(),
        (m) => m.string(STR),
        /UTF-16 string of 1073741824 units/
      ],
      [
        'UTF-8 ~2^31-1 bytes',
        new MpWriter()
          .i32(-(2 ** 31))
          .i32(3)
          .raw([0x41])
          .done(),
        (m) => m.string(STR),
        /UTF-8 string of 2147483647 bytes/
      ],
      [
        'UTF-16 length impossible',
        new MpWriter().i32(~1).i32(1000).raw([0x41]).done(),
        (m) => m.string(STR),
        /UTF-16 length 1000 at offset 4 cannot come from 1 UTF-8 bytes/
      ],
      ['invalid UTF-8', new MpWriter().i32(~2).i32(1).raw([0xc3, 0x28]).done(), (m) => m.string(STR), /invalid UTF-8 at offset 8/],
      [
        'UTF-16 length too short',
        new MpWriter().i32(~3).i32(2).raw([0x41, 0x42, 0x43]).done(),
        (m) => m.string(STR),
        /3 UTF-16 units at offset 8, the prefix says 2/
      ],
      ['List<model> count 10^9', new MpWriter().i32(1e9).raw([1, 2, 3]).done(), (m) => m.collectionCount('L', 1), /1000000000 elements/]
    ]
    for (const [name, bytes, read, re] of cases) {
      const before = process.memoryUsage().arrayBuffers
      let err: unknown
      try {
        read(reader(bytes).mp)
      } catch (e) {
        err = e
      }
      expect(err, name).toBeInstanceOf(DecodeError)
      expect((err as DecodeError).message, name).toMatch(re)
      expect((err as DecodeError).offset, name).toBeLessThan(bytes.length)
      expect(process.memoryUsage().arrayBuffers - before, name).toBeLessThan(16 * 1024 * 1024)
    }
    // A declared UTF-16 length longer than the text is tolerated (MemoryPack pads), with a warning.
    const { mp } = reader(new MpWriter().i32(~3).i32(5).raw([0x41, 0x42, 0x43]).done())
    expect(mp.string(STR)).toBe('ABC')
    expect(mp.warnings.join(' ')).toMatch(/says 5 UTF-16 units, the text has 3/)
  })

  it('nesting deeper than the cap is an error', () => {
    const { mp } = reader(new Uint8Array(0))
    const dive = (n: number): number => (n === 0 ? 0 : mp.nested('X', () => dive(n - 1)) + 1)
    expect(dive(32)).toBe(32)
    expect(() => dive(33)).toThrow(/nested deeper than 32/)
  })
})

describe('members without a schema', () => {
  function guess(bytes: Uint8Array, count: number): TypedFields | null {
    const tree = new TreeBuilder(true)
    const r = new FieldReader(bytes, tree, 0)
    const mp = new MemoryPackReader(r)
    const out: TypedFields = {}
    if (!readGuessedMembers(mp, count, 0, out)) return null
    expect(r.remaining).toBe(0)
    checkLeaves(tree.roots, bytes, 'le')
    return out
  }

  it('strings, nulls and unambiguous values are told apart', () => {
    const bytes = new MpWriter().string('hello').prim('byte', 1).string(null).string('wörld').prim('uint', 77).done()
    expect(plain(guess(bytes, 5))).toEqual({
      member0: { type: 'string', value: 'hello', guessed: true },
      member1: { type: '1-byte value', value: 1, guessed: true },
      member2: { type: 'null', value: null, guessed: true },
      member3: { type: 'string', value: 'wörld', guessed: true },
      member4: { type: '4-byte value', value: 77, guessed: true }
    })
  })

  it('a run of values whose sizes cannot be told apart stays bytes', () => {
    const bytes = new MpWriter().prim('ushort', 5).prim('uint', 9).prim('byte', 1).string('x').done()
    const g = plain(guess(bytes, 4)) as Record<string, { type: string; value: unknown; members?: number }>
    expect(g['member0..2']).toEqual({ type: 'undecoded', value: '050009000000' + '01', members: 3, guessed: true })
    expect(g.member3).toEqual({ type: 'string', value: 'x', guessed: true })
  })

  it('UTF-16 strings and length-prefixed bytes', () => {
    const u16 = new MpWriter().string('Room A', 'utf16').done()
    expect(plain(guess(u16, 1))).toEqual({ member0: { type: 'string', value: 'Room A', guessed: true } })
    const bin = new MpWriter().bytes([1, 2, 3, 4, 5]).prim('byte', 7).done()
    expect(plain(guess(bin, 2))).toEqual({
      member0: { type: 'byte[]', value: '0102030405', guessed: true },
      member1: { type: '1-byte value', value: 7, guessed: true }
    })
  })

  it('does not fit: more members than bytes, or bytes with zero members', () => {
    expect(guess(Uint8Array.of(1, 2), 3)).toBeNull()
    expect(guess(Uint8Array.of(1), 0)).toBeNull()
    expect(guess(new Uint8Array(0), 0)).toEqual({})
  })

  it('large windows are kept as one undecoded segment without a quadratic table', () => {
    const big = new Uint8Array(100_000)
    const r = new FieldReader(big, new TreeBuilder(false), 0)
    const t0 = performance.now()
    expect(guessMembers(r, 10)).toEqual([{ kind: 'undecoded', start: 0, end: 100_000, members: 10 }])
    expect(performance.now() - t0).toBeLessThan(200)
  })
})
