// A conversation: one UDP endpoint pair or one TCP connection, with the layers stacked on it and the
// protocol decoder chosen for it. Internally the side that sent first (or the SYN) is "a".
//
// Client and server come from the strongest evidence (RoleFrom): a handshake, message semantics, a
// well-known server port, else the first packet. While only a port or the first packet backs them, the
// conversation holds back its messages and keeps its inputs (at most HOLD_INPUTS); stronger evidence
// then releases the messages, and if it swaps the roles the held inputs are first decoded again from the
// start with a fresh decoder, so no message ever leaves with the old roles. Past the limit, or once the
// roles rest on semantics or a handshake, they are final. All of this depends only on the conversation's
// own frames, so a replay of them (the app's detail view) and any sharding decide the same.

import { leftOutOfCopies } from './state-copy'
import { counted } from '../model/text'
import { MessageDraft, type TreeInterest, type TreeSwitch } from '../bytes/tree'
import type { ConversationInfo, RoleFrom, Transport } from '../model/types'
import { TcpDirection, type TcpBases, type TcpGap, type TcpGapListener, type TcpSegment } from '../net/tcp'
import { detectHttpUpgrade, WebSocketConnection, type WsEvent } from '../net/websocket'
import { HttpConnection, requestTarget, type HttpEvent } from '../net/http'
import type { ByteStream } from '../net/byte-stream'
import type { Carrier, DecoderContext, Emit, MessageOut, ProtocolDecoder, ProtocolModule, ProtocolRegistry, WireDir } from '../protocols/registry'
import type { UnknownDecoder } from '../protocols/unknown'
import type { KeyStore } from '../keys/store'
import type { AppliedSchema, SchemaSet } from '../schema/set'
import { websocketControlMessage, websocketFailedMessage, websocketHandshakeMessage } from './websocket-messages'

export interface Endpoint {
  ip: string
  port: number
}

export function endpointString(e: Endpoint): string {
  return e.ip.includes(':') ? `[${e.ip}]:${e.port}` : `${e.ip}:${e.port}`
}

/** How many payloads may go unclaimed before a conversation stops asking the probes. */
const MAX_PROBES = 16

/** Inputs (datagrams, segments) a conversation keeps while its roles may still swap; past it they are final. */
export const HOLD_INPUTS = 64

const RANK: Record<RoleFrom, number> = { 'first-packet': 0, port: 1, semantics: 2, handshake: 3 }
const SEMANTICS = RANK.semantics

/** What came into a conversation while its roles could still swap: enough to decode it again. */
type HeldInput =
  | { udp: true; dir: WireDir; payload: Uint8Array; frames: number[]; time: number }
  | { udp: false; dir: WireDir; seg: TcpSegment; frame: number; time: number }

// Stacks are shared between conversations, so nothing may mutate them (info() hands out copies).
const UDP_STACK = ['udp']
const TCP_STACK = ['tcp']
const WS_STACK = ['tcp', 'websocket']
const PREAMBLE_STACK = ['tcp', 'http-preamble']
const HTTP_STACK = ['tcp', 'http']
const NO_LAYERS: readonly string[] = []

// What a TCP conversation's bytes turned out to be.
const DETECT = 0
const WEBSOCKET = 1
const RAW = 2
/** HTTP/1.x messages whose bodies a protocol claimed (e.g. SFS2X BlueBox); other HTTP stays RAW. */
const HTTP = 3

/** Ports where TLS is HTTPS for the protocols here (SFS2X BlueBox/WebSocket over TLS: 8443). */
const HTTPS_PORTS = [443, 8443]

/**
 * What every conversation of an engine shares: one object per engine, not one per conversation. Its tree
 * switch (`recording`, `labels`) is read for every message, so an engine can turn trees on part way through
 * a replay.
 */
