// Comparing two captures of the same scenario (a reference server and a reimplementation, two client
// builds): conversations paired by protocol and role, their messages aligned per direction by name as a
// longest common subsequence (so timing, ids and the interleaving of the two directions do not matter),
// then aligned messages compared field by field, volatile fields skipped. Pure: the messages come from
// the decoder (src-main/host/capture-diff.ts in the CLI); the app can call diffCaptures on its own.

import { alignKeys } from './align'
import { compilePattern, sameLeaves, valueLeaves, type Leaf, type Scalar } from './fields'

export const DIFF_FORMAT = 'gamewire-diff/1'

/** What the diff needs of a decoded message (DecodedMessage has all of it). */
export interface DiffMessageInput {
  id: number
  conversation: number
  direction: string
  frames: readonly number[]
  time: number
  protocol: string
  name: string
  value: unknown
}

/** What the diff keeps of a decoded message (its value, not its tree or bytes). */
export function diffMessage(m: DiffMessageInput): DiffMessageInput {
  return { id: m.id, conversation: m.conversation, direction: m.direction, frames: m.frames, time: m.time, protocol: m.protocol, name: m.name, value: m.value }
}

export interface DiffConversationInput {
  id: number
  protocol: string
  client: string
  server: string
}

export interface DiffSideInput {
  file?: string
  conversations: readonly DiffConversationInput[]
  messages: readonly DiffMessageInput[]
}

/**
 * A side from a decode: its messages (diffMessage's, sorted here by id, since held messages, whose roles
 * were not known yet, come out after later ones) and its engine's conversations, read one at a time.
 */
export function diffSideOf(messages: DiffMessageInput[], conversations: Iterable<DiffConversationInput>, file?: string): DiffSideInput {
  messages.sort((x, y) => x.id - y.id)
  const list = Array.from(conversations, (c) => ({ id: c.id, protocol: c.protocol, client: c.client, server: c.server }))
  return { ...(file !== undefined ? { file } : {}), conversations: list, messages }
}

export interface DiffOptions {
  /** More volatile-field patterns (see compilePattern), for every protocol. */
  ignore?: readonly string[]
  /** Leave out the per-protocol defaults (DEFAULT_IGNORES). */
  noDefaults?: boolean
  /** Give each conversation pair its messages side by side (`rows`), for the app's view; the CLI leaves it out. */
  rows?: boolean
}

/**
 * Fields that differ between two runs of one scenario without meaning anything, per protocol: transport
 * sequence numbers, ACK and timing fields, checksums, peer and callback ids, tokens and session keys,
 * request ids, lengths that follow the content, the pairing links. Paths as in valueLeaves.
 */
export const DEFAULT_IGNORES: Readonly<Record<string, readonly string[]>> = {
  '*': ['/responseTo', '/responseTimeMs', '/decryptedWith'],
  photon: [
    '/peerId',
    '/channel',
    '/command',
    '/reliableSeq',
    '/unreliableSeq',
    '/fragment',
    '/sentTime',
    '/challenge',
    '/crc',
    '/acknowledges',
    '/ackedSeq',
    '/ackedSentTime',
    '/rttMs',
    '/serverTime',
    '/protocolFrom',
    '/parameters.221' // Token/Secret (docs/photon.md, parameter names)
  ],
  sfs2x: [
    '/length',
    '/lengthRule',
    '/header.bigSized',
    '/header.compressed',
    '/uncompressedLength',
    '/zlibHeaderHex',
    '/compressionRule',
    '/requestId',
    '_id', // the request id the Last War client injects (docs/sfs2x.md)
    '/body.p.tk', // the Handshake response's session token
    '/body.p.id' // the user id the Login response assigns
  ],
  fignet: ['/callbackId', '/enet', '/litenetlib']
}

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
  /** With the `rows` option: every compared message of the pair, in A's order, B's lone messages where B has them. */
  rows?: DiffRow[]
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

interface Msg {
  m: DiffMessageInput
  key: string
  ref: MessageRef
}

