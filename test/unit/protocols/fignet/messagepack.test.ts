// The generic MessagePack decoder against the test's encoder (written from the msgpack spec): every
// format family, forced wide encodings, ranges re-read big-endian, and hostile input (0xc1, lying counts,
// deep nesting, truncation at every offset).
import { describe, it, expect } from 'vitest'
import { DecodeError, FieldReader } from '../../../../src-shared/bytes/reader'
import { TreeBuilder } from '../../../../src-shared/bytes/tree'
import { readMessagePack, type MapEntry } from '../../../../src-shared/protocols/fignet/messagepack'
import type { Typed } from '../../../../src-shared/protocols/fignet/typed'
import { rng } from '../../helpers/rng'
import { msgpack, type MsgPackInput } from './encoders'
import { checkLeaves, checkNesting } from './helpers'

function read(bytes: Uint8Array, recording = true, maxDepth?: number) {
  const tree = new TreeBuilder(recording)
  const r = new FieldReader(bytes, tree, 0)
  const v = readMessagePack(r, { maxDepth })
  return { v, tree, r }
}

/** The typed value the decoder must give for an encoder input. */
function want(x: MsgPackInput): unknown {
  switch (x.t) {
    case 'nil':
      return { type: 'nil', value: null }
    case 'bool':
      return { type: 'bool', value: x.v }
    case 'uint':
    case 'int': {
      const wide = x.width === 64 || (x.width === undefined && (BigInt(x.v) >= 2n ** 32n || BigInt(x.v) < -(2n ** 31n)))
      return { type: x.t, value: wide ? BigInt(x.v) : Number(x.v) }
    }
    case 'f32':
      return { type: 'float32', value: Math.fround(x.v) }
    case 'f64':
      return { type: 'float64', value: x.v }
    case 'str':
      return { type: 'str', value: x.v }
    case 'bin':
      return { type: 'bin', value: Uint8Array.from(x.v) }
    case 'ext':
      return { type: 'ext', extType: x.type, value: Uint8Array.from(x.v) }
    case 'arr':
      return { type: 'array', value: x.v.map(want) }
    case 'map':
      return { type: 'map', value: x.v.map(([k, v]) => ({ key: want(k), value: want(v) })) }
  }
}

function randInput(rand: () => number, depth = 0): MsgPackInput {
  const k = Math.floor(rand() * (depth > 2 ? 8 : 10))
  const pick = <T>(a: T[]) => a[Math.floor(rand() * a.length)]
  switch (k) {
    case 0:
      return { t: 'nil' }
    case 1:
      return { t: 'bool', v: rand() < 0.5 }
    case 2: {
      const width = pick([undefined, 8, 16, 32, 64] as const)
      const max = width === 8 ? 256 : width === 16 ? 65536 : width === 32 ? 2 ** 32 : 2 ** 40
      const v = Math.floor(rand() * max)
      return width === 64 ? { t: 'uint', v: BigInt(v) * 99991n, width } : { t: 'uint', v, width }
    }
    case 3: {
      const width = pick([undefined, 8, 16, 32, 64] as const)
      const half = width === 8 ? 128 : width === 16 ? 32768 : width === 32 ? 2 ** 31 : 2 ** 40
      const v = Math.floor(rand() * half) - half
      return width === 64 ? { t: 'int', v: BigInt(v) * 99991n, width } : { t: 'int', v, width }
    }
    case 4:
      return rand() < 0.5 ? { t: 'f32', v: (rand() - 0.5) * 1000 } : { t: 'f64', v: (rand() - 0.5) * 1e200 }
    case 5:
      return { t: 'str', v: 'é€x'.repeat(Math.floor(rand() * 15)), width: pick([undefined, 8, 16, 32] as const) }
    case 6:
      return { t: 'bin', v: Array.from({ length: Math.floor(rand() * 40) }, () => Math.floor(rand() * 256)), width: pick([undefined, 8, 16, 32] as const) }
    case 7: {
      const n = pick([1, 2, 4, 8, 16, 0, 3, 100])
      return { t: 'ext', type: Math.floor(rand() * 128), v: Array.from({ length: n }, (_, i) => i), width: pick([undefined, 8, 16, 32] as const) }
    }
    case 8:
      return {
        t: 'arr',
        v: Array.from({ length: Math.floor(rand() * (depth ? 5 : 18)) }, () => randInput(rand, depth + 1)),
        width: pick([undefined, 16, 32] as const)
      }
    default:
      return {
        t: 'map',
        v: Array.from(
          { length: Math.floor(rand() * (depth ? 4 : 17)) },
          () => [randInput(rand, 9), randInput(rand, depth + 1)] as [MsgPackInput, MsgPackInput]
        ),
        width: pick([undefined, 16, 32] as const)
      }
  }
}

