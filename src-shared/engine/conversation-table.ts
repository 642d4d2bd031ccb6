// Summaries of the conversations an engine has ended (what conversationList() reports for them), kept in
// typed-array columns by conversation id: a capture of a million conversations must not keep a million
// objects. Also finds the latest ended conversation on an address pair, so a conversation that starts
// where an ended one was can say so; that link is kept as two ids and worded only when read (notes naming
// ids would be a distinct string per conversation).

import { resized } from '../bytes/columns'
import type { ConversationInfo, RoleFrom, Transport } from '../model/types'
import { hashText } from './text-pool'
import { Interned } from './interned'

/** Why the engine ended a conversation before the end of the capture (or that the capture ended). */
export type EndReason = 'closed' | 'idle' | 'limit' | 'capture end'

const REASONS: EndReason[] = ['closed', 'idle', 'limit', 'capture end']
const TCP = 1
// What decided the roles: two bits at ROLE_SHIFT.
const ROLES: RoleFrom[] = ['first-packet', 'port', 'semantics', 'handshake']
const ROLE_SHIFT = 5
/** Either endpoint is not a dotted IPv4 address: both are kept as strings in `otherEndpoints`. */
const OTHER = 4
const REASON_SHIFT = 3
const STORED = 0x80

/** The engine's key of an address pair: the same whichever side sends. */
export function conversationKey(transport: Transport, s: string, d: string): string {
  return s < d ? `${transport}|${s}|${d}` : `${transport}|${d}|${s}`
}

/** The IPv4 address of a canonical `a.b.c.d:port` endpoint (which formats back to the same text), else -1. */
export function ipv4Of(host: string): number {
  let value = 0
  let parts = 0
  let i = 0
  while (i < host.length && parts < 4) {
    let n = 0
    const start = i
    while (i < host.length && host.charCodeAt(i) >= 48 && host.charCodeAt(i) <= 57 && i - start < 3) n = n * 10 + host.charCodeAt(i++) - 48
    if (i === start || n > 255 || (i - start > 1 && host.charCodeAt(start) === 48)) return -1
    value = value * 256 + n
    parts++
    if (parts < 4) {
      if (host.charCodeAt(i) !== 46) return -1
      i++
    }
  }
  return parts === 4 && i === host.length ? value : -1
}

export function ipv4Text(v: number): string {
  return `${v >>> 24}.${(v >>> 16) & 0xff}.${(v >>> 8) & 0xff}.${v & 0xff}`
}

/** Splits `host:port` (IPv6 hosts in brackets) into an IPv4 address and port, or null for anything else. */
export function packEndpoint(e: string): { ip: number; port: number } | null {
  const colon = e.lastIndexOf(':')
  if (colon < 0) return null
  const port = Number(e.slice(colon + 1))
  const ip = ipv4Of(e.slice(0, colon))
  if (ip < 0 || !Number.isInteger(port) || port < 0 || port > 0xffff || String(port) !== e.slice(colon + 1)) return null
  return { ip, port }
}

/** The interning keys of a conversation's shape (protocol and stack) and of its notes. */
const shapeKey = (s: { protocol: string; stack: readonly string[] }) => `${s.protocol}\u0000${s.stack.join('\u0000')}`
const notesKey = (notes: readonly string[]) => notes.join('\n')

/** The limits the engine ended conversations by, for wording why. */
export interface EndLimits {
  idleSeconds: number
  maxLive: number
}

/**
 * What sorting and grouping the conversation list needs of one conversation: its protocol, counts and
 * times, and its own notes (not the notes linking it to others on its addresses). `notes` may be the table's
 * own array: never change it.
 */
export type ConversationKeys = (
  id: number,
  protocol: string,
  frames: number,
  bytes: number,
  firstTime: number,
  lastTime: number,
  notes: readonly string[]
) => void

/** A capture's conversations as the session and the exports read them: ids run 1..conversationCount. */
export interface ConversationList {
  readonly conversationCount: number
  /** Every conversation's summary, in id order, made one at a time. */
  conversations(): Iterable<ConversationInfo>
  /** The summaries with these ids, in the same order (undefined for an unknown id). */
  conversationInfos(ids: readonly number[]): (ConversationInfo | undefined)[]
  /** Calls `visit` for every conversation in id order, without making its summary (for a long list). */
  visitKeys(visit: ConversationKeys): void
}

