// The LiteNetLib transport for one conversation: one message per LiteNetLib packet (a Merged datagram gives
// one per inner packet, a 2.x ReliableMerged packet one per payload), payloads handed to the carried protocol
// (FigNet; none under "decode as litenetlib"), fragments reassembled in part order, ACKs and Pongs linked to
// what they answer. The transport's own messages are of protocol `litenetlib` (the top-most one decoded).
// Conversation state — the version, fragments, reliable sequences, pings, connect requests — lives here;
// wire.ts is pure.

import { DecodeError, FieldReader } from '../../bytes/reader'
import { MessageDraft, TreeBuilder } from '../../bytes/tree'
import { FragmentAssembler, type FragmentLimits, type IncompleteReassembly } from '../../net/fragments'
import { ReliabilityTracker } from '../../net/reliability'
import type { CarriedDecoder, CarriedResult } from '../carried'
import type { DecoderContext, Emit, Pdu, ProtocolDecoder, WireDir } from '../registry'
import { markPosition } from '../transport-links'
import { F, F_LINK, F_MERGED } from './fields'
import { VersionChooser, type VersionChoice } from './version'
import {
  CHANNELED_HEADER,
  deliveryName,
  kindOf,
  MAX_ACK_LIST,
  newPacket,
  readFirstByte,
  readPacket,
  splitMerged,
  splitReliableMerged,
  TABLE_NAMES,
  type LnlPacket,
  type MergedItem,
  type Range,
  type Table
} from './wire'
import { counted } from '../../model/text'

export { probeLiteNetLib } from './probe'

export const LITENETLIB_LAYER = 'litenetlib'

export interface LiteNetLibOptions {
  /** Limits of the fragment assemblers (defaults: see FragmentAssembler). */
  fragmentLimits?: FragmentLimits
}

const other = (d: WireDir): WireDir => (d === 'a2b' ? 'b2a' : 'a2b')
const round = (ms: number) => Math.round(ms * 1000) / 1000
/** Pings waiting for their Pong per direction, and ConnectRequests waiting for their accept. */
const MAX_PINGS = 256
const MAX_REQUESTS = 64

interface Sent {
  frame: number
  time: number
}

/** One message's worth of a datagram: a packet, or one payload of a ReliableMerged packet. */
interface Unit {
  shape: 'packet' | 'merged-error' | 'merged-empty'
  start: number
  end: number
  /** Inside a Merged packet: where its u16 size is, and which item it is. */
  merged?: { sizeAt: number; index: number; count: number }
  /** One payload of a ReliableMerged packet. */
  item?: MergedItem & { count: number }
  error?: DecodeError
  notes: string[]
}

/** The bytes a datagram is read from: the engine's source when it holds the datagram, else the datagram. */
interface Base {
  bytes: Uint8Array
  off: number
  len: number
  name: string
  reuse: boolean
}

/** Everything one message of a datagram needs. */
interface MessageCtx {
  pdu: Pdu
  draft: MessageDraft
  source: number
  base: Base
  choice: VersionChoice
  frame: number
  emit: Emit
  info: Record<string, unknown>
  /** The packet, once read (its channel and delivery go into the message value). */
  packet?: LnlPacket
}

export class LiteNetLibTransport implements ProtocolDecoder {
  private readonly versions = new VersionChooser()
  // Per-conversation tables are made on first use: a capture may hold many short conversations.
  private readonly fragments: Partial<Record<WireDir, FragmentAssembler>> = {}
  private readonly reliability = new ReliabilityTracker()
  private readonly pings: Partial<Record<WireDir, Map<number, Sent>>> = {}
  private requestMap: Map<bigint, Sent> | undefined
  private clientDir: WireDir | null = null
  private stack: string[] = ['udp']

  constructor(
    private readonly ctx: DecoderContext,
    /** The protocol the payloads carry (FigNet), or null to show them as LiteNetLib payloads. */
    private readonly carried: CarriedDecoder | null,
    private readonly opts: LiteNetLibOptions = {}
  ) {}

  private assembler(dir: WireDir): FragmentAssembler {
    return (this.fragments[dir] ??= new FragmentAssembler(this.opts.fragmentLimits))
  }

  private get requests(): Map<bigint, Sent> {
    return (this.requestMap ??= new Map())
  }

