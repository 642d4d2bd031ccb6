// Shared by the FigNet payload tests: run the payload decoder over bytes, walk the tree, and re-read every
// leaf's byte range independently (little-endian for MemoryPack, big-endian for MessagePack).
import { expect } from 'vitest'
import { FieldReader } from '../../../../src-shared/bytes/reader'
import { TreeBuilder } from '../../../../src-shared/bytes/tree'
import type { FieldNode, IndexedValues } from '../../../../src-shared/model/types'
import { decodeFigNetPayload, type PayloadResult } from '../../../../src-shared/protocols/fignet/payload'

export interface Decoded {
  res: PayloadResult
  roots: FieldNode[]
  /** Without a tree, what the index pass keeps of the payload (index values and presences). */
  indexed: IndexedValues | null
  /** The buffer the ranges point into (the payload after `prefix` filler bytes). */
  buf: Uint8Array
}

/**
 * Decodes `payload` as message `msgId`. The payload sits after a few filler bytes in its buffer, so
 * ranges are checked as absolute offsets, not offsets from 0.
 */
export function decode(payload: Uint8Array, msgId: number, dir: 'c2s' | 's2c' | null, recording = true, prefix = 3): Decoded {
  const buf = new Uint8Array(prefix + payload.length)
  buf.fill(0xee, 0, prefix)
  buf.set(payload, prefix)
  const tree = new TreeBuilder(recording)
  const r = new FieldReader(buf, tree, 0, prefix, buf.length)
  const res = decodeFigNetPayload(r, msgId, dir)
  expect(r.pos).toBe(buf.length)
  expect(tree.depth).toBe(0)
  return { res, roots: tree.roots, indexed: tree.indexed, buf }
}

export function walk(nodes: FieldNode[], fn: (n: FieldNode, parent: FieldNode | null) => void, parent: FieldNode | null = null): void {
  for (const n of nodes) {
    fn(n, parent)
    if (n.children) walk(n.children, fn, n)
  }
}

export function findAll(nodes: FieldNode[], key: string): FieldNode[] {
  const out: FieldNode[] = []
  walk(nodes, (n) => n.key === key && out.push(n))
  return out
}

export function find(nodes: FieldNode[], key: string): FieldNode {
  const n = findAll(nodes, key)[0]
  if (!n) throw new Error(`no node ${key}`)
  return n
}

/** Every node inside the buffer, children inside their parent. */
export function checkNesting(roots: FieldNode[], buf: Uint8Array): void {
  const bad: string[] = []
  walk(roots, (n, p) => {
    if (n.start === undefined) return
    const end = n.start + n.length!
    if (n.start < 0 || n.length! < 0 || end > buf.length) bad.push(`${n.key} "${n.label}" ${n.start}+${n.length} outside ${buf.length}`)
    if (p?.start !== undefined && n.length! > 0 && (n.start < p.start || end > p.start + p.length!)) {
      bad.push(`${n.key} "${n.label}" ${n.start}+${n.length} outside parent ${p.key} ${p.start}+${p.length}`)
    }
  })
  expect(bad).toEqual([])
}

const utf8 = new TextDecoder('utf-8')
const utf16 = new TextDecoder('utf-16le')

/** MemoryPack VarInt read from the spec (docs/fignet.md, Codecs and ENet on the wire), for varint leaves. */
function memoryPackVarint(b: Uint8Array): bigint {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength)
  const code = dv.getInt8(0)
  if (code >= -120) return BigInt(code)
  const readers: Record<number, () => bigint> = {
    [-121]: () => BigInt(dv.getUint8(1)),
    [-122]: () => BigInt(dv.getInt8(1)),
    [-123]: () => BigInt(dv.getUint16(1, true)),
    [-124]: () => BigInt(dv.getInt16(1, true)),
    [-125]: () => BigInt(dv.getUint32(1, true)),
    [-126]: () => BigInt(dv.getInt32(1, true)),
    [-127]: () => dv.getBigUint64(1, true),
    [-128]: () => dv.getBigInt64(1, true)
  }
  return readers[code]()
}

