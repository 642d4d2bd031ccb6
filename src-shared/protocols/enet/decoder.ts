// The ENet transport of one conversation (vanilla ENet 1.3 or ENet-CSharp, detected from the traffic): one
// message per command, several per datagram. Payloads (SEND_RELIABLE / SEND_UNRELIABLE / SEND_UNSEQUENCED,
// and fragments once reassembled) go to the CarriedDecoder of the protocol above (none under "decode as
// enet": the payload stays ENet data); control commands (CONNECT, ACK, PING, …) are messages of their own,
// of protocol `enet`, as Wireshark labels a message by the top-most protocol decoded in it. Reliable
// commands are checked for retransmission and ACKs linked to what they acknowledge; fragments are
// reassembled per direction, per kind and per channel.

import { DecodeError, FieldReader } from '../../bytes/reader'
import { MessageDraft } from '../../bytes/tree'
import type { FragmentLimits } from '../../net/fragments'
import type { CarriedDecoder, CarriedPayload, CarriedResult } from '../carried'
import type { DecoderContext, Emit, Pdu, ProtocolDecoder, WireDir } from '../registry'
import { commandDraft, errorLine, FragmentLinks, markPosition, ReliableLinks } from '../transport-links'
import { F } from './fields'
import { EnetVariantDetector, type LayoutChoice } from './variant'
import { shareable } from '../../engine/state-copy'
import {
  CMD,
  MAX_PACKET_COMMANDS,
  NO_PEER_ID,
  carriesPayload,
  isFragment,
  readCommand,
  readHeader,
  type ConnectBody,
  type EnetCommand,
  type EnetHeader,
  type EnetVariant
} from './wire'

export const ENET_LAYER = 'enet'

/** What the transport says about the command that carried a payload, or about a control command. */
export interface EnetInfo
  extends Pick<EnetCommand, 'channel' | 'unreliableSeq' | 'unsequencedGroup' | 'fragment' | 'disconnectData' | 'bandwidth' | 'throttle'> {
  command: string
  reliableSeq: number
  peerId: number
  sessionId: number
  sentTime?: number
  variant?: EnetVariant
  /** Frames of every fragment of a reassembled payload. */
  fragmentFrames?: number[]
  retransmissionOf?: number
  ackedSeq?: number
  ackedSentTime?: number
  acknowledges?: number
  rttMs?: number
  connect?: ConnectBody
}

const other = (d: WireDir): WireDir => (d === 'a2b' ? 'b2a' : 'a2b')
const hexBytes = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')

/** A payload shown as ENet data (no carried protocol, or it failed): `size` bytes. */
function ownPayload(info: EnetInfo, size: number, error?: DecodeError): CarriedResult {
  const from = info.fragmentFrames ? `, reassembled from frames ${info.fragmentFrames.join(', ')}` : ''
  const seq =
    info.unsequencedGroup !== undefined
      ? `group=${info.unsequencedGroup}`
      : info.unreliableSeq !== undefined
        ? `seq=${info.reliableSeq}/${info.unreliableSeq}`
        : `seq=${info.reliableSeq}`
  return {
    protocol: ENET_LAYER,
    name: info.command,
    summary: `${info.command} ch${info.channel} ${seq}: ${size} bytes of data${from}`,
    value: {},
    error
  }
}

/** Unreliable fragments are keyed by the channel's reliable seq too: the unreliable seq restarts after each reliable send. */
const unreliableKey = (reliableSeq: number, startSeq: number) => reliableSeq * 0x10000 + startSeq

/** An unreliable fragment series' key (reliable seq × 65536 + startSeq) as the reassembly notes show it. */
const describeUnreliableKey = shareable((k: number) => `startSeq ${k % 0x10000} (after reliable seq ${Math.floor(k / 0x10000)})`)

export class EnetTransport implements ProtocolDecoder {
  private readonly detector = new EnetVariantDetector()
  private readonly reliable = new ReliableLinks(F.ack_frame)
  private readonly fragments: FragmentLinks
  private clientDir: WireDir | null = null
  private connectId: string | null = null
  private lastStack: string[] = ['udp']