  /** Bytes held by unfinished fragment reassemblies (both directions). */
  get pendingFragmentBytes(): number {
    return (this.fragments.a2b?.pendingBytes ?? 0) + (this.fragments.b2a?.pendingBytes ?? 0)
  }

  /** The version in use now and why. */
  get version(): VersionChoice {
    return this.versions.current
  }

  datagram(pdu: Pdu, emit: Emit): void {
    this.stack = pdu.stack
    const base = baseOf(pdu)
    const frame = pdu.frames[pdu.frames.length - 1]
    this.versions.observe(pdu.bytes, frame)
    const choice = this.versions.current
    if (pdu.bytes.length === 0) {
      const { draft } = this.draftFor(pdu, 0, base)
      draft.error = 'empty datagram: no LiteNetLib packet (offset 0)'
      emit({
        dir: pdu.dir,
        frames: pdu.frames,
        time: pdu.time,
        protocol: LITENETLIB_LAYER,
        stack: [...pdu.stack, LITENETLIB_LAYER],
        name: 'Empty datagram',
        summary: 'empty UDP datagram',
        value: { litenetlib: { version: choice.version } },
        draft
      })
      return
    }
    const units = splitDatagram(base, choice.table)
    for (let i = 0; i < units.length; i++) {
      const u = units[i]
      const { draft, source } = this.draftFor(pdu, i, base)
      const m: MessageCtx = { pdu, draft, source, base, choice, frame, emit, info: { version: choice.version } }
      markPosition(draft, source, u.start, i, units.length, 'packet')
      this.unit(m, u)
    }
  }

  finish(emit: Emit): void {
    for (const dir of ['a2b', 'b2a'] as const) {
      for (const inc of this.fragments[dir]?.incomplete() ?? []) this.incomplete(dir, inc, emit)
    }
  }

  // ---- one message ----

  private draftFor(pdu: Pdu, i: number, base: Base): { draft: MessageDraft; source: number } {
    if (i === 0) return { draft: pdu.draft, source: base.reuse ? pdu.source : pdu.draft.addSource(base.name, base.bytes) }
    const draft = new MessageDraft(this.ctx)
    return { draft, source: draft.addSource(base.name, base.bytes) }
  }

  private unit(m: MessageCtx, u: Unit): void {
    const { draft, base, choice } = m
    const tree = draft.tree
    if (tree.recording) {
      tree.add({
        key: F.version.key,
        label: `LiteNetLib ${choice.version} (${TABLE_NAMES[choice.table]}): ${choice.reason}`,
        type: 'string',
        value: choice.version
      })
    }
    m.info.versionReason = choice.reason
    for (const note of u.notes) draft.warn(note)
    let error = u.error

    // A Merged item: the outer header byte, then a group with the item's size and the packet itself.
    let mergedOpen = false
    if (u.merged || u.shape === 'merged-empty') {
      const r = new FieldReader(base.bytes, tree, m.source, base.off, base.off + base.len)
      readFirstByte(r, choice.table, newPacket(base.off, base.off + base.len))
      if (u.merged) {
        m.info.merged = { index: u.merged.index, count: u.merged.count }
        if (tree.recording) {
          tree.open({
            key: F_MERGED.key,
            label: `Merged item ${u.merged.index + 1} of ${u.merged.count} (${u.end - u.merged.sizeAt} bytes)`,
            type: 'none',
            source: m.source,
            start: u.merged.sizeAt,
            length: 0
          })
          mergedOpen = true
        }
        r.pos = u.merged.sizeAt
        if (r.end - r.pos >= 2) r.u16(F.merged_size, true)
      } else if (r.remaining >= 2) {
        r.u16(F.merged_end, true)
      }
    }
    if (u.shape !== 'packet') {
      if (mergedOpen) tree.close(u.end)
      const name = u.shape === 'merged-empty' ? 'Merged' : 'Malformed Merged item'
      const summary = u.shape === 'merged-empty' ? 'Merged packet without items' : `Merged item: ${error?.message ?? 'malformed'}`
      return this.transportOut(m, name, summary, error)
    }

    const p = newPacket(u.start, u.end)
    try {
      readPacket(new FieldReader(base.bytes, tree, m.source, u.start, u.end), choice.version, p, { item: u.item })
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e
      error ??= e
    }
    if (mergedOpen) tree.close(u.end)
    m.packet = p
    for (const note of p.notes) draft.warn(note)
    packetInfo(p, m.info)
    if (u.item) m.info.reliableMerged = { index: u.item.index, count: u.item.count }
    if (error) {
      const what = p.kind ?? (p.property >= 0 ? `Unknown property ${p.property}` : 'Packet')
      return this.transportOut(m, `${what} (malformed)`, `${p.kind ?? 'LiteNetLib'} packet, ${p.end - p.start} bytes: ${error.message}`, error)
    }
    this.packet(m, p, u)
  }

