// Comparing two captures of the same scenario (a reference server and a reimplementation, two client
// builds): conversations paired by protocol and role, their messages aligned per direction by name as a
// longest common subsequence (so timing, ids and the interleaving of the two directions do not matter),
// then aligned messages compared field by field, volatile fields skipped. Each capture is kept compactly
// (side.ts: a digest per message instead of its value), so captures of hours compare in bounded memory;
// diffSources decodes through the sources it is given (src-main/host/capture-diff.ts for files).

import { alignKeys } from './align'
import { valueLeaves, type Leaf, type Scalar } from './fields'
import { ignoreRules, type DiffOptions, type IgnoreRules } from './rules'
import { DiffSide, type DiffConversationInput, type DiffConversations, type DiffKey, type DiffMessageInput, type DiffValues } from './side'

export { DEFAULT_IGNORES, type DiffOptions } from './rules'
export { DiffSide, diffSideOf, type DiffConversationInput, type DiffMessageInput, type DiffValues } from './side'

export const DIFF_FORMAT = 'gamewire-diff/1'

export interface MessageRef {
  id: number
  frames: number[]
  direction: string
  /** The message's name, with an SFS2X extension command after it. */
  name: string
}

export interface FieldChange {
  path: string
  /** The value on each side; null with `only` when the field is on one side alone. */
  a: Scalar
  b: Scalar
  only?: 'a' | 'b'
  /** The typed wrappers' types, when they differ. */
  aType?: string
  bType?: string
}

export interface ChangedMessage {
  a: MessageRef
  b: MessageRef
  /** Paired out of order (the alignment left both unmatched; same name and direction, in order). */
  reordered?: true
  fields: FieldChange[]
}

export interface ConversationSide {
  id: number
  client: string
  server: string
}

/**
 * One line of the side-by-side view: an aligned pair, or a message on one side alone (the other null);
 * `changed` is the pair's index in its conversation's `changed`. `gap` stands for that many aligned,
 * unchanged lines left out (compactRows).
 */
export type DiffRow = { a: MessageRef | null; b: MessageRef | null; changed?: number } | { gap: number }

export interface ConversationDiff {
  protocol: string
  a: ConversationSide | null
  b: ConversationSide | null
  /** How they were paired: the same server port, or the order of first appearance (`order`). */
  pairedBy: 'server-port' | 'order' | null
  aligned: number
  onlyA: MessageRef[]
  onlyB: MessageRef[]
  changed: ChangedMessage[]
}

export interface OperationDiff {
  protocol: string
  direction: string
  name: string
  a: number
  b: number
  aligned: number
  changed: number
  onlyA: number
  onlyB: number
}

export interface DiffReport {
  format: typeof DIFF_FORMAT
  a: { file?: string; conversations: number; messages: number }
  b: { file?: string; conversations: number; messages: number }
  /** The volatile-field patterns in effect, per protocol ('*': every protocol). */
  ignored: Record<string, string[]>
  conversations: ConversationDiff[]
  summary: OperationDiff[]
  totals: { aligned: number; changed: number; onlyA: number; onlyB: number }
}

/** A list taken from the front (Array.shift is linear, and a capture can have a million conversations). */
class Queue<T> {
  private next = 0
  constructor(private readonly items: T[] = []) {}
  push(item: T): void {
    this.items.push(item)
  }
  take(): T | undefined {
    return this.next < this.items.length ? this.items[this.next++] : undefined
  }
}

type ConversationPair = { a: DiffConversationInput | null; b: DiffConversationInput | null; by: ConversationDiff['pairedBy'] }

const PAIRED_BY = [null, 'server-port', 'order'] as const

/** The conversation pairs, in typed columns: each side's conversation (its index in the side's list, -1 for none) and how they were paired. */
class ConversationPairs {
  length = 0
  private readonly a: Int32Array
  private readonly b: Int32Array
  private readonly by: Uint8Array

  constructor(
    private readonly A: DiffConversations,
    private readonly B: DiffConversations
  ) {
    const n = A.count + B.count
    this.a = new Int32Array(n)
    this.b = new Int32Array(n)
    this.by = new Uint8Array(n)
  }

  push(a: number, b: number, by: 0 | 1 | 2): void {
    this.a[this.length] = a
    this.b[this.length] = b
    this.by[this.length++] = by
  }

