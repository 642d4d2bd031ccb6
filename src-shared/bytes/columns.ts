// Growing typed-array columns: the compact per-row storage of conversation summaries and frame chains.

type Column = Uint8Array | Uint16Array | Uint32Array | Float64Array

/** A copy of `a` with room for `size` entries (the new ones zero). */
export function resized<T extends Column>(a: T, size: number): T {
  const out = new (a.constructor as new (n: number) => T)(size)
  out.set(a.length > size ? (a.subarray(0, size) as T) : a)
  return out
}

/**
 * The typed-array columns of one table, by name: an empty array of the column's type, and how many entries a
 * row takes in it. One list of the columns, from which making, growing, cutting and reordering them follow.
 */
export type ColumnShape = Readonly<Record<string, readonly [Column, number]>>
export type ColumnsOf<S extends ColumnShape> = { -readonly [K in keyof S]: S[K][0] }

/** Copies of the columns `from` with room for `rows` rows (cut when they hold more); new zeroed ones without `from`. */
export function resizedColumns<S extends ColumnShape>(shape: S, rows: number, from?: ColumnsOf<S>): ColumnsOf<S> {
  const out = {} as ColumnsOf<S>
  for (const name in shape) {
    const [empty, per] = shape[name]
    out[name] = resized(from ? from[name] : empty, rows * per) as ColumnsOf<S>[typeof name]
  }
  return out
}

/** The columns' rows in a new order: row `to` of the result is row `order[to]` of `from`. */
export function reorderedColumns<S extends ColumnShape>(shape: S, from: ColumnsOf<S>, order: ArrayLike<number>): ColumnsOf<S> {
  const out = resizedColumns(shape, order.length)
  for (const name in shape) {
    const per = shape[name][1]
    const a = from[name]
    const b = out[name]
    for (let to = 0; to < order.length; to++) for (let k = 0; k < per; k++) b[to * per + k] = a[order[to] * per + k]
  }
  return out
}

/** `a`, or a copy in 32 bits once `v` does not fit 16: a column of two-byte numbers until one needs four. */
export function wideEnough(a: Uint16Array | Uint32Array, v: number): Uint16Array | Uint32Array {
  return v > 0xffff && a instanceof Uint16Array ? Uint32Array.from(a) : a
}

/**
 * Numbers appended in order to a Float64Array that doubles as needed, for packing many small records to send
 * to another thread: pushing to a plain array and copying it out cost more than the records' contents.
 * Write at `length` after `room(n)`, then add what was written to `length`.
 */
export class Float64Builder {
  private data: Float64Array
  length = 0

  constructor(capacity = 1024) {
    this.data = new Float64Array(capacity)
  }

  /** The array to write to, with room for `n` more numbers at `length`. */
  room(n: number): Float64Array {
    if (this.length + n > this.data.length) this.data = resized(this.data, Math.max(this.data.length * 2, this.length + n))
    return this.data
  }

  /** The numbers written, as an array of their own; the builder starts over (keeping its room). */
  take(): Float64Array {
    const out = this.data.slice(0, this.length)
    this.length = 0
    return out
  }
}
