// allocBytes/copyBytes hand out views of shared slabs: every array must be its own bytes (no two overlap,
// writing one never changes another) and a copy must equal its source.
import { describe, expect, it } from 'vitest'
import { allocBytes, copyBytes } from '../../../src-shared/bytes/slab'
import { rng } from '../helpers/rng'

describe('slab allocation', () => {
  it('hands out zeroed arrays that never overlap, small ones in 8 KiB slabs, large ones on their own', () => {
    const rand = rng(3)
    const arrays: Uint8Array[] = []
    for (let i = 0; i < 3000; i++) {
      const n = rand() < 0.05 ? 4097 + Math.floor(rand() * 9000) : Math.floor(rand() * 1500)
      const a = allocBytes(n)
      expect(a.length).toBe(n)
      expect(a.every((b) => b === 0)).toBe(true)
      expect(a.buffer.byteLength).toBe(n > 4096 ? n : 8192)
      a.fill(i & 0xff)
      arrays.push(a)
    }
    arrays.forEach((a, i) =>
      expect(
        a.every((b) => b === (i & 0xff)),
        `array ${i}`
      ).toBe(true)
    )
  })

  it('copies a range of its source', () => {
    const src = Uint8Array.from({ length: 300 }, (_, i) => i & 0xff)
    const c = copyBytes(src, 10, 250)
    expect([...c]).toEqual([...src.subarray(10, 250)])
    src.fill(0)
    expect(c[0]).toBe(10)
    expect(copyBytes(src).length).toBe(300)
  })
})