export interface ConversationDeps extends TreeSwitch {
  registry: ProtocolRegistry
  keys: KeyStore | undefined
  schemas?: SchemaSet
  emit: (conv: Conversation, m: MessageOut) => void
  /** The fallback decoder: it keeps no state, so one serves every conversation. */
  unknown: UnknownDecoder
}

/** The decoder's view of its conversation, made only when a protocol decoder is created. */
class ConversationContext implements DecoderContext {
  constructor(
    private readonly conv: Conversation,
    readonly a: string,
    readonly b: string
  ) {}

  get conversationId(): number {
    return this.conv.id
  }

  get keys(): KeyStore | undefined {
    return this.conv.deps.keys
  }

  private applied: AppliedSchema | undefined | null = null
  get schema(): AppliedSchema | undefined {
    if (this.applied === null) this.applied = this.conv.deps.schemas?.forConversation(this.a, this.b)
    return this.applied
  }

  get recording(): boolean {
    return this.conv.deps.recording
  }

  get labels(): boolean {
    return this.conv.deps.labels
  }

  get interest(): TreeInterest | null {
    return this.conv.deps.interest ?? null
  }

  setClient(dir: WireDir, from: 'handshake' | 'semantics' = 'handshake'): void {
    this.conv.setRole(dir === 'a2b' ? 'a' : 'b', from)
  }

  get clientDir(): WireDir {
    return this.conv.clientSide === 'a' ? 'a2b' : 'b2a'
  }

  get roleFrom(): RoleFrom {
    return this.conv.roleFrom
  }

  note(text: string): void {
    this.conv.note(text)
  }

  get websocket(): { path?: string; protocol?: string } | undefined {
    return this.conv.websocketInfo()
  }
}

interface WebSocketState {
  conn: WebSocketConnection
  path?: string
  protocol?: string
}

/**
 * Kept small, since a capture may hold a million conversations: TCP reassembly, WebSocket state, the
 * decoder and its context, the notes and the emit callback are created only when first needed, and
 * `release()` drops them when the engine ends the conversation early.
 */
export class Conversation implements TcpGapListener {
  frames = 0
  bytes = 0
  firstTime = Infinity
  lastTime = 0
  /** Which internal side is the client, and what decided it. */
  clientSide: 'a' | 'b' = 'a'
  roleFrom: RoleFrom = 'first-packet'
  /** The roles can no longer change (see the top of this file). */
  private settled = false
  /** While not settled: the inputs so far and the messages held back. */
  private held: { inputs: HeldInput[]; out: MessageOut[] } | undefined = undefined
  /** The roles swapped during the current input: decode the held inputs again after it. */
  private swapped = false
  private noteList: string[] | undefined = undefined
  /** Layers under the protocol, bottom up. */
  stack: string[]
  /** The longest stack a message of this conversation's protocol reported (before the protocol is appended). */
  private decodedStack: readonly string[] = NO_LAYERS
  protocol = 'unknown'
  private decoder: ProtocolDecoder | undefined = undefined
  /** The chosen protocol's decoder reports role evidence (ProtocolModule.reportsRoles). */
  private reportsRoles = false
  private probes = 0
  // TCP only
  private tcp: { a2b: TcpDirection; b2a: TcpDirection } | undefined = undefined
  private tcpMode = DETECT
  private ws: WebSocketState | undefined = undefined
  private http: HttpConnection | undefined = undefined
  private context: ConversationContext | undefined = undefined
  private emitter: Emit | undefined = undefined
  /** A TCP connection that closed (FIN both ways, or RST): finished, kept only to count what still arrives. */
  closed = false
  // The engine's list of open conversations this one is in, its neighbours there, and the capture clock
  // and frame number of its last packet.
  list: { remove(c: Conversation): void } | undefined = undefined
  newer: Conversation | undefined = undefined
  older: Conversation | undefined = undefined
  touched = 0
  touchedFrame = 0
  /** The ended conversation on the same addresses this one continues (0: none). */
  previous = 0
  /** Its address pair as the engine's table of open conversations knows it (conversationKey). */
  key = ''

