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
      add(row, 'small.then.wide', row === 2000 ? 1000 : row === 2500 ? 70000 : row === 2900 ? 0.25 : row % 200)
      add(row, 'sixteen.bits', row === 100 ? 65535 : row % 300)
      if (row % 3 === 0) add(row, 'flag', row % 2 === 0)
      if (row === 1500) add(row, 'flag', 7)
      const n = Math.floor(rand() * 3)
      for (let i = 0; i < n; i++) add(row, 'mixed', pick())
    }
    check(cols, expected)
    cols.trim()
    check(cols, expected)
    // Values up to 65,535 take two bytes: 3,000 of them, a byte of row delta each, an exact row per 64.
    expect(cols.get('sixteen.bits')!.byteSize()).toBe(3000 * 3 + Math.ceil(3000 / 64) * 8)
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

  it('keeps no values for a column of `true` only (a presence), until another value comes', () => {
    const cols = new FieldColumns()
    for (let row = 0; row < 1000; row++) if (row % 2) cols.add(row, 'has:x', true)
    cols.trim()
    // A byte of row delta per value and an exact row per 64, nothing for the values.
    expect(cols.get('has:x')!.byteSize()).toBe(500 + Math.ceil(500 / 64) * 8)
    expect(cols.get('has:x')!.values(7)).toEqual([true])
    expect(cols.get('has:x')!.values(8)).toEqual([])
    cols.add(1000, 'has:x', false)
    cols.add(1001, 'has:x', 2)
    cols.add(1002, 'has:x', true)
    for (let row = 1; row < 1000; row += 2) expect(cols.get('has:x')!.values(row)).toEqual([true])
    expect([1000, 1001, 1002].map((r) => cols.get('has:x')!.values(r))).toEqual([[false], [2], [true]])
  })
})

// The rows of a column are delta-coded with a cursor and exact entries every 64 values: lookups in any order,
// far apart, inside long runs of one row and after values were added behind the cursor must all find
// exactly the values a plain list of (row, value) pairs holds.
describe('FieldColumn row lookups', () => {
  function build(seed: number) {
    const rand = rng(seed)
    const cols = new FieldColumns()
    const want = new Map<number, number[]>()
    let row = 0
    const gaps = [
      () => 0,
      () => 1 + Math.floor(rand() * 127),
      () => 128 + Math.floor(rand() * 16256),
      () => Math.floor(rand() * 2 ** 21),
      () => 2 ** 21 + Math.floor(rand() * 2 ** 21)
    ]
    const add = (r: number, v: number) => {
      cols.add(r, 'k', v)
      want.set(r, [...(want.get(r) ?? []), v])
    }
    for (let n = 0; n < 3000; n++) {
      // Once, a gap that takes a five-byte delta.
      row += n === 1500 ? 2 ** 30 : gaps[Math.floor(rand() * gaps.length)]()
      // Now and then a run of one row longer than the spacing of exact entries.
      const many = rand() < 0.02 ? 65 + Math.floor(rand() * 140) : 1 + Math.floor(rand() * 3)
      for (let i = 0; i < many; i++) add(row, Math.floor(rand() * 1000))
    }
    return { cols, want, add, last: row, rand }
  }

  function lookAll(cols: FieldColumns, want: Map<number, number[]>, order: number[]) {
    const c = cols.get('k')!
    for (const r of order) {
      const exp = want.get(r) ?? []
      expect(c.has(r), `has ${r}`).toBe(exp.length > 0)
      expect(c.values(r), `row ${r}`).toEqual(exp)
      // Asked again at once, the same answer.
      expect(c.values(r), `row ${r} again`).toEqual(exp)
    }
  }

  it('finds every row forwards, backwards, at random, and rows it does not have', () => {
    const { cols, want, last, rand } = build(5)
    const rows = [...want.keys()]
    lookAll(cols, want, rows)
    lookAll(cols, want, [...rows].reverse())
    const shuffled = [...rows].sort(() => rand() - 0.5)
    lookAll(cols, want, shuffled)
    const absent = [
      last + 1,
      last + 2 ** 20,
      ...rows
        .slice(0, 500)
        .map((r) => r + 1)
        .filter((r) => !want.has(r))
    ]
    if (!want.has(0)) absent.push(0)
    lookAll(
      cols,
      want,
      absent.sort(() => rand() - 0.5)
    )
    cols.trim()
    lookAll(cols, want, shuffled)
  })

  it('keeps answering after values are added behind its cursor, and up to row 2^32 - 1', () => {
    const { cols, want, add, last } = build(9)
    const rows = [...want.keys()]
    lookAll(cols, want, rows) // the cursor ends at the last row
    expect(cols.get('k')!.values(last + 5)).toEqual([])
    cols.trim()
    add(last + 5, 1)
    add(last + 5, 2)
    add(2 ** 32 - 1, 3)
    // First a row after the cursor, which stood past the last value when these came.
    lookAll(cols, want, [last + 5, 2 ** 32 - 1, last, rows[0], last + 5, last + 4])
  })

  it('keeps consecutive rows in about a byte each', () => {
    const cols = new FieldColumns()
    for (let row = 0; row < 100_000; row++) cols.add(row, 'k', row % 200)
    cols.trim()
    // One byte of delta, one of value and 8 bytes of exact entry per 64 values: 2.125 bytes a value.
    expect(cols.get('k')!.byteSize()).toBe(100_000 * 2 + Math.ceil(100_000 / 64) * 8)
  })

  it('refuses a row before the last one (rows come in order)', () => {
    const cols = new FieldColumns()
    cols.add(10, 'k', 1)
    expect(() => cols.add(9, 'k', 1)).toThrow(RangeError)
  })
})
