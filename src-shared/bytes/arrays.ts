// Arrays whose length is known before they are filled (a count read from the wire).

/** Past this, new Array(n) makes a slow dictionary-backed array: longer ones grow as usual. */
const MAX_PRESIZED = 1024

/**
 * An empty array to fill with `n` elements in order (`out[i] = v` for i = 0..n-1), reserved up front when
 * short: `[]` grown by push reserves 17 slots at its first push, which every short array of every message
 * pays in allocation and in memory kept. Filled completely, it is the same array to every reader.
 */
export function arrayFor<T>(n: number): T[] {
  return n <= MAX_PRESIZED ? new Array<T>(n) : []
}