  constructor(
    readonly id: number,
    readonly transport: Transport,
    readonly a: Endpoint,
    readonly b: Endpoint,
    readonly deps: ConversationDeps,
    /** Forced protocol id ("decode as"), or 'unknown' to switch detection off. */
    private readonly forced?: string
  ) {
    this.stack = transport === 'tcp' ? TCP_STACK : UDP_STACK
    // A well-known server port on exactly one side names the server until better evidence comes.
    const aServer = deps.registry.isServerPort(a.port)
    const bServer = deps.registry.isServerPort(b.port)
    if (aServer !== bServer) {
      this.clientSide = aServer ? 'b' : 'a'
      this.roleFrom = 'port'
    }
    this.startDecoding()
  }

  /** The decoding state a new conversation starts with (again when its roles swap). */
  private startDecoding(): void {
    const forced = this.forced
    if (forced && forced !== 'unknown') {
      const m = this.deps.registry.get(forced)
      if (m) this.useModule(m, 'decode as')
    }
    if (forced === 'unknown') {
      this.probes = MAX_PROBES
      this.note('protocol detection off (decode as unknown)')
    } else if (forced && !this.decoder) {
      this.note(`decode as ${forced}: no such protocol, detecting instead`)
    }
  }

  /** A note about the whole conversation (shown on it and in the export); each text once. */
  note(text: string): void {
    if (!this.noteList) this.noteList = [text]
    else if (!this.noteList.includes(text)) this.noteList.push(text)
  }

  get notes(): readonly string[] {
    return this.noteList ?? NO_LAYERS
  }

  /**
   * Evidence that `side` is the client. Stronger evidence than the roles rest on replaces them (the first
   * of equal strength wins); once the roles are settled nothing changes them.
   */
  setRole(side: 'a' | 'b', from: RoleFrom): void {
    if (this.settled || RANK[from] <= RANK[this.roleFrom]) return
    // Decoders read the roles (a first-packet guess as "unknown"): what was decoded with other roles is redone.
    if (this.held && (side !== this.clientSide || this.roleFrom === 'first-packet')) this.swapped = true
    this.clientSide = side
    this.roleFrom = from
  }

  /** After each input: decode again if the roles swapped, and release the held messages once roles are final. */
  private afterInput(): void {
    if (this.settled) return
    if (this.swapped) this.decodeAgain()
    const h = this.held
    // Messages came out of a decoder that never tells the roles (the fallback, or a protocol that does not):
    // holding them back would only delay them.
    const silent = !this.reportsRoles && !!h?.out.length
    if (RANK[this.roleFrom] >= SEMANTICS || silent || (h && h.inputs.length >= HOLD_INPUTS)) this.settle()
  }

  /** The roles are final: the held messages go out (with directions from the final roles). */
  private settle(): void {
    if (this.settled) return
    this.settled = true
    const out = this.held?.out
    this.held = undefined
    if (out) for (const m of out) this.deps.emit(this, m)
  }

  /** The roles swapped: every held input is decoded again from the start, by a fresh decoder. */
  private decodeAgain(): void {
    const inputs = this.held!.inputs
    this.held = { inputs, out: [] }
    this.swapped = false
    this.noteList = undefined
    this.decodedStack = NO_LAYERS
    this.protocol = 'unknown'
    this.decoder = undefined
    this.reportsRoles = false
    this.context = undefined
    this.probes = 0
    this.stack = this.transport === 'tcp' ? TCP_STACK : UDP_STACK
    this.tcp = undefined
    this.tcpMode = DETECT
    this.ws = undefined
    this.startDecoding()
    for (const i of inputs) {
      if (i.udp) this.udpDatagram(i.dir, i.payload, i.frames, i.time, true)
      else this.tcpSegment(i.dir, i.seg, i.frame, i.time, true)
    }
    // A second swap while decoding again (the new roles changed what was decoded) is not chased further.
    this.swapped = false
  }

