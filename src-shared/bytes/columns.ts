// Growing typed-array columns: the compact per-row storage of conversation summaries and frame chains.

type Column = Uint8Array | Uint16Array | Uint32Array | Float64Array

/** A copy of `a` with room for `size` entries (the new ones zero). */
export function resized<T extends Column>(a: T, size: number): T {
  const out = new (a.constructor as new (n: number) => T)(size)
  out.set(a.length > size ? (a.subarray(0, size) as T) : a)
  return out
}