  private packet(m: MessageCtx, p: LnlPacket, u: Unit): void {
    const { dir } = m.pdu
    switch (p.kind) {
      case 'Unreliable':
        return this.deliver(m, p.payload!, 0, 'Unreliable')
      case 'UnconnectedMessage':
        return this.deliver(m, p.payload!, 0, 'Unconnected')
      case 'Broadcast':
        return this.deliver(m, p.payload!, 0, 'Broadcast')
      case 'Channeled':
        this.track(m, p)
        if (p.fragment) return this.fragment(m, p)
        return this.deliver(m, p.payload!, p.channel!, deliveryName(p.delivery))
      case 'ReliableMerged':
        this.track(m, p)
        if (p.payload) return this.deliver(m, p.payload, p.channel!, deliveryName(p.delivery))
        return this.transportOut(m, 'ReliableMerged', `ReliableMerged ch=${p.channel} ${deliveryName(p.delivery)} seq=${p.sequence} without items`)
      case 'Ack':
        return this.ack(m, p)
      case 'Ping': {
        const pings = (this.pings[dir] ??= new Map())
        pings.delete(p.pingSequence!)
        pings.set(p.pingSequence!, { frame: m.frame, time: m.pdu.time })
        if (pings.size > MAX_PINGS) pings.delete(pings.keys().next().value!)
        return this.transportOut(m, 'Ping', `Ping seq=${p.pingSequence}`)
      }
      case 'Pong': {
        const seq = p.pong!.sequence
        const ping = this.pings[other(dir)]?.get(seq)
        let link = ''
        if (ping) {
          this.pings[other(dir)]!.delete(seq)
          const ms = round((m.pdu.time - ping.time) * 1000)
          Object.assign(m.info, { pongTo: ping.frame, rttMs: ms })
          link = ` → Ping in frame ${ping.frame} (${ms} ms)`
          this.link(m, F_LINK.pong_to, ping.frame, `Answers the Ping in frame ${ping.frame}, round trip ${ms} ms`)
        }
        return this.transportOut(m, 'Pong', `Pong seq=${seq}${link}`)
      }
      case 'ConnectRequest': {
        const c = p.connect!
        if (!this.clientDir) {
          this.clientDir = dir
          this.ctx.setClient(dir)
        }
        this.requests.delete(c.connectionTime)
        this.requests.set(c.connectionTime, { frame: m.frame, time: m.pdu.time })
        if (this.requests.size > MAX_REQUESTS) this.requests.delete(this.requests.keys().next().value!)
        const key = c.key !== undefined ? ` key=${JSON.stringify(c.key)}` : ''
        return this.transportOut(
          m,
          'ConnectRequest',
          `ConnectRequest protocol ${c.protocolId}${c.address ? ` to ${c.address.text}` : ''}${c.peerId !== undefined ? ` peer id ${c.peerId}` : ''}${key}`
        )
      }
      case 'ConnectAccept':
      case 'PeerNotFound': {
        const a = p.accept
        if (!a) return this.transportOut(m, p.kind, p.kind)
        const name = p.kind === 'PeerNotFound' ? 'PeerNotFound (network changed)' : 'ConnectAccept'
        // The server answers ConnectRequest: the other side is the client.
        if (p.kind === 'ConnectAccept' && !this.clientDir) {
          this.clientDir = other(dir)
          this.ctx.setClient(other(dir))
        }
        const req = this.requests.get(a.connectionTime)
        let link = ''
        if (req && p.kind === 'ConnectAccept') {
          const ms = round((m.pdu.time - req.time) * 1000)
          Object.assign(m.info, { acceptsFrame: req.frame, rttMs: ms })
          link = ` → request in frame ${req.frame} (${ms} ms)`
          this.link(m, F_LINK.accept_to, req.frame, `Accepts the ConnectRequest in frame ${req.frame}, ${ms} ms later`)
        }
        return this.transportOut(
          m,
          name,
          `${name} connection #${a.connectionNumber}${a.peerId !== undefined ? ` peer id ${a.peerId}` : ''}${a.flag ? (p.kind === 'PeerNotFound' ? '' : ' (reused peer)') : ''}${link}`
        )
      }
      case 'Disconnect': {
        const data = p.disconnect?.data
        return this.transportOut(m, 'Disconnect', `Disconnect${data ? ` with ${data.end - data.start} bytes of data` : ''}`)
      }
      case 'MtuCheck':
      case 'MtuOk':
        return this.transportOut(m, p.kind, `${p.kind} mtu=${p.mtu!.value}${p.mtu!.ok ? '' : ' (broken)'}`)
      case 'NatMessage':
        return this.transportOut(m, 'NatMessage', `NatMessage, ${counted(p.end - p.start - 1, 'byte')}`)
      default:
        return this.transportOut(m, p.kind ?? 'Packet', `${p.kind ?? 'Packet'}${u.merged ? ` (merged item ${u.merged.index + 1})` : ''}`)
    }
  }