  websocketInfo(): { path?: string; protocol?: string } | undefined {
    const ws = this.ws
    return ws && (ws.path !== undefined || ws.protocol !== undefined) ? { path: ws.path, protocol: ws.protocol } : undefined
  }

  private get emit(): Emit {
    return (this.emitter ??= (m) => {
      // Layers a decoder adds itself (ENet, LiteNetLib under FigNet) show in the conversation's stack: from
      // its protocol's messages, and from a transport's own (protocol `enet`, the top of their stack).
      if ((m.protocol === this.protocol || m.protocol === m.stack[m.stack.length - 1]) && m.stack.length > this.decodedStack.length) this.decodedStack = m.stack
      if (this.held) this.held.out.push(m)
      else this.deps.emit(this, m)
    })
  }

  touch(frameLen: number, time: number, frames = 1): void {
    this.frames += frames
    this.bytes += frameLen
    if (time < this.firstTime) this.firstTime = time
    if (time > this.lastTime) this.lastTime = time
  }

  private useModule(m: ProtocolModule, why: string): void {
    this.protocol = m.id
    this.reportsRoles = m.reportsRoles === true
    this.context ??= new ConversationContext(this, endpointString(this.a), endpointString(this.b))
    this.decoder = m.create(this.context)
    if (why === 'decode as') this.note(`decoded as ${m.name} (forced)`)
  }

  /**
   * Picks a decoder for this payload: the chosen one, or a probe's pick, or the unknown fallback; null
   * when a probe wants more of a stream's bytes first (never at the end of the capture).
   */
  private decoderFor(carrier: Carrier, bytes: Uint8Array, dir: WireDir, final = true): ProtocolDecoder | null {
    if (this.decoder) return this.decoder
    if (this.probes < MAX_PROBES) {
      this.probes++
      const ws = this.ws
      const hit = this.deps.registry.detect({
        carrier,
        bytes,
        dir,
        aPort: this.a.port,
        bPort: this.b.port,
        wsPath: ws?.path,
        wsProtocol: ws?.protocol,
        attempt: this.probes
      })
      if (hit && 'module' in hit) {
        this.useModule(hit.module, 'probe')
        return this.decoder!
      }
      if (hit && !final) {
        this.probes-- // waiting is not a failed probe
        return null
      }
    }
    return this.deps.unknown
  }

  // ---- UDP ----

  /** Keeps an input while the roles may still swap. */
  private hold(input: HeldInput): void {
    if (this.settled) return
    // Copies: a view would keep the frame's whole slab alive while the roles are open (bytes/slab.ts).
    if (input.udp) input.payload = input.payload.slice()
    else input.seg = { ...input.seg, payload: input.seg.payload.slice() }
    ;(this.held ??= { inputs: [], out: [] }).inputs.push(input)
  }

  udpDatagram(dir: WireDir, payload: Uint8Array, frames: number[], time: number, again = false): void {
    if (!again) this.hold({ udp: true, dir, payload, frames, time })
    const draft = new MessageDraft(this.deps)
    const source = draft.addSource('UDP payload', payload)
    const decoder = this.decoderFor('udp', payload, dir) ?? this.deps.unknown
    this.runDatagram(decoder, { dir, frames, time, draft, source, offset: 0, bytes: payload, stack: UDP_STACK })
    if (!again) this.afterInput()
  }

  private runDatagram(decoder: ProtocolDecoder, pdu: Parameters<NonNullable<ProtocolDecoder['datagram']>>[0]): void {
    if (!decoder.datagram) return this.deps.unknown.datagram(pdu, this.emit)
    try {
      decoder.datagram(pdu, this.emit)
    } catch (e) {
      // A decoder bug must not stop the capture: keep the bytes with the error.
      pdu.draft.error = `decoder failed: ${(e as Error).message}`
      this.deps.unknown.datagram(pdu, this.emit)
    }
  }

