// One capture as the diff keeps it: per message, in typed columns, what pairing and aligning need (its id,
// conversation, protocol, direction and name, frames) and a digest of its compared leaves; values only for
// the messages whose fields the report names (see digest.ts). About 35 bytes a message.

import { type ColumnsOf, reorderedColumns, resized, resizedColumns } from '../../bytes/columns'
import { ipv4Text, packEndpoint } from '../../engine/conversation-table'
import { Interned } from '../../engine/interned'
import { leafDigest } from './digest'
import { ignoreRules, type DiffOptions, type IgnoreRules } from './rules'

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

export interface DiffConversationInput {
  id: number
  protocol: string
  client: string
  server: string
}

/**
 * Where a side keeps the values of its messages that are compared field by field. A Map by default; two
 * captures of different sessions differ in nearly every message, so the CLI and the app keep many values
 * outside the JS heap instead (src-main/host/spilled-values.ts).
 */
export interface DiffValues {
  set(id: number, value: unknown): void
  get(id: number): unknown
  has(id: number): boolean
  /** Frees what the store holds (a file); the side has no values afterwards. */
  close?(): void
}

/** A message's direction and name as the diff aligns and reports them (the name with an SFS2X extension command). */
export interface DiffKey {
  direction: string
  name: string
  /** Both in one string, what the alignment compares. */
  text: string
}

function displayName(m: DiffMessageInput): string {
  const command = (m.value as { command?: unknown } | null)?.command
  return m.protocol === 'sfs2x' && typeof command === 'string' && !m.name.includes(command) ? `${m.name} ${command}` : m.name
}

/** A conversation's columns (IPv4 endpoints as numbers; DiffConversations). */
const CONVERSATION_COLUMNS = {
  ids: [new Uint32Array(0), 1],
  protocolIds: [new Uint16Array(0), 1],
  clientIp: [new Uint32Array(0), 1],
  serverIp: [new Uint32Array(0), 1],
  clientPort: [new Uint16Array(0), 1],
  serverPort: [new Uint16Array(0), 1]
} as const

/** A message's fixed-size columns (DiffSide); its frames are a list of their own. */
const MESSAGE_COLUMNS = {
  ids: [new Uint32Array(0), 1],
  conv: [new Uint32Array(0), 1],
  keyIds: [new Uint32Array(0), 1],
  protocolIds: [new Uint16Array(0), 1],
  /** 1: a Photon operation or event (its value has a msgType), which the diff compares; ACKs and pings it does not. */
  photonOp: [new Uint8Array(0), 1],
  /** The digest's two 32-bit lanes. */
  digests: [new Uint32Array(0), 2]
} as const

/** DiffConversations as plain data, cut to its count (DiffSideColumns). */
export interface DiffConversationColumns {
  rows: ColumnsOf<typeof CONVERSATION_COLUMNS>
  other: [number, string, string][]
}

/**
 * A side as plain data and typed arrays (values are not carried), so that a side made in one thread can be
 * used in another: the CLI decodes capture B in a worker while A decodes in the main thread.
 */
export interface DiffSideColumns {
  file?: string
  messages: ColumnsOf<typeof MESSAGE_COLUMNS>
  frameStart: Uint32Array<ArrayBuffer>
  frameList: Uint32Array<ArrayBuffer>
  keys: DiffKey[]
  protocols: string[]
  conversations: DiffConversationColumns
}

/** The buffers of `c`'s typed arrays, to transfer rather than copy (each array has its own, cut by columns()). */
export function columnBuffers(c: DiffSideColumns): ArrayBuffer[] {
  return [...Object.values(c.messages), c.frameStart, c.frameList, ...Object.values(c.conversations.rows)].map((a) => a.buffer)
}

/**
 * A side's conversations in typed columns, in the order given (the engine's, by id): a capture can have a
 * million, and as objects with their endpoint strings they cost about 230 bytes each. IPv4 endpoints are
 * kept as numbers, others as strings.
 */
export class DiffConversations {
  count = 0
  private rows = resizedColumns(CONVERSATION_COLUMNS, 256)
  /** Endpoints that are not IPv4 `a.b.c.d:port`, by index. */
  private readonly other = new Map<number, [string, string]>()

  constructor(
    private readonly protocols: Interned<string>,
    from?: DiffConversationColumns
  ) {
    if (!from) return
    this.rows = from.rows
    this.count = from.rows.ids.length
    for (const [i, client, server] of from.other) this.other.set(i, [client, server])
  }

  /** The columns cut to the count (copies: this list stays usable). */
  columns(): DiffConversationColumns {
    return {
      rows: resizedColumns(CONVERSATION_COLUMNS, this.count, this.rows),
      other: [...this.other].map(([i, [client, server]]) => [i, client, server])
    }
  }

