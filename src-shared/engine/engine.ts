// The engine: frames in, decoded messages out. Link layer -> IP (with defragmentation) -> UDP/TCP ->
// conversations -> (TCP reassembly, WebSocket) -> protocol decoders. Deterministic: the same frames and
// keys give the same messages.

import { copyState, StateCopyRefused } from './state-copy'
import { LinkTypeName, frameTime, type CaptureFrame, type CaptureInterface } from '../capture/types'
import type { DecodedMessage, ConversationInfo } from '../model/types'
import { decodeLink } from '../net/link'
import { withLayers } from '../net/layers'
import { FrameRing, RECENT_FRAME_LIMITS } from '../net/frame-ring'
import { IpDefragmenter, parseIpv4, parseIpv6, type IpPacket } from '../net/ip'
import { parseTcp, parseUdp, TcpFlag, type TcpSegment } from '../net/tcp'
import type { MessageOut, ProtocolRegistry, WireDir } from '../protocols/registry'
import type { KeyStore } from '../keys/store'
import type { SchemaSet } from '../schema/set'
import { UnknownDecoder } from '../protocols/unknown'
import { TreeInterest, type TreeSwitch } from '../bytes/tree'
import { Conversation, endpointString, type ConversationDeps, type Endpoint } from './conversation'
import {
  ConversationTable,
  conversationKey,
  type ConversationKeys,
  type ConversationList,
  type ConversationTableData,
  type EndReason
} from './conversation-table'

export interface DecodeAsRule {
  /** Conversation id, or an endpoint `ip:port` that either side of the conversation has. */
  match: number | string
  protocol: string
}

/**
 * When the engine ends a conversation before the end of the capture, to bound its memory: a UDP
 * conversation idle for `idleSeconds` of capture time; a TCP connection that closed (FIN both ways with
 * all data delivered, or RST) once it is idle as long (its last ACKs belong to it); and, past `maxLive`
 * open conversations, the least recently active one. An open TCP connection is never ended for being
 * quiet: connections idle for minutes are common, and one cut in two cannot be decoded after the cut.
 * An ended conversation is finished as at the end of the capture and kept only as its summary; a later
 * packet on its addresses starts a new conversation.
 */
export interface EvictionOptions {
  /** Most conversations kept open at once (default 100,000; below 1 or not a number: no limit). */
  maxLive?: number
  /** Capture-time seconds without a packet after which a conversation ends (default 60; negative or not a number: never). */
  idleSeconds?: number
}

export const DEFAULT_EVICTION: Required<EvictionOptions> = { maxLive: 100_000, idleSeconds: 60 }

export interface EngineOptions {
  registry: ProtocolRegistry
  keys?: KeyStore
  /** Loaded schema packs (src-shared/schema): names and payload layouts of a game's own codes. */
  schemas?: SchemaSet
  /** Build field trees (the CLI export and detail views); off for the fast row pass. */
  recording?: boolean
  /**
   * With trees, give their nodes labels (default true). Off where trees are read only for their keys and
   * values (a display filter or a column on a field the index does not keep): formatting labels is a large
   * part of decoding with trees (bytes/tree.ts).
   */
  labels?: boolean
  /**
   * With trees, keep only the nodes of these keys and of keys under them (TreeInterest, bytes/tree.ts): the
   * keys a display filter and columns read, where nothing else reads the trees. Not with schema packs,
   * which name parameter nodes after they are read (`photon.param.itemId`).
   */
  interest?: readonly string[]
  /**
   * With trees, put each message's frames first in them (frame, link, IP, UDP/TCP fields, net/layers.ts).
   * Frames are then kept from the moment trees are on until their messages are out (a byte budget).
   */
  layers?: boolean
  /** The capture's interfaces by id, for the frame nodes' interface names. */
  interface?(id: number): CaptureInterface | undefined
  decodeAs?: DecodeAsRule[]
  /** Ending conversations early (default DEFAULT_EVICTION); false keeps every one open to the end. */
  eviction?: EvictionOptions | false
  onMessage(m: DecodedMessage, conversation: Conversation, dir: WireDir): void
  /** Called for every frame handed to a conversation (the UI replays one conversation's frames for detail). */
  onFrameConversation?(frameNumber: number, conversationId: number): void
  /** A conversation was created while `frame` was added (a sharded decode numbers conversations by it). */
  onConversation?(conversation: Conversation, frame: number): void
  /** A warning was raised while `frame` (0 at the end) was added; called before the engine's own cap of 1000. */
  onWarning?(text: string, frame: number): void
  /** The engine starts ending `conversation` early or at the end (null: it is done ending it). */
  onEnding?(conversation: Conversation | null, reason: EndReason): void
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

export interface EngineStats {
  frames: number
  messages: number
  errors: number
  /** Frames whose link or network layer the engine does not follow (ARP, ICMP, ...). */
  otherFrames: number
  linkTypes: string[]
  warnings: string[]
}

/** Conversations in order of their last packet, the least recently active first. */
class LiveList {
  oldest: Conversation | undefined
  private newest: Conversation | undefined

