// Sparse, multi-valued columns of field values by row, for the message index: what the tree-less index pass
// kept of each message (index fields, error and warning texts, long frame lists). A column holds only the
// rows that have the field, in row order, so a filter over the index reads a few typed arrays instead of
// decoding the capture again. Numbers live in a Float64Array; other values (strings, booleans, bigints,
// bytes) in a side array, strings interned since the same codes and names repeat on every row.

import type { FieldScalar } from '../model/types'

const EMPTY: readonly FieldScalar[] = []

export class FieldColumn {
  count = 0
  private rows = new Uint32Array(16)
  /** Numbers by position; made when the first number comes (a column of strings has none). */
  private nums: Float64Array | null = null
  /** Non-number values by position (undefined where the value is the number in `nums`). */
  private objs: (FieldScalar | undefined)[] | null = null
  /** Position of the last lookup: filters scan rows in order, so the next lookup starts here. */
  private cursor = 0

  add(row: number, v: FieldScalar): void {
    if (this.count === this.rows.length) {
      const rows = new Uint32Array(this.count * 2)
      rows.set(this.rows)
      this.rows = rows
    }
    const i = this.count++
    this.rows[i] = row
    if (typeof v !== 'number') {
      ;(this.objs ??= [])[i] = v
      return
    }
    if (!this.nums || this.nums.length < this.rows.length) {
      const nums = new Float64Array(this.rows.length)
      if (this.nums) nums.set(this.nums)
      this.nums = nums
    }
    this.nums[i] = v
  }

  /** First position whose row is >= `row`. */
  private seek(row: number): number {
    let i = this.cursor
    if (i > this.count || (i > 0 && this.rows[i - 1] >= row)) {
      // Moved backwards: binary search.
      let lo = 0
      let hi = this.count
      while (lo < hi) {
        const mid = (lo + hi) >>> 1
        if (this.rows[mid] < row) lo = mid + 1
        else hi = mid
      }
      i = lo
    } else {
      while (i < this.count && this.rows[i] < row) i++
    }
    this.cursor = i
    return i
  }

  has(row: number): boolean {
    const i = this.seek(row)
    return i < this.count && this.rows[i] === row
  }

  /** The row's values in the order they were added (empty when it has none). */
  values(row: number): readonly FieldScalar[] {
    let i = this.seek(row)
    if (i >= this.count || this.rows[i] !== row) return EMPTY
    const out: FieldScalar[] = []
    for (; i < this.count && this.rows[i] === row; i++) {
      const o = this.objs?.[i]
      out.push(o !== undefined ? o : this.nums![i])
    }
    return out
  }

  byteSize(): number {
    return this.rows.byteLength + (this.nums?.byteLength ?? 0) + (this.objs ? this.objs.length * 8 : 0)
  }
}

export class FieldColumns {
  private readonly columns = new Map<string, FieldColumn>()
  private readonly strings = new Map<string, string>()

  add(row: number, key: string, v: FieldScalar): void {
    let c = this.columns.get(key)
    if (!c) this.columns.set(key, (c = new FieldColumn()))
    if (typeof v === 'string' && v.length <= 64) {
      const known = this.strings.get(v)
      if (known !== undefined) v = known
      else if (this.strings.size < 1 << 16) this.strings.set(v, v)
    }
    c.add(row, v)
  }

  get(key: string): FieldColumn | undefined {
    return this.columns.get(key)
  }

  keys(): string[] {
    return [...this.columns.keys()]
  }

  byteSize(): number {
    let n = 0
    for (const c of this.columns.values()) n += c.byteSize()
    for (const s of this.strings.keys()) n += 16 + s.length * 2
    return n
  }
}