  /** Reliable deliveries (all but Sequenced) resend with the same sequence: mark retransmissions. */
  private track(m: MessageCtx, p: LnlPacket): void {
    if (p.delivery === 1 || p.sequence === undefined || p.channelId === undefined) return
    const rel = this.reliability.reliable(m.pdu.dir, p.channelId, p.sequence, m.frame, m.pdu.time)
    if (rel.retransmissionOf === undefined) return
    m.info.retransmissionOf = rel.retransmissionOf
    m.draft.warn(
      `retransmission (transmission ${rel.transmission}) of seq ${p.sequence} on channel id ${p.channelId}, first sent in frame ${rel.retransmissionOf}`
    )
    this.link(m, F_LINK.retransmission_of, rel.retransmissionOf, `Retransmission of the packet in frame ${rel.retransmissionOf}`)
  }

  private ack(m: MessageCtx, p: LnlPacket): void {
    const a = p.ack
    const head = `Ack ch=${p.channel} ${deliveryName(p.delivery)}`
    if (!a) return this.transportOut(m, 'Ack', head)
    const { dir } = m.pdu
    const links: { seq: number; frame: number; rttMs?: number }[] = []
    let again = 0
    const acked = a.kind === 'window' ? a.acked : [a.sequence]
    for (const seq of acked) {
      const r = this.reliability.ack(dir, p.channelId!, seq, m.pdu.time)
      if (r.ackedMessage === undefined) continue
      if (r.duplicate) {
        again++
        continue
      }
      const rttMs = r.rttMs !== undefined ? round(r.rttMs) : undefined
      links.push({ seq, frame: r.ackedMessage, rttMs })
    }
    for (const l of links.slice(0, MAX_ACK_LIST)) {
      this.link(
        m,
        F_LINK.acked_frame,
        l.frame,
        `Acknowledges seq ${l.seq} sent in frame ${l.frame}${l.rttMs !== undefined ? `, round trip ${l.rttMs} ms` : ''}`
      )
    }
    Object.assign(m.info, { acknowledges: links.slice(0, MAX_ACK_LIST), newlyAcked: links.length, ackedBefore: again })
    const frames = [...new Set(links.map((l) => l.frame))]
    const linked = frames.length
      ? ` → frame${frames.length > 1 ? 's' : ''} ${frames.slice(0, 8).join(', ')}${frames.length > 8 ? ', …' : ''}${links.length === 1 && links[0].rttMs !== undefined ? ` (${links[0].rttMs} ms)` : ''}`
      : ''
    if (a.kind === 'sequenced') return this.transportOut(m, 'Ack', `${head} seq=${a.sequence}${linked}`)
    const list = a.acked.length ? a.acked.slice(0, 8).join(', ') + (a.acked.length > 8 ? `, … (${a.acked.length})` : '') : 'none'
    this.transportOut(m, 'Ack', `${head} window ${a.windowStart}: acks ${list}${links.length ? ` (${links.length} new)` : ''}${linked}`)
  }