  /** Moves (or adds) `conv` to the recent end. */
  touch(conv: Conversation): void {
    if (this.newest === conv) return
    conv.list?.remove(conv)
    conv.older = this.newest
    if (this.newest) this.newest.newer = conv
    this.newest = conv
    this.oldest ??= conv
    conv.list = this
  }

  remove(conv: Conversation): void {
    if (conv.list !== this) return
    if (conv.newer) conv.newer.older = conv.older
    else this.newest = conv.older
    if (conv.older) conv.older.newer = conv.newer
    else this.oldest = conv.newer
    conv.newer = conv.older = conv.list = undefined
  }
}

export class Engine implements TreeSwitch, ConversationList {
  /** Open conversations by address pair (conversationKey). */
  private live = new Map<string, Conversation>()
  /** UDP conversations and closed TCP connections, which end when idle. */
  private idleList = new LiveList()
  /** Open TCP connections, which only the live limit ends. */
  private tcpList = new LiveList()
  /** Summaries of the conversations already ended. */
  private readonly ended: ConversationTable
  private nextId = 1
  /** Capture time: the latest frame time seen (frames may go back in time; this never does). */
  private clock = -Infinity
  private readonly maxLive: number
  private readonly idleSeconds: number
  private readonly evicting: boolean
  private readonly deps: ConversationDeps
  private defrag = new IpDefragmenter()
  private nextMessageId = 1
  private lastFrame = 0
  private linkTypes = new Set<string>()
  /** The link type of the frame before (a capture rarely changes it: its name is added once per change). */
  private lastLinkType = -1
  readonly stats: EngineStats = { frames: 0, messages: 0, errors: 0, otherFrames: 0, linkTypes: [], warnings: [] }
  private finished = false
  /**
   * Whether messages started from now on get field trees. A detail replay decodes a conversation's earlier
   * messages without trees and turns them on at the first frame of the message it wants.
   */
  recording: boolean
  /** Whether those trees get labels (EngineOptions.labels). */
  readonly labels: boolean
  /** The keys those trees keep (EngineOptions.interest; null: every node). */
  readonly interest: TreeInterest | null
  /** The last frame given to network() is an IP fragment the defragmenter keeps until its datagram is whole. */
  heldLastFrame = false
  private readonly udpKeys = new PairKeys('udp')
  private readonly tcpKeys = new PairKeys('tcp')
  /** Frames for the layer trees; only while recording with `layers` (the index pass keeps none). */
  private keep: FrameRing | null = null