  /**
   * `carried`: the protocol the payloads carry (FigNet), or null to show them as ENet data;
   * `opts.fragmentLimits`: the reassembly limits (the assembler's defaults otherwise: 16 MiB per payload,
   * 65536 fragments, which no real ENet payload reaches, 64 MiB held per direction and kind).
   */
  constructor(
    private readonly ctx: DecoderContext,
    private readonly carried: CarriedDecoder | null,
    opts: { fragmentLimits?: FragmentLimits } = {}
  ) {
    const limits = opts.fragmentLimits
    this.fragments = new FragmentLinks(F.reassembled, 'Reassembled payload', {
      reliable: { limits },
      unreliable: { limits, describe: describeUnreliableKey }
    })
  }

  private setClient(dir: WireDir): void {
    if (this.clientDir) return
    this.clientDir = dir
    this.ctx.setClient(dir)
  }

  private controlStack(pdu: Pdu): string[] {
    return [...pdu.stack, ENET_LAYER]
  }

  datagram(pdu: Pdu, emit: Emit): void {
    this.lastStack = pdu.stack
    const frame = pdu.frames[pdu.frames.length - 1]
    const choice = this.detector.choose(pdu.bytes, frame)
    const p = choice.parsed
    if (!p.header) return this.unreadable(pdu, choice, 0, p.error ?? new DecodeError('ENet header unreadable', 0), emit)
    if (p.compressedAt !== undefined) return this.compressed(pdu, choice, emit)
    const n = p.commands.length
    if (n === 0 && !p.error) {
      // ENet never sends a header alone.
      const why = new DecodeError(`datagram without commands: it ends after the ${p.header.length}-byte header, at offset ${p.header.length}`, p.header.length)
      return this.unreadable(pdu, choice, 0, why, emit, p.header.length, 'Empty datagram')
    }
    for (let i = 0; i < n; i++) {
      const cmd = p.commands[i]
      const { draft, source } = commandDraft(pdu, i, this.ctx)
      const r = new FieldReader(pdu.bytes, draft.tree, source)
      const header = this.header(r, draft, choice)
      r.pos = cmd.start
      readCommand(r)
      markPosition(draft, source, cmd.start, i, n)
      if (p.error && i === n - 1) draft.warn(`followed by an unreadable command at offset ${cmd.end} (the next message)`)
      if (n > MAX_PACKET_COMMANDS && i === 0) draft.warn(`${n} commands in one datagram: ENet senders put at most ${MAX_PACKET_COMMANDS}`)
      if (header.peerId === NO_PEER_ID && cmd.number !== CMD.CONNECT)
        draft.warn(`${cmd.name} in a datagram from peer 0xFFF (connecting): ENet accepts only CONNECT there`)
      this.command(pdu, draft, source, header, cmd, frame, emit)
    }
    if (p.error) this.unreadable(pdu, choice, n, p.error, emit, n ? p.commands[n - 1].end : p.header.length)
  }

  /** Reads the header into the draft with the variant line after it, and warns about what it shows. */
  private header(r: FieldReader, draft: MessageDraft, choice: LayoutChoice): EnetHeader {
    // Without a tree the header read again would record nothing (no index field) and only compute the
    // checksum once more per command: the scan's reading of it is the same.
    const known = draft.tree.recording ? undefined : choice.parsed.header
    if (known) r.pos = known.length
    const h = known ?? readHeader(r, choice.layout, choice.parsed.connectId)
    if (draft.tree.recording) {
      r.record(F.variant, choice.variantText, 0, 2, `Variant: ${choice.variantText}; checksum: ${choice.checksumText}`)
    }
    const c = h.checksum
    if (c?.status === 'bad') {
      const digits = c.size * 2
      draft.warn(
        `checksum mismatch: the datagram says 0x${c.value.toString(16).padStart(digits, '0')}, computed 0x${c.computed!.toString(16).padStart(digits, '0')}`
      )
    }
    if (h.undefinedBits) draft.warn(`header bit 15 set: ENet-CSharp does not define it`)
    return h
  }