  get(k: number): ConversationPair {
    const [a, b] = [this.a[k], this.b[k]]
    return { a: a >= 0 ? this.A.get(a) : null, b: b >= 0 ? this.B.get(b) : null, by: PAIRED_BY[this.by[k]] }
  }
}

/**
 * Pairs conversations per protocol: the same server port first, then the rest in order of appearance.
 * Each A conversation takes the first B conversation left with its server port: B's are queued per
 * protocol and port, so pairing is linear in the number of conversations.
 */
function pairConversations(A: DiffConversations, B: DiffConversations): ConversationPairs {
  // Each protocol's conversations (indexes in the side's list) by id, the protocols in order of appearance.
  const byProtocol = (list: DiffConversations) => {
    const out = new Map<string, number[]>()
    for (let i = 0; i < list.count; i++) {
      const same = out.get(list.protocol(i))
      if (same) same.push(i)
      else out.set(list.protocol(i), [i])
    }
    for (const same of out.values()) same.sort((x, y) => list.id(x) - list.id(y))
    return out
  }
  const as = byProtocol(A)
  const bs = byProtocol(B)
  const out = new ConversationPairs(A, B)
  const usedB = new Uint8Array(B.count)
  const partner = new Int32Array(A.count).fill(-1)
  const pairedBy = new Uint8Array(A.count)
  for (const p of new Set([...as.keys(), ...bs.keys()])) {
    const pa = as.get(p) ?? []
    const pb = bs.get(p) ?? []
    const byPort = new Map<string, Queue<number>>()
    for (const cb of pb) {
      const port = B.port(cb)
      const q = byPort.get(port)
      if (q) q.push(cb)
      else byPort.set(port, new Queue([cb]))
    }
    for (const ca of pa) {
      const cb = byPort.get(A.port(ca))?.take()
      if (cb === undefined) continue
      usedB[cb] = 1
      partner[ca] = cb
      pairedBy[ca] = 1
    }
    const restB = new Queue(pb.filter((c) => !usedB[c]))
    for (const ca of pa) {
      if (partner[ca] >= 0) continue
      const cb = restB.take()
      if (cb === undefined) continue
      usedB[cb] = 1
      partner[ca] = cb
      pairedBy[ca] = 2
    }
    for (const ca of pa) out.push(ca, partner[ca], pairedBy[ca] as 0 | 1 | 2)
    for (const cb of pb) if (!usedB[cb]) out.push(-1, cb, 0)
  }
  return out
}

type Matcher = (path: string) => boolean

function changes(a: unknown, b: unknown, skip: Matcher): FieldChange[] {
  const la = valueLeaves(a)
  const lb = valueLeaves(b)
  const out: FieldChange[] = []
  const one = (path: string, x: Leaf | undefined, y: Leaf | undefined) => {
    if (skip(path)) return
    if (x && y) {
      if (x.value === y.value && x.type === y.type) return
      const c: FieldChange = { path, a: x.value, b: y.value }
      if (x.type !== y.type) Object.assign(c, { aType: x.type, bType: y.type })
      out.push(c)
    } else if (x) out.push({ path, a: x.value, b: null, only: 'a' })
    else if (y) out.push({ path, a: null, b: y.value, only: 'b' })
  }
  for (const [path, x] of la) one(path, x, lb.get(path))
  for (const [path, y] of lb) if (!la.has(path)) one(path, undefined, y)
  return out
}

/** Whether the diff looks at message i, of a conversation of protocol `conversationProtocol` (-1: none): the conversation's own protocol, not its transport (ACKs, pings, connects). */
function compared(side: DiffSide, i: number, conversationProtocol: number): boolean {
  if (side.protocolId(i) !== conversationProtocol) return false
  return side.protocol(i) !== 'photon' || side.isPhotonOp(i)
}

function ref(side: DiffSide, i: number): MessageRef {
  const key = side.key(i)
  return { id: side.id(i), frames: side.frames(i), direction: key.direction, name: key.name }
}

/** One conversation pair aligned: its compared messages (positions in their sides) and the aligned pairs among them. */
export interface PairAlignment {
  pair: ConversationPair
  protocol: string
  la: number[]
  lb: number[]
  /** In A's order; reordered: paired out of order after the alignment. */
  pairs: { x: number; y: number; reordered: boolean }[]
  matchedA: Set<number>
  matchedB: Set<number>
}

