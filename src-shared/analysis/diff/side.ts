// One capture as the diff keeps it: per message, in typed columns, what pairing and aligning need (its id,
// conversation, protocol, direction and name, frames) and a digest of its compared leaves; values only for
// the messages whose fields the report names (see digest.ts). About 35 bytes a message.

import { resized } from '../../bytes/columns'
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

/** DiffConversations as plain data, cut to its count (DiffSideColumns). */
export interface DiffConversationColumns {
  ids: Uint32Array<ArrayBuffer>
  protocolIds: Uint16Array<ArrayBuffer>
  clientIp: Uint32Array<ArrayBuffer>
  serverIp: Uint32Array<ArrayBuffer>
  clientPort: Uint16Array<ArrayBuffer>
  serverPort: Uint16Array<ArrayBuffer>
  other: [number, string, string][]
}

/**
 * A side as plain data and typed arrays (values are not carried), so that a side made in one thread can be
 * used in another: the CLI decodes capture B in a worker while A decodes in the main thread.
 */
export interface DiffSideColumns {
  file?: string
  ids: Uint32Array<ArrayBuffer>
  conv: Uint32Array<ArrayBuffer>
  keyIds: Uint32Array<ArrayBuffer>
  protocolIds: Uint16Array<ArrayBuffer>
  photonOp: Uint8Array<ArrayBuffer>
  digests: Uint32Array<ArrayBuffer>
  frameStart: Uint32Array<ArrayBuffer>
  frameList: Uint32Array<ArrayBuffer>
  keys: DiffKey[]
  protocols: string[]
  conversations: DiffConversationColumns
}

/** The buffers of `c`'s typed arrays, to transfer rather than copy (each array has its own, cut by columns()). */
export function columnBuffers(c: DiffSideColumns): ArrayBuffer[] {
  return [...Object.values(c), ...Object.values(c.conversations)].filter((v) => ArrayBuffer.isView(v)).map((a) => a.buffer as ArrayBuffer)
}

/**
 * A side's conversations in typed columns, in the order given (the engine's, by id): a capture can have a
 * million, and as objects with their endpoint strings they cost about 230 bytes each. IPv4 endpoints are
 * kept as numbers, others as strings.
 */
export class DiffConversations {
  count = 0
  private ids = new Uint32Array(256)
  private protocolIds = new Uint16Array(256)
  private clientIp = new Uint32Array(256)
  private serverIp = new Uint32Array(256)
  private clientPort = new Uint16Array(256)
  private serverPort = new Uint16Array(256)
  /** Endpoints that are not IPv4 `a.b.c.d:port`, by index. */
  private readonly other = new Map<number, [string, string]>()

  constructor(
    private readonly protocols: Interned<string>,
    from?: DiffConversationColumns
  ) {
    if (!from) return
    this.count = from.ids.length
    this.ids = from.ids
    this.protocolIds = from.protocolIds
    this.clientIp = from.clientIp
    this.serverIp = from.serverIp
    this.clientPort = from.clientPort
    this.serverPort = from.serverPort
    for (const [i, client, server] of from.other) this.other.set(i, [client, server])
  }

  /** The columns cut to the count (copies: this list stays usable). */
  columns(): DiffConversationColumns {
    const n = this.count
    return {
      ids: this.ids.slice(0, n),
      protocolIds: this.protocolIds.slice(0, n),
      clientIp: this.clientIp.slice(0, n),
      serverIp: this.serverIp.slice(0, n),
      clientPort: this.clientPort.slice(0, n),
      serverPort: this.serverPort.slice(0, n),
      other: [...this.other].map(([i, [client, server]]) => [i, client, server])
    }
  }