  /** What could not be read: the header, or a command after the `index` readable ones (from `at`). */
  private unreadable(
    pdu: Pdu,
    choice: LayoutChoice,
    index: number,
    error: DecodeError,
    emit: Emit,
    at?: number,
    name = at === undefined ? 'Malformed datagram' : 'Malformed command'
  ): void {
    const { draft, source } = commandDraft(pdu, index, this.ctx)
    const r = new FieldReader(pdu.bytes, draft.tree, source)
    try {
      this.header(r, draft, choice)
      if (at !== undefined && at < pdu.bytes.length) {
        r.pos = at
        readCommand(r)
      }
    } catch {
      /* the error is the one the scan found; the fields read so far stay in the tree */
    }
    draft.tree.closeAll(r.pos)
    if (at !== undefined && at < pdu.bytes.length && draft.tree.recording) {
      draft.tree.add({
        key: F.trailing.key,
        label: `Unreadable bytes from offset ${at}: ${pdu.bytes.length - at}`,
        type: 'bytes',
        value: pdu.bytes.subarray(at),
        source,
        start: at,
        length: pdu.bytes.length - at
      })
    }
    draft.error = errorLine(error)
    emit({
      dir: pdu.dir,
      frames: pdu.frames,
      time: pdu.time,
      protocol: ENET_LAYER,
      stack: this.controlStack(pdu),
      name,
      summary: `${name}, ${pdu.bytes.length - (at ?? 0)} bytes: ${error.message}`,
      value: { command: null, enet: { variant: this.detector.knownVariant } },
      draft
    })
  }

  private compressed(pdu: Pdu, choice: LayoutChoice, emit: Emit): void {
    const { draft, source } = commandDraft(pdu, 0, this.ctx)
    const r = new FieldReader(pdu.bytes, draft.tree, source)
    const h = this.header(r, draft, choice)
    const size = pdu.bytes.length - r.pos
    if (draft.tree.recording)
      draft.tree.add({
        key: F.compressed_data.key,
        label: `Compressed commands: ${size} bytes`,
        type: 'bytes',
        value: pdu.bytes.subarray(r.pos),
        source,
        start: r.pos,
        length: size
      })
    draft.warn("COMPRESSED flag (bit 14): the commands are compressed (ENet's range coder or a compressor the application installed) and cannot be decoded")
    emit({
      dir: pdu.dir,
      frames: pdu.frames,
      time: pdu.time,
      protocol: ENET_LAYER,
      stack: this.controlStack(pdu),
      name: 'Compressed datagram',
      summary: `Compressed datagram peer=${h.peerId}, ${size} bytes of compressed commands`,
      value: { command: null, compressed: true, enet: { peerId: h.peerId, sessionId: h.sessionId, sentTime: h.sentTime, variant: 'vanilla' } },
      draft
    })
  }