/**
 * The conversation pairs of A and B, each with its messages aligned on request, one pair at a time (a
 * capture of many conversations does not hold them all at once). valuesNeeded and diffStream walk every
 * pair; the app aligns one pair again for its lines (pairRows).
 */
export class DiffAlignment {
  readonly pairs: ConversationPairs
  private readonly msgsA: ComparedMessages
  private readonly msgsB: ComparedMessages

  constructor(
    readonly A: DiffSide,
    readonly B: DiffSide
  ) {
    if (A.rules.key !== B.rules.key) throw new Error('the two sides were made under different ignore rules')
    this.msgsA = new ComparedMessages(A)
    this.msgsB = new ComparedMessages(B)
    this.pairs = pairConversations(A.conversations, B.conversations)
  }

  *[Symbol.iterator](): Generator<PairAlignment> {
    for (let k = 0; k < this.pairs.length; k++) yield this.align(k)
  }

  /** Pair k with its messages aligned. */
  align(k: number): PairAlignment {
    const { A, B } = this
    const pair = this.pairs.get(k)
    const protocol = (pair.a ?? pair.b)!.protocol
    const la = pair.a ? this.msgsA.of(pair.a.id) : []
    const lb = pair.b ? this.msgsB.of(pair.b.id) : []
    // Each direction on its own: which side spoke first after a pause is timing, not behaviour.
    const pairs: PairAlignment['pairs'] = []
    const matchedA = new Set<number>()
    const matchedB = new Set<number>()
    const direction = (side: DiffSide, i: number) => side.key(i).direction
    for (const dir of new Set([...la.map((x) => direction(A, x)), ...lb.map((y) => direction(B, y))])) {
      const da = la.filter((x) => direction(A, x) === dir)
      const db = lb.filter((y) => direction(B, y) === dir)
      const keyA = da.map((x) => A.key(x).text)
      const keyB = db.map((y) => B.key(y).text)
      for (const [i, j] of alignKeys(keyA, keyB)) {
        pairs.push({ x: da[i], y: db[j], reordered: false })
        matchedA.add(da[i])
        matchedB.add(db[j])
      }
      // What the alignment left on both sides with the same name came in another order: pair it in order.
      const leftB = new Map<string, Queue<number>>()
      db.forEach((y, j) => {
        if (matchedB.has(y)) return
        const q = leftB.get(keyB[j])
        if (q) q.push(y)
        else leftB.set(keyB[j], new Queue([y]))
      })
      da.forEach((x, i) => {
        if (matchedA.has(x)) return
        const y = leftB.get(keyA[i])?.take()
        if (y === undefined) return
        pairs.push({ x, y, reordered: true })
        matchedA.add(x)
        matchedB.add(y)
      })
    }
    pairs.sort((p, q) => p.x - q.x)
    return { pair, protocol, la, lb, pairs, matchedA, matchedB }
  }
}

/**
 * Each conversation's compared messages, as positions in its side: one typed array of positions grouped by
 * conversation, and where each conversation's group starts (a Map of arrays cost about 100 bytes a
 * conversation, and a capture can have a million).
 */
class ComparedMessages {
  private readonly starts: Uint32Array
  private readonly positions: Uint32Array

  constructor(side: DiffSide) {
    const convs = side.conversations
    let top = 0
    for (let c = 0; c < convs.count; c++) top = Math.max(top, convs.id(c))
    // Each conversation's protocol by id (-1: no such conversation).
    const protocolOf = new Int32Array(top + 1).fill(-1)
    for (let c = 0; c < convs.count; c++) protocolOf[convs.id(c)] = convs.protocolId(c)
    const starts = new Uint32Array(top + 2)
    const taken = new Uint8Array(side.count)
    for (let i = 0; i < side.count; i++) {
      const id = side.conversation(i)
      if (id > top || !compared(side, i, protocolOf[id])) continue
      taken[i] = 1
      starts[id + 1]++
    }
    for (let c = 1; c < starts.length; c++) starts[c] += starts[c - 1]
    const positions = new Uint32Array(starts[top + 1])
    const next = starts.slice(0, top + 1)
    for (let i = 0; i < side.count; i++) if (taken[i]) positions[next[side.conversation(i)]++] = i
    this.starts = starts
    this.positions = positions
  }

  /** Conversation `id`'s compared messages, in the side's order. */
  of(id: number): number[] {
    return id + 1 < this.starts.length ? Array.from(this.positions.subarray(this.starts[id], this.starts[id + 1])) : []
  }
}