  private fragment(m: MessageCtx, p: LnlPacket): void {
    const f = p.fragment!
    const { dir } = m.pdu
    const data = m.base.bytes.subarray(f.data.start, f.data.end)
    // Keyed by channel id and fragment id: LiteNetLib keys by fragment id and rejects a part whose channel differs.
    const res = this.assembler(dir).addNumbered(p.channelId!, { id: f.id, count: f.total, number: f.part }, data, m.frame, m.pdu.time)
    for (const ev of res.evicted ?? []) {
      m.draft.warn(`gave up on fragment id ${ev.startSeq} (channel id ${ev.channel}): ${ev.received} of ${ev.count} parts held too much memory`)
    }
    const head = `Fragment id ${f.id} part ${f.part + 1}/${f.total} ch=${p.channel} ${deliveryName(p.delivery)} seq=${p.sequence}`
    if (res.kind === 'complete') {
      const src = m.draft.addSource('Reassembled payload', res.bytes)
      if (m.draft.tree.recording) {
        m.draft.tree.add({
          key: F_LINK.reassembled.key,
          label: `Reassembled from ${res.pieces.length} parts in frames ${res.frames.join(', ')}: ${res.bytes.length} bytes`,
          type: 'bytes',
          value: res.bytes,
          source: src,
          start: 0,
          length: res.bytes.length
        })
      }
      m.info.reassembled = { parts: res.pieces.length, bytes: res.bytes.length, frames: res.frames }
      const frames = [...new Set([...res.frames, ...m.pdu.frames])].sort((a, b) => a - b)
      return this.deliver(m, { start: 0, end: res.bytes.length }, p.channel!, deliveryName(p.delivery), {
        bytes: res.bytes,
        source: src,
        frames,
        time: res.time
      })
    }
    if (res.kind === 'pending')
      return this.transportOut(m, 'Fragment', `${head} (${res.received} of ${res.count} parts; the payload is decoded with its last part)`)
    if (res.kind === 'duplicate') {
      m.draft.warn('duplicate fragment part (already received)')
      return this.transportOut(m, 'Fragment', `${head} (duplicate)`)
    }
    this.transportOut(m, 'Fragment', head, new DecodeError(`fragment rejected: ${res.message}`, p.start))
  }

  // ---- output ----

  private link(m: MessageCtx, def: { key: string; type: string }, frame: number, label: string): void {
    if (m.draft.tree.recording) m.draft.tree.add({ key: def.key, label, type: def.type, value: frame })
  }

  /**
   * Hands a payload to the carried protocol; the message is the carried protocol's. With none (or when it
   * fails) the message is LiteNetLib's own, its bytes already in the tree as `litenetlib.payload`.
   */
  private deliver(
    m: MessageCtx,
    range: Range,
    channel: number,
    delivery: string,
    from?: { bytes: Uint8Array; source: number; frames: number[]; time: number }
  ): void {
    const bytes = from?.bytes ?? m.base.bytes
    const source = from?.source ?? m.source
    const frames = from?.frames ?? m.pdu.frames
    const time = from?.time ?? m.pdu.time
    const r = new FieldReader(bytes, m.draft.tree, source, range.start, range.end)
    let res: CarriedResult
    try {
      res = this.carried
        ? this.carried.decode(r, m.draft, { dir: m.pdu.dir, channel, delivery, frame: m.frame, time })
        : ownPayload(m, range, channel, delivery, from)
    } catch (e) {
      // The contract says decode() does not throw; a bug there must not lose the transport's fields.
      const error = e instanceof DecodeError ? e : new DecodeError(`payload decoder failed: ${(e as Error).message}`, range.start)
      res = ownPayload(m, range, channel, delivery, from, error)
    }
    m.draft.tree.closeAll(r.pos)
    // The result's value is this message's alone: the transport's facts go after its keys (where a spread
    // into a new object would put them, an existing key keeping its place) without copying it.
    const value = res.value
    value.channel = channel
    value.delivery = delivery
    value.litenetlib = m.info
    this.emitMessage(m, {
      protocol: res.protocol,
      stack: res.protocol === LITENETLIB_LAYER ? [...m.pdu.stack, LITENETLIB_LAYER] : [...m.pdu.stack, LITENETLIB_LAYER, res.protocol],
      name: res.name,
      summary: res.summary,
      value,
      error: res.error,
      frames,
      time
    })
  }

