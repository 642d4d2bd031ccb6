// Fragment reassembly for datagram transports whose fragments carry (start sequence, count, number, total
// length, offset): Photon SEND_FRAGMENT (docs/photon.md, UDP layout) and ENet SEND_FRAGMENT / SEND_UNRELIABLE_FRAGMENT
// share this shape. One assembler per conversation and direction. Fragments are grouped per channel by startSeq, accepted in any order, and the
// message is complete once every fragment number 0..count-1 has arrived and their data cover the whole
// totalLength. Memory is bounded: nothing of totalLength size is allocated before the message is complete
// (pieces are kept as copies of what arrived), the bytes held by unfinished reassemblies are capped (the
// oldest is evicted and reported), and every header value is checked before it is used.
// A second path, addNumbered(), serves transports whose parts carry no offset or total length (LiteNetLib):
// the message is its parts concatenated in number order; it shares the tables, limits and eviction.

/** What a fragment says about the message it belongs to. */
export interface FragmentHeader {
  startSeq: number
  count: number
  number: number
  totalLength: number
  offset: number
}

/** A part of a message split into numbered parts without offsets (LiteNetLib fragments). */
export interface NumberedPart {
  /** The message's id within its channel (LiteNetLib fragmentId). */
  id: number
  count: number
  number: number
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
  /** The start sequence, or the message id of numbered parts (addNumbered). */
  startSeq: number
  count: number
  /** 0 for numbered parts: their total is known only once all arrived (see receivedBytes). */
  totalLength: number
  /** Numbered parts only: data bytes received so far. */
  receivedBytes?: number
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

const DEFAULTS: Readonly<Required<FragmentLimits>> = {
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
  /** Parts placed by number (addNumbered) rather than by offset; totalLength is then NUMBERED. */
  numbered: boolean
  dataBytes: number
}

interface Done {
  count: number
  totalLength: number
  time: number
}

const isInt = (v: number) => Number.isSafeInteger(v)

/** A message's time is the time of the frame that completed it: the latest (highest-numbered) of its frames. */
function completedAt(p: Pending): number {
  let latest = p.pieces[0]
  for (const s of p.pieces) if (s.frame >= latest.frame) latest = s
  return latest?.time ?? p.lastTime
}

/** totalLength recorded for numbered reassemblies, which never equals a real (positive) total length. */
const NUMBERED = -1

export class FragmentAssembler {
  /** The defaults themselves unless some limit is set (one per conversation and direction adds up). */
  private readonly limits: Readonly<Required<FragmentLimits>>
  // Made on first use: most conversations never fragment.
  private pendingMap: Map<number, Pending> | undefined
  private doneMap: Map<number, Done> | undefined
  private evictedList: IncompleteReassembly[] | undefined
  private held = 0
  /** Evicted reassemblies no longer listed by incomplete() (beyond maxEvictedKept). */
  evictedDropped = 0

  constructor(limits: FragmentLimits = {}) {
    let own: Required<FragmentLimits> | undefined
    for (const k of Object.keys(DEFAULTS) as (keyof FragmentLimits)[]) {
      const v = limits[k]
      if (v !== undefined && Number.isFinite(v) && v >= 0) (own ??= { ...DEFAULTS })[k] = v
    }
    this.limits = own ?? DEFAULTS
  }

  /** Unfinished reassemblies in creation order (oldest first: the eviction order). */
  private get pending(): Map<number, Pending> {
    return (this.pendingMap ??= new Map())
  }

  /** Finished (or failed) reassemblies, oldest first. */
  private get done(): Map<number, Done> {
    return (this.doneMap ??= new Map())
  }

  private get evictedKept(): IncompleteReassembly[] {
    return (this.evictedList ??= [])
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
      return err(
        `${what}: count ${count} / total length ${totalLength} disagree with the first fragment of start seq ${startSeq} (${p.count} / ${p.totalLength})`
      )
    } else if (p.have[number >>> 3] & (1 << (number & 7))) {
      return { kind: 'duplicate' }
    }

    const stored = this.store(p, { key, channel, startSeq, count, totalLength, numbered: false }, number, offset, data, frame, time, what)
    if ('result' in stored) return stored.result
    p = stored.p
    const evicted = stored.evicted
    if (p.received < p.count) return withEvicted({ kind: 'pending', received: p.received, count: p.count }, evicted)

    // Every number arrived: the pieces must cover the whole message.
    this.drop(p)
    this.remember(key, count, totalLength, time)
    const sorted = p.pieces.slice().sort((a, b) => a.offset - b.offset || a.number - b.number)
    let covered = 0
    for (const s of sorted) {
      if (s.offset > covered)
        return withEvicted(
          err(`start seq ${startSeq} (channel ${channel}): all ${count} fragments arrived but bytes ${covered}..${s.offset - 1} of ${totalLength} are missing`),
          evicted
        )
      covered = Math.max(covered, s.offset + s.data.length)
    }
    if (covered < totalLength) {
      return withEvicted(
        err(`start seq ${startSeq} (channel ${channel}): all ${count} fragments arrived but bytes ${covered}..${totalLength - 1} are missing`),
        evicted
      )
    }
    const bytes = new Uint8Array(totalLength)
    for (const s of p.pieces) bytes.set(s.data, s.offset) // arrival order
    const frames = uniqueSorted(p.pieces.map((s) => s.frame))
    return withEvicted(
      {
        kind: 'complete',
        bytes,
        frames,
        time: completedAt(p),
        pieces: sorted.map((s) => ({ offset: s.offset, length: s.data.length, frame: s.frame, number: s.number }))
      },
      evicted
    )
  }

  // ---- numbered parts (no offset, no total length on the wire) ----

