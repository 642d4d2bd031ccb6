import { describe, expect, it } from 'vitest'
import { arrayFor } from '../../../src-shared/bytes/arrays'

function fill(n: number): number[] {
  const out = arrayFor<number>(n)
  for (let i = 0; i < n; i++) out[i] = i * 2
  return out
}

describe('arrayFor', () => {
  it('filled in order, equals the array push would build, for short and long counts', () => {
    for (const n of [0, 1, 3, 16, 17, 1024, 1025, 5000]) {
      const pushed: number[] = []
      for (let i = 0; i < n; i++) pushed.push(i * 2)
      const out = fill(n)
      expect(out.length).toBe(n)
      expect(out).toEqual(pushed)
      expect(JSON.stringify(out)).toBe(JSON.stringify(pushed))
      // No holes left: every index is an own property.
      expect(Object.keys(out).length).toBe(n)
    }
  })

  it('starts with length n when presized and empty past the limit (so in-order assignment appends)', () => {
    expect(arrayFor(5).length).toBe(5)
    expect(arrayFor(1025).length).toBe(0)
  })
})
