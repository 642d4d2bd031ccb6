// Sparse, multi-valued columns of field values by row, for the message index: what the tree-less index pass
// kept of each message (index fields, error and warning texts, long frame lists). A column holds only the
// rows that have the field, in row order, so a filter over the index reads a few typed arrays instead of
// decoding the capture again. Numbers live in the narrowest typed array that holds them so far (bytes, then
// 16-bit unsigned, 32-bit integers, doubles: most fields are small codes or ids); a column of booleans keeps
// them there as 0/1. Short strings are interned (the same codes and names repeat on every row) and kept as
// 16-bit ids; other values (long strings, bigints, bytes) go in a side array.

import type { FieldScalar } from '../model/types'
import { resized } from '../bytes/columns'
import { INDEXED_STRING_MAX } from '../bytes/fields'

const EMPTY: readonly FieldScalar[] = []

type Numbers = Uint8Array | Uint16Array | Int32Array | Float64Array
const NUMBERS_OF_WIDTH = { 1: Uint8Array, 2: Uint16Array, 4: Int32Array, 8: Float64Array } as const

/** The narrowest storage `v` fits, given the storage so far (never narrower than it). */
function widthFor(v: number, now: Numbers | null): 1 | 2 | 4 | 8 {
  const w = now ? (now.BYTES_PER_ELEMENT as 1 | 2 | 4 | 8) : 1
  if (w === 8 || v !== (v | 0) || Object.is(v, -0)) return 8
  if (w === 4 || v < 0 || v > 0xffff) return 4
  return v > 0xff || w === 2 ? 2 : 1
}

/** The short strings of all columns, each kept once, by 16-bit id. */
class StringTable {
  private readonly ids = new Map<string, number>()
  readonly list: string[] = []

  /** The string's id + 1, or 0 when it is not kept (too long, or the table is full). */
  ref(v: string): number {
    if (v.length > INDEXED_STRING_MAX) return 0
    let id = this.ids.get(v)
    if (id === undefined) {
      if (this.list.length >= 0xffff) return 0
      id = this.list.length
      this.list.push(v)
      this.ids.set(v, id)
    }
    return id + 1
  }

  /** True when ref() would give `v` an id: it is short, and kept already or there is room. */
  holds(v: string): boolean {
    return v.length <= INDEXED_STRING_MAX && (this.list.length < 0xffff || this.ids.has(v))
  }

  byteSize(): number {
    let n = 0
    for (const s of this.list) n += 16 + s.length * 2 + 24
    return n
  }
}

/** Values between exact entries of a row list: a lookup far from the last one scans at most this many. */
const MARK_EVERY = 64

/**
 * The rows of a column's values in order (a row repeats for each of its values), delta-coded: each value's
 * row less the one before, as a LEB128 varint. A column's rows are messages of one protocol, mostly close
 * together, so most deltas take one byte instead of the four of a row number; every MARK_EVERY-th value's
 * row and the offset after its delta are kept exactly, so that a lookup can start near its row. Lookups go
 * through a cursor, as filters and sorting read rows in order.
 */
class RowList {
  count = 0
  private data = new Uint8Array(64)
  private used = 0
  private lastRow = 0
  private marks = 0
  private markRow = new Uint32Array(16)
  private markEnd = new Uint32Array(16)
  /** The cursor: a value's position, its row, the row of the value before (-1: none), and where the next delta starts. */
  at = 0
  row = 0
  private prev = -1
  private next = 0
  /** The cursor's row and offset are decoded: not before the first lookup, nor after values came while it stood past the last. */
  private valid = false
  /** The cursor as hold() found it: position, row, row before, offset. */
  private readonly held = [0, 0, 0, 0]

  /** Appends a value's row: rows come in order (a message's fields are added when it is indexed). */
  add(row: number): void {
    if (row < this.lastRow || !Number.isInteger(row) || row > 0xffffffff) throw new RangeError(`field column: row ${row} after ${this.lastRow}`)
    if (this.used + 5 > this.data.length) this.data = resized(this.data, Math.max(64, this.data.length * 2))
    let d = row - this.lastRow
    while (d >= 0x80) {
      this.data[this.used++] = (d & 0x7f) | 0x80
      d = Math.floor(d / 0x80)
    }
    this.data[this.used++] = d
    if (this.count % MARK_EVERY === 0) {
      if (this.marks === this.markRow.length) {
        this.markRow = resized(this.markRow, Math.max(16, this.marks * 2))
        this.markEnd = resized(this.markEnd, Math.max(16, this.marks * 2))
      }
      this.markRow[this.marks] = row
      this.markEnd[this.marks++] = this.used
    }
    this.lastRow = row
    if (this.at >= this.count) this.valid = false
    this.count++
  }

  /** Moves the cursor one value on (to `count` past the last). */
  step(): void {
    this.prev = this.row
    if (++this.at >= this.count) {
      this.at = this.count
      return
    }
    let d = 0
    let scale = 1
    for (;;) {
      const b = this.data[this.next++]
      d += (b & 0x7f) * scale
      if (b < 0x80) break
      scale *= 0x80
    }
    this.row += d
  }