  add(c: DiffConversationInput): void {
    const i = this.count
    if (i === this.ids.length) {
      const n = Math.max(256, 2 * i) // a list made from columns has no room to spare
      this.ids = resized(this.ids, n)
      this.protocolIds = resized(this.protocolIds, n)
      this.clientIp = resized(this.clientIp, n)
      this.serverIp = resized(this.serverIp, n)
      this.clientPort = resized(this.clientPort, n)
      this.serverPort = resized(this.serverPort, n)
    }
    this.ids[i] = c.id
    this.protocolIds[i] = this.protocols.id(c.protocol, () => c.protocol)
    const client = packEndpoint(c.client)
    const server = packEndpoint(c.server)
    if (client && server) {
      this.clientIp[i] = client.ip
      this.clientPort[i] = client.port
      this.serverIp[i] = server.ip
      this.serverPort[i] = server.port
    } else this.other.set(i, [c.client, c.server])
    this.count++
  }

  id(i: number): number {
    return this.ids[i]
  }
  protocolId(i: number): number {
    return this.protocolIds[i]
  }
  protocol(i: number): string {
    return this.protocols.values[this.protocolIds[i]]
  }
  /** The server's port, as text (what conversations are paired by). */
  port(i: number): string {
    const other = this.other.get(i)
    return other ? other[1].slice(other[1].lastIndexOf(':') + 1) : String(this.serverPort[i])
  }
  get(i: number): DiffConversationInput {
    const other = this.other.get(i)
    return {
      id: this.ids[i],
      protocol: this.protocol(i),
      client: other ? other[0] : `${ipv4Text(this.clientIp[i])}:${this.clientPort[i]}`,
      server: other ? other[1] : `${ipv4Text(this.serverIp[i])}:${this.serverPort[i]}`
    }
  }
}