describe('MessagePack decoder', () => {
  it('random values of every format round-trip with exact ranges', () => {
    const rand = rng(1985)
    let leaves = 0
    for (let i = 0; i < 300; i++) {
      const x = randInput(rand)
      const bytes = Uint8Array.from(msgpack(x))
      const { v, tree, r } = read(bytes)
      expect(v).toEqual(want(x))
      expect(r.remaining).toBe(0)
      leaves += checkLeaves(tree.roots, bytes, 'be')
      checkNesting(tree.roots, bytes)
      expect(read(bytes, false).v).toEqual(v)
    }
    expect(leaves).toBeGreaterThan(1000)
  })

  it('fixed vectors from the spec', () => {
    const cases: [string, unknown][] = [
      ['c0', { type: 'nil', value: null }],
      ['c3', { type: 'bool', value: true }],
      ['7f', { type: 'uint', value: 127 }],
      ['e0', { type: 'int', value: -32 }],
      ['cd0100', { type: 'uint', value: 256 }],
      ['d3ffffffffffffffff', { type: 'int', value: -1n }],
      ['cf8000000000000000', { type: 'uint', value: 2n ** 63n }],
      ['ca3fc00000', { type: 'float32', value: 1.5 }],
      ['a3616263', { type: 'str', value: 'abc' }],
      ['c40201ff', { type: 'bin', value: Uint8Array.of(1, 255) }],
      ['d6ff00000001', { type: 'ext', extType: -1, value: Uint8Array.of(0, 0, 0, 1), timestamp: { seconds: 1, nanoseconds: 0 } }],
      ['d7ff0000000400000002', { type: 'ext', extType: -1, value: Uint8Array.of(0, 0, 0, 4, 0, 0, 0, 2), timestamp: { seconds: 2, nanoseconds: 1 } }],
      [
        '92c2c3',
        {
          type: 'array',
          value: [
            { type: 'bool', value: false },
            { type: 'bool', value: true }
          ]
        }
      ],
      ['81a16101', { type: 'map', value: [{ key: { type: 'str', value: 'a' }, value: { type: 'uint', value: 1 } }] }]
    ]
    for (const [h, expected] of cases) {
      const bytes = Uint8Array.from(h.match(/../g)!.map((b) => parseInt(b, 16)))
      expect(read(bytes).v, h).toEqual(expected)
    }
    const map = read(Uint8Array.of(0x81, 0xa1, 0x61, 0x01)).v.value as MapEntry[]
    expect((map[0].key as Typed).value).toBe('a')
  })

  it('hostile input: 0xc1, lying counts, deep nesting, bad timestamps — DecodeError with offset, no allocation', () => {
    const bad: [number[], RegExp][] = [
      [[0x91, 0xc1], /0xc1 \(never used\) at offset 1/],
      [[0xdd, 0x7f, 0xff, 0xff, 0xff, 0xc0], /array at offset 0: 2147483647 elements cannot fit in the 1 bytes left/],
      [[0xdf, 0xff, 0xff, 0xff, 0xff, 0xc0, 0xc0], /map at offset 0: 4294967295 entries cannot fit/],
      [[0xc6, 0xff, 0xff, 0xff, 0xf0, 1], /MessagePack bin: needs 4294967280 bytes/],
      [[0xdb, 0x00, 0x10, 0x00, 0x00], /MessagePack str: needs 1048576 bytes/],
      [[0xc7, 0x03, 0xff, 1, 2, 3], /timestamp \(ext -1\) of 3 bytes at offset 0/],
      [[...new Array(40).fill(0x91), 0xc0], /nesting deeper than 32 at offset 32/]
    ]
    for (const [bytes, re] of bad) {
      const before = process.memoryUsage().arrayBuffers
      let err: unknown
      try {
        read(Uint8Array.from(bytes))
      } catch (e) {
        err = e
      }
      expect(err, re.source).toBeInstanceOf(DecodeError)
      expect((err as DecodeError).message).toMatch(re)
      expect((err as DecodeError).offset).toBeLessThanOrEqual(bytes.length)
      expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 1024 * 1024)
    }
    expect(read(Uint8Array.from([...new Array(40).fill(0x91), 0xc0]), true, 41).v.type).toBe('array')
  })

  it('every truncation of a rich value fails with an offset inside the input and a well-formed tree', () => {
    const rand = rng(77)
    for (let i = 0; i < 6; i++) {
      const bytes = Uint8Array.from(msgpack({ t: 'arr', v: [randInput(rand), randInput(rand), randInput(rand)] }))
      for (let cut = 0; cut < bytes.length; cut++) {
        const part = bytes.subarray(0, cut)
        const tree = new TreeBuilder(true)
        const r = new FieldReader(part, tree, 0)
        let err: unknown
        try {
          readMessagePack(r)
        } catch (e) {
          err = e
        }
        expect(err).toBeInstanceOf(DecodeError)
        expect((err as DecodeError).offset).toBeLessThanOrEqual(cut)
        expect(tree.depth).toBe(0)
        checkNesting(tree.roots, part)
      }
    }
  })
})