  private command(pdu: Pdu, draft: MessageDraft, source: number, h: EnetHeader, cmd: EnetCommand, frame: number, emit: Emit): void {
    const dir = pdu.dir
    const ch = cmd.channel
    const info: EnetInfo = { command: cmd.name, channel: ch, reliableSeq: cmd.reliableSeq, peerId: h.peerId, sessionId: h.sessionId }
    if (h.sentTime !== undefined) info.sentTime = h.sentTime
    const variant = this.detector.knownVariant
    if (variant) info.variant = variant

    if (cmd.number === CMD.CONNECT) this.onConnect(dir, cmd)
    else if (cmd.number === CMD.VERIFY_CONNECT && !this.clientDir) this.setClient(other(dir))
    if (cmd.acknowledge && cmd.number !== CMD.ACKNOWLEDGE) {
      const first = this.reliable.reliable(draft, dir, ch, cmd.reliableSeq, frame, pdu.time)
      if (first !== undefined) info.retransmissionOf = first
    }

    if (carriesPayload(cmd.number)) {
      if (cmd.unreliableSeq !== undefined) info.unreliableSeq = cmd.unreliableSeq
      if (cmd.unsequencedGroup !== undefined) info.unsequencedGroup = cmd.unsequencedGroup
      const delivery = cmd.number === CMD.SEND_RELIABLE ? 'Reliable' : cmd.number === CMD.SEND_UNRELIABLE ? 'Unreliable' : 'Unsequenced'
      return this.deliver(pdu, draft, info, delivery, pdu.bytes, source, cmd.payloadStart, cmd.payloadEnd, pdu.frames, pdu.time, emit)
    }
    if (isFragment(cmd.number)) return this.fragment(pdu, draft, info, cmd, frame, emit)

    let summary = `${cmd.name} ch${ch} seq=${cmd.reliableSeq}`
    let error: DecodeError | undefined
    switch (cmd.number) {
      case CMD.ACKNOWLEDGE: {
        const a = cmd.ack!
        const link = this.reliable.ack(draft, dir, ch, a.seq, pdu.time)
        Object.assign(info, { ackedSeq: a.seq, ackedSentTime: a.sentTime })
        if (link.acknowledges !== undefined) info.acknowledges = link.acknowledges
        if (link.rttMs !== undefined) info.rttMs = link.rttMs
        summary = `ACK ch${ch} seq=${a.seq}${link.text}`
        break
      }
      case CMD.CONNECT:
      case CMD.VERIFY_CONNECT: {
        const k = cmd.connect!
        info.connect = k
        const peer = cmd.number === CMD.VERIFY_CONNECT ? ` peer=${k.outgoingPeerId}` : ''
        summary = `${cmd.name}${peer} mtu=${k.mtu} channels=${k.channelCount}`
        if (k.channelCount < 1 || k.channelCount > 255)
          error = new DecodeError(`${cmd.name}: channel count ${k.channelCount} outside ENet's 1..255`, cmd.start + 12)
        break
      }
      case CMD.DISCONNECT:
        info.disconnectData = cmd.disconnectData
        summary = `DISCONNECT data=${cmd.disconnectData}`
        break
      case CMD.PING:
        summary = `PING seq=${cmd.reliableSeq}`
        break
      case CMD.BANDWIDTH_LIMIT:
        info.bandwidth = cmd.bandwidth
        summary = `BANDWIDTH_LIMIT in=${cmd.bandwidth!.incoming} out=${cmd.bandwidth!.outgoing}`
        break
      case CMD.THROTTLE_CONFIGURE: {
        const t = cmd.throttle!
        info.throttle = t
        summary = `THROTTLE_CONFIGURE interval=${t.interval} acceleration=${t.acceleration} deceleration=${t.deceleration}`
        break
      }
    }
    if (info.retransmissionOf !== undefined) summary += ` (retransmission of frame ${info.retransmissionOf})`
    this.control(pdu, draft, info, cmd.name, summary, emit, error)
  }

  /** A (new) connection: the client side, and fresh sequence state when the connectID changes. */
  private onConnect(dir: WireDir, cmd: EnetCommand): void {
    this.setClient(dir)
    const id = cmd.connectIdBytes ? hexBytes(cmd.connectIdBytes) : null
    if (id && this.connectId !== null && id !== this.connectId) {
      this.reliable.clear()
      this.fragments.clear()
      this.ctx.note('ENet reconnected (new connectID): sequence numbers start over')
    }
    if (id) this.connectId = id
  }

  private control(
    pdu: Pdu,
    draft: MessageDraft,
    info: EnetInfo,
    name: string,
    summary: string,
    emit: Emit,
    error?: DecodeError,
    frames = pdu.frames,
    time = pdu.time
  ): void {
    draft.tree.closeAll()
    if (error && draft.error === null) draft.error = errorLine(error)
    emit({
      dir: pdu.dir,
      frames,
      time,
      protocol: ENET_LAYER,
      stack: this.controlStack(pdu),
      name,
      summary,
      value: { command: info.command, channel: info.channel, enet: info },
      draft
    })
  }