  constructor(private readonly opts: EngineOptions) {
    this.recording = opts.recording ?? true
    this.labels = opts.labels ?? true
    this.interest = opts.interest && !opts.schemas ? new TreeInterest(opts.interest) : null
    const engine = this
    this.deps = {
      registry: opts.registry,
      keys: opts.keys,
      schemas: opts.schemas,
      get recording() {
        return engine.recording
      },
      labels: this.labels,
      interest: this.interest,
      emit: (c, m) => this.emit(c, m),
      // The engine is a tree switch itself (recording, labels, interest).
      unknown: new UnknownDecoder(this)
    }
    const ev = opts.eviction
    this.evicting = ev !== false
    const maxLive = ev === false ? Infinity : (ev?.maxLive ?? DEFAULT_EVICTION.maxLive)
    const idle = ev === false ? Infinity : (ev?.idleSeconds ?? DEFAULT_EVICTION.idleSeconds)
    this.maxLive = maxLive >= 1 ? maxLive : Infinity
    this.idleSeconds = idle >= 0 ? idle : Infinity
    this.ended = new ConversationTable({ idleSeconds: this.idleSeconds, maxLive: this.maxLive })
  }

  /**
   * A copy of this engine as it is now, whose messages go to `onMessage`: fed the same frames from here on, it
   * gives the same messages the original would. StateCopyRefused when its state holds what cannot be copied
   * (state-copy.ts); the caller then replays from the start instead. `changes` gives the copy another key
   * store holding the same keys (an export's, which names where each came from), or no layers.
   */
  fork(onMessage: EngineOptions['onMessage'], changes: Pick<EngineOptions, 'keys' | 'layers'> = {}): Engine | StateCopyRefused {
    const twin = new Engine({ ...this.opts, ...changes, onMessage })
    const shared = new Map<object, object>([
      [this, twin],
      [this.opts, twin.opts],
      [this.deps, twin.deps],
      [this.deps.unknown, twin.deps.unknown]
    ])
    // Made from the same options: the twin keeps its own, the one its deps hold.
    if (this.interest && twin.interest) shared.set(this.interest, twin.interest)
    for (const s of [this.opts.registry, this.opts.schemas]) if (s) shared.set(s, s)
    if (this.opts.keys) shared.set(this.opts.keys, twin.opts.keys ?? this.opts.keys)
    const own: Record<string, unknown> = {}
    for (const key of Object.keys(this)) if (key !== 'opts' && key !== 'deps') own[key] = (this as unknown as Record<string, unknown>)[key]
    const copied = copyState(own, shared)
    if (copied instanceof StateCopyRefused) return copied
    Object.assign(twin, copied)
    if (!twin.opts.layers) twin.keep = null // frames kept for layers the copy does not show
    return twin
  }

  warn(text: string): void {
    this.opts.onWarning?.(text, this.finished ? 0 : this.lastFrame)
    addWarning(this.stats.warnings, text)
  }

  /** Conversations open now (the rest are kept as summaries). */
  get liveConversations(): number {
    return this.live.size
  }

  /** The ended conversations' table as data (after finish(), every conversation): for a shard's report. */
  endedData(): ConversationTableData {
    return this.ended.data()
  }

  /** Conversations seen so far, open or ended (ids run 1..count). */
  get conversationCount(): number {
    return this.nextId - 1
  }

  addFrame(frame: CaptureFrame): void {
    if (this.recording && this.opts.layers) (this.keep ??= new FrameRing(RECENT_FRAME_LIMITS)).push(frame)
    const unit = this.network(frame)
    if (unit) this.deliver(unit)
  }

  /** Moves capture time to a frame's: conversations idle too long end before the frame is placed. */
  private advance(number: number, time: number): void {
    if (number > this.lastFrame) this.lastFrame = number
    if (time > this.clock) this.clock = time
    this.endIdle()
  }

  /**
   * A frame that went to another shard of a sharded decode: this engine's capture time moves on with it,
   * so its conversations end when idle exactly as one engine over the whole capture would end them.
   */
  tick(frame: Pick<CaptureFrame, 'number' | 'tsSec' | 'tsNsec'>): void {
    this.advance(frame.number, frameTime(frame))
  }

