// A diff side's values kept in a temporary file (src-main/host/spilled-values.ts): each value read back is
// what was stored, whatever it holds, from the write buffer or the file; nothing is left on disk.
import { afterAll, describe, expect, it } from 'vitest'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SPILL_VALUES, SpilledValues, spilledValuesFor } from '../../../src-main/host/spilled-values'

const tmp = mkdtempSync(join(tmpdir(), 'gamewire-spill-test-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** Values of the shapes the decoders give: typed wrappers, Maps, byte arrays (views too), bigints, -0. */
function sample(i: number): unknown {
  const big = new Uint8Array(4096).map((_, k) => (k * 7 + i) & 255)
  return {
    msgType: 2,
    code: { type: 'Byte', value: i & 255 },
    parameters: new Map<unknown, unknown>([
      [245, { type: 'ByteArray', value: big.subarray(100 + (i % 50), 140 + (i % 50)) }],
      [254, { type: 'Int32', value: -i }],
      ['name', 'héllo ✓ ' + i]
    ]),
    entries: [{ key: { type: 'String', value: 'k' }, value: i % 3 === 0 ? null : [1.5, -0, Number.NaN, Number.POSITIVE_INFINITY] }],
    long: BigInt(i) * 10_000_000_000n,
    flag: i % 2 === 0,
    missing: undefined
  }
}

describe('SpilledValues', () => {
  it('gives back every value as stored, from the write buffer and from the file', () => {
    const dir = mkdtempSync(join(tmp, 'a-'))
    const store = new SpilledValues(dir)
    // no folder or file of its own left in the parent while open (removed at once where the system allows)
    expect(readdirSync(dir)).toEqual([])
    const ids = Array.from({ length: 3000 }, (_, k) => 7 + 3 * k)
    ids.forEach((id, k) => store.set(id, sample(k)))
    // a value past the write buffer's size goes to the file directly
    const huge = { bytes: new Uint8Array(3 << 20).fill(9), tail: 'end' }
    store.set(1, huge)
    for (const [k, id] of ids.entries()) expect(store.get(id)).toEqual(sample(k))
    expect(store.get(1)).toEqual(huge)
    expect(Object.is((store.get(ids[1]) as { entries: { value: number[] }[] }).entries[0].value[1], -0)).toBe(true)
    const bytes = ((store.get(ids[0]) as { parameters: Map<number, { value: Uint8Array }> }).parameters.get(245) as { value: Uint8Array }).value
    expect(bytes.length).toBe(40)
    expect(store.has(ids[5])).toBe(true)
    expect(store.has(8)).toBe(false)
    expect(store.get(8)).toBeUndefined()
    store.close()
    expect(store.has(ids[5])).toBe(false)
    expect(readdirSync(dir)).toEqual([])
  })

  it("stores a byte array's own bytes, not the buffer it is a view of", () => {
    const store = new SpilledValues(tmp)
    const chunk = new Uint8Array(1 << 20).fill(3)
    for (let id = 1; id <= 100; id++) store.set(id, { value: chunk.subarray(id, id + 40) })
    expect(store.size).toBeLessThan(100 * 200)
    expect(store.get(100)).toEqual({ value: chunk.slice(100, 140) })
    store.close()
  })

  it('keeps the last value stored under an id', () => {
    const store = new SpilledValues(tmp)
    store.set(5, 'first')
    store.set(6, 'other')
    store.set(5, { second: true })
    expect(store.get(5)).toEqual({ second: true })
    expect(store.get(6)).toBe('other')
    store.close()
  })

  it('hands its file over, empty or not: the new owner reads every value and stores more, the old one none', () => {
    const dir = mkdtempSync(join(tmp, 'h-'))
    // An empty store lent (as the diff lends one to its worker), filled by the borrower, and given back.
    const borrowed = new SpilledValues(new SpilledValues(dir).handOver())
    for (let id = 1; id <= 3000; id++) borrowed.set(id * 2, sample(id))
    const back = new SpilledValues(borrowed.handOver())
    expect(borrowed.has(2)).toBe(false)
    expect(borrowed.get(2)).toBeUndefined()
    expect(() => borrowed.set(1, 'x')).toThrow(/after close/)
    for (let id = 1; id <= 3000; id++) expect(back.get(id * 2), `value ${id * 2}`).toEqual(sample(id))
    expect(back.has(3)).toBe(false)
    back.set(3, 'later')
    expect([back.get(3), back.get(6000)]).toEqual(['later', sample(3000)])
    back.close()
    expect(readdirSync(dir)).toEqual([])
  })

  it('is made only for many values', () => {
    expect(spilledValuesFor(SPILL_VALUES - 1, tmp)).toBeUndefined()
    const store = spilledValuesFor(SPILL_VALUES, tmp)
    expect(store).toBeInstanceOf(SpilledValues)
    store?.close()
    expect(spilledValuesFor(1, tmp, 1)).toBeInstanceOf(SpilledValues)
  })
})