/**
 * The messages whose values the report needs (ids per side): those of aligned pairs with different
 * digests, whose fields it names. Give them to DiffSide.addValue from a second decode before diffCaptures.
 */
export function valuesNeeded(alignment: DiffAlignment): { a: Set<number>; b: Set<number> } {
  const { A, B } = alignment
  const a = new Set<number>()
  const b = new Set<number>()
  for (const { pairs } of alignment) {
    for (const { x, y } of pairs) {
      if (A.sameDigest(x, B, y)) continue
      if (!A.hasValue(x)) a.add(A.id(x))
      if (!B.hasValue(y)) b.add(B.id(y))
    }
  }
  return { a, b }
}

/** A report's parts around its conversation pairs. */
export type DiffHead = Pick<DiffReport, 'format' | 'a' | 'b' | 'ignored'>
export type DiffTail = Pick<DiffReport, 'summary' | 'totals'>

/** Conversation pair `index` compared, with its alignment (the app makes its lines from both). */
export interface ComparedPair {
  index: number
  aligned: PairAlignment
  diff: ConversationDiff
}

/**
 * A report made as it is read: its head, its conversation pairs one at a time (read once, through
 * `conversations` or `pairs`: a million pairs are written, not held), then its tail, the per-operation
 * summary and the totals, once they are all read.
 */
export interface DiffStream {
  head: DiffHead
  conversations: Iterable<ConversationDiff>
  pairs: Iterable<ComparedPair>
  tail(): DiffTail
  /** The rules the pairs are compared under (a pair compared again later uses them). */
  rules: IgnoreRules
}

/**
 * Compares two captures' sides, made under the same ignore rules, or rules these options' rules cover, with
 * the values valuesNeeded names. `alignment`: the sides' own, when already made (compareSides makes it).
 */
export function diffStream(A: DiffSide, B: DiffSide, options: DiffOptions = {}, alignment = new DiffAlignment(A, B)): DiffStream {
  if (alignment.A !== A || alignment.B !== B) throw new Error('internal: an alignment of other sides')
  const rules = ignoreRules(options)
  if (!rules.covers(A.rules)) throw new Error('internal: the diff ignores less than the sides were made for')
  const summary = new Map<string, OperationDiff>()
  const op = (protocol: string, key: DiffKey): OperationDiff => {
    const k = `${protocol}\u0000${key.text}`
    let s = summary.get(k)
    if (!s) summary.set(k, (s = { protocol, direction: key.direction, name: key.name, a: 0, b: 0, aligned: 0, changed: 0, onlyA: 0, onlyB: 0 }))
    return s
  }
  const totals = { aligned: 0, changed: 0, onlyA: 0, onlyB: 0 }
  let read = false
  function* compared(): Generator<ComparedPair> {
    for (let k = 0; k < alignment.pairs.length; k++) {
      const aligned = alignment.align(k)
      const d = comparePair(alignment, aligned, rules, op)
      totals.aligned += d.aligned
      totals.changed += d.changed.filter((x) => x.fields.length > 0).length
      totals.onlyA += d.onlyA.length
      totals.onlyB += d.onlyB.length
      yield { index: k, aligned, diff: d }
    }
    read = true
  }
  const pairs = compared()
  function* conversations(): Generator<ConversationDiff> {
    for (const p of pairs) yield p.diff
  }
  return {
    head: {
      format: DIFF_FORMAT,
      a: { ...(A.file !== undefined ? { file: A.file } : {}), conversations: A.conversations.count, messages: A.count },
      b: { ...(B.file !== undefined ? { file: B.file } : {}), conversations: B.conversations.count, messages: B.count },
      ignored: rules.shown
    },
    conversations: conversations(),
    pairs,
    rules,
    tail() {
      if (!read) throw new Error('internal: the diff summary asked for before its conversations were read')
      const list = [...summary.values()].sort(
        (p, q) => p.protocol.localeCompare(q.protocol) || p.direction.localeCompare(q.direction) || p.name.localeCompare(q.name)
      )
      return { summary: list, totals }
    }
  }
}

/** The whole report at once (tests, small captures). */
export function diffCaptures(A: DiffSide, B: DiffSide, options: DiffOptions = {}, alignment?: DiffAlignment): DiffReport {
  const stream = diffStream(A, B, options, alignment)
  const conversations = [...stream.conversations]
  return { ...stream.head, conversations, ...stream.tail() }
}

