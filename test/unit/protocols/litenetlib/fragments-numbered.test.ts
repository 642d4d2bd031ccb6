// The shared assembler's numbered-parts path (FragmentAssembler.addNumbered), used for LiteNetLib fragments:
// parts carry only (id, number, count); the message is the parts concatenated in number order.
import { describe, it, expect } from 'vitest'
import { FragmentAssembler, type FragmentResult } from '../../../../src-shared/net/fragments'
import { bytesOf, concat, hex, splitParts } from './encoder'

function permutations<T>(a: T[]): T[][] {
  if (a.length <= 1) return [a]
  return a.flatMap((x, i) => permutations([...a.slice(0, i), ...a.slice(i + 1)]).map((rest) => [x, ...rest]))
}

const complete = (r: FragmentResult) => {
  if (r.kind !== 'complete') throw new Error(`expected complete, got ${r.kind}`)
  return r
}

describe('FragmentAssembler.addNumbered', () => {
  const msg = bytesOf(3500, 1)
  const parts = splitParts(msg, 1000) // 1000, 1000, 1000, 500

  it('completes in every arrival order with the parts in number order', () => {
    for (const order of permutations([0, 1, 2, 3])) {
      const a = new FragmentAssembler()
      let last: FragmentResult | undefined
      order.forEach((n, i) => {
        last = a.addNumbered(5, { id: 77, count: 4, number: n }, parts[n], 10 + i, i)
        if (i < 3) expect(last).toEqual({ kind: 'pending', received: i + 1, count: 4 })
      })
      const c = complete(last!)
      expect(hex(c.bytes)).toBe(hex(msg))
      expect(c.frames).toEqual([10, 11, 12, 13])
      expect(c.pieces.map((p) => [p.number, p.offset, p.length, p.frame])).toEqual(
        [0, 1, 2, 3].map((n) => [n, n * 1000, parts[n].length, 10 + order.indexOf(n)])
      )
      expect(a.pendingBytes).toBe(0)
    }
  })

  it('reports duplicates before and after completion, and a later reuse of the id as a new message', () => {
    const a = new FragmentAssembler({ duplicateWindow: 10 })
    a.addNumbered(0, { id: 1, count: 2, number: 0 }, parts[0], 1, 0)
    expect(a.addNumbered(0, { id: 1, count: 2, number: 0 }, parts[0], 2, 0.1).kind).toBe('duplicate')
    complete(a.addNumbered(0, { id: 1, count: 2, number: 1 }, parts[1], 3, 0.2))
    expect(a.addNumbered(0, { id: 1, count: 2, number: 1 }, parts[1], 4, 5).kind).toBe('duplicate')
    // Long after: the 16-bit id came round again.
    expect(a.addNumbered(0, { id: 1, count: 2, number: 1 }, parts[2], 5, 100)).toEqual({ kind: 'pending', received: 1, count: 2 })
    const c = complete(a.addNumbered(0, { id: 1, count: 2, number: 0 }, parts[3], 6, 100.1))
    expect(hex(c.bytes)).toBe(hex(concat(parts[3], parts[2])))
  })

  it('rejects bad numbers and counts, disagreeing counts, and offset-mode entries under the same key', () => {
    const a = new FragmentAssembler({ maxFragmentCount: 100 })
    expect(a.addNumbered(0, { id: 1, count: 3, number: 3 }, parts[0], 1, 0)).toEqual({
      kind: 'error',
      message: 'part #3 of 3 (message id 1, channel 0): part number 3 is outside 0..2'
    })
    expect(a.addNumbered(0, { id: 1, count: 0, number: 0 }, parts[0], 1, 0)).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('part count 0 is not positive')
    })
    expect(a.addNumbered(0, { id: 1, count: 101, number: 0 }, parts[0], 1, 0)).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('over the limit of 100')
    })
    expect(a.addNumbered(0, { id: -1, count: 2, number: 0 }, parts[0], 1, 0)).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('invalid message id')
    })
    a.addNumbered(0, { id: 2, count: 3, number: 0 }, parts[0], 1, 0)
    expect(a.addNumbered(0, { id: 2, count: 4, number: 1 }, parts[1], 2, 0)).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('part count 4 disagrees with the first part of message id 2 (3)')
    })
    // The same key used by the offset path is another message: refused, not mixed.
    expect(a.add(0, { startSeq: 2, count: 3, number: 1, totalLength: 3000, offset: 1000 }, parts[1], 3, 0).kind).toBe('error')
  })

  it('bounds the message size as parts arrive and memory across messages, and reports what never completed', () => {
    const a = new FragmentAssembler({ maxTotalLength: 2500 })
    a.addNumbered(1, { id: 9, count: 4, number: 0 }, parts[0], 1, 0)
    a.addNumbered(1, { id: 9, count: 4, number: 1 }, parts[1], 2, 0)
    const r = a.addNumbered(1, { id: 9, count: 4, number: 2 }, parts[2], 3, 0)
    expect(r).toMatchObject({ kind: 'error', message: expect.stringContaining('add up to more than the limit of 2500 bytes') })
    expect(r.evicted?.map((e) => e.startSeq)).toEqual([9])
    expect(a.pendingBytes).toBe(0)

    const b = new FragmentAssembler({ maxPendingBytes: 5000 })
    for (let id = 0; id < 20; id++) {
      b.addNumbered(0, { id, count: 3, number: 1 }, parts[0], id + 1, id)
      expect(b.pendingBytes).toBeLessThanOrEqual(5000)
    }
    const inc = b.incomplete()
    expect(inc.filter((x) => x.state === 'evicted').length).toBeGreaterThan(10)
    const pending = inc.filter((x) => x.state === 'pending')
    expect(pending[pending.length - 1]).toEqual({
      channel: 0,
      startSeq: 19,
      count: 3,
      totalLength: 0,
      receivedBytes: 1000,
      received: 1,
      missing: [0, 2],
      missingCount: 2,
      frames: [20],
      firstTime: 19,
      lastTime: 19,
      state: 'pending'
    })
  })
})