  /**
   * The link, IP (with defragmentation) and UDP/TCP layers of a frame: the unit a conversation receives, or
   * null when the frame carries none (yet). Counts the frame and raises the warnings of those layers. A
   * sharded decode runs this alone to route frames by their conversation key, with exactly the engine's rules.
   */
  network(frame: CaptureFrame): TransportUnit | null {
    this.heldLastFrame = false
    this.stats.frames++
    if (frame.linkType !== this.lastLinkType) {
      this.lastLinkType = frame.linkType
      this.linkTypes.add(LinkTypeName[frame.linkType] ?? `LINKTYPE_${frame.linkType}`)
    }
    const time = frameTime(frame)
    // Before the frame is placed: a conversation idle too long ends, and this frame may start a new one.
    this.advance(frame.number, time)
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
      return {
        transport: 'udp',
        src: { ip: packet.src, port: udp.srcPort },
        dst: { ip: packet.dst, port: udp.dstPort },
        frames,
        frame: frame.number,
        frameBytes,
        time,
        udpPayload: udp.payload
      }
    }
    if (packet.protocol === 6) {
      const seg = parseTcp(packet.payload)
      if ('error' in seg) {
        this.warn(`frame ${frame.number}: ${seg.error}`)
        return null
      }
      return {
        transport: 'tcp',
        src: { ip: packet.src, port: seg.srcPort },
        dst: { ip: packet.dst, port: seg.dstPort },
        frames,
        frame: frame.number,
        frameBytes,
        time,
        segment: seg
      }
    }
    this.stats.otherFrames++
    return null
  }

  /** Hands a transport unit to its conversation. */
  private deliver(u: TransportUnit): void {
    if (u.transport === 'udp') this.udp(u)
    else this.tcp(u)
  }

  /** The open conversation on this address pair and the direction `src`→`dst` has in it. */
  private find(key: string, src: Endpoint): { conv: Conversation; dir: WireDir } | undefined {
    const conv = this.live.get(key)
    if (!conv) return undefined
    return { conv, dir: wireDir(conv, src) }
  }

  /** Opens a conversation with `a` as its side a, first making room under the live limit. */
  private open(key: string, transport: 'udp' | 'tcp', a: Endpoint, b: Endpoint): Conversation {
    if (this.live.size >= this.maxLive) {
      const x = this.idleList.oldest
      const y = this.tcpList.oldest
      const lru = x && y ? (x.touchedFrame <= y.touchedFrame ? x : y) : (x ?? y)
      if (lru) this.end(lru, 'limit')
    }
    const id = this.nextId++
    const sa = endpointString(a)
    const sb = endpointString(b)
    const conv = new Conversation(id, transport, a, b, this.deps, this.forcedProtocol(id, sa, sb))
    conv.key = key
    // A conversation the engine ended on these addresses: each names the other in its notes.
    const before = this.evicting ? this.ended.find(key) : undefined
    if (before !== undefined) {
      conv.previous = before
      this.ended.follow(before, id)
    }
    this.live.set(key, conv)
    this.opts.onConversation?.(conv, this.lastFrame)
    return conv
  }

  /** Makes `conv` the most recently active conversation of its list. */
  private touchLive(conv: Conversation): void {
    conv.touched = this.clock
    conv.touchedFrame = this.lastFrame
    ;(conv.transport === 'udp' || conv.closed ? this.idleList : this.tcpList).touch(conv)
  }

  private endIdle(): void {
    for (let c = this.idleList.oldest; c && this.clock - c.touched > this.idleSeconds; c = this.idleList.oldest) this.end(c, 'idle')
  }

  /** Finishes a conversation as the end of the capture would and keeps only its summary. */
  private end(conv: Conversation, reason: EndReason): void {
    this.opts.onEnding?.(conv, reason)
    conv.finish(this.lastFrame)
    this.ended.put(conv.info(), conv.closed ? 'closed' : reason, conv.key, conv.previous)
    conv.list?.remove(conv)
    this.live.delete(conv.key)
    conv.release()
    this.opts.onEnding?.(null, reason)
  }

