// Fragment reassembly for datagram transports whose fragments carry (start sequence, count, number, total
// length, offset): Photon SEND_FRAGMENT (photon.md §2.2) and ENet SEND_FRAGMENT / SEND_UNRELIABLE_FRAGMENT
// share this shape. One assembler per conversation and direction. Fragments are grouped per channel by startSeq, accepted in any order, and the
// message is complete once every fragment number 0..count-1 has arrived and their data cover the whole
// totalLength. Memory is bounded: nothing of totalLength size is allocated before the message is complete
// (pieces are kept as copies of what arrived), the bytes held by unfinished reassemblies are capped (the
// oldest is evicted and reported), and every header value is checked before it is used.

/** What a fragment says about the message it belongs to. */
export interface FragmentHeader {
  startSeq: number
  count: number
  number: number
  totalLength: number
  offset: number
}

export interface FragmentLimits {
  /** Largest totalLength accepted (default 16 MiB). */
  maxTotalLength?: number
  /** Bytes all unfinished reassemblies of this assembler may hold before the oldest is evicted (default 64 MiB). */
  maxPendingBytes?: number
  /** Largest fragment count accepted (default 65536). */
  maxFragmentCount?: number
  /** Finished reassemblies remembered so that late retransmissions of their fragments report 'duplicate' (default 4096). */
  maxRemembered?: number
  /** How long (in the unit of `time`, seconds by default) a finished reassembly turns its fragments into duplicates (default 300). */
  duplicateWindow?: number
  /** Evicted reassemblies kept for incomplete() (default 256; older ones only counted in `evictedDropped`). */
  maxEvictedKept?: number
}

export interface FragmentPiece {
  offset: number
  length: number
  frame: number
  number: number
}

export interface IncompleteReassembly {
  channel: number
  startSeq: number
  count: number
  totalLength: number
  received: number
  /** Missing fragment numbers, ascending, at most MISSING_LIST_CAP of them (see missingCount). */
  missing: number[]
  missingCount: number
  /** Frames that carried a fragment of it, ascending, unique. */
  frames: number[]
  firstTime: number
  lastTime: number
  /** 'evicted': dropped to stay under maxPendingBytes (also returned by the add() that evicted it). */
  state: 'pending' | 'evicted'
}

export type FragmentResult = (
  | { kind: 'pending'; received: number; count: number }
  | { kind: 'duplicate' }
  | { kind: 'complete'; bytes: Uint8Array; frames: number[]; time: number; pieces: FragmentPiece[] }
  | { kind: 'error'; message: string }
) & {
  /** Reassemblies evicted during this call to stay under maxPendingBytes. */
  evicted?: IncompleteReassembly[]
}

export const MISSING_LIST_CAP = 64

const DEFAULTS = {
  maxTotalLength: 16 * 1024 * 1024,
  maxPendingBytes: 64 * 1024 * 1024,
  maxFragmentCount: 65536,
  maxRemembered: 4096,
  duplicateWindow: 300,
  maxEvictedKept: 256
}

/** Bookkeeping bytes charged per stored piece and per reassembly, on top of the data itself. */
const PIECE_COST = 64
const ENTRY_COST = 256

interface Piece {
  number: number
  offset: number
  data: Uint8Array
  frame: number
  time: number
}

interface Pending {
  key: number
  channel: number
  startSeq: number
  count: number
  totalLength: number
  have: Uint8Array
  received: number
  pieces: Piece[]
  cost: number
  firstTime: number
  lastTime: number
}

interface Done {
  count: number
  totalLength: number
  time: number
}

const isInt = (v: number) => Number.isSafeInteger(v)

export class FragmentAssembler {
  private readonly limits: typeof DEFAULTS
  /** Unfinished reassemblies in creation order (oldest first: the eviction order). */
  private readonly pending = new Map<number, Pending>()
  /** Finished (or failed) reassemblies, oldest first. */
  private readonly done = new Map<number, Done>()
  private readonly evictedKept: IncompleteReassembly[] = []
  private held = 0
  /** Evicted reassemblies no longer listed by incomplete() (beyond maxEvictedKept). */
  evictedDropped = 0