  /**
   * One part of a message that is its `count` parts concatenated in number order (LiteNetLib: fragment id,
   * part, total). Same results, limits and eviction as add(); the message length is checked against
   * maxTotalLength as the parts arrive, and `id` plays the role of the start sequence.
   */
  addNumbered(channel: number, part: NumberedPart, data: Uint8Array, frame: number, time: number): FragmentResult {
    const { id, count, number } = part
    const L = this.limits
    const what = `part #${number} of ${count} (message id ${id}, channel ${channel})`
    if (!isInt(channel) || channel < 0 || channel > 0xffff) return err(`${what}: invalid channel`)
    if (!isInt(id) || id < 0 || id > 0xffffffff) return err(`${what}: invalid message id`)
    if (!isInt(count) || count <= 0) return err(`${what}: part count ${count} is not positive`)
    if (count > L.maxFragmentCount) return err(`${what}: part count ${count} is over the limit of ${L.maxFragmentCount}`)
    if (!isInt(number) || number < 0 || number >= count) return err(`${what}: part number ${number} is outside 0..${count - 1}`)

    const key = channel * 0x100000000 + id
    let p = this.pending.get(key)
    if (!p) {
      const d = this.done.get(key)
      if (d) {
        if (d.count === count && d.totalLength === NUMBERED && time - d.time <= L.duplicateWindow) return { kind: 'duplicate' }
        this.done.delete(key) // the id came round again (it is a 16-bit counter in LiteNetLib): a new message
      }
    } else if (!p.numbered || p.count !== count) {
      return err(`${what}: part count ${count} disagrees with the first part of message id ${id} (${p.count})`)
    } else if (p.have[number >>> 3] & (1 << (number & 7))) {
      return { kind: 'duplicate' }
    }
    if ((p?.dataBytes ?? 0) + data.length > L.maxTotalLength) {
      const evicted = p ? [this.evict(p)] : []
      return withEvicted(err(`${what}: the parts add up to more than the limit of ${L.maxTotalLength} bytes`), evicted)
    }

    const stored = this.store(p, { key, channel, startSeq: id, count, totalLength: NUMBERED, numbered: true }, number, 0, data, frame, time, what)
    if ('result' in stored) return stored.result
    p = stored.p
    if (p.received < p.count) return withEvicted({ kind: 'pending', received: p.received, count: p.count }, stored.evicted)

    this.drop(p)
    this.remember(key, count, NUMBERED, time)
    const sorted = p.pieces.slice().sort((a, b) => a.number - b.number)
    const bytes = new Uint8Array(p.dataBytes)
    const pieces: FragmentPiece[] = []
    let at = 0
    for (const s of sorted) {
      bytes.set(s.data, at)
      pieces.push({ offset: at, length: s.data.length, frame: s.frame, number: s.number })
      at += s.data.length
    }
    return withEvicted({ kind: 'complete', bytes, frames: uniqueSorted(p.pieces.map((s) => s.frame)), time: completedAt(p), pieces }, stored.evicted)
  }

  /**
   * Stores a new piece of `p` (created from `init` on its first piece), evicting the oldest other
   * reassemblies first when the memory cap needs it. A piece that cannot fit even so drops its reassembly.
   */
  private store(
    p: Pending | undefined,
    init: Pick<Pending, 'key' | 'channel' | 'startSeq' | 'count' | 'totalLength' | 'numbered'>,
    number: number,
    offset: number,
    data: Uint8Array,
    frame: number,
    time: number,
    what: string
  ): { p: Pending; evicted: IncompleteReassembly[] } | { result: FragmentResult } {
    const L = this.limits
    const count = init.count
    const cost = data.length + PIECE_COST + (p ? 0 : ENTRY_COST + ((count + 7) >>> 3))
    const evicted = this.makeRoom(cost, p)
    if (this.held + cost > L.maxPendingBytes) {
      // Even alone it does not fit: drop this reassembly too.
      if (p) evicted.push(this.evict(p))
      return { result: withEvicted(err(`${what}: reassembly needs more than the ${L.maxPendingBytes}-byte memory cap`), evicted) }
    }
    if (!p) {
      p = {
        ...init,
        have: new Uint8Array((count + 7) >>> 3),
        received: 0,
        pieces: [],
        cost: ENTRY_COST + ((count + 7) >>> 3),
        firstTime: time,
        lastTime: time,
        dataBytes: 0
      }
      this.pending.set(init.key, p)
      this.held += p.cost
    }
    p.pieces.push({ number, offset, data: data.slice(), frame, time })
    p.have[number >>> 3] |= 1 << (number & 7)
    p.received++
    p.dataBytes += data.length
    p.cost += data.length + PIECE_COST
    this.held += data.length + PIECE_COST
    if (time > p.lastTime) p.lastTime = time
    return { p, evicted }
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
  // Every received number is distinct, so the count needs no scan; the list stops at its cap (a hostile
  // count of 65535 must not cost a full scan on every eviction).
  const missingCount = p.count - p.received
  const missing: number[] = []
  for (let n = 0; n < p.count && missing.length < MISSING_LIST_CAP; n++) {
    if (!(p.have[n >>> 3] & (1 << (n & 7)))) missing.push(n)
  }
  return {
    channel: p.channel,
    startSeq: p.startSeq,
    count: p.count,
    totalLength: p.numbered ? 0 : p.totalLength,
    ...(p.numbered ? { receivedBytes: p.dataBytes } : {}),
    received: p.received,
    missing,
    missingCount,
    frames: uniqueSorted(p.pieces.map((s) => s.frame)),
    firstTime: p.firstTime,
    lastTime: p.lastTime,
    state
  }
}
