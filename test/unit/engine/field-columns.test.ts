// The index's field columns store numbers in the narrowest typed array that holds them, booleans as 0/1 and
// short strings as ids: every row must still give back exactly the values it was given, of the same type,
// whatever order the widths arrive in, and after the columns are trimmed and grown again.
import { describe, expect, it } from 'vitest'
import { FieldColumns } from '../../../src-shared/engine/field-columns'
import type { FieldScalar } from '../../../src-shared/model/types'
import { rng } from '../helpers/rng'

function check(cols: FieldColumns, expected: Map<string, Map<number, FieldScalar[]>>): void {
  for (const [key, rows] of expected) {
    const c = cols.get(key)!
    for (const [row, values] of rows) {
      const got = c.values(row)
      expect(got.length, `${key} row ${row}`).toBe(values.length)
      got.forEach((v, i) =>
        expect(
          Object.is(v, values[i]) || (v instanceof Uint8Array && Buffer.from(v).equals(Buffer.from(values[i] as Uint8Array))),
          `${key} row ${row} value ${i}: ${String(v)} vs ${String(values[i])}`
        ).toBe(true)
      )
    }
  }
}

describe('FieldColumns', () => {
  it('gives back every value exactly, as numbers widen, mixed with booleans, strings, bigints and bytes', () => {
    const rand = rng(11)
    const pick = (): FieldScalar => {
      const k = Math.floor(rand() * 12)
      if (k < 3) return Math.floor(rand() * 256)
      if (k === 3) return Math.floor(rand() * 2 ** 31) * (rand() < 0.5 ? -1 : 1)
      if (k === 4) return [0.5, -0, Number.NaN, 2 ** 40, -1e300, Number.POSITIVE_INFINITY][Math.floor(rand() * 6)]
      if (k === 5) return rand() < 0.5
      if (k === 6) return ['Join', 'RaiseEvent', 'x'.repeat(65), ''][Math.floor(rand() * 4)]
      if (k === 7) return BigInt(Math.floor(rand() * 1e9)) * 1000003n
      if (k === 8) return Uint8Array.of(1, 2, Math.floor(rand() * 256))
      if (k === 9) return null
      return 4_000_000_000 + Math.floor(rand() * 1000) // above int32
    }
    const cols = new FieldColumns()
    const expected = new Map<string, Map<number, FieldScalar[]>>()
    const add = (row: number, key: string, v: FieldScalar) => {
      cols.add(row, key, v)
      const rows = expected.get(key) ?? new Map<number, FieldScalar[]>()
      expected.set(key, rows)
      rows.set(row, [...(rows.get(row) ?? []), v])
    }
    // A byte-sized column that widens late, a column of booleans given one number, and a random mix.
    for (let row = 0; row < 3000; row++) {
      add(row, 'small.then.wide', row === 2500 ? 70000 : row === 2900 ? 0.25 : row % 200)
      if (row % 3 === 0) add(row, 'flag', row % 2 === 0)
      if (row === 1500) add(row, 'flag', 7)
      const n = Math.floor(rand() * 3)
      for (let i = 0; i < n; i++) add(row, 'mixed', pick())
    }
    check(cols, expected)
    cols.trim()
    check(cols, expected)
    for (let row = 3000; row < 3500; row++) {
      add(row, 'small.then.wide', -row)
      add(row, 'mixed', pick())
      add(row, 'flag', row % 5 === 0)
    }
    check(cols, expected)
    // A boolean comes back as a boolean, a 0/1 number as a number.
    expect(cols.get('flag')!.values(0)).toEqual([true])
    expect(cols.get('flag')!.values(1500)).toEqual([true, 7])
    expect(cols.get('small.then.wide')!.values(1)).toEqual([1])
    expect(cols.get('small.then.wide')!.has(2)).toBe(true)
    expect(cols.get('flag')!.has(1)).toBe(false)
  })
})