/**
 * A pair compared (`aligned`, alignment.align's): its lone messages and its changed ones (fields named under `rules`), counted per
 * operation into `op` (diffStream's summary; a pair shown again counts into a scratch one).
 */
export function comparePair(
  alignment: DiffAlignment,
  aligned: PairAlignment,
  rules: IgnoreRules,
  op: (protocol: string, key: DiffKey) => OperationDiff = () => SCRATCH
): ConversationDiff {
  const { A, B } = alignment
  const { pair, protocol, la, lb, pairs, matchedA, matchedB } = aligned
  const skip = rules.matcher(protocol)
  const d: ConversationDiff = {
    protocol,
    a: pair.a && { id: pair.a.id, client: pair.a.client, server: pair.a.server },
    b: pair.b && { id: pair.b.id, client: pair.b.client, server: pair.b.server },
    pairedBy: pair.by,
    aligned: 0,
    onlyA: [],
    onlyB: [],
    changed: []
  }
  for (const x of la) op(protocol, A.key(x)).a++
  for (const y of lb) op(protocol, B.key(y)).b++
  for (const { x, y, reordered } of pairs) {
    d.aligned++
    const s = op(protocol, A.key(x))
    s.aligned++
    const fields = A.sameDigest(x, B, y) ? [] : changes(A.value(x), B.value(y), skip)
    if (fields.length || reordered) {
      d.changed.push({ a: ref(A, x), b: ref(B, y), ...(reordered ? { reordered: true as const } : {}), fields })
      if (fields.length) s.changed++
    }
  }
  for (const x of la) if (!matchedA.has(x)) d.onlyA.push(ref(A, x)), op(protocol, A.key(x)).onlyA++
  for (const y of lb) if (!matchedB.has(y)) d.onlyB.push(ref(B, y)), op(protocol, B.key(y)).onlyB++
  return d
}

/** Where a pair shown again counts: one object for all, its counts never read. */
const SCRATCH: OperationDiff = { protocol: '', direction: '', name: '', a: 0, b: 0, aligned: 0, changed: 0, onlyA: 0, onlyB: 0 }

/** A capture to compare: `decode` decodes it (the same way each time), giving each message to onMessage, and resolves to its conversations. */
export interface DiffSource {
  file?: string
  decode(onMessage: (m: DiffMessageInput) => void): Promise<Iterable<DiffConversationInput>>
  /**
   * Makes the capture's side elsewhere, as decodeSide would here: in another thread, so that while it
   * runs the other capture decodes in this one. It gives `onStop` what stops it, which the comparison
   * calls once it no longer waits for the side or its values (done, or failed meanwhile).
   */
  side?(options: DiffOptions, onStop: (stop: () => void) => void): Promise<DiffSide>
  /**
   * After side(): the values of the messages `wanted` names, from a second decode made where the side was
   * (the other capture's second decode runs here meanwhile), checked there as DiffSide.addValue does; where
   * they are kept.
   */
  values?(wanted: ReadonlySet<number>): Promise<DiffValues>
  /** Where to keep the values of `count` messages that differ, when not in memory (undefined: in memory). */
  valueStore?(count: number): DiffValues | undefined
}

/** A capture's side, decoded in this thread. */
export async function decodeSide(source: DiffSource, options: DiffOptions): Promise<DiffSide> {
  const s = new DiffSide(options, { file: source.file })
  return s.end(await source.decode((m) => s.add(m)))
}

/** Two captures' sides, as compareSides made them (with the values of their messages that differ), and their alignment. */
export interface DiffSides {
  A: DiffSide
  B: DiffSide
  alignment: DiffAlignment
}

/**
 * Two captures' sides for a comparison: each decoded once (digests, no values; a source that makes its side
 * in another thread does so while the other decodes), then again only if some aligned messages' digests
 * differ, for the values of those messages, whose fields the report names.
 * `known`: the sides of an earlier comparison of the same captures, used again when its ignore rules are
 * among these (more fields ignored leaves equal digests equal, and the messages that differed have their
 * values): the app's ignore list grows without decoding again.
 */