  // ---- TCP ----

  /** A TCP segment in `dir`: reassembled, and new in-order bytes decoded. */
  tcpSegment(dir: WireDir, seg: TcpSegment, frame: number, time: number, again = false): void {
    if (!again) this.hold({ udp: false, dir, seg, frame, time })
    const t = (this.tcp ??= this.newTcp())
    if (t[dir].segment(seg, frame, time)) {
      if (this.closed) this.afterClose(dir)
      else this.tcpData(dir)
      t[dir].stream.own()
    }
    if (!again) this.afterInput()
  }

  private newTcp(): { a2b: TcpDirection; b2a: TcpDirection } {
    const t = { a2b: new TcpDirection(), b2a: new TcpDirection() }
    t.a2b.listener = this
    t.b2a.listener = this
    return t
  }

  /** FIN both ways with every byte before them delivered, or a reset: the connection carries nothing more. */
  get tcpEnded(): boolean {
    const t = this.tcp
    return !!t && ((t.a2b.ended && t.b2a.ended) || t.a2b.rstSeen || t.b2a.rstSeen)
  }

  /** New in-order bytes arrived in `dir` (or the capture ended, with `final`). */
  tcpData(dir: WireDir, final = false): void {
    const t = this.tcp
    if (!t) return
    if (this.tcpMode === DETECT) {
      const client = t.a2b.stream
      const first = client.available ? client.peek(Math.min(client.available, 8192)) : undefined
      const verdict = first ? detectHttpUpgrade(first) : 'no'
      if (verdict === 'need-more' && !final) return
      if (verdict === 'http-upgrade') {
        this.tcpMode = WEBSOCKET
        this.ws = { conn: new WebSocketConnection(t.a2b.stream, t.b2a.stream, { recordTree: this.deps }) }
        this.stack = WS_STACK
      } else {
        const carried = first ? this.httpCarried(first, final) : undefined
        if (carried === 'need-more') return
        if (carried) {
          this.tcpMode = HTTP
          this.http = new HttpConnection(t.a2b.stream, t.b2a.stream, { recordTree: this.deps })
          this.stack = HTTP_STACK
        } else {
          if (!client.available && !t.b2a.stream.available) return
          this.tcpMode = RAW
        }
      }
    }
    if (this.tcpMode === HTTP) return this.httpData(dir, final)
    const ws = this.ws?.conn
    if (this.tcpMode === WEBSOCKET && ws) {
      for (const d of dir === 'a2b' ? (['a2b', 'b2a'] as const) : (['b2a', 'a2b'] as const)) {
        for (const ev of ws.process(d === 'a2b' ? 'c2s' : 's2c', final)) this.onWsEvent(ev)
        if (ws.mode === 'raw') {
          this.tcpMode = RAW
          this.stack = PREAMBLE_STACK
          this.note('HTTP upgrade preamble followed by raw (unframed) bytes')
          break
        }
        if (ws.mode === 'http-failed') {
          // The server refused the upgrade: what follows is plain HTTP, shown as raw bytes.
          this.tcpMode = RAW
          this.stack = HTTP_STACK
          break
        }
      }
      if (this.tcpMode !== RAW) return
    }
    this.rawStream(dir, final)
    if (final) this.rawStream(dir === 'a2b' ? 'b2a' : 'a2b', final)
  }

  /**
   * Whether the client's first bytes are an HTTP request whose messages a protocol decodes (a probe on
   * carrier 'http' given the request target); 'need-more' while the request line is incomplete.
   */
  private httpCarried(first: Uint8Array, final: boolean): boolean | 'need-more' {
    if (this.decoder || this.probes >= MAX_PROBES) return false
    const target = requestTarget(first)
    if (target === 'need-more') return final ? false : 'need-more'
    if (target === undefined) return false
    const hit = this.deps.registry.detect({ carrier: 'http', bytes: first, dir: 'a2b', aPort: this.a.port, bPort: this.b.port, httpPath: target, attempt: 1 })
    if (!hit || !('module' in hit)) return false
    this.useModule(hit.module, 'probe')
    return true
  }