  constructor(limits: FragmentLimits = {}) {
    this.limits = { ...DEFAULTS }
    for (const k of Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[]) {
      const v = limits[k]
      if (v !== undefined && Number.isFinite(v) && v >= 0) this.limits[k] = v
    }
  }

  /** Bytes currently held by unfinished reassemblies (data plus bookkeeping). */
  get pendingBytes(): number {
    return this.held
  }

  get pendingCount(): number {
    return this.pending.size
  }

  add(channel: number, frag: FragmentHeader, data: Uint8Array, frame: number, time: number): FragmentResult {
    const { startSeq, count, number, totalLength, offset } = frag
    const L = this.limits
    const what = `fragment #${number} of ${count} (start seq ${startSeq}, channel ${channel})`
    if (!isInt(channel) || channel < 0 || channel > 0xffff) return err(`${what}: invalid channel`)
    if (!isInt(startSeq) || startSeq < -0x80000000 || startSeq > 0xffffffff) return err(`${what}: invalid start sequence`)
    if (!isInt(count) || count <= 0) return err(`${what}: fragment count ${count} is not positive`)
    if (count > L.maxFragmentCount) return err(`${what}: fragment count ${count} is over the limit of ${L.maxFragmentCount}`)
    if (!isInt(number) || number < 0 || number >= count) return err(`${what}: fragment number ${number} is outside 0..${count - 1}`)
    if (!isInt(totalLength) || totalLength <= 0) return err(`${what}: total length ${totalLength} is not positive`)
    if (totalLength > L.maxTotalLength) return err(`${what}: total length ${totalLength} is over the limit of ${L.maxTotalLength}`)
    if (count > totalLength) return err(`${what}: ${count} fragments for only ${totalLength} bytes`)
    if (!isInt(offset) || offset < 0 || offset + data.length > totalLength) {
      return err(`${what}: ${data.length} bytes at offset ${offset} lie outside the total length ${totalLength}`)
    }

    const key = channel * 0x100000000 + (startSeq >>> 0)
    let p = this.pending.get(key)
    if (!p) {
      const d = this.done.get(key)
      if (d) {
        if (d.count === count && d.totalLength === totalLength && time - d.time <= L.duplicateWindow) return { kind: 'duplicate' }
        this.done.delete(key) // a new message reusing the start sequence (reconnect): start over
      }
    } else if (p.count !== count || p.totalLength !== totalLength) {
      return err(`${what}: count ${count} / total length ${totalLength} disagree with the first fragment of start seq ${startSeq} (${p.count} / ${p.totalLength})`)
    } else if (p.have[number >>> 3] & (1 << (number & 7))) {
      return { kind: 'duplicate' }
    }

    const cost = data.length + PIECE_COST + (p ? 0 : ENTRY_COST + ((count + 7) >>> 3))
    const evicted = this.makeRoom(cost, p)
    if (this.held + cost > L.maxPendingBytes) {
      // Even alone it does not fit: drop this reassembly too.
      if (p) evicted.push(this.evict(p))
      return withEvicted(err(`${what}: reassembly needs more than the ${L.maxPendingBytes}-byte memory cap`), evicted)
    }

    if (!p) {
      p = { key, channel, startSeq, count, totalLength, have: new Uint8Array((count + 7) >>> 3), received: 0, pieces: [], cost: ENTRY_COST + ((count + 7) >>> 3), firstTime: time, lastTime: time }
      this.pending.set(key, p)
      this.held += p.cost
    }
    const piece: Piece = { number, offset, data: data.slice(), frame, time }
    p.pieces.push(piece)
    p.have[number >>> 3] |= 1 << (number & 7)
    p.received++
    p.cost += data.length + PIECE_COST
    this.held += data.length + PIECE_COST
    if (time > p.lastTime) p.lastTime = time

    if (p.received < p.count) return withEvicted({ kind: 'pending', received: p.received, count: p.count }, evicted)

    // Every number arrived: the pieces must cover the whole message.
    this.drop(p)
    this.remember(key, count, totalLength, time)
    const sorted = p.pieces.slice().sort((a, b) => a.offset - b.offset || a.number - b.number)
    let covered = 0
    for (const s of sorted) {
      if (s.offset > covered) return withEvicted(err(`start seq ${startSeq} (channel ${channel}): all ${count} fragments arrived but bytes ${covered}..${s.offset - 1} of ${totalLength} are missing`), evicted)
      covered = Math.max(covered, s.offset + s.data.length)
    }
    if (covered < totalLength) {
      return withEvicted(err(`start seq ${startSeq} (channel ${channel}): all ${count} fragments arrived but bytes ${covered}..${totalLength - 1} are missing`), evicted)
    }
    const bytes = new Uint8Array(totalLength)
    for (const s of p.pieces) bytes.set(s.data, s.offset) // arrival order
    const frames = uniqueSorted(p.pieces.map((s) => s.frame))
    return withEvicted(
      {
        kind: 'complete',
        bytes,
        frames,
        time: p.lastTime,
        pieces: sorted.map((s) => ({ offset: s.offset, length: s.data.length, frame: s.frame, number: s.number }))
      },
      evicted
    )
  }