/**
 * Re-reads every leaf that carries a value from its byte range and compares. Counts the leaves checked
 * (callers assert the count so the check cannot pass vacuously).
 */
export function checkLeaves(roots: FieldNode[], buf: Uint8Array, endian: 'le' | 'be'): number {
  const le = endian === 'le'
  let checked = 0
  walk(roots, (n) => {
    // Zero-length leaves are what the decoder decided (codec, model), not bytes read.
    if (n.children?.length || n.value === undefined || n.start === undefined || n.length === 0) return
    const b = buf.subarray(n.start, n.start + n.length!)
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength)
    const v = n.value
    const ctx = `${n.key} "${n.label}" @${n.start}+${n.length}`
    if (n.key.startsWith('entangle.config_flags.')) return // bits: checked by the TransformLite tests
    if (n.key.startsWith('entangle.transform.') && typeof v === 'number') {
      if (b.length === 4) expect(dv.getFloat32(0, true), ctx).toBe(v)
      else
        expect(
          [1000, 100, 10].some((s) => dv.getInt16(0, true) / s === v),
          ctx
        ).toBe(true)
      checked++
      return
    }
    if (n.key === 'fignet.memorypack.varint') {
      expect(memoryPackVarint(b), ctx).toBe(v)
      checked++
      return
    }
    switch (n.type) {
      case 'u8':
        expect(dv.getUint8(0), ctx).toBe(v)
        break
      case 'i8':
        expect(dv.getInt8(0), ctx).toBe(v)
        break
      case 'u16':
        expect(dv.getUint16(0, le), ctx).toBe(v)
        break
      case 'i16':
        expect(dv.getInt16(0, le), ctx).toBe(v)
        break
      case 'u32':
        expect(dv.getUint32(0, le), ctx).toBe(v)
        break
      case 'i32':
        expect(dv.getInt32(0, le), ctx).toBe(v)
        break
      case 'u64':
        expect(b.length === 8 ? dv.getBigUint64(0, le) : undefined, ctx).toBe(v)
        break
      case 'i64':
        expect(dv.getBigInt64(0, le), ctx).toBe(v)
        break
      case 'f32':
        expect(Object.is(dv.getFloat32(0, le), v) || (Number.isNaN(v) && Number.isNaN(dv.getFloat32(0, le))), ctx).toBe(true)
        break
      case 'f64':
        expect(Object.is(dv.getFloat64(0, le), v) || (Number.isNaN(v) && Number.isNaN(dv.getFloat64(0, le))), ctx).toBe(true)
        break
      case 'bool':
        if (endian === 'be') expect(b.length === 1 && (b[0] === 0xc3) === v && (b[0] & 0xfe) === 0xc2, ctx).toBe(true)
        else expect(b.length === 1 && (b[0] !== 0) === v, ctx).toBe(true)
        break
      case 'string':
        expect([utf8.decode(b), utf16.decode(b)], ctx).toContain(v)
        break
      case 'bytes':
        expect([...b], ctx).toEqual([...(v as Uint8Array)])
        break
      case 'none':
        if (v === null && endian === 'be') expect([...b], ctx).toEqual([0xc0])
        else if (v === null) expect(dv.getInt32(0, true), ctx).toBe(-1)
        else return
        break
      default:
        return
    }
    checked++
  })
  return checked
}

/** Plain JSON-like view of typed payload values (bytes as hex) for comparisons. */
export function plain(v: unknown): unknown {
  if (v instanceof Uint8Array) return Array.from(v, (x) => x.toString(16).padStart(2, '0')).join('')
  if (typeof v === 'bigint') return v.toString()
  if (Array.isArray(v)) return v.map(plain)
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]))
  return v
}
