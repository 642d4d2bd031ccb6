// Sorting rows by a key without comparator calls: each row's key becomes an integer rank, and a counting
// sort places the rows. The timeline's sort (view.ts) and the conversation list's (conversation-pages.ts)
// use it; at millions of rows a comparator sort took seconds.

/**
 * `rows` reordered by `keys` (keys[i] belongs to rows[i]), ties keeping their order in `rows`. Keys are
 * turned into integer ranks for sortByRank: small whole numbers are their own, keys already in order are
 * counted off, and others are their position among the distinct keys, found in a native sort of a copy.
 */
export function sortByKey(rows: Uint32Array, keys: Float64Array, desc: boolean): Uint32Array<ArrayBuffer> {
  const n = rows.length
  // Small whole numbers (conversation ids, lengths) are ranks as they are.
  let top = 0
  let whole = true
  for (let i = 0; i < n && whole; i++) {
    const v = keys[i]
    whole = v >= 0 && v <= 0xffffffff && Math.floor(v) === v
    if (v > top) top = v
  }
  if (whole && top < 2 * n + 65536) return sortByRank(rows, Uint32Array.from(keys), top + 1, desc)
  // Keys already in order (times, in capture order) are ranked in one pass.
  let inOrder = true
  for (let i = 1; i < n && inOrder; i++) inOrder = keys[i - 1] <= keys[i]
  if (inOrder) {
    const ranks = new Uint32Array(n)
    let r = 0
    for (let i = 1; i < n; i++) ranks[i] = keys[i] === keys[i - 1] ? r : ++r
    return sortByRank(rows, ranks, r + 1, desc)
  }
  const sorted = Float64Array.from(keys).sort()
  let distinct = 0
  for (let i = 0; i < n; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[distinct++] = sorted[i]
  const ranks = new Uint32Array(n)
  for (let i = 0; i < n; i++) {
    const v = keys[i]
    let lo = 0
    let hi = distinct - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (sorted[mid] < v) lo = mid + 1
      else hi = mid
    }
    ranks[i] = lo
  }
  return sortByRank(rows, ranks, distinct, desc)
}

/**
 * `rows` reordered by `ranks` (integers below `distinct`, ranks[i] belonging to rows[i]), ties keeping
 * their order in `rows`, in either direction: a counting sort, linear in the rows and the ranks, with no
 * comparator calls.
 */
export function sortByRank(rows: Uint32Array, ranks: Uint32Array, distinct: number, desc: boolean): Uint32Array<ArrayBuffer> {
  const n = rows.length
  const out = new Uint32Array(n)
  // starts[r + 1] counts the rows of rank r (reversed when descending); summed, starts[r] is where they begin.
  const starts = new Uint32Array(distinct + 1)
  const top = distinct - 1
  for (let i = 0; i < n; i++) starts[(desc ? top - ranks[i] : ranks[i]) + 1]++
  for (let r = 1; r <= distinct; r++) starts[r] += starts[r - 1]
  for (let i = 0; i < n; i++) out[starts[desc ? top - ranks[i] : ranks[i]]++] = rows[i]
  return out
}
