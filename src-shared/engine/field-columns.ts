// Sparse, multi-valued columns of field values by row, for the message index: what the tree-less index pass
// kept of each message (index fields, error and warning texts, long frame lists). A column holds only the
// rows that have the field, in row order, so a filter over the index reads a few typed arrays instead of
// decoding the capture again. Numbers live in the narrowest typed array that holds them so far (bytes, then
// 32-bit integers, then doubles: most fields are small codes); a column of booleans keeps them there as 0/1.
// Short strings are interned (the same codes and names repeat on every row) and kept as 16-bit ids; other
// values (long strings, bigints, bytes) go in a side array.

import type { FieldScalar } from '../model/types'
import { resized } from '../bytes/columns'

const EMPTY: readonly FieldScalar[] = []

type Numbers = Uint8Array | Int32Array | Float64Array

/** The narrowest storage `v` fits, given the storage so far (never narrower than it). */
function widthFor(v: number, now: Numbers | null): 1 | 4 | 8 {
  const w = now instanceof Float64Array ? 8 : now instanceof Int32Array ? 4 : 1
  if (w === 8) return 8
  if (v === (v | 0) && !Object.is(v, -0)) return v >= 0 && v <= 255 && w === 1 ? 1 : 4
  return 8
}

/** The short strings of all columns, each kept once, by 16-bit id. */
class StringTable {
  private readonly ids = new Map<string, number>()
  readonly list: string[] = []

  /** The string's id + 1, or 0 when it is not kept (too long, or the table is full). */
  ref(v: string): number {
    if (v.length > 64) return 0
    let id = this.ids.get(v)
    if (id === undefined) {
      if (this.list.length >= 0xffff) return 0
      id = this.list.length
      this.list.push(v)
      this.ids.set(v, id)
    }
    return id + 1
  }

  byteSize(): number {
    let n = 0
    for (const s of this.list) n += 16 + s.length * 2 + 24
    return n
  }
}

export class FieldColumn {
  count = 0
  private rows = new Uint32Array(16)
  /** Numbers (or booleans as 0/1 in a column of booleans) by position; made when the first one comes. */
  private nums: Numbers | null = null
  /** The column holds booleans in `nums`: set by its first number-or-boolean value. */
  private bools: boolean | null = null
  /** Interned strings by position (string id + 1; 0 where the value is elsewhere). */
  private strs: Uint16Array | null = null
  /** Other values by position (undefined where the value is in `nums` or `strs`). */
  private objs: (FieldScalar | undefined)[] | null = null
  /** Position of the last lookup: filters scan rows in order, so the next lookup starts here. */
  private cursor = 0

  constructor(private readonly strings: StringTable) {}

  add(row: number, v: FieldScalar): void {
    if (this.count === this.rows.length) this.rows = resized(this.rows, this.count * 2)
    const i = this.count++
    this.rows[i] = row
    if (typeof v === 'string') {
      const ref = this.strings.ref(v)
      if (ref) {
        if (!this.strs || this.strs.length < this.rows.length) this.strs = resized(this.strs ?? new Uint16Array(0), this.rows.length)
        this.strs[i] = ref
        return
      }
    }
    const kind = typeof v === 'number' ? false : typeof v === 'boolean' ? true : null
    if (kind !== null && this.bools === null) this.bools = kind
    if (kind === null || kind !== this.bools) {
      ;(this.objs ??= [])[i] = v
      return
    }
    const n = kind ? (v ? 1 : 0) : (v as number)
    const width = widthFor(n, this.nums)
    const nums = this.nums
    if (!nums || nums.length < this.rows.length || nums.BYTES_PER_ELEMENT !== width) {
      const next = width === 1 ? new Uint8Array(this.rows.length) : width === 4 ? new Int32Array(this.rows.length) : new Float64Array(this.rows.length)
      if (nums) next.set(nums.subarray(0, Math.min(nums.length, i)))
      this.nums = next
    }
    this.nums![i] = n
  }

  /** Gives back the room kept for more values (a capture file's index is complete). */
  trim(): void {
    if (this.rows.length > this.count) this.rows = this.rows.slice(0, this.count)
    if (this.nums && this.nums.length > this.count) this.nums = this.nums.slice(0, this.count)
    if (this.strs && this.strs.length > this.count) this.strs = this.strs.slice(0, this.count)
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
      const ref = this.strs ? this.strs[i] : 0
      const o = ref ? this.strings.list[ref - 1] : this.objs?.[i]
      out.push(o !== undefined ? o : this.bools ? this.nums![i] === 1 : this.nums![i])
    }
    return out
  }

  byteSize(): number {
    return this.rows.byteLength + (this.nums?.byteLength ?? 0) + (this.strs?.byteLength ?? 0) + (this.objs ? this.objs.length * 8 : 0)
  }
}

export class FieldColumns {
  private readonly columns = new Map<string, FieldColumn>()
  private readonly strings = new StringTable()

  add(row: number, key: string, v: FieldScalar): void {
    let c = this.columns.get(key)
    if (!c) this.columns.set(key, (c = new FieldColumn(this.strings)))
    c.add(row, v)
  }

  get(key: string): FieldColumn | undefined {
    return this.columns.get(key)
  }

  keys(): string[] {
    return [...this.columns.keys()]
  }

  /** Gives back every column's room for more values. */
  trim(): void {
    for (const c of this.columns.values()) c.trim()
  }

  byteSize(): number {
    let n = 0
    for (const c of this.columns.values()) n += c.byteSize()
    return n + this.strings.byteSize()
  }
}
