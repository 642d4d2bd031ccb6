// TransformLite's TransformData unpacked per ConfigFlags (docs/fignet.md, guide §9.1), for every combination of the
// 11 defined flag bits, against the test's own packer; leftover and missing bytes; ConfigFlags' bits as
// flag fields whose range is the byte holding the bit.
import { describe, it, expect } from 'vitest'
import { FieldReader } from '../../../../src-shared/bytes/reader'
import { TreeBuilder } from '../../../../src-shared/bytes/tree'
import { transformDataLength, unpackTransformData } from '../../../../src-shared/protocols/fignet/transform-lite'
import { decodeMemoryPackModel } from '../../../../src-shared/protocols/fignet/models'
import { rng } from '../../helpers/rng'
import { MpWriter, packTransform, writeModel, type TransformInput } from './encoders'
import { checkLeaves, checkNesting, find, findAll } from './helpers'

const BIT_KEYS = [
  'include_z',
  'include_rotation',
  'include_scale_x',
  'include_scale_y',
  'include_scale_z',
  'half_precision_1000',
  'half_precision_100',
  'half_precision_10',
  'include_linear_velocity',
  'include_angular_velocity',
  'velocity_half_precision_100'
]

function randomTransform(rand: () => number): TransformInput {
  const r = (s: number) => (rand() - 0.5) * s
  return { x: r(60), y: r(60), z: r(60), rot: [r(2), r(2), r(2), r(2)], sx: r(6), sy: r(6), sz: r(6), vel: [r(60), r(60), r(60)], ang: [r(2), r(2), r(2)] }
}

describe('TransformData unpacking', () => {
  it('every combination of flag bits 0–10 with random values', () => {
    const rand = rng(2048)
    for (let flags = 0; flags < 2048; flags++) {
      const { bytes, expect: want } = packTransform(flags, randomTransform(rand))
      expect(transformDataLength(flags), `flags ${flags}`).toBe(bytes.length)
      const buf = Uint8Array.from([0xee, ...bytes])
      const tree = new TreeBuilder(true)
      const r = new FieldReader(buf, tree, 0, 1, buf.length)
      const u = unpackTransformData(r, flags)
      expect(u.error).toBeUndefined()
      const precision = [32, 64, 128].filter((b) => flags & b).length
      expect(u.warnings.length, `flags ${flags}: ${u.warnings}`).toBe(precision > 1 ? 1 : 0)
      expect(Object.keys(u.values)).toEqual(Object.keys(want))
      for (const [k, v] of Object.entries(want)) expect(u.values[k].value, `${flags} ${k}`).toBe(v)
      expect(r.pos).toBe(buf.length)
      // Leaves: each value's bytes, in order, tiling the blob.
      const leaves = tree.roots[0].children!
      expect(leaves.map((n) => n.start)).toEqual(leaves.map((_, i) => 1 + leaves.slice(0, i).reduce((a, n) => a + n.length!, 0)))
      expect(checkLeaves(tree.roots, buf, 'le')).toBe(Object.keys(want).length)
    }
  })

  it('velocity is appended after scale: position, rotation and scale keep their offsets', () => {
    const t = randomTransform(rng(5))
    const base = 0x3f // Z, rotation, scale XYZ, precision 1000
    const a = packTransform(base, t).bytes
    const b = packTransform(base | 0x300, t).bytes
    expect([...b.subarray(0, a.length)]).toEqual([...a])
    expect(b.length - a.length).toBe(12)
  })

  it('missing and leftover bytes are reported, values read so far kept', () => {
    const { bytes } = packTransform(0x03, { x: 1, y: 2, z: 3 })
    const short = new FieldReader(bytes, new TreeBuilder(true), 0, 0, bytes.length - 3)
    const u = unpackTransformData(short, 0x03)
    expect(u.error?.message).toMatch(/Rotation z: needs 2 bytes at offset 16, only 1 present/)
    expect(u.warnings.join(' ')).toMatch(/TransformData has 17 bytes, ConfigFlags 0x3 describe 20/)
    expect(Object.keys(u.values)).toEqual(['X', 'Y', 'Z', 'RotX', 'RotY'])
    expect(u.values.Z.value).toBe(3)
    const long = Uint8Array.from([...bytes, 9, 9])
    const tree = new TreeBuilder(true)
    const v = unpackTransformData(new FieldReader(long, tree, 0), 0x03)
    expect(v.error).toBeUndefined()
    expect(v.warnings.join(' ')).toMatch(/has 22 bytes, ConfigFlags 0x3 describe 20/)
    const left = find(tree.roots, 'entangle.transform.leftover')
    expect([left.start, left.length]).toEqual([20, 2])
  })

  it('reserved bits 11–15 are reported', () => {
    const { bytes } = packTransform(0, { x: 1, y: 2 })
    const u = unpackTransformData(new FieldReader(bytes, new TreeBuilder(false), 0), 0x8000)
    expect(u.warnings.join(' ')).toMatch(/reserved bits 11–15/)
  })
})

describe('TransformLite as a MemoryPack object', () => {
  it('ConfigFlags bits are flag fields over the byte that holds them; the unpacked values sit over TransformData', () => {
    const rand = rng(9)
    for (let i = 0; i < 200; i++) {
      const flags = Math.floor(rand() * 65536)
      const { bytes: data, expect: want } = packTransform(flags, randomTransform(rand))
      const obj = writeModel(new MpWriter(), 'TransformLite', { TransformData: [...data], ConfigFlags: flags, SequenceNumber: i }).done()
      const tree = new TreeBuilder(true)
      const dec = decodeMemoryPackModel(new FieldReader(obj, tree, 0), 'TransformLite', 'c2s')
      expect(dec.error).toBeUndefined()
      const flagsAt = 1 + 4 + data.length
      const cf = find(tree.roots, 'entangle.config_flags')
      expect([cf.start, cf.length, cf.value]).toEqual([flagsAt, 2, flags])
      BIT_KEYS.forEach((name, bit) => {
        const key = `entangle.config_flags.${name}`
        const n = find(tree.roots, key)
        expect(n.start, key).toBe(flagsAt + (bit >> 3))
        expect(n.length).toBe(1)
        expect(n.value).toBe(((obj[n.start!] >> (bit & 7)) & 1) === 1)
      })
      const reserved = find(tree.roots, 'entangle.config_flags.reserved')
      expect(reserved.value).toBe(obj[flagsAt + 1] >> 3)
      const unpacked = find(tree.roots, 'entangle.transform')
      expect([unpacked.start, unpacked.length]).toEqual([5, data.length])
      const decoded = (dec.payload!.TransformData as unknown as { decoded: Record<string, { value: number }> }).decoded
      for (const [k, v] of Object.entries(want)) expect(decoded[k].value).toBe(v)
      checkNesting(tree.roots, obj)
      expect(findAll(tree.roots, 'entangle.sequence_number')[0].value).toBe(i)
    }
  })
})