export async function compareSides(a: DiffSource, b: DiffSource, options: DiffOptions = {}, known?: DiffSides): Promise<DiffSides> {
  if (known && ignoreRules(options).covers(known.A.rules) && known.A.rules.key === known.B.rules.key) return known
  // Sides made elsewhere start first; those made here are made one after the other.
  const stops: (() => void)[] = []
  const elsewhere = [a, b].map((source) => source.side?.(options, (stop) => stops.push(stop)))
  for (const p of elsewhere) p?.catch(() => {}) // awaited below; a failure before that is not unhandled
  let sides: [DiffSide, DiffSide] | undefined
  try {
    const A = await (elsewhere[0] ?? decodeSide(a, options))
    const B = await (elsewhere[1] ?? decodeSide(b, options))
    sides = [A, B]
    const alignment = new DiffAlignment(A, B)
    const need = valuesNeeded(alignment)
    await takeValues([
      [a, A, need.a],
      [b, B, need.b]
    ])
    return { A, B, alignment }
  } catch (e) {
    if (sides) freeValues({ A: sides[0], B: sides[1] })
    throw e
  } finally {
    for (const stop of stops) stop()
  }
}

/**
 * The values of each side's messages that `wanted` names, from a second decode of its capture: where the side
 * was made when that was elsewhere (at the same time as the rest), else here, one capture after the other.
 */
async function takeValues(passes: [DiffSource, DiffSide, ReadonlySet<number>][]): Promise<void> {
  let failed = false
  const remote = passes.map(([source, side, wanted]) =>
    wanted.size && source.side && source.values
      ? source.values(wanted).then((store) => {
          side.keepValuesIn(store)
          // Values that arrive after the comparison failed are freed here (compareSides freed the others).
          if (failed) side.closeValues()
          side.checkValues(wanted)
        })
      : undefined
  )
  for (const p of remote) p?.catch(() => {}) // awaited below; a failure before that is not unhandled
  try {
    for (const [i, [source, side, wanted]] of passes.entries()) {
      if (!wanted.size || remote[i]) continue
      const store = source.valueStore?.(wanted.size)
      if (store) side.keepValuesIn(store)
      await source.decode((m) => side.addValue(m, wanted))
      side.checkValues(wanted)
    }
    for (const p of remote) await p
  } catch (e) {
    failed = true
    throw e
  }
}

/** Frees both sides' values (a file each when there were many): their comparison is done. */
export function freeValues(sides: Pick<DiffSides, 'A' | 'B'>): void {
  sides.A.closeValues()
  sides.B.closeValues()
}

/** Two captures compared, the report as it is read (the CLI writes it so); the sides' values are freed once its tail is read. */
export async function diffSourcesStream(a: DiffSource, b: DiffSource, options: DiffOptions = {}): Promise<DiffStream> {
  const { A, B, alignment } = await compareSides(a, b, options)
  const stream = diffStream(A, B, options, alignment)
  return {
    ...stream,
    tail() {
      const tail = stream.tail()
      freeValues({ A, B })
      return tail
    }
  }
}

/** Two captures compared, the whole report. */
export async function diffSources(a: DiffSource, b: DiffSource, options: DiffOptions = {}): Promise<DiffReport> {
  const { A, B, alignment } = await compareSides(a, b, options)
  try {
    return diffCaptures(A, B, options, alignment)
  } finally {
    freeValues({ A, B })
  }
}

/**
 * A pair's messages (`aligned`, alignment.align's) as lines of two columns: A's messages in order (with their partner, or alone), and
 * each of B's lone messages after the line of the last B message before it that has a partner, so both
 * columns read in their own order wherever the pairs do not cross. `changed` is the pair's list in the
 * report, which the changed lines point into.
 */
export function pairRows(alignment: DiffAlignment, aligned: PairAlignment, changed: readonly ChangedMessage[]): DiffRow[] {
  const { A, B } = alignment
  const { la, lb, pairs } = aligned
  const changedAt = new Map(changed.map((c, i) => [c.a.id, i]))
  const partnerOfA = new Map(pairs.map((p) => [p.x, p.y]))
  const partnerOfB = new Map(pairs.map((p) => [p.y, p.x]))
  const posA = new Map(la.map((x, i) => [x, i]))
  const lines: { at: number; sub: number; row: DiffRow }[] = []
  la.forEach((x, i) => {
    const y = partnerOfA.get(x)
    const c = y === undefined ? undefined : changedAt.get(A.id(x))
    lines.push({ at: i, sub: 0, row: { a: ref(A, x), b: y === undefined ? null : ref(B, y), ...(c !== undefined ? { changed: c } : {}) } })
  })
  let after = -1
  lb.forEach((y, j) => {
    const x = partnerOfB.get(y)
    if (x !== undefined) after = posA.get(x)!
    else lines.push({ at: after + 0.5, sub: j, row: { a: null, b: ref(B, y) } })
  })
  return lines.sort((p, q) => p.at - q.at || p.sub - q.sub).map((l) => l.row)
}