  add(c: DiffConversationInput): void {
    const i = this.count
    // a list made from columns has no room to spare
    if (i === this.rows.ids.length) this.rows = resizedColumns(CONVERSATION_COLUMNS, Math.max(256, 2 * i), this.rows)
    const r = this.rows
    r.ids[i] = c.id
    r.protocolIds[i] = this.protocols.id(c.protocol, () => c.protocol)
    const client = packEndpoint(c.client)
    const server = packEndpoint(c.server)
    if (client && server) {
      r.clientIp[i] = client.ip
      r.clientPort[i] = client.port
      r.serverIp[i] = server.ip
      r.serverPort[i] = server.port
    } else this.other.set(i, [c.client, c.server])
    this.count++
  }

  id(i: number): number {
    return this.rows.ids[i]
  }
  protocolId(i: number): number {
    return this.rows.protocolIds[i]
  }
  protocol(i: number): string {
    return this.protocols.values[this.rows.protocolIds[i]]
  }
  /** The server's port, as text (what conversations are paired by). */
  port(i: number): string {
    const other = this.other.get(i)
    return other ? other[1].slice(other[1].lastIndexOf(':') + 1) : String(this.rows.serverPort[i])
  }
  get(i: number): DiffConversationInput {
    const other = this.other.get(i)
    const r = this.rows
    return {
      id: r.ids[i],
      protocol: this.protocol(i),
      client: other ? other[0] : `${ipv4Text(r.clientIp[i])}:${r.clientPort[i]}`,
      server: other ? other[1] : `${ipv4Text(r.serverIp[i])}:${r.serverPort[i]}`
    }
  }
}

export class DiffSide {
  count = 0
  private m = resizedColumns(MESSAGE_COLUMNS, 1024)
  /** Message i's frames are frameList[frameStart[i], frameStart[i + 1]). */
  private frameStart = new Uint32Array(1025)
  private frameList = new Uint32Array(1024)
  private readonly keys: Interned<DiffKey>
  private readonly protocols: Interned<string>
  private sorted = true
  /** Values by message id: every message's when kept (keepValues), else those addValue was given. */
  private values: DiffValues = new Map<number, unknown>()
  readonly conversations: DiffConversations
  /** The ignore rules the digests are made under: a report compares sides made under the same. */
  readonly rules: IgnoreRules
  readonly file?: string
  private readonly keepValues: boolean

  /**
   * `keepValues`: keep every message's value (small inputs such as tests', where no second decode is
   * wanted). `columns`: the side another thread made (columns()), ended, under the same options.
   */
  constructor(options: DiffOptions, o: { keepValues?: boolean; file?: string; columns?: DiffSideColumns } = {}) {
    this.rules = ignoreRules(options)
    this.keepValues = o.keepValues ?? false
    const c = o.columns
    this.file = c ? c.file : o.file
    this.keys = c ? Interned.of(c.keys, (k) => k.text) : new Interned<DiffKey>()
    this.protocols = c ? Interned.of(c.protocols, (p) => p) : new Interned<string>()
    this.conversations = new DiffConversations(this.protocols, c?.conversations)
    if (!c) return
    this.count = c.messages.ids.length
    this.m = c.messages
    this.frameStart = c.frameStart
    this.frameList = c.frameList
  }

  /** This side's columns cut to its messages, for another thread (after end(); values are not carried). */
  columns(): DiffSideColumns {
    if (!this.sorted) throw new Error('internal: the columns of a side not sorted by id (end it first)')
    const n = this.count
    return {
      ...(this.file !== undefined ? { file: this.file } : {}),
      messages: resizedColumns(MESSAGE_COLUMNS, n, this.m),
      frameStart: this.frameStart.slice(0, n + 1),
      frameList: this.frameList.slice(0, this.frameStart[n]),
      keys: this.keys.values,
      protocols: this.protocols.values,
      conversations: this.conversations.columns()
    }
  }

  add(m: DiffMessageInput): void {
    const i = this.count
    if (i === this.m.ids.length) this.grow()
    const c = this.m
    if (i > 0 && m.id < c.ids[i - 1]) this.sorted = false
    c.ids[i] = m.id
    c.conv[i] = m.conversation
    const name = displayName(m)
    const text = `${m.direction}\u0000${name}`
    c.keyIds[i] = this.keys.id(text, () => ({ direction: m.direction, name, text }))
    c.protocolIds[i] = this.protocols.id(m.protocol, () => m.protocol)
    const op = m.protocol === 'photon' && typeof (m.value as { msgType?: unknown } | null)?.msgType === 'number'
    c.photonOp[i] = op ? 1 : 0
    // Photon's transport messages (ACKs, pings, connects) are never compared: no digest for them.
    if (m.protocol !== 'photon' || op) leafDigest(m.value, this.rules.patterns(m.protocol), c.digests, 2 * i)
    let at = this.frameStart[i]
    if (at + m.frames.length > this.frameList.length) this.frameList = resized(this.frameList, Math.max(this.frameList.length * 2, at + m.frames.length))
    for (const f of m.frames) this.frameList[at++] = f
    this.frameStart[i + 1] = at
    if (this.keepValues) this.values.set(m.id, m.value)
    this.count++
  }