  private forcedProtocol(id: number, a: string, b: string): string | undefined {
    for (const r of this.opts.decodeAs ?? []) {
      if (r.match === id || r.match === a || r.match === b) return r.protocol
    }
    return undefined
  }

  private udp(u: TransportUnit): void {
    const { src, dst, frames, frameBytes, time } = u
    const key = this.udpKeys.key(src, dst)
    // find() inlined: its { conv, dir } would be an object per datagram.
    let conv = this.live.get(key)
    let dir: WireDir
    if (conv) dir = wireDir(conv, src)
    else {
      conv = this.open(key, 'udp', src, dst)
      dir = 'a2b'
    }
    this.touchLive(conv)
    conv.touch(frameBytes, time, frames.length)
    if (this.opts.onFrameConversation) for (const f of frames) this.opts.onFrameConversation(f, conv.id)
    conv.udpDatagram(dir, u.udpPayload!, frames, time)
  }

  private tcp(u: TransportUnit): void {
    const seg = u.segment!
    const { src, dst, frameBytes, time } = u
    const frameNumber = u.frame
    const isSyn = (seg.flags & TcpFlag.SYN) !== 0
    const isAck = (seg.flags & TcpFlag.ACK) !== 0
    const key = this.tcpKeys.key(src, dst)
    let found = this.find(key, src)
    // A SYN after the connection on these ports closed opens a new one (as Wireshark numbers streams).
    if (found?.conv.closed && isSyn) {
      this.end(found.conv, 'closed')
      found = undefined
    }
    // A SYN/ACK seen first means its sender is the server: make the other side "a".
    const { conv, dir } =
      found ??
      (isSyn && isAck ? { conv: this.open(key, 'tcp', dst, src), dir: 'b2a' as WireDir } : { conv: this.open(key, 'tcp', src, dst), dir: 'a2b' as WireDir })
    if (isSyn) conv.setRole((dir === 'a2b') === !isAck ? 'a' : 'b', 'handshake')
    this.touchLive(conv)
    conv.touch(frameBytes, time)
    this.opts.onFrameConversation?.(frameNumber, conv.id)
    conv.tcpSegment(dir, seg, frameNumber, time)
    // Its decoder is finished now, so its messages come out as they would at the end of the capture.
    if (this.evicting && !conv.closed && conv.tcpEnded) {
      conv.close(frameNumber)
      this.touchLive(conv) // now among the conversations that end when idle
    }
  }