/**
 * Rows for a long pair: the lines that differ (one side alone, or changed) with `context` lines around
 * them; each run of other lines becomes a gap. At most `max` lines (a last gap counts what is left out).
 */
export function compactRows(rows: readonly DiffRow[], context: number, max: number): DiffRow[] {
  const marked = rows.map((r) => !('gap' in r) && (r.a === null || r.b === null || r.changed !== undefined))
  const keep = marked.map(() => false)
  marked.forEach((m, i) => {
    if (m) for (let k = Math.max(0, i - context); k <= Math.min(rows.length - 1, i + context); k++) keep[k] = true
  })
  const out: DiffRow[] = []
  let gap = 0
  for (let i = 0; i < rows.length; i++) {
    if (out.length >= max) {
      gap += rows.length - i
      break
    }
    if (keep[i]) {
      if (gap) out.push({ gap })
      gap = 0
      out.push(rows[i])
    } else gap += 'gap' in rows[i] ? (rows[i] as { gap: number }).gap : 1
  }
  if (gap) out.push({ gap })
  return out
}

/** The report as text, for a terminal, line by line (each ends in a newline; a long report is never one string). */
export function* diffText(stream: DiffStream): Generator<string> {
  const r = stream.head
  const side = (s: ConversationSide | null) => (s ? `#${s.id} ${s.client} -> ${s.server}` : '(none)')
  const ref = (m: MessageRef) => `#${m.id} ${m.direction} ${m.name} (frame${m.frames.length > 1 ? 's' : ''} ${m.frames.join(',')})`
  const val = (v: Scalar) => (typeof v === 'string' ? JSON.stringify(v) : String(v))
  yield `A: ${r.a.file ?? 'A'}: ${r.a.conversations} conversations, ${r.a.messages} messages\n`
  yield `B: ${r.b.file ?? 'B'}: ${r.b.conversations} conversations, ${r.b.messages} messages\n`
  for (const c of stream.conversations) {
    yield `\n${c.protocol}: A ${side(c.a)}  <->  B ${side(c.b)}${c.pairedBy ? ` (paired by ${c.pairedBy})` : ''}\n`
    yield `  ${c.aligned} aligned, ${c.changed.filter((x) => x.fields.length).length} with differences, ${c.onlyA.length} only in A, ${c.onlyB.length} only in B\n`
    for (const m of c.onlyA) yield `  only in A: ${ref(m)}\n`
    for (const m of c.onlyB) yield `  only in B: ${ref(m)}\n`
    for (const x of c.changed) {
      yield `  ${x.fields.length ? 'changed' : 'reordered'}: A ${ref(x.a)}  B #${x.b.id} (frame${x.b.frames.length > 1 ? 's' : ''} ${x.b.frames.join(',')})${x.reordered && x.fields.length ? ' (out of order)' : ''}\n`
      for (const f of x.fields) {
        const types = f.aType !== f.bType && (f.aType || f.bType) ? ` [${f.aType ?? '-'} -> ${f.bType ?? '-'}]` : ''
        yield `      ${f.path}: ${f.only === 'b' ? '(absent)' : val(f.a)} -> ${f.only === 'a' ? '(absent)' : val(f.b)}${types}\n`
      }
    }
  }
  const { summary, totals: t } = stream.tail()
  yield '\nper operation:\n'
  const rows = [
    ['protocol', 'dir', 'operation', 'A', 'B', 'aligned', 'changed', 'onlyA', 'onlyB'],
    ...summary.map((s) => [s.protocol, s.direction, s.name, ...[s.a, s.b, s.aligned, s.changed, s.onlyA, s.onlyB].map(String)])
  ]
  const widths = rows[0].map((_, k) => Math.max(...rows.map((row) => row[k].length)))
  for (const row of rows) {
    const cells = row.map((cell, k) => (k < 3 ? cell.padEnd(widths[k]) : cell.padStart(widths[k])))
    yield `  ${cells.join('  ').trimEnd()}\n`
  }
  yield `\ntotal: ${t.aligned} aligned, ${t.changed} with differences, ${t.onlyA} only in A, ${t.onlyB} only in B\n`
}
