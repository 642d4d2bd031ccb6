// The engine: frames in, decoded messages out. Link layer -> IP (with defragmentation) -> UDP/TCP ->
// conversations -> (TCP reassembly, WebSocket) -> protocol decoders. Deterministic: the same frames and
// keys give the same messages.

import { LinkTypeName, frameTime, type CaptureFrame } from '../capture/types'
import type { DecodedMessage, ConversationInfo } from '../model/types'
import { decodeLink } from '../net/link'
import { IpDefragmenter, parseIpv4, parseIpv6, type IpPacket } from '../net/ip'
import { parseTcp, parseUdp, TcpFlag, type TcpSegment } from '../net/tcp'
import type { MessageOut, ProtocolRegistry, WireDir } from '../protocols/registry'
import type { KeyStore } from '../keys/store'
import { Conversation, endpointString, type Endpoint } from './conversation'

export interface DecodeAsRule {
  /** Conversation id, or an endpoint `ip:port` that either side of the conversation has. */
  match: number | string
  protocol: string
}

export interface EngineOptions {
  registry: ProtocolRegistry
  keys?: KeyStore
  /** Build field trees (the CLI export and detail views); off for the fast row pass. */
  recording?: boolean
  decodeAs?: DecodeAsRule[]
  onMessage(m: DecodedMessage, conversation: Conversation, dir: WireDir): void
  /** Called for every frame handed to a conversation (the UI replays one conversation's frames for detail). */
  onFrameConversation?(frameNumber: number, conversationId: number): void
  /** A conversation was created while `frame` was added (a sharded decode numbers conversations by it). */
  onConversation?(conversation: Conversation, frame: number): void
  /** A warning was raised while `frame` (0 at the end) was added; called before the engine's own cap of 1000. */
  onWarning?(text: string, frame: number): void
  /** finish() is about to flush this conversation. */
  onFinishConversation?(conversation: Conversation): void
}

/** What the network layers make of a frame: a UDP datagram or a TCP segment for a conversation. */
export interface TransportUnit {
  transport: 'udp' | 'tcp'
  src: Endpoint
  dst: Endpoint
  /** Frames carrying it (several for a defragmented IP datagram), and the one that completed it. */
  frames: number[]
  frame: number
  frameBytes: number
  time: number
  udpPayload?: Uint8Array
  segment?: TcpSegment
}

/** The key under which a transport unit finds its conversation: the same for both directions. */
export function conversationKey(transport: 'udp' | 'tcp', src: Endpoint, dst: Endpoint): string {
  const s = endpointString(src)
  const d = endpointString(dst)
  return s < d ? `${transport}|${s}|${d}` : `${transport}|${d}|${s}`
}

export interface EngineStats {
  frames: number
  messages: number
  errors: number
  /** Frames whose link or network layer the engine does not follow (ARP, ICMP, ...). */
  otherFrames: number
  linkTypes: string[]
  warnings: string[]
}

const MAX_WARNINGS = 1000

/** Adds a capture-level warning once, up to MAX_WARNINGS. */
function addWarning(list: string[], text: string): void {
  if (list.length < MAX_WARNINGS && !list.includes(text)) list.push(text)
}

/** Capture-level warnings as an engine keeps them: each text once, the first 1000. */
export class WarningList {
  readonly list: string[] = []
  add(text: string): void {
    addWarning(this.list, text)
  }
}

export class Engine {
  private conversations = new Map<string, Conversation>()
  private ordered: Conversation[] = []
  private defrag = new IpDefragmenter()
  private nextMessageId = 1
  private lastFrame = 0
  private linkTypes = new Set<string>()
  readonly stats: EngineStats = { frames: 0, messages: 0, errors: 0, otherFrames: 0, linkTypes: [], warnings: [] }
  private finished = false
  /**
   * Whether messages started from now on get field trees. A detail replay decodes a conversation's earlier
   * messages without trees and turns them on at the first frame of the message it wants.
   */
  recording: boolean
  /** The last frame given to network() is an IP fragment the defragmenter keeps until its datagram is whole. */
  heldLastFrame = false

  constructor(private readonly opts: EngineOptions) {
    this.recording = opts.recording ?? true
  }

  warn(text: string): void {
    this.opts.onWarning?.(text, this.finished ? 0 : this.lastFrame)
    addWarning(this.stats.warnings, text)
  }

  addFrame(frame: CaptureFrame): void {
    const unit = this.network(frame)
    if (unit) this.deliver(unit)
  }