  /** HTTP mode: whole requests and responses go to the decoder; a direction that stops being HTTP is shown raw. */
  private httpData(dir: WireDir, final: boolean): void {
    const http = this.http!
    for (const d of dir === 'a2b' ? (['a2b', 'b2a'] as const) : (['b2a', 'a2b'] as const)) {
      for (const ev of http.process(d === 'a2b' ? 'c2s' : 's2c', final)) this.onHttpEvent(ev)
      const stream = this.tcp![d].stream
      if (stream.available && (http.stopped(d === 'a2b' ? 'c2s' : 's2c') || final)) {
        this.deps.unknown.stream(
          d,
          stream,
          this.stack,
          this.emit,
          final,
          this.httpStopped ?? `${stream.available} bytes at the end of the stream did not complete an HTTP message`
        )
      }
      if (!final) break
    }
  }

  private httpStopped: string | undefined = undefined

  private onHttpEvent(ev: HttpEvent): void {
    const dir: WireDir = ev.dir === 'c2s' ? 'a2b' : 'b2a'
    switch (ev.kind) {
      case 'message': {
        if (ev.dir === 'c2s') this.setRole('a', 'handshake') // only a client sends HTTP requests
        const pdu = {
          dir,
          frames: ev.frames,
          time: ev.time,
          draft: ev.draft,
          source: ev.bodySource,
          offset: ev.bodyOffset,
          bytes: ev.body,
          stack: HTTP_STACK,
          http: { head: ev.head, request: ev.request, responseTimeMs: ev.responseTimeMs }
        }
        this.runDatagram(this.decoder ?? this.deps.unknown, pdu)
        return
      }
      case 'note':
        this.note(`HTTP ${ev.dir}: ${ev.text}`)
        return
      case 'stopped':
        this.httpStopped = ev.reason
        this.note(`HTTP ${ev.dir}: ${ev.reason}; the rest is shown undecoded`)
        return
    }
  }

  private rawStream(dir: WireDir, final: boolean): void {
    const stream = this.tcp![dir].stream
    if (stream.available === 0) return
    if (!this.decoder && stream.consumed === 0 && looksLikeTls(stream)) {
      this.note('TLS-encrypted: the payload cannot be decoded without the session keys')
      const port = HTTPS_PORTS.find((p) => p === this.a.port || p === this.b.port)
      if (port) this.note(`HTTPS on port ${port} (e.g. SFS2X BlueBox or WebSocket over TLS): stays undecoded`)
    }
    const decoder = this.decoderFor('tcp', stream.peek(Math.min(stream.available, 256)), dir, final)
    // A first segment can stop inside a frame header (a partial write): a probe asked for more bytes.
    if (!decoder) return
    this.runStream(decoder, dir, stream, final)
  }

  private runStream(decoder: ProtocolDecoder, dir: WireDir, stream: ByteStream, final: boolean): void {
    const unknown = this.deps.unknown
    try {
      if (decoder.stream) decoder.stream(dir, stream, this.stack, this.emit, final)
      else unknown.stream(dir, stream, this.stack, this.emit, final)
    } catch (e) {
      this.note(`decoder failed: ${(e as Error).message}; rest of the stream kept undecoded`)
      this.decoder = unknown
      unknown.stream(dir, stream, this.stack, this.emit, final)
    }
    // At the end of the capture nothing may stay hidden in a buffer: bytes no message took are shown.
    if (final && stream.available > 0) {
      unknown.stream(dir, stream, this.stack, this.emit, final, `${counted(stream.available, 'byte')} at the end of the stream did not complete a message`)
    }
  }