export const NO_CONVERSATIONS: ConversationList = {
  conversationCount: 0,
  conversations: () => [],
  conversationInfos: (ids) => ids.map(() => undefined),
  visitKeys: () => undefined
}

/**
 * A table's columns as plain data, for another thread: a shard sends its ended conversations so, and the
 * merge renumbers them into one table (ConversationTable.copy) without an object per conversation.
 */
export interface ConversationTableData extends Record<Column, Uint8Array | Uint16Array | Uint32Array | Float64Array> {
  limits: EndLimits
  top: number
  otherEndpoints: [number, string, string][]
  shapes: { protocol: string; stack: string[] }[]
  notes: string[][]
}

/** The columns that copy as they are (indexed by id - 1); `shape` and `noteRef` index interned values, `previous` and `next` are ids. */
const VALUE_COLUMNS = ['flags', 'frames', 'bytes', 'first', 'last', 'clientIp', 'serverIp', 'clientPort', 'serverPort'] as const
/** Every column data() carries. */
const COLUMNS = [...VALUE_COLUMNS, 'shape', 'noteRef', 'previous', 'next'] as const
type Column = (typeof COLUMNS)[number]

export class ConversationTable {
  private cap = 0
  /** Highest conversation id stored. */
  private top = 0
  private flags = new Uint8Array(0)
  private frames = new Uint32Array(0)
  private bytes = new Float64Array(0)
  private first = new Float64Array(0)
  private last = new Float64Array(0)
  private clientIp = new Uint32Array(0)
  private serverIp = new Uint32Array(0)
  private clientPort = new Uint16Array(0)
  private serverPort = new Uint16Array(0)
  private shape = new Uint32Array(0)
  private noteRef = new Uint32Array(0)
  private hash = new Uint32Array(0)
  /** The conversation on the same addresses this one continues, and the one continuing it (0 = none). */
  private previous = new Uint32Array(0)
  private next = new Uint32Array(0)
  private readonly otherEndpoints = new Map<number, [string, string]>()
  private shapes = new Interned<{ protocol: string; stack: string[] }>()
  // Entry 0 is "no notes".
  private notes = new Interned<string[]>()
  /** Open-addressing index from key hash to the latest ended conversation id on that key (0 = empty). */
  private slots = new Uint32Array(1024)
  private used = 0

  constructor(private readonly limits: EndLimits) {
    this.notes.id('', () => [])
  }

  /** The columns up to the highest id stored, as plain data (see ConversationTableData). */
  data(): ConversationTableData {
    const columns = Object.fromEntries(COLUMNS.map((k) => [k, this[k].slice(0, this.top)])) as Record<Column, Uint32Array>
    return {
      ...columns,
      limits: this.limits,
      top: this.top,
      otherEndpoints: [...this.otherEndpoints].map(([id, [c, s]]) => [id, c, s]),
      shapes: this.shapes.values,
      notes: this.notes.values
    }
  }

  /** The table as the list of conversations 1..count (a merged capture's, every one ended). */
  list(count: number): ConversationList {
    return {
      conversationCount: count,
      conversations: () => this.inOrder(count),
      conversationInfos: (ids) => ids.map((id) => this.get(id)),
      visitKeys: (visit) => {
        for (let id = 1; id <= count; id++) this.keysOf(id, visit)
      }
    }
  }

  /** Calls `visit` with stored conversation `id`'s sort keys (see ConversationKeys); false when it is not stored. */
  keysOf(id: number, visit: ConversationKeys): boolean {
    if (!this.has(id)) return false
    const i = id - 1
    visit(id, this.shapes.values[this.shape[i]].protocol, this.frames[i], this.bytes[i], this.first[i], this.last[i], this.notes.values[this.noteRef[i]])
    return true
  }

  private *inOrder(count: number): Generator<ConversationInfo> {
    for (let id = 1; id <= count; id++) {
      const c = this.get(id)
      if (c) yield c
    }
  }