  /**
   * The link, IP (with defragmentation) and UDP/TCP layers of a frame: the unit a conversation receives, or
   * null when the frame carries none (yet). Counts the frame and raises the warnings of those layers. A
   * sharded decode runs this alone to route frames by conversationKey, with exactly the engine's rules.
   */
  network(frame: CaptureFrame): TransportUnit | null {
    this.heldLastFrame = false
    this.stats.frames++
    if (frame.number > this.lastFrame) this.lastFrame = frame.number
    this.linkTypes.add(LinkTypeName[frame.linkType] ?? `LINKTYPE_${frame.linkType}`)
    const time = frameTime(frame)
    const link = decodeLink(frame.linkType, frame.data)
    if (link.network === 'other') {
      this.stats.otherFrames++
      if (link.reason?.startsWith('unsupported')) this.warn(`frame ${frame.number}: ${link.reason}`)
      return null
    }
    const ip = link.network === 'ipv4' ? parseIpv4(frame.data, link.offset) : parseIpv6(frame.data, link.offset)
    if (!ip.ok) {
      this.stats.otherFrames++
      this.warn(`frame ${frame.number}: ${ip.reason}`)
      return null
    }
    let packet: IpPacket = ip.packet
    let frames = [frame.number]
    let frameBytes = frame.originalLength
    if (packet.fragment) {
      const r = this.defrag.add(packet, frame.number, frame.originalLength)
      if (r === null) {
        this.heldLastFrame = true // wait for the other fragments
        return null
      }
      if ('error' in r) {
        this.warn(`frame ${frame.number}: ${r.error}`)
        return null
      }
      packet = { ...packet, payload: r.payload, fragment: undefined }
      frames = r.frames
      frameBytes = r.frameBytes
    }
    if (packet.protocol === 17) {
      const udp = parseUdp(packet.payload)
      if ('error' in udp) {
        this.warn(`frame ${frames[frames.length - 1]}: ${udp.error}`)
        return null
      }
      return { transport: 'udp', src: { ip: packet.src, port: udp.srcPort }, dst: { ip: packet.dst, port: udp.dstPort }, frames, frame: frame.number, frameBytes, time, udpPayload: udp.payload }
    }
    if (packet.protocol === 6) {
      const seg = parseTcp(packet.payload)
      if ('error' in seg) {
        this.warn(`frame ${frame.number}: ${seg.error}`)
        return null
      }
      return { transport: 'tcp', src: { ip: packet.src, port: seg.srcPort }, dst: { ip: packet.dst, port: seg.dstPort }, frames, frame: frame.number, frameBytes, time, segment: seg }
    }
    this.stats.otherFrames++
    return null
  }

  /** Hands a transport unit to its conversation. */
  private deliver(u: TransportUnit): void {
    if (u.transport === 'udp') this.udp(u)
    else this.tcp(u)
  }

  private conversation(transport: 'udp' | 'tcp', src: Endpoint, dst: Endpoint, create = true): { conv: Conversation; dir: WireDir } | undefined {
    const s = endpointString(src)
    const d = endpointString(dst)
    const key = conversationKey(transport, src, dst)
    let conv = this.conversations.get(key)
    if (!conv) {
      if (!create) return undefined
      const id = this.ordered.length + 1
      const engine = this
      conv = new Conversation(id, transport, src, dst, {
        registry: this.opts.registry,
        keys: this.opts.keys,
        get recording() {
          return engine.recording
        },
        forced: this.forcedProtocol(id, s, d),
        emit: (c, m) => this.emit(c, m)
      })
      this.conversations.set(key, conv)
      this.ordered.push(conv)
      this.opts.onConversation?.(conv, this.lastFrame)
    }
    const dir: WireDir = endpointString(conv.a) === s ? 'a2b' : 'b2a'
    return { conv, dir }
  }

  private forcedProtocol(id: number, a: string, b: string): string | undefined {
    for (const r of this.opts.decodeAs ?? []) {
      if (r.match === id || r.match === a || r.match === b) return r.protocol
    }
    return undefined
  }

  private udp(u: TransportUnit): void {
    const { conv, dir } = this.conversation('udp', u.src, u.dst)!
    conv.touch(u.frameBytes, u.time, u.frames.length)
    if (this.opts.onFrameConversation) for (const f of u.frames) this.opts.onFrameConversation(f, conv.id)
    conv.udpDatagram(dir, u.udpPayload!, u.frames, u.time)
  }

  private tcp(u: TransportUnit): void {
    const seg = u.segment!
    const { src, dst } = u
    const isSyn = (seg.flags & TcpFlag.SYN) !== 0
    const isAck = (seg.flags & TcpFlag.ACK) !== 0
    // A SYN/ACK seen first means its sender is the server: make the other side "a".
    const found = isSyn && isAck && !this.conversation('tcp', src, dst, false) ? this.conversation('tcp', dst, src) : undefined
    const { conv, dir } = found ? { conv: found.conv, dir: 'b2a' as WireDir } : this.conversation('tcp', src, dst)!
    if (isSyn) {
      conv.clientSide = (dir === 'a2b') === !isAck ? 'a' : 'b'
      conv.roleFromHandshake = true
    }
    conv.touch(u.frameBytes, u.time)
    this.opts.onFrameConversation?.(u.frame, conv.id)
    if (conv.tcp![dir].segment(seg, u.frame, u.time)) conv.tcpData(dir)
  }

  private emit(conv: Conversation, m: MessageOut): void {
    const msg: DecodedMessage = {
      id: this.nextMessageId++,
      conversation: conv.id,
      direction: conv.direction(m.dir),
      frames: m.frames,
      time: m.time,
      protocol: m.protocol,
      stack: m.protocol === 'unknown' || m.stack[m.stack.length - 1] === m.protocol ? m.stack : [...m.stack, m.protocol],
      name: m.name,
      summary: m.summary,
      value: m.value,
      tree: m.draft.tree.roots,
      sources: m.draft.sources,
      warnings: m.draft.warnings,
      error: m.draft.error
    }
    if (m.draft.tree.indexed) msg.indexed = m.draft.tree.indexed
    m.draft.tree.closeAll()
    this.stats.messages++
    if (msg.error) this.stats.errors++
    this.opts.onMessage(msg, conv, m.dir)
  }

  /** End of input: flush reassembly buffers so partial data is still shown. Idempotent. */
  finish(lastFrame = this.lastFrame): void {
    if (this.finished) return
    this.finished = true
    for (const conv of this.ordered) {
      this.opts.onFinishConversation?.(conv)
      conv.finish(lastFrame)
    }
    const left = this.defrag.incomplete()
    if (left.length) this.warn(`${left.length} fragmented IP datagram(s) never completed (frames ${left.flatMap((l) => l.frames).slice(0, 10).join(', ')})`)
    this.stats.linkTypes = [...this.linkTypes]
  }

  conversationList(): ConversationInfo[] {
    return this.ordered.map((c) => c.info())
  }

  conversationById(id: number): Conversation | undefined {
    return this.ordered[id - 1]
  }
}