  /** A message of the transport itself (Ack, Ping, a fragment part, a malformed packet, ...). */
  private transportOut(m: MessageCtx, name: string, summary: string, error?: DecodeError): void {
    const p = m.packet
    const value: Record<string, unknown> = { litenetlib: m.info }
    if (p?.channelId !== undefined) {
      value.channel = p.channel
      value.delivery = deliveryName(p.delivery)
    } else if (p?.kind === 'Unreliable') {
      value.channel = 0
      value.delivery = 'Unreliable'
    }
    m.draft.tree.closeAll()
    this.emitMessage(m, {
      protocol: LITENETLIB_LAYER,
      stack: [...m.pdu.stack, LITENETLIB_LAYER],
      name,
      summary,
      value,
      error,
      frames: m.pdu.frames,
      time: m.pdu.time
    })
  }

  private emitMessage(
    m: MessageCtx,
    o: { protocol: string; stack: string[]; name: string; summary: string; value: unknown; error?: DecodeError; frames: number[]; time: number }
  ): void {
    if (o.error && m.draft.error === null) m.draft.error = /offset \d/.test(o.error.message) ? o.error.message : `${o.error.message} (offset ${o.error.offset})`
    m.emit({
      dir: m.pdu.dir,
      frames: o.frames,
      time: o.time,
      protocol: o.protocol,
      stack: o.stack,
      name: o.name,
      summary: o.summary,
      value: o.value,
      draft: m.draft
    })
  }

  private incomplete(dir: WireDir, inc: IncompleteReassembly, emit: Emit): void {
    const draft = new MessageDraft(this.ctx)
    const channel = inc.channel >> 2
    const delivery = deliveryName(inc.channel & 3)
    const missing = `${inc.missingCount} of ${inc.count} parts missing (${inc.missing.join(', ')}${inc.missingCount > inc.missing.length ? ', …' : ''})`
    draft.error = `fragmented payload (fragment id ${inc.startSeq}, channel id ${inc.channel}) never completed: ${missing}${inc.state === 'evicted' ? '; dropped to bound memory' : ''}`
    emit({
      dir,
      frames: inc.frames,
      time: inc.lastTime,
      protocol: LITENETLIB_LAYER,
      stack: [...this.stack, LITENETLIB_LAYER],
      name: 'Incomplete fragmented payload',
      summary: `fragment id ${inc.startSeq} ch=${channel} ${delivery}: ${inc.received} of ${inc.count} parts (${inc.receivedBytes ?? 0} bytes)`,
      value: {
        channel,
        delivery,
        litenetlib: {
          fragment: { id: inc.startSeq, total: inc.count, received: inc.received, missing: inc.missing, missingCount: inc.missingCount, state: inc.state }
        }
      },
      draft
    })
  }
}

/** A payload shown as LiteNetLib's own (no carried protocol, or it failed). */
function ownPayload(m: MessageCtx, range: Range, channel: number, delivery: string, from?: { frames: number[] }, error?: DecodeError): CarriedResult {
  const kind = from ? 'Fragment' : (m.packet?.kind ?? 'Packet')
  const seq = m.packet?.sequence !== undefined ? ` seq=${m.packet.sequence}` : ''
  const parts = from ? `, reassembled from frames ${from.frames.join(', ')}` : ''
  return {
    protocol: LITENETLIB_LAYER,
    name: kind,
    summary: `${kind} ch=${channel} ${delivery}${seq}: ${range.end - range.start}-byte payload${parts}`,
    value: {},
    error
  }
}

function baseOf(pdu: Pdu): Base {
  const held = pdu.draft.sources[pdu.source]?.bytes
  const len = pdu.bytes.length
  if (held && held.buffer === pdu.bytes.buffer && held.byteOffset + pdu.offset === pdu.bytes.byteOffset && pdu.offset + len <= held.length) {
    return { bytes: held, off: pdu.offset, len, name: pdu.draft.sources[pdu.source].name, reuse: true }
  }
  return { bytes: pdu.bytes, off: 0, len, name: 'UDP payload', reuse: false }
}