  /** A table read back from data() (its address index is not rebuilt: find() knows none of them). */
  static fromData(d: ConversationTableData): ConversationTable {
    const t = new ConversationTable(d.limits)
    t.reserve(d.top)
    t.top = d.top
    for (const k of COLUMNS) t[k].set(d[k])
    for (const [id, c, s] of d.otherEndpoints) t.otherEndpoints.set(id, [c, s])
    t.shapes = Interned.of(d.shapes, shapeKey)
    t.notes = Interned.of(d.notes, notesKey)
    return t
  }

  /**
   * Stores conversation `id` of `from` here as `to`, with the ids it links to (the one it continues and the
   * one continuing it) renumbered by `renumber` (0 when it has none here).
   */
  copy(from: ConversationTable, id: number, to: number, renumber: (id: number) => number): void {
    if (!from.has(id) || !Number.isInteger(to) || to < 1) return
    const i = id - 1
    const j = to - 1
    this.reserve(to)
    for (const k of VALUE_COLUMNS) this[k][j] = from[k][i]
    const other = from.otherEndpoints.get(id)
    if (other) this.otherEndpoints.set(to, other)
    const shape = from.shapes.values[from.shape[i]]
    this.shape[j] = this.shapes.id(shapeKey(shape), () => shape)
    this.noteRef[j] = this.noteList(from.notes.values[from.noteRef[i]])
    this.previous[j] = from.previous[i] ? renumber(from.previous[i]) : 0
    this.next[j] = from.next[i] ? renumber(from.next[i]) : 0
    this.top = Math.max(this.top, to)
  }

  has(id: number): boolean {
    return id >= 1 && id <= this.top && (this.flags[id - 1] & STORED) !== 0
  }

  /**
   * Stores an ended conversation's summary under its id; `key` is its address pair (conversationKey),
   * `previous` the ended conversation it continues (see follow()).
   */
  put(info: ConversationInfo, reason: EndReason, key: string, previous = 0): void {
    const i = info.id - 1
    if (!Number.isInteger(i) || i < 0) return
    this.reserve(info.id)
    const client = packEndpoint(info.client)
    const server = packEndpoint(info.server)
    let f = STORED | (REASONS.indexOf(reason) << REASON_SHIFT)
    if (info.transport === 'tcp') f |= TCP
    f |= Math.max(0, ROLES.indexOf(info.roleFrom)) << ROLE_SHIFT
    if (client && server) {
      this.clientIp[i] = client.ip
      this.clientPort[i] = client.port
      this.serverIp[i] = server.ip
      this.serverPort[i] = server.port
    } else {
      f |= OTHER
      this.otherEndpoints.set(info.id, [info.client, info.server])
    }
    this.flags[i] = f
    this.frames[i] = info.frames
    this.bytes[i] = info.bytes
    this.first[i] = info.firstTime
    this.last[i] = info.lastTime
    this.shape[i] = this.shapes.id(shapeKey(info), () => ({ protocol: info.protocol, stack: [...info.stack] }))
    this.noteRef[i] = this.noteList(info.notes)
    this.previous[i] = previous
    this.top = Math.max(this.top, info.id)
    this.index(info.id, key)
  }

  get(id: number): ConversationInfo | undefined {
    if (!this.has(id)) return undefined
    const i = id - 1
    const f = this.flags[i]
    const shape = this.shapes.values[this.shape[i]]
    const [client, server] = this.endpoints(id)
    return {
      id,
      transport: f & TCP ? 'tcp' : 'udp',
      client,
      server,
      roleFrom: ROLES[(f >> ROLE_SHIFT) & 3],
      protocol: shape.protocol,
      stack: [...shape.stack],
      frames: this.frames[i],
      bytes: this.bytes[i],
      firstTime: this.first[i],
      lastTime: this.last[i],
      notes: this.linkNotes(id, [...this.notes.values[this.noteRef[i]]], this.previous[i])
    }
  }

  /** Records that conversation `id` started on the addresses of the stored conversation `previous`. */
  follow(previous: number, id: number): void {
    if (this.has(previous)) this.next[previous - 1] = id
  }