export class DiffSide {
  count = 0
  private ids = new Uint32Array(1024)
  private conv = new Uint32Array(1024)
  private keyIds = new Uint32Array(1024)
  private protocolIds = new Uint16Array(1024)
  /** 1: a Photon operation or event (its value has a msgType), which the diff compares; ACKs and pings it does not. */
  private photonOp = new Uint8Array(1024)
  private digests = new Uint32Array(2048)
  private frameStart = new Uint32Array(1025)
  private frameList = new Uint32Array(1024)
  private readonly keys: Interned<DiffKey>
  private readonly protocols: Interned<string>
  private sorted = true
  /** Values by message id: every message's when kept (keepValues), else those addValue was given. */
  private readonly values = new Map<number, unknown>()
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
    this.count = c.ids.length
    this.ids = c.ids
    this.conv = c.conv
    this.keyIds = c.keyIds
    this.protocolIds = c.protocolIds
    this.photonOp = c.photonOp
    this.digests = c.digests
    this.frameStart = c.frameStart
    this.frameList = c.frameList
  }

  /** This side's columns cut to its messages, for another thread (after end(); values are not carried). */
  columns(): DiffSideColumns {
    if (!this.sorted) throw new Error('internal: the columns of a side not sorted by id (end it first)')
    const n = this.count
    return {
      ...(this.file !== undefined ? { file: this.file } : {}),
      ids: this.ids.slice(0, n),
      conv: this.conv.slice(0, n),
      keyIds: this.keyIds.slice(0, n),
      protocolIds: this.protocolIds.slice(0, n),
      photonOp: this.photonOp.slice(0, n),
      digests: this.digests.slice(0, 2 * n),
      frameStart: this.frameStart.slice(0, n + 1),
      frameList: this.frameList.slice(0, this.frameStart[n]),
      keys: this.keys.values,
      protocols: this.protocols.values,
      conversations: this.conversations.columns()
    }
  }

  add(m: DiffMessageInput): void {
    const i = this.count
    if (i === this.ids.length) this.grow()
    if (i > 0 && m.id < this.ids[i - 1]) this.sorted = false
    this.ids[i] = m.id
    this.conv[i] = m.conversation
    const name = displayName(m)
    const text = `${m.direction}\u0000${name}`
    this.keyIds[i] = this.keys.id(text, () => ({ direction: m.direction, name, text }))
    this.protocolIds[i] = this.protocols.id(m.protocol, () => m.protocol)
    const op = m.protocol === 'photon' && typeof (m.value as { msgType?: unknown } | null)?.msgType === 'number'
    this.photonOp[i] = op ? 1 : 0
    // Photon's transport messages (ACKs, pings, connects) are never compared: no digest for them.
    if (m.protocol !== 'photon' || op) leafDigest(m.value, this.rules.patterns(m.protocol), this.digests, 2 * i)
    let at = this.frameStart[i]
    if (at + m.frames.length > this.frameList.length) this.frameList = resized(this.frameList, Math.max(this.frameList.length * 2, at + m.frames.length))
    for (const f of m.frames) this.frameList[at++] = f
    this.frameStart[i + 1] = at
    if (this.keepValues) this.values.set(m.id, m.value)
    this.count++
  }

  private grow(): void {
    const n = Math.max(1024, this.ids.length * 2) // a side made from columns has no room to spare
    this.ids = resized(this.ids, n)
    this.conv = resized(this.conv, n)
    this.keyIds = resized(this.keyIds, n)
    this.protocolIds = resized(this.protocolIds, n)
    this.photonOp = resized(this.photonOp, n)
    this.digests = resized(this.digests, 2 * n)
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
    const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => this.ids[x] - this.ids[y])
    const pick = <T extends Uint32Array | Uint16Array | Uint8Array>(a: T): T => {
      const out = new (a.constructor as new (n: number) => T)(n)
      order.forEach((from, to) => {
        out[to] = a[from]
      })
      return out
    }
    const digests = new Uint32Array(2 * n)
    const frameStart = new Uint32Array(n + 1)
    const frameList = new Uint32Array(this.frameStart[n])
    order.forEach((from, to) => {
      digests[2 * to] = this.digests[2 * from]
      digests[2 * to + 1] = this.digests[2 * from + 1]
      frameList.set(this.frameList.subarray(this.frameStart[from], this.frameStart[from + 1]), frameStart[to])
      frameStart[to + 1] = frameStart[to] + this.frameStart[from + 1] - this.frameStart[from]
    })
    this.ids = pick(this.ids)
    this.conv = pick(this.conv)
    this.keyIds = pick(this.keyIds)
    this.protocolIds = pick(this.protocolIds)
    this.photonOp = pick(this.photonOp)
    this.digests = digests
    this.frameStart = frameStart
    this.frameList = frameList
    this.sorted = true
  }

  id(i: number): number {
    return this.ids[i]
  }
  conversation(i: number): number {
    return this.conv[i]
  }
  /** The message's direction and name. */
  key(i: number): DiffKey {
    return this.keys.values[this.keyIds[i]]
  }
  protocol(i: number): string {
    return this.protocols.values[this.protocolIds[i]]
  }
  /** The protocol's number, the same as its conversations' (DiffConversations.protocolId). */
  protocolId(i: number): number {
    return this.protocolIds[i]
  }
  isPhotonOp(i: number): boolean {
    return this.photonOp[i] === 1
  }
  frames(i: number): number[] {
    return Array.from(this.frameList.subarray(this.frameStart[i], this.frameStart[i + 1]))
  }
  /** Whether messages i (here) and j (of `other`) have the same digest: the same leaves outside the skipped paths. */
  sameDigest(i: number, other: DiffSide, j: number): boolean {
    return this.digests[2 * i] === other.digests[2 * j] && this.digests[2 * i + 1] === other.digests[2 * j + 1]
  }

  /** The value of message i, kept or added (valuesNeeded names the messages whose values are needed). */
  value(i: number): unknown {
    if (!this.hasValue(i)) throw new Error(`internal: the value of message #${this.ids[i]} was not decoded again for the diff`)
    return this.values.get(this.ids[i])
  }
  hasValue(i: number): boolean {
    return this.values.has(this.ids[i])
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
    if (!key || this.conv[i] !== m.conversation || key.direction !== m.direction || key.name !== displayName(m)) this.differs ??= m.id
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
      const v = this.ids[mid]
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