/** Splits a datagram into its messages under `table` (no tree; the messages re-read their bytes). */
function splitDatagram(base: Base, table: Table): Unit[] {
  const { bytes, off, len } = base
  const out: Unit[] = []
  if (kindOf(table, bytes[off] & 0x1f) !== 'Merged') {
    packetUnits(bytes, { shape: 'packet', start: off, end: off + len, notes: [] }, table, out)
    return out
  }
  const s = splitMerged(new FieldReader(bytes, new TreeBuilder(false), 0, off, off + len))
  const count = s.items.length + (s.error ? 1 : 0)
  for (const it of s.items)
    packetUnits(bytes, { shape: 'packet', start: it.start, end: it.end, merged: { sizeAt: it.sizeAt, index: it.index, count }, notes: [] }, table, out)
  if (s.error)
    out.push({
      shape: 'merged-error',
      start: s.error.offset,
      end: off + len,
      merged: { sizeAt: s.error.offset, index: s.items.length, count },
      error: s.error,
      notes: []
    })
  if (!out.length) out.push({ shape: 'merged-empty', start: off, end: off + len, notes: [] })
  if (s.endAt !== undefined) {
    out[out.length - 1].notes.push(
      s.trailing
        ? `Merged packet: ${s.trailing} bytes after the zero size that ends it at offset ${s.endAt} (ignored)`
        : `Merged packet ends with a zero size at offset ${s.endAt}`
    )
  }
  return out
}

/** A packet is one message, except a ReliableMerged packet: one per payload item. */
function packetUnits(bytes: Uint8Array, u: Unit, table: Table, out: Unit[]): void {
  if (kindOf(table, bytes[u.start] & 0x1f) !== 'ReliableMerged' || u.end - u.start < CHANNELED_HEADER) {
    out.push(u)
    return
  }
  const s = splitReliableMerged(new FieldReader(bytes, new TreeBuilder(false), 0, u.start, u.end))
  const count = s.items.length
  for (const it of s.items) out.push({ ...u, notes: [...u.notes], item: { ...it, count } })
  if (s.error || count === 0) out.push({ ...u, notes: [...u.notes], error: s.error })
  if (s.trailing) out[out.length - 1].notes.push(`${s.trailing} byte after the last ReliableMerged item (ignored)`)
}

/** Adds the packet's fields to the message value's `litenetlib` object `v` (no object per packet to copy from). */
function packetInfo(p: LnlPacket, v: Record<string, unknown>): void {
  v.property = p.property
  v.type = p.kind ?? null
  v.connectionNumber = p.connectionNumber
  if (p.fragmented) v.fragmented = true
  if (p.sequence !== undefined) v.sequence = p.sequence
  if (p.channelId !== undefined) v.channelId = p.channelId
  if (p.fragment) v.fragment = { id: p.fragment.id, part: p.fragment.part, total: p.fragment.total }
  if (p.ack)
    v.ack =
      p.ack.kind === 'window'
        ? { windowStart: p.ack.windowStart, windowSize: p.ack.windowSize, acked: p.ack.acked.slice(0, MAX_ACK_LIST), ackedCount: p.ack.acked.length }
        : { sequence: p.ack.sequence }
  if (p.pingSequence !== undefined) v.pingSequence = p.pingSequence
  if (p.pong) v.pong = { sequence: p.pong.sequence, time: p.pong.time }
  if (p.connect) {
    const c = p.connect
    v.connect = {
      protocolId: c.protocolId,
      connectionTime: c.connectionTime,
      ...(c.peerId !== undefined ? { peerId: c.peerId } : {}),
      ...(c.address ? { address: c.address.text, addressFamily: c.address.family } : {}),
      ...(c.key !== undefined ? { key: c.key } : {})
    }
  }
  if (p.accept)
    v.accept = {
      connectionTime: p.accept.connectionTime,
      connectionNumber: p.accept.connectionNumber,
      flag: p.accept.flag,
      ...(p.accept.peerId !== undefined ? { peerId: p.accept.peerId } : {})
    }
  if (p.disconnect)
    v.disconnect = { connectionTime: p.disconnect.connectionTime, dataLength: p.disconnect.data ? p.disconnect.data.end - p.disconnect.data.start : 0 }
  if (p.mtu) v.mtu = { ...p.mtu }
}