  private fragment(pdu: Pdu, draft: MessageDraft, info: EnetInfo, cmd: EnetCommand, frame: number, emit: Emit): void {
    const f = cmd.fragment!
    info.fragment = { ...f }
    const reliable = cmd.number === CMD.SEND_FRAGMENT
    const lane = reliable ? 'reliable' : 'unreliable'
    const key = reliable ? f.startSeq : unreliableKey(cmd.reliableSeq, f.startSeq)
    const data = pdu.bytes.subarray(cmd.payloadStart, cmd.payloadEnd)
    const res = this.fragments.add(draft, pdu.dir, lane, cmd.channel, { ...f, startSeq: key }, data, frame, pdu.time)
    const delivery = reliable ? 'Reliable' : 'Unreliable'
    let summary = `${cmd.name} ${f.number + 1}/${f.count} of startSeq ${f.startSeq} ch${cmd.channel}`
    switch (res.kind) {
      case 'complete':
        info.fragmentFrames = res.frames
        return this.deliver(pdu, draft, info, delivery, res.bytes, res.source, 0, res.bytes.length, res.frames, res.time, emit)
      case 'pending':
        summary += ` (${res.received} of ${res.count} received; the payload is decoded with its last fragment)`
        break
      case 'duplicate':
        summary += ' (duplicate)'
        break
      case 'error':
        return this.control(
          pdu,
          draft,
          info,
          cmd.name,
          `${summary} (rejected)`,
          emit,
          new DecodeError(`fragment rejected at offset ${cmd.start}: ${res.message}`, cmd.start)
        )
    }
    if (info.retransmissionOf !== undefined) summary += ` (retransmission of frame ${info.retransmissionOf})`
    this.control(pdu, draft, info, cmd.name, summary, emit)
  }

  /**
   * Hands a whole payload (bytes[start, end) of `source`) to the carried protocol and emits its message; with
   * none (or when it fails) the message is ENet's own, its data already in the tree as `enet.data`.
   */
  private deliver(
    pdu: Pdu,
    draft: MessageDraft,
    info: EnetInfo,
    delivery: string,
    bytes: Uint8Array,
    source: number,
    start: number,
    end: number,
    frames: number[],
    time: number,
    emit: Emit
  ): void {
    draft.tree.closeAll()
    const payload: CarriedPayload = { dir: pdu.dir, channel: info.channel, delivery, frame: frames[frames.length - 1], time }
    let res: CarriedResult
    try {
      res = this.carried ? this.carried.decode(new FieldReader(bytes, draft.tree, source, start, end), draft, payload) : ownPayload(info, end - start)
    } catch (e) {
      // The contract says decode() never throws; if it does, the payload still shows, with why.
      res = ownPayload(info, end - start, new DecodeError(`payload decoder failed: ${(e as Error).message}`, start))
    }
    draft.tree.closeAll()
    if (res.error && draft.error === null) draft.error = errorLine(res.error)
    if (info.retransmissionOf !== undefined) draft.warn(`the payload was delivered before, in frame ${info.retransmissionOf}`)
    const stack = res.protocol === ENET_LAYER ? [...pdu.stack, ENET_LAYER] : [...pdu.stack, ENET_LAYER, res.protocol]
    // The result's value is made for this message alone: the transport's facts go after its keys (as a
    // spread into a new object would put them, an existing key keeping its place) without copying it.
    const value = res.value
    if (res.protocol === ENET_LAYER) value.command = info.command
    value.channel = info.channel
    value.delivery = delivery
    value.enet = info
    emit({ dir: pdu.dir, frames, time, protocol: res.protocol, stack, name: res.name, summary: res.summary, value, draft })
  }

  /** End of capture: every fragmented payload that never completed becomes a message with the frames it had. */
  finish(emit: Emit): void {
    for (const { dir, lane, inc, error } of this.fragments.incomplete()) {
      const d = new MessageDraft(this.ctx)
      d.error = error
      const startSeq = lane === 'unreliable' ? inc.startSeq % 0x10000 : inc.startSeq
      const command = lane === 'unreliable' ? 'SEND_UNRELIABLE_FRAGMENT' : 'SEND_FRAGMENT'
      emit({
        dir,
        frames: inc.frames,
        time: inc.lastTime,
        protocol: ENET_LAYER,
        stack: [...this.lastStack, ENET_LAYER],
        name: 'Incomplete fragmented payload',
        summary: `${command} startSeq ${startSeq} ch${inc.channel}: ${inc.received} of ${inc.count} fragments (${inc.totalLength} bytes)`,
        value: {
          command,
          channel: inc.channel,
          enet: { startSeq, fragmentCount: inc.count, received: inc.received, missing: inc.missing, totalLength: inc.totalLength }
        },
        draft: d
      })
    }
  }
}