  /** Reassemblies never completed: the evicted ones still kept (oldest first), then those still pending. */
  incomplete(): IncompleteReassembly[] {
    return [...this.evictedKept, ...[...this.pending.values()].map((p) => describe(p, 'pending'))]
  }

  /** Forgets everything (e.g. on a new connection). */
  clear(): void {
    this.pending.clear()
    this.done.clear()
    this.evictedKept.length = 0
    this.held = 0
  }

  /** Evicts the oldest reassemblies (never `keep`) until `cost` more bytes fit under the cap. */
  private makeRoom(cost: number, keep: Pending | undefined): IncompleteReassembly[] {
    const out: IncompleteReassembly[] = []
    if (this.held + cost <= this.limits.maxPendingBytes) return out
    for (const p of this.pending.values()) {
      if (this.held + cost <= this.limits.maxPendingBytes) break
      if (p === keep) continue
      out.push(this.evict(p))
    }
    return out
  }

  private evict(p: Pending): IncompleteReassembly {
    this.drop(p)
    const info = describe(p, 'evicted')
    this.evictedKept.push(info)
    if (this.evictedKept.length > this.limits.maxEvictedKept) {
      this.evictedKept.shift()
      this.evictedDropped++
    }
    return info
  }

  private drop(p: Pending): void {
    if (this.pending.delete(p.key)) this.held -= p.cost
  }

  private remember(key: number, count: number, totalLength: number, time: number): void {
    this.done.delete(key)
    this.done.set(key, { count, totalLength, time })
    if (this.done.size > this.limits.maxRemembered) {
      const oldest = this.done.keys().next()
      if (!oldest.done) this.done.delete(oldest.value)
    }
  }
}

function err(message: string): FragmentResult {
  return { kind: 'error', message }
}

function withEvicted(r: FragmentResult, evicted: IncompleteReassembly[]): FragmentResult {
  if (evicted.length) r.evicted = evicted
  return r
}

function uniqueSorted(v: number[]): number[] {
  const s = v.slice().sort((a, b) => a - b)
  const out: number[] = []
  for (const x of s) if (out.length === 0 || out[out.length - 1] !== x) out.push(x)
  return out
}

function describe(p: Pending, state: 'pending' | 'evicted'): IncompleteReassembly {
  const missing: number[] = []
  let missingCount = 0
  for (let n = 0; n < p.count; n++) {
    if (!(p.have[n >>> 3] & (1 << (n & 7)))) {
      missingCount++
      if (missing.length < MISSING_LIST_CAP) missing.push(n)
    }
  }
  return {
    channel: p.channel,
    startSeq: p.startSeq,
    count: p.count,
    totalLength: p.totalLength,
    received: p.received,
    missing,
    missingCount,
    frames: uniqueSorted(p.pieces.map((s) => s.frame)),
    firstTime: p.firstTime,
    lastTime: p.lastTime,
    state
  }
}
