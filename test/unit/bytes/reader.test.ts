import { describe, it, expect } from 'vitest'
import { FieldReader, DecodeError } from '../../../src-shared/bytes/reader'
import { TreeBuilder, MessageDraft, toHex, fromHex } from '../../../src-shared/bytes/tree'
import { defineFields } from '../../../src-shared/bytes/fields'
import { ByteStream } from '../../../src-shared/net/byte-stream'

const F = defineFields('test', {
  a: ['A', 'u8'],
  b: ['B', 'u16', { names: { 258: 'TwoFiftyEight' } }],
  c: ['C', 'u32'],
  s: ['Text', 'string'],
  g: ['Group', 'none'],
  v: ['Varint', 'varint'],
  l: ['Long', 'i64']
})

describe('FieldReader', () => {
  it('records every field with its byte range, named values in labels', () => {
    const bytes = fromHex('07 0102 000000ff 6869')
    const t = new TreeBuilder()
    const r = new FieldReader(bytes, t, 3)
    r.u8(F.a)
    r.group(F.g, 'Group', () => {
      r.u16(F.b)
      r.u32(F.c, true)
    })
    r.utf8(F.s, 2)
    expect(t.roots).toEqual([
      { key: 'test.a', label: 'A: 7', type: 'u8', value: 7, source: 3, start: 0, length: 1 },
      {
        key: 'test.g',
        label: 'Group',
        type: 'none',
        value: undefined,
        source: 3,
        start: 1,
        length: 6,
        children: [
          { key: 'test.b', label: 'B: 258 (TwoFiftyEight)', type: 'u16', value: 258, source: 3, start: 1, length: 2 },
          { key: 'test.c', label: 'C: 4278190080', type: 'u32', value: 0xff000000, source: 3, start: 3, length: 4 }
        ]
      },
      { key: 'test.s', label: 'Text: "hi"', type: 'string', value: 'hi', source: 3, start: 7, length: 2 }
    ])
  })

  it('throws DecodeError with the offset on a short read, keeping the fields read so far', () => {
    const t = new TreeBuilder()
    const r = new FieldReader(fromHex('01 02'), t, 0)
    r.u8(F.a)
    expect(() => r.u32(F.c)).toThrowError(DecodeError)
    try {
      r.u32(F.c)
    } catch (e) {
      expect((e as DecodeError).offset).toBe(1)
      expect((e as Error).message).toContain('needs 4 bytes at offset 1, only 1 present')
    }
    expect(t.roots).toHaveLength(1)
  })

  it('refuses negative or absurd lengths before allocating', () => {
    const r = new FieldReader(new Uint8Array(4), new TreeBuilder(), 0)
    expect(() => r.bytesField(null, -1)).toThrowError(/invalid length/)
    expect(() => r.bytesField(null, 2 ** 40)).toThrowError(/needs/)
  })

  it('reads varints, 64-bit values and respects the reader window', () => {
    const r = new FieldReader(fromHex('ac02 ffffffffffffffff 99'), new TreeBuilder(), 0, 0, 10)
    expect(r.varint(F.v)).toBe(300)
    expect(r.i64(F.l)).toBe(-1n)
    expect(r.remaining).toBe(0)
    expect(() => r.u8(null)).toThrowError(DecodeError)
    expect(() => new FieldReader(fromHex('ffffffffffff'), new TreeBuilder(), 0).varint(null)).toThrowError(/longer than 5/)
  })

  it('reads floats and 64-bit values at any offset of a window into a larger buffer, both byte orders', () => {
    // Node's Buffer readers are the independent expectation; the window starts at an odd byte of its buffer.
    const whole = Buffer.from(fromHex('ee 3fc00000 c0490fdb 400921fb54442d18 bff0000000000000 8000000000000001 0123456789abcdef ee'))
    const bytes = new Uint8Array(whole.buffer, whole.byteOffset + 1, whole.length - 2)
    const b = Buffer.from(bytes)
    const r = new FieldReader(bytes, new TreeBuilder(false), 0)
    expect(r.f32(null)).toBe(b.readFloatBE(0))
    expect(r.f32(null, true)).toBe(b.readFloatLE(4))
    expect(r.f64(null)).toBe(b.readDoubleBE(8))
    expect(r.f64(null, true)).toBe(b.readDoubleLE(16))
    expect(r.i64(null)).toBe(b.readBigInt64BE(24))
    expect(r.u64(null, true)).toBe(b.readBigUint64LE(32))
    expect([b.readFloatBE(0), b.readDoubleBE(8), b.readBigInt64BE(24)]).toEqual([1.5, Math.PI, -0x7fffffffffffffffn])
    expect(() => r.f64(null)).toThrowError(DecodeError)
  })

  it('records nothing when the builder is not recording', () => {
    const t = new TreeBuilder(false)
    const r = new FieldReader(fromHex('0102'), t, 0)
    expect(r.u16(F.b)).toBe(0x0102)
    expect(t.roots).toEqual([])
  })

  it('keeps a presence once per set of index values, again after the values are dropped', () => {
    const t = new TreeBuilder(false)
    for (const k of ['has:a', 'has:a', 'has:b', 'has:a', 'has:b']) t.presentKey(k)
    expect(t.indexed).toEqual({ keys: ['has:a', 'has:b'], values: [true, true] })
    // a builder reused for the next message drops its values (ENet's scan): the same presence is kept anew
    t.indexed = null
    t.presentKey('has:b')
    t.presentKey('has:b')
    expect(t.indexed).toEqual({ keys: ['has:b'], values: [true] })
    t.indexed = { keys: ['x'], values: [1] }
    t.presentKey('has:b')
    expect(t.indexed).toEqual({ keys: ['x', 'has:b'], values: [1, true] })
    const recording = new TreeBuilder(true)
    recording.presentKey('has:a')
    expect(recording.indexed).toBeNull()
  })

  it('MessageDraft numbers its sources', () => {
    const d = new MessageDraft()
    expect(d.addSource('frame', new Uint8Array(1))).toBe(0)
    expect(d.addSource('inflated', new Uint8Array(2))).toBe(1)
    expect(toHex(fromHex('00ff'))).toBe('00ff')
  })
})

describe('ByteStream', () => {
  it('peeks and takes across chunk boundaries with the frames that carried the bytes', () => {
    const s = new ByteStream()
    s.push(fromHex('0102'), 4, 1.5)
    s.push(fromHex('030405'), 6, 2.5)
    s.push(fromHex('06'), 9, 3.5)
    expect(s.available).toBe(6)
    expect(toHex(s.peek(3, 1))).toBe('020304')
    expect(s.byteAt(4)).toBe(5)
    const t = s.take(3)
    expect(toHex(t.bytes)).toBe('010203')
    expect(t.frames).toEqual([4, 6])
    expect(t.time).toBe(2.5)
    expect(t.offset).toBe(0)
    const rest = s.takeAll()
    expect(toHex(rest.bytes)).toBe('040506')
    expect(rest.frames).toEqual([6, 9])
    expect(rest.offset).toBe(3)
    expect(() => s.take(1)).toThrow(RangeError)
  })
})

describe('DecodeError', () => {
  it('captures no stack trace (it is thrown on hot paths) and leaves the global limit as it was', () => {
    const before = Error.stackTraceLimit
    const e = new DecodeError('short read', 7)
    expect(e.offset).toBe(7)
    expect(e.name).toBe('DecodeError')
    expect(e.stack ?? '').not.toMatch(/\n\s+at /)
    expect(Error.stackTraceLimit).toBe(before)
    expect(new Error('other').stack).toMatch(/\n\s+at /)
  })
})