  private grow(): void {
    const n = Math.max(1024, this.m.ids.length * 2) // a side made from columns has no room to spare
    this.m = resizedColumns(MESSAGE_COLUMNS, n, this.m)
    this.frameStart = resized(this.frameStart, n + 1)
  }

  /**
   * Ends the side: its conversations, and its messages sorted by id (held messages, whose roles were not
   * known yet, come out of the decoder after later ones).
   */
  end(conversations: Iterable<DiffConversationInput>): this {
    for (const c of conversations) this.conversations.add(c)
    if (!this.sorted) this.sortById()
    return this
  }

  private sortById(): void {
    const n = this.count
    const ids = this.m.ids
    const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => ids[x] - ids[y])
    const frameStart = new Uint32Array(n + 1)
    const frameList = new Uint32Array(this.frameStart[n])
    order.forEach((from, to) => {
      frameList.set(this.frameList.subarray(this.frameStart[from], this.frameStart[from + 1]), frameStart[to])
      frameStart[to + 1] = frameStart[to] + this.frameStart[from + 1] - this.frameStart[from]
    })
    this.m = reorderedColumns(MESSAGE_COLUMNS, this.m, order)
    this.frameStart = frameStart
    this.frameList = frameList
    this.sorted = true
  }

  id(i: number): number {
    return this.m.ids[i]
  }
  conversation(i: number): number {
    return this.m.conv[i]
  }
  /** The message's direction and name. */
  key(i: number): DiffKey {
    return this.keys.values[this.m.keyIds[i]]
  }
  protocol(i: number): string {
    return this.protocols.values[this.m.protocolIds[i]]
  }
  /** The protocol's number, the same as its conversations' (DiffConversations.protocolId). */
  protocolId(i: number): number {
    return this.m.protocolIds[i]
  }
  isPhotonOp(i: number): boolean {
    return this.m.photonOp[i] === 1
  }
  frames(i: number): number[] {
    return Array.from(this.frameList.subarray(this.frameStart[i], this.frameStart[i + 1]))
  }
  /** Whether messages i (here) and j (of `other`) have the same digest: the same leaves outside the skipped paths. */
  sameDigest(i: number, other: DiffSide, j: number): boolean {
    const a = this.m.digests
    const b = other.m.digests
    return a[2 * i] === b[2 * j] && a[2 * i + 1] === b[2 * j + 1]
  }

  /** The value of message i, kept or added (valuesNeeded names the messages whose values are needed). */
  value(i: number): unknown {
    if (!this.hasValue(i)) throw new Error(`internal: the value of message #${this.m.ids[i]} was not decoded again for the diff`)
    return this.values.get(this.m.ids[i])
  }
  hasValue(i: number): boolean {
    return this.values.has(this.m.ids[i])
  }

  /** Keeps the values addValue takes in `store` (before any is added); closeValues frees it. */
  keepValuesIn(store: DiffValues): void {
    if (this.keepValues || (this.values instanceof Map && this.values.size > 0)) throw new Error('internal: a side that holds values already')
    this.values = store
  }
  closeValues(): void {
    this.values.close?.()
  }

  /**
   * Takes the value of message `m` from a second decode of the same capture, if `wanted` names it. The
   * message must be the one this side holds under its id (same conversation, direction and name):
   * checkValues tells a capture decoded differently the second time (other keys, a changed file).
   */
  addValue(m: DiffMessageInput, wanted: ReadonlySet<number>): void {
    if (!wanted.has(m.id)) return
    const i = this.position(m.id)
    const key = i >= 0 ? this.key(i) : undefined
    if (!key || this.m.conv[i] !== m.conversation || key.direction !== m.direction || key.name !== displayName(m)) this.differs ??= m.id
    else this.values.set(m.id, m.value)
  }
  private differs: number | undefined

  /** Throws unless every message `wanted` names got its value, from the message this side holds under its id. */
  checkValues(wanted: ReadonlySet<number>): void {
    const where = this.file ? ` in ${this.file}` : ''
    if (this.differs !== undefined) throw new Error(`message #${this.differs} decoded differently the second time${where}: compare again`)
    for (const id of wanted) if (!this.values.has(id)) throw new Error(`message #${id} was not there when the capture was decoded again${where}: compare again`)
  }

  /** Where message `id` is, by binary search over the sorted ids; -1 when the side has none. */
  private position(id: number): number {
    let lo = 0
    let hi = this.count - 1
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      const v = this.m.ids[mid]
      if (v === id) return mid
      if (v < id) lo = mid + 1
      else hi = mid - 1
    }
    return -1
  }
}

/** A side from messages in memory, their values kept (tests; no second decode). */
export function diffSideOf(
  messages: Iterable<DiffMessageInput>,
  conversations: Iterable<DiffConversationInput>,
  options: DiffOptions = {},
  file?: string
): DiffSide {
  const side = new DiffSide(options, { keepValues: true, file })
  for (const m of messages) side.add(m)
  return side.end(conversations)
}