  /** Bytes that arrive after the connection closed: its decoder is finished, so they are shown undecoded. */
  private afterClose(dir: WireDir): void {
    const stream = this.tcp![dir].stream
    this.note('data after the connection closed, shown undecoded')
    this.deps.unknown.stream(dir, stream, this.stack, this.emit, true, `${stream.available} bytes after the connection closed`)
  }

  tcpGap(direction: TcpDirection, gap: TcpGap): void {
    this.onTcpGap(direction === this.tcp?.a2b ? 'a2b' : 'b2a', gap)
  }

  private onTcpGap(dir: WireDir, gap: TcpGap): void {
    this.note(`TCP ${dir === 'a2b' ? 'a→b' : 'b→a'}: ${gap.length} bytes missing at stream offset ${gap.offset}`)
    if (this.tcpMode === HTTP && this.http && !this.closed) {
      const stream = this.tcp![dir].stream
      for (const ev of this.http.abandon(dir === 'a2b' ? 'c2s' : 's2c', `${gap.length} bytes lost (TCP gap) at stream offset ${gap.offset}`))
        this.onHttpEvent(ev)
      if (stream.available) this.deps.unknown.stream(dir, stream, this.stack, this.emit, true, this.httpStopped)
      return
    }
    if (this.tcpMode !== RAW || this.closed) return
    const stream = this.tcp![dir].stream
    const decoder = this.decoder ?? this.deps.unknown
    if (decoder.gap) decoder.gap(dir, stream, gap.length, this.stack, this.emit)
    else if (stream.available) this.deps.unknown.stream(dir, stream, this.stack, this.emit, true)
  }

  private onWsEvent(ev: WsEvent): void {
    const dir: WireDir = ev.dir === 'c2s' ? 'a2b' : 'b2a'
    const ws = this.ws!
    switch (ev.kind) {
      case 'handshake':
        // The upgrade request is read from side a's stream only: a is its sender.
        if (ev.request) {
          ws.path = ev.request.path
          this.setRole('a', 'handshake')
        }
        if (ev.response) ws.protocol = ev.response.protocol
        this.emit(websocketHandshakeMessage(ev, dir))
        return
      case 'message': {
        const decoder = this.decoderFor('websocket', ev.payload, dir) ?? this.deps.unknown
        const pdu = {
          dir,
          frames: ev.frames,
          time: ev.time,
          draft: ev.draft,
          source: ev.payloadSource,
          offset: ev.payloadOffset,
          bytes: ev.payload,
          stack: ['tcp', 'websocket']
        }
        this.runDatagram(decoder, pdu)
        return
      }
      case 'control':
        this.emit(websocketControlMessage(ev, dir))
        return
      case 'error':
        this.note(`WebSocket ${ev.dir}: ${ev.message}`)
        // A message that was framed but could not be unpacked (e.g. inflate failed) is still shown.
        if (ev.draft) this.emit(websocketFailedMessage(ev, dir))
        return
      case 'mode':
        if (ev.mode === 'http-failed') this.note(`HTTP upgrade refused: ${ev.reason}`)
        return
    }
  }

  /** End of capture (or of the conversation): give up on TCP holes and flush what every layer still holds. */
  finish(lastFrame: number): void {
    if (this.closed) return
    this.flushDecoding(lastFrame)
    // What only the end showed (e.g. a handshake in a stream's last bytes) swapped the roles.
    if (this.swapped && !this.settled) {
      this.decodeAgain()
      this.flushDecoding(lastFrame)
    }
    this.settle()
  }

  private flushDecoding(lastFrame: number): void {
    if (this.tcp) {
      for (const dir of ['a2b', 'b2a'] as const) this.tcp[dir].flush(lastFrame)
      this.tcpData('a2b', true)
    }
    try {
      this.decoder?.finish?.(this.emit)
    } catch (e) {
      this.note(`decoder failed at the end of the capture: ${(e as Error).message}`)
    }
  }

  /**
   * Finishes a TCP connection that closed and keeps only what counts the packets still to come (its last
   * ACKs, retransmissions): the decoder and WebSocket state go.
   */
  close(lastFrame: number): void {
    this.finish(lastFrame)
    this.closed = true
    this.release()
  }