  /**
   * A conversation's notes with what links it to the conversations before and after it on its addresses:
   * `previous` it continues (0: none), and, for a stored one, the one that continues it.
   */
  linkNotes(id: number, notes: string[], previous: number): string[] {
    const before = this.reason(previous)
    if (before === 'closed') notes.unshift(`TCP ports reused: conversation ${previous} on the same addresses had closed`)
    else if (before) notes.unshift(`continues conversation ${previous}, which was ended ${this.why(before)}`)
    const reason = this.reason(id)
    const after = this.has(id) ? this.next[id - 1] : 0
    if (after && (reason === 'idle' || reason === 'limit')) notes.push(`ended ${this.why(reason)}: later packets on these addresses are conversation ${after}`)
    return notes
  }

  private why(reason: EndReason): string {
    return reason === 'idle' ? `after ${this.limits.idleSeconds} s of capture time without packets` : `when ${this.limits.maxLive} conversations were open`
  }

  reason(id: number): EndReason | undefined {
    return this.has(id) ? REASONS[(this.flags[id - 1] >> REASON_SHIFT) & 3] : undefined
  }

  /** The latest stored conversation on this address pair (conversationKey), if any. */
  find(key: string): number | undefined {
    const h = hashText(key)
    const mask = this.slots.length - 1
    for (let s = h & mask; this.slots[s] !== 0; s = (s + 1) & mask) {
      const id = this.slots[s]
      if (this.hash[id - 1] === h && this.keyOf(id) === key) return id
    }
    return undefined
  }

  private endpoints(id: number): [string, string] {
    const i = id - 1
    if (this.flags[i] & OTHER) return this.otherEndpoints.get(id)!
    return [`${ipv4Text(this.clientIp[i])}:${this.clientPort[i]}`, `${ipv4Text(this.serverIp[i])}:${this.serverPort[i]}`]
  }

  private keyOf(id: number): string {
    const [client, server] = this.endpoints(id)
    return conversationKey(this.flags[id - 1] & TCP ? 'tcp' : 'udp', client, server)
  }

  private noteList(notes: readonly string[]): number {
    return notes.length ? this.notes.id(notesKey(notes), () => [...notes]) : 0
  }

  /** Points the key's slot at `id`, replacing an older conversation on the same key. */
  private index(id: number, key: string): void {
    const h = hashText(key)
    this.hash[id - 1] = h
    if ((this.used + 1) * 2 > this.slots.length) this.rehash(this.slots.length * 2)
    const mask = this.slots.length - 1
    let s = h & mask
    for (; this.slots[s] !== 0; s = (s + 1) & mask) {
      const other = this.slots[s]
      if (this.hash[other - 1] === h && this.keyOf(other) === key) {
        this.slots[s] = id
        return
      }
    }
    this.slots[s] = id
    this.used++
  }

  private rehash(size: number): void {
    const old = this.slots
    this.slots = new Uint32Array(size)
    const mask = size - 1
    for (const id of old) {
      if (id === 0) continue
      let s = this.hash[id - 1] & mask
      while (this.slots[s] !== 0) s = (s + 1) & mask
      this.slots[s] = id
    }
  }

  private reserve(id: number): void {
    if (id <= this.cap) return
    let cap = Math.max(1024, this.cap)
    while (cap < id) cap *= 2
    this.flags = resized(this.flags, cap)
    this.frames = resized(this.frames, cap)
    this.bytes = resized(this.bytes, cap)
    this.first = resized(this.first, cap)
    this.last = resized(this.last, cap)
    this.clientIp = resized(this.clientIp, cap)
    this.serverIp = resized(this.serverIp, cap)
    this.clientPort = resized(this.clientPort, cap)
    this.serverPort = resized(this.serverPort, cap)
    this.shape = resized(this.shape, cap)
    this.noteRef = resized(this.noteRef, cap)
    this.hash = resized(this.hash, cap)
    this.previous = resized(this.previous, cap)
    this.next = resized(this.next, cap)
    this.cap = cap
  }
}