  /** Puts the cursor on the first value whose row is >= `row` (at `count` when there is none). */
  seek(row: number): void {
    if (this.count === 0) return
    // The cursor only moves forward: from a mark when it has passed `row` already or `row` is past the next mark.
    if (!this.valid || this.prev >= row) this.jump(row)
    else if (this.at < this.count && this.row < row) {
      const m = Math.floor(this.at / MARK_EVERY) + 1
      if (m < this.marks && this.markRow[m] < row) this.jump(row)
    }
    while (this.at < this.count && this.row < row) this.step()
  }

  /** Remembers where the cursor is, for back(). */
  hold(): void {
    this.held[0] = this.at
    this.held[1] = this.row
    this.held[2] = this.prev
    this.held[3] = this.next
  }

  /** Puts the cursor back where hold() found it (values added since do not move what came before). */
  back(): void {
    this.at = this.held[0]
    this.row = this.held[1]
    this.prev = this.held[2]
    this.next = this.held[3]
  }

  /** Puts the cursor on the last exact entry before `row`, or on the first value. */
  private jump(row: number): void {
    let lo = 0
    let hi = this.marks
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.markRow[mid] < row) lo = mid + 1
      else hi = mid
    }
    const k = Math.max(0, lo - 1)
    this.at = k * MARK_EVERY
    this.row = this.markRow[k]
    this.next = this.markEnd[k]
    // Exact for the first value; otherwise seek() steps at least once (this row is < `row`), which sets it.
    this.prev = -1
    this.valid = true
  }

  trim(): void {
    if (this.data.length > this.used) this.data = this.data.slice(0, this.used)
    if (this.markRow.length > this.marks) {
      this.markRow = this.markRow.slice(0, this.marks)
      this.markEnd = this.markEnd.slice(0, this.marks)
    }
  }

  byteSize(): number {
    return this.data.byteLength + this.markRow.byteLength + this.markEnd.byteLength
  }
}

export class FieldColumn {
  private readonly rows = new RowList()
  /** Room of the value arrays below, by position. */
  private room = 16
  /** Numbers (or booleans as 0/1 in a column of booleans) by position; made when the first one comes (in a column of booleans, the first `false`). */
  private nums: Numbers | null = null
  /** The column holds booleans in `nums`: set by its first number-or-boolean value. */
  private bools: boolean | null = null
  /** Interned strings by position (string id + 1; 0 where the value is elsewhere). */
  private strs: Uint16Array | null = null
  /** Other values by position (undefined where the value is in `nums` or `strs`). */
  private objs: (FieldScalar | undefined)[] | null = null

  constructor(private readonly strings: StringTable) {}

  get count(): number {
    return this.rows.count
  }

  add(row: number, v: FieldScalar): void {
    const i = this.rows.count
    if (i === this.room) this.room *= 2
    this.rows.add(row)
    if (typeof v === 'string') {
      const ref = this.strings.ref(v)
      if (ref) {
        if (!this.strs || this.strs.length < this.room) this.strs = resized(this.strs ?? new Uint16Array(0), this.room)
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
    const nums = this.nums
    // A column of `true` only (a presence column: `has:photon.cmd`) keeps no values until a `false` comes.
    if (kind && n === 1 && !nums) return
    const width = widthFor(n, nums)
    if (!nums || nums.length < this.room || nums.BYTES_PER_ELEMENT !== width) {
      const next = new NUMBERS_OF_WIDTH[width](this.room)
      if (nums) next.set(nums.subarray(0, Math.min(nums.length, i)))
      else if (kind) next.fill(1, 0, i)
      this.nums = next
    }
    this.nums![i] = n
  }

  /** Gives back the room kept for more values (a capture file's index is complete). */
  trim(): void {
    const n = this.rows.count
    this.rows.trim()
    this.room = Math.max(n, 1)
    if (this.nums && this.nums.length > n) this.nums = this.nums.slice(0, n)
    if (this.strs && this.strs.length > n) this.strs = this.strs.slice(0, n)
  }

  has(row: number): boolean {
    const r = this.rows
    r.seek(row)
    return r.at < r.count && r.row === row
  }

  /** The row's values in the order they were added (empty when it has none). */
  values(row: number): readonly FieldScalar[] {
    const r = this.rows
    r.seek(row)
    if (r.at >= r.count || r.row !== row) return EMPTY
    const out: FieldScalar[] = []
    // The cursor stays on the row's first value, where the next lookup of this row or a later one starts.
    r.hold()
    for (; r.at < r.count && r.row === row; r.step()) {
      const i = r.at
      const ref = this.strs ? this.strs[i] : 0
      const o = ref ? this.strings.list[ref - 1] : this.objs?.[i]
      out.push(o !== undefined ? o : this.bools ? !this.nums || this.nums[i] === 1 : this.nums![i])
    }
    r.back()
    return out
  }

  byteSize(): number {
    return this.rows.byteSize() + (this.nums?.byteLength ?? 0) + (this.strs?.byteLength ?? 0) + (this.objs ? this.objs.length * 8 : 0)
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

  /** True when a string value would be kept once in the shared table, not on its own in a side array. */
  internable(v: string): boolean {
    return this.strings.holds(v)
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