  private emit(conv: Conversation, m: MessageOut): void {
    let msg: DecodedMessage = {
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
    if (this.keep && m.draft.tree.recording) msg = this.layered(conv, msg, this.keep)
    this.stats.messages++
    if (msg.error) this.stats.errors++
    this.opts.onMessage(msg, conv, m.dir)
  }

  /** `msg` with its frames' layers; apart from emit(), whose every call would pay these closures' context. */
  private layered(conv: Conversation, msg: DecodedMessage, keep: FrameRing): DecodedMessage {
    return withLayers(
      msg,
      // Copies: a kept frame's bytes are a view of one of the ring's chunks (up to 4 MiB), which the message's
      // sources would keep alive, and a shard's postMessage would clone whole.
      msg.frames.map((n) => {
        const f = keep.get(n)
        return f && { ...f, data: f.data.slice() }
      }),
      { iface: this.opts.interface, tcpBases: (ip, port) => conv.tcpBases(ip, port) }
    )
  }

  /** End of input: flush reassembly buffers so partial data is still shown, in conversation order. Idempotent. */
  finish(lastFrame = this.lastFrame): void {
    if (this.finished) return
    this.finished = true
    // A shard ends its conversations at the capture's last frame, not its own.
    if (lastFrame > this.lastFrame) this.lastFrame = lastFrame
    const open = [...this.live.values()].sort((x, y) => x.id - y.id)
    for (const conv of open) this.end(conv, 'capture end')
    const left = this.defrag.incomplete()
    if (left.length)
      this.warn(
        `${left.length} fragmented IP datagram(s) never completed (frames ${left
          .flatMap((l) => l.frames)
          .slice(0, 10)
          .join(', ')})`
      )
    this.defrag = new IpDefragmenter() // its fragments point into capture buffers: let them go
    this.keep?.clear()
    this.stats.linkTypes = [...this.linkTypes]
  }

  /** Every conversation's summary, in id order, made one at a time (for writing out a long list). */
  *conversations(): Generator<ConversationInfo> {
    const open = this.openById()
    for (let id = 1; id < this.nextId; id++) {
      const info = this.summary(id, open)
      if (info) yield info
    }
  }

  conversationList(): ConversationInfo[] {
    return [...this.conversations()]
  }

  /** The summaries of the conversations with these ids, in the same order (undefined for an unknown id): one page of the list. */
  conversationInfos(ids: readonly number[]): (ConversationInfo | undefined)[] {
    const open = this.openById()
    return ids.map((id) => this.summary(id, open))
  }

  /** Every conversation's sort keys in id order: an ended one's from the table, an open one's from its state. */
  visitKeys(visit: ConversationKeys): void {
    const open = this.openById()
    for (let id = 1; id < this.nextId; id++) {
      const conv = open.get(id)
      if (!conv) this.ended.keysOf(id, visit)
      else {
        const c = conv.info()
        visit(id, c.protocol, c.frames, c.bytes, c.firstTime, c.lastTime, c.notes)
      }
    }
  }

  /** The open conversations by id (`live` is keyed by address pair). */
  private openById(): Map<number, Conversation> {
    const open = new Map<number, Conversation>()
    for (const c of this.live.values()) open.set(c.id, c)
    return open
  }

  /** Conversation `id`'s summary: an open one's made now, with the links to those it continues. */
  private summary(id: number, open: Map<number, Conversation>): ConversationInfo | undefined {
    const conv = open.get(id)
    if (!conv) return this.ended.get(id)
    const info = conv.info()
    this.ended.linkNotes(id, info.notes, conv.previous)
    return info
  }
}

/** The wire direction of a packet from `src` in `conv`: a2b when it comes from the conversation's side a. */
function wireDir(conv: Conversation, src: Endpoint): WireDir {
  return conv.a.port === src.port && conv.a.ip === src.ip ? 'a2b' : 'b2a'
}

/**
 * Conversation keys of address pairs, remembered by port pair (either way round): a datagram or segment
 * finds its conversation's key without building the key's text (three strings per packet, and a hash of
 * the new string in the lookup), also while many conversations interleave. One address pair per port
 * pair; all are forgotten past `max`, so a capture of a million conversations does not keep a million.
 */
class PairKeys {
  private readonly byPorts = new Map<number, { aIp: string; aPort: number; bIp: string; bPort: number; key: string }>()

  constructor(
    private readonly transport: 'udp' | 'tcp',
    private readonly max = 4096
  ) {}

  key(src: Endpoint, dst: Endpoint): string {
    const slot = src.port < dst.port ? src.port * 65536 + dst.port : dst.port * 65536 + src.port
    const k = this.byPorts.get(slot)
    if (
      k &&
      ((src.port === k.aPort && dst.port === k.bPort && src.ip === k.aIp && dst.ip === k.bIp) ||
        (src.port === k.bPort && dst.port === k.aPort && src.ip === k.bIp && dst.ip === k.aIp))
    )
      return k.key
    const key = conversationKey(this.transport, endpointString(src), endpointString(dst))
    if (this.byPorts.size >= this.max) this.byPorts.clear()
    this.byPorts.set(slot, { aIp: src.ip, aPort: src.port, bIp: dst.ip, bPort: dst.port, key })
    return key
  }
}