  /** Drops the decoding state of a finished conversation. */
  release(): void {
    this.decoder = undefined
    this.context = undefined
    this.ws = undefined
    this.http = undefined
    this.emitter = undefined
    this.probes = MAX_PROBES // a released conversation never probes again
  }

  /** The layers under the protocol as its messages report them (at least the carrier's), then the protocol. */
  private protocolStack(): string[] {
    const below = this.decodedStack.length > this.stack.length ? this.decodedStack.filter((l) => l !== this.protocol) : this.stack
    return [...below, this.protocol]
  }

  info(): ConversationInfo {
    const swap = this.clientSide === 'b'
    const client = swap ? this.b : this.a
    const server = swap ? this.a : this.b
    return {
      id: this.id,
      transport: this.transport,
      client: endpointString(client),
      server: endpointString(server),
      roleFrom: this.roleFrom,
      protocol: this.protocol,
      stack: this.protocol === 'unknown' ? [...this.stack] : this.protocolStack(),
      frames: this.frames,
      bytes: this.bytes,
      firstTime: this.firstTime === Infinity ? 0 : this.firstTime,
      lastTime: this.lastTime,
      notes: [...this.notes, ...this.tcpNotes()]
    }
  }

  private tcpNotes(): string[] {
    if (this.transport !== 'tcp') return []
    const out: string[] = []
    const a2b = this.tcp?.a2b
    const b2a = this.tcp?.b2a
    const retrans = (a2b?.retransmissions ?? 0) + (b2a?.retransmissions ?? 0)
    const ooo = (a2b?.outOfOrder ?? 0) + (b2a?.outOfOrder ?? 0)
    if (retrans) out.push(`${retrans} retransmitted TCP segments ignored`)
    if (ooo) out.push(`${ooo} out-of-order TCP segments reordered`)
    if (!a2b?.synSeen && !b2a?.synSeen) out.push('TCP handshake not captured: joined mid-stream')
    if (a2b?.rstSeen || b2a?.rstSeen) out.push('connection reset (RST)')
    return out
  }

  /** Direction of a wire direction as exported: c2s/s2c when evidence decided the roles, not just the first packet. */
  direction(dir: WireDir): 'c2s' | 's2c' | 'a2b' | 'b2a' {
    if (this.roleFrom === 'first-packet') return dir
    const fromA = dir === 'a2b'
    return fromA === (this.clientSide === 'a') ? 'c2s' : 's2c'
  }

  /** The relative sequence-number bases of the TCP direction sent from `ip`:`port` (net/tcp.ts TcpBases). */
  tcpBases(ip: string, port: number): TcpBases | undefined {
    const t = this.tcp
    if (!t) return undefined
    const fromA = this.a.port === port && this.a.ip === ip
    const out = fromA ? t.a2b : t.b2a
    const back = fromA ? t.b2a : t.a2b
    if (out.base < 0) return undefined
    // Until the other side has sent a segment, the acknowledgment number has no relative form.
    return { seq: out.base, ack: back.base < 0 ? undefined : back.base }
  }

  /** The endpoints a message in `dir` went from and to. */
  endpoints(dir: WireDir): { src: Endpoint; dst: Endpoint } {
    return dir === 'a2b' ? { src: this.a, dst: this.b } : { src: this.b, dst: this.a }
  }
}

// The emit callback is bound to its conversation: a copy of the engine's state makes its own on first use.
leftOutOfCopies(Conversation, ['emitter'])

/** A TLS record header (handshake or application data, version 3.x) at the start of a stream. */
function looksLikeTls(stream: ByteStream): boolean {
  if (stream.available < 3) return false
  const type = stream.byteAt(0)
  return (type === 0x16 || type === 0x17) && stream.byteAt(1) === 3 && stream.byteAt(2) <= 4
}
