// Sequence alignment of two lists of message keys: a longest common subsequence, so messages that one
// side has and the other lacks do not shift every later pair.

/** Pairs of indexes (i in a, j in b), ascending in both. */
export type Alignment = [number, number][]

/** Above this many table cells the alignment is greedy (bounded memory: a cell is 2 or 4 bytes). */
export const MAX_LCS_CELLS = 16_000_000
/** How far ahead the greedy alignment looks for a match. */
const GREEDY_WINDOW = 256

export function alignKeys(a: readonly string[], b: readonly string[]): Alignment {
  const out: Alignment = []
  // Common ends cost nothing and are the usual case.
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) out.push([start, start++])
  let endA = a.length
  let endB = b.length
  const tail: Alignment = []
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) tail.push([--endA, --endB])
  const n = endA - start
  const m = endB - start
  if (n > 0 && m > 0) {
    if ((n + 1) * (m + 1) <= MAX_LCS_CELLS) lcs(a, b, start, endA, start, endB, out)
    else greedy(a, b, start, endA, start, endB, out)
  }
  for (let k = tail.length - 1; k >= 0; k--) out.push(tail[k])
  return out
}

function lcs(a: readonly string[], b: readonly string[], a0: number, a1: number, b0: number, b1: number, out: Alignment): void {
  const n = a1 - a0
  const m = b1 - b0
  const w = m + 1
  // Suffix lengths: L[i][j] = LCS of a[a0+i..] and b[b0+j..], so the walk below goes forward.
  const L = Math.min(n, m) < 0xffff ? new Uint16Array((n + 1) * w) : new Uint32Array((n + 1) * w)
  for (let i = n - 1; i >= 0; i--) {
    const ai = a[a0 + i]
    for (let j = m - 1; j >= 0; j--) {
      L[i * w + j] = ai === b[b0 + j] ? L[(i + 1) * w + j + 1] + 1 : Math.max(L[(i + 1) * w + j], L[i * w + j + 1])
    }
  }
  let i = 0
  let j = 0
  while (i < n && j < m) {
    if (a[a0 + i] === b[b0 + j] && L[i * w + j] === L[(i + 1) * w + j + 1] + 1) out.push([a0 + i++, b0 + j++])
    else if (L[(i + 1) * w + j] >= L[i * w + j + 1]) i++
    else j++
  }
}

function greedy(a: readonly string[], b: readonly string[], a0: number, a1: number, b0: number, b1: number, out: Alignment): void {
  let j = b0
  for (let i = a0; i < a1 && j < b1; i++) {
    for (let k = j; k < Math.min(b1, j + GREEDY_WINDOW); k++) {
      if (a[i] === b[k]) {
        out.push([i, k])
        j = k + 1
        break
      }
    }
  }
}