/** Whether the diff looks at a message: the conversation's own protocol, not its transport (ACKs, pings, connects). */
function compared(m: DiffMessageInput, conv: DiffConversationInput | undefined): boolean {
  if (!conv || m.protocol !== conv.protocol) return false
  if (m.protocol === 'photon') return typeof (m.value as { msgType?: unknown } | null)?.msgType === 'number'
  return true
}

function displayName(m: DiffMessageInput): string {
  const command = (m.value as { command?: unknown } | null)?.command
  return m.protocol === 'sfs2x' && typeof command === 'string' && !m.name.includes(command) ? `${m.name} ${command}` : m.name
}

function serverPort(address: string): string {
  return address.slice(address.lastIndexOf(':') + 1)
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

/**
 * Pairs conversations per protocol: the same server port first, then the rest in order of appearance.
 * Each A conversation takes the first B conversation left with its server port: B's are queued per
 * protocol and port, so pairing is linear in the number of conversations.
 */
function pairConversations(a: readonly DiffConversationInput[], b: readonly DiffConversationInput[]): ConversationPair[] {
  const byProtocol = (list: readonly DiffConversationInput[]) => {
    const out = new Map<string, DiffConversationInput[]>()
    for (const c of list) {
      const same = out.get(c.protocol)
      if (same) same.push(c)
      else out.set(c.protocol, [c])
    }
    for (const same of out.values()) same.sort((x, y) => x.id - y.id)
    return out
  }
  const as = byProtocol(a)
  const bs = byProtocol(b)
  const out: ConversationPair[] = []
  for (const p of new Set([...as.keys(), ...bs.keys()])) {
    const pa = as.get(p) ?? []
    const pb = bs.get(p) ?? []
    const byPort = new Map<string, Queue<DiffConversationInput>>()
    for (const cb of pb) {
      const port = serverPort(cb.server)
      const q = byPort.get(port)
      if (q) q.push(cb)
      else byPort.set(port, new Queue([cb]))
    }
    const usedB = new Set<DiffConversationInput>()
    const pairs = new Map<DiffConversationInput, { b: DiffConversationInput; by: 'server-port' | 'order' }>()
    for (const ca of pa) {
      const cb = byPort.get(serverPort(ca.server))?.take()
      if (cb) {
        usedB.add(cb)
        pairs.set(ca, { b: cb, by: 'server-port' })
      }
    }
    const restB = new Queue(pb.filter((c) => !usedB.has(c)))
    for (const ca of pa) {
      if (pairs.has(ca)) continue
      const cb = restB.take()
      if (cb) {
        usedB.add(cb)
        pairs.set(ca, { b: cb, by: 'order' })
      }
    }
    for (const ca of pa) {
      const pair = pairs.get(ca)
      out.push({ a: ca, b: pair?.b ?? null, by: pair?.by ?? null })
    }
    for (const cb of pb) if (!usedB.has(cb)) out.push({ a: null, b: cb, by: null })
  }
  return out
}

type Matcher = (path: string) => boolean

function changes(a: DiffMessageInput, b: DiffMessageInput, skip: Matcher): FieldChange[] {
  if (sameLeaves(a.value, b.value, skip)) return []
  const la = valueLeaves(a.value)
  const lb = valueLeaves(b.value)
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

/** The patterns in effect per protocol, and a matcher for each protocol. */
function ignoreRules(o: DiffOptions): { shown: Record<string, string[]>; matcher(protocol: string): Matcher } {
  const shown: Record<string, string[]> = {}
  if (!o.noDefaults) for (const [p, list] of Object.entries(DEFAULT_IGNORES)) shown[p] = [...list]
  if (o.ignore?.length) shown['*'] = [...(shown['*'] ?? []), ...o.ignore]
  const cache = new Map<string, Matcher>()
  return {
    shown,
    matcher(protocol) {
      let m = cache.get(protocol)
      if (!m) {
        const tests = [...(shown['*'] ?? []), ...(shown[protocol] ?? [])].map(compilePattern)
        // The same paths come back in every message of a conversation: each is tested once (bounded).
        const known = new Map<string, boolean>()
        m = (path) => {
          let skip = known.get(path)
          if (skip === undefined) {
            skip = tests.some((t) => t(path))
            if (known.size < 100_000) known.set(path, skip)
          }
          return skip
        }
        cache.set(protocol, m)
      }
      return m
    }
  }
}

/** Compares two captures' decoded messages. Messages in each side's `messages` order (the decoder's, by id). */
export function diffCaptures(A: DiffSideInput, B: DiffSideInput, options: DiffOptions = {}): DiffReport {
  const rules = ignoreRules(options)
  const convA = new Map(A.conversations.map((c) => [c.id, c]))
  const convB = new Map(B.conversations.map((c) => [c.id, c]))
  // Each conversation's compared messages, as positions in its side's list: the working copies (Msg) are
  // made for one pair at a time, so a capture of many conversations does not hold them all at once.
  const byConv = (side: DiffSideInput, convs: Map<number, DiffConversationInput>) => {
    const out = new Map<number, number[]>()
    side.messages.forEach((m, k) => {
      if (!compared(m, convs.get(m.conversation))) return
      const list = out.get(m.conversation)
      if (list) list.push(k)
      else out.set(m.conversation, [k])
    })
    return out
  }
  const working = (side: DiffSideInput, at: readonly number[] | undefined): Msg[] =>
    (at ?? []).map((k) => {
      const m = side.messages[k]
      const name = displayName(m)
      return { m, key: `${m.direction}\u0000${name}`, ref: { id: m.id, frames: [...m.frames], direction: m.direction, name } }
    })
  const msgsA = byConv(A, convA)
  const msgsB = byConv(B, convB)
  const summary = new Map<string, OperationDiff>()
  const op = (protocol: string, x: Msg): OperationDiff => {
    const k = `${protocol}\u0000${x.key}`
    let s = summary.get(k)
    if (!s) summary.set(k, (s = { protocol, direction: x.ref.direction, name: x.ref.name, a: 0, b: 0, aligned: 0, changed: 0, onlyA: 0, onlyB: 0 }))
    return s
  }
  const conversations: ConversationDiff[] = []
  for (const pair of pairConversations(A.conversations, B.conversations)) {
    const protocol = (pair.a ?? pair.b)!.protocol
    const la = pair.a ? working(A, msgsA.get(pair.a.id)) : []
    const lb = pair.b ? working(B, msgsB.get(pair.b.id)) : []
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
    for (const x of la) op(protocol, x).a++
    for (const y of lb) op(protocol, y).b++
    // Each direction on its own: which side spoke first after a pause is timing, not behaviour.
    const pairs: { x: Msg; y: Msg; reordered: boolean }[] = []
    const matchedA = new Set<Msg>()
    const matchedB = new Set<Msg>()
    for (const dir of [...new Set([...la, ...lb].map((x) => x.ref.direction))]) {
      const da = la.filter((x) => x.ref.direction === dir)
      const db = lb.filter((y) => y.ref.direction === dir)
      for (const [i, j] of alignKeys(
        da.map((x) => x.key),
        db.map((y) => y.key)
      )) {
        pairs.push({ x: da[i], y: db[j], reordered: false })
        matchedA.add(da[i])
        matchedB.add(db[j])
      }
      // What the alignment left on both sides with the same name came in another order: pair it in order.
      const leftB = new Map<string, Queue<Msg>>()
      for (const y of db) {
        if (matchedB.has(y)) continue
        const q = leftB.get(y.key)
        if (q) q.push(y)
        else leftB.set(y.key, new Queue([y]))
      }
      for (const x of da) {
        if (matchedA.has(x)) continue
        const y = leftB.get(x.key)?.take()
        if (!y) continue
        pairs.push({ x, y, reordered: true })
        matchedA.add(x)
        matchedB.add(y)
      }
    }
    pairs.sort((p, q) => p.x.m.id - q.x.m.id)
    const changedAt = new Map<Msg, number>()
    for (const { x, y, reordered } of pairs) {
      d.aligned++
      const s = op(protocol, x)
      s.aligned++
      const fields = changes(x.m, y.m, skip)
      if (fields.length || reordered) {
        changedAt.set(x, d.changed.length)
        d.changed.push({ a: x.ref, b: y.ref, ...(reordered ? { reordered: true as const } : {}), fields })
        if (fields.length) s.changed++
      }
    }
    for (const x of la) if (!matchedA.has(x)) d.onlyA.push(x.ref), op(protocol, x).onlyA++
    for (const y of lb) if (!matchedB.has(y)) d.onlyB.push(y.ref), op(protocol, y).onlyB++
    if (options.rows) d.rows = sideBySide(la, lb, pairs, changedAt)
    conversations.push(d)
  }
  const list = [...summary.values()].sort(
    (p, q) => p.protocol.localeCompare(q.protocol) || p.direction.localeCompare(q.direction) || p.name.localeCompare(q.name)
  )
  const sum = (f: (c: ConversationDiff) => number) => conversations.reduce((n, c) => n + f(c), 0)
  return {
    format: DIFF_FORMAT,
    a: { ...(A.file !== undefined ? { file: A.file } : {}), conversations: A.conversations.length, messages: A.messages.length },
    b: { ...(B.file !== undefined ? { file: B.file } : {}), conversations: B.conversations.length, messages: B.messages.length },
    ignored: rules.shown,
    conversations,
    summary: list,
    totals: {
      aligned: sum((c) => c.aligned),
      changed: sum((c) => c.changed.filter((x) => x.fields.length > 0).length),
      onlyA: sum((c) => c.onlyA.length),
      onlyB: sum((c) => c.onlyB.length)
    }
  }
}

/**
 * The pair's messages as lines of two columns: A's messages in order (with their partner, or alone), and
 * each of B's lone messages after the line of the last B message before it that has a partner, so both
 * columns read in their own order wherever the pairs do not cross.
 */
function sideBySide(la: readonly Msg[], lb: readonly Msg[], pairs: readonly { x: Msg; y: Msg }[], changedAt: Map<Msg, number>): DiffRow[] {
  const partnerOfA = new Map(pairs.map((p) => [p.x, p.y]))
  const partnerOfB = new Map(pairs.map((p) => [p.y, p.x]))
  const posA = new Map(la.map((x, i) => [x, i]))
  const lines: { at: number; sub: number; row: DiffRow }[] = []
  la.forEach((x, i) => {
    const y = partnerOfA.get(x)
    const k = changedAt.get(x)
    lines.push({ at: i, sub: 0, row: { a: x.ref, b: y ? y.ref : null, ...(k !== undefined ? { changed: k } : {}) } })
  })
  let after = -1
  lb.forEach((y, j) => {
    const x = partnerOfB.get(y)
    if (x) after = posA.get(x)!
    else lines.push({ at: after + 0.5, sub: j, row: { a: null, b: y.ref } })
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
export function* diffText(r: DiffReport): Generator<string> {
  const side = (s: ConversationSide | null) => (s ? `#${s.id} ${s.client} -> ${s.server}` : '(none)')
  const ref = (m: MessageRef) => `#${m.id} ${m.direction} ${m.name} (frame${m.frames.length > 1 ? 's' : ''} ${m.frames.join(',')})`
  const val = (v: Scalar) => (typeof v === 'string' ? JSON.stringify(v) : String(v))
  yield `A: ${r.a.file ?? 'A'}: ${r.a.conversations} conversations, ${r.a.messages} messages\n`
  yield `B: ${r.b.file ?? 'B'}: ${r.b.conversations} conversations, ${r.b.messages} messages\n`
  for (const c of r.conversations) {
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
  yield '\nper operation:\n'
  const rows = [
    ['protocol', 'dir', 'operation', 'A', 'B', 'aligned', 'changed', 'onlyA', 'onlyB'],
    ...r.summary.map((s) => [s.protocol, s.direction, s.name, ...[s.a, s.b, s.aligned, s.changed, s.onlyA, s.onlyB].map(String)])
  ]
  const widths = rows[0].map((_, k) => Math.max(...rows.map((row) => row[k].length)))
  for (const row of rows) {
    const cells = row.map((cell, k) => (k < 3 ? cell.padEnd(widths[k]) : cell.padStart(widths[k])))
    yield `  ${cells.join('  ').trimEnd()}\n`
  }
  const t = r.totals
  yield `\ntotal: ${t.aligned} aligned, ${t.changed} with differences, ${t.onlyA} only in A, ${t.onlyB} only in B\n`
}
