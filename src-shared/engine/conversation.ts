// A conversation: one UDP endpoint pair or one TCP connection, with the layers stacked on it and the
// protocol decoder chosen for it. Internally the side that sent first (or the SYN) is "a".

import { MessageDraft } from '../bytes/tree'
import type { ConversationInfo, Transport } from '../model/types'
import { TcpDirection, type TcpGap } from '../net/tcp'
import { detectHttpUpgrade, WebSocketConnection, type WsEvent } from '../net/websocket'
import type { ByteStream } from '../net/byte-stream'
import type { Carrier, DecoderContext, Emit, MessageOut, ProtocolDecoder, ProtocolModule, ProtocolRegistry, WireDir } from '../protocols/registry'
import { UnknownDecoder } from '../protocols/unknown'
import type { KeyStore } from '../keys/store'
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

export interface ConversationDeps {
  registry: ProtocolRegistry
  keys: KeyStore | undefined
  /** Read for every message, so an engine can turn trees on part way through a replay. */
  readonly recording: boolean
  /** Forced protocol id ("decode as"), or 'unknown' to switch detection off. */
  forced?: string
  emit: (conv: Conversation, m: MessageOut) => void
}

export class Conversation {
  frames = 0
  bytes = 0
  firstTime = Infinity
  lastTime = 0
  /** Which internal side is the client, once known. */
  clientSide: 'a' | 'b' | undefined
  roleFromHandshake = false
  notes: string[] = []
  /** Layers under the protocol, bottom up. */
  stack: string[]
  /** The longest stack a message of this conversation's protocol reported (before the protocol is appended). */
  private decodedStack: string[] = []
  protocol = 'unknown'
  private module: ProtocolModule | undefined
  private decoder: ProtocolDecoder | undefined
  private unknown: UnknownDecoder
  private probes = 0
  // TCP only
  readonly tcp?: { a2b: TcpDirection; b2a: TcpDirection }
  private tcpMode: 'detect' | 'websocket' | 'raw' = 'detect'
  private ws?: WebSocketConnection
  private wsPath?: string
  private wsProtocol?: string
  readonly ctx: DecoderContext
  private readonly emitOut: Emit

  constructor(
    readonly id: number,
    readonly transport: Transport,
    readonly a: Endpoint,
    readonly b: Endpoint,
    private readonly deps: ConversationDeps
  ) {
    this.stack = [transport]
    this.unknown = new UnknownDecoder(() => deps.recording)
    this.emitOut = (m) => {
      // Layers a decoder adds itself (ENet, LiteNetLib under FigNet) show in the conversation's stack.
      if (m.protocol === this.protocol && m.stack.length > this.decodedStack.length) this.decodedStack = m.stack
      deps.emit(this, m)
    }
    const self = this
    this.ctx = {
      conversationId: id,
      keys: deps.keys,
      a: endpointString(a),
      b: endpointString(b),
      get recording() {
        return deps.recording
      },
      setClient(dir: WireDir) {
        self.clientSide = dir === 'a2b' ? 'a' : 'b'
        self.roleFromHandshake = true
      },
      note(text: string) {
        if (!self.notes.includes(text)) self.notes.push(text)
      },
      get websocket() {
        return self.wsPath === undefined && self.wsProtocol === undefined ? undefined : { path: self.wsPath, protocol: self.wsProtocol }
      }
    }
    if (transport === 'tcp') {
      this.tcp = { a2b: new TcpDirection(), b2a: new TcpDirection() }
      for (const dir of ['a2b', 'b2a'] as const) this.tcp[dir].onGap = (gap) => this.onTcpGap(dir, gap)
    }
    if (deps.forced && deps.forced !== 'unknown') {
      const m = deps.registry.get(deps.forced)
      if (m) this.useModule(m, 'decode as')
    }
    if (deps.forced === 'unknown') {
      this.probes = MAX_PROBES
      this.ctx.note('protocol detection off (decode as unknown)')
    } else if (deps.forced && !this.module) {
      this.ctx.note(`decode as ${deps.forced}: no such protocol, detecting instead`)
    }
  }

  touch(frameLen: number, time: number, frames = 1): void {
    this.frames += frames
    this.bytes += frameLen
    if (time < this.firstTime) this.firstTime = time
    if (time > this.lastTime) this.lastTime = time
  }

  private useModule(m: ProtocolModule, why: string): void {
    this.module = m
    this.protocol = m.id
    this.decoder = m.create(this.ctx)
    if (why === 'decode as') this.ctx.note(`decoded as ${m.name} (forced)`)
  }

  /**
   * Picks a decoder for this payload: the chosen one, or a probe's pick, or the unknown fallback; null
   * when a probe wants more of a stream's bytes first (never at the end of the capture).
   */
  private decoderFor(carrier: Carrier, bytes: Uint8Array, dir: WireDir, final = true): ProtocolDecoder | null {
    if (this.decoder) return this.decoder
    if (this.probes < MAX_PROBES) {
      this.probes++
      const hit = this.deps.registry.detect({ carrier, bytes, dir, aPort: this.a.port, bPort: this.b.port, wsPath: this.wsPath, wsProtocol: this.wsProtocol, attempt: this.probes })
      if (hit && 'module' in hit) {
        this.useModule(hit.module, 'probe')
        return this.decoder!
      }
      if (hit && !final) {
        this.probes-- // waiting is not a failed probe
        return null
      }
    }
    return this.unknown
  }

  // ---- UDP ----

  udpDatagram(dir: WireDir, payload: Uint8Array, frames: number[], time: number): void {
    const draft = new MessageDraft(this.deps.recording)
    const source = draft.addSource('UDP payload', payload)
    const decoder = this.decoderFor('udp', payload, dir) ?? this.unknown
    this.runDatagram(decoder, { dir, frames, time, draft, source, offset: 0, bytes: payload, stack: ['udp'] })
  }

  private runDatagram(decoder: ProtocolDecoder, pdu: Parameters<NonNullable<ProtocolDecoder['datagram']>>[0]): void {
    if (!decoder.datagram) return this.unknown.datagram(pdu, this.emitOut)
    try {
      decoder.datagram(pdu, this.emitOut)
    } catch (e) {
      // A decoder bug must not stop the capture: keep the bytes with the error.
      pdu.draft.error = `decoder failed: ${(e as Error).message}`
      this.unknown.datagram(pdu, this.emitOut)
    }
  }

  // ---- TCP ----

  /** New in-order bytes arrived in `dir` (or the capture ended, with `final`). */
  tcpData(dir: WireDir, final = false): void {
    const t = this.tcp!
    if (this.tcpMode === 'detect') {
      const client = t.a2b.stream
      const first = client.available ? client.peek(Math.min(client.available, 8192)) : undefined
      const verdict = first ? detectHttpUpgrade(first) : 'no'
      if (verdict === 'need-more' && !final) return
      if (verdict === 'http-upgrade') {
        this.tcpMode = 'websocket'
        this.ws = new WebSocketConnection(t.a2b.stream, t.b2a.stream, { recordTree: () => this.deps.recording })
        this.stack = ['tcp', 'websocket']
      } else {
        if (!client.available && !t.b2a.stream.available) return
        this.tcpMode = 'raw'
      }
    }
    if (this.tcpMode === 'websocket') {
      for (const d of dir === 'a2b' ? (['a2b', 'b2a'] as const) : (['b2a', 'a2b'] as const)) {
        for (const ev of this.ws!.process(d === 'a2b' ? 'c2s' : 's2c', final)) this.onWsEvent(ev)
        if (this.ws!.mode === 'raw') {
          this.tcpMode = 'raw'
          this.stack = ['tcp', 'http-preamble']
          this.ctx.note('HTTP upgrade preamble followed by raw (unframed) bytes')
          break
        }
        if (this.ws!.mode === 'http-failed') {
          // The server refused the upgrade: what follows is plain HTTP, shown as raw bytes.
          this.tcpMode = 'raw'
          this.stack = ['tcp', 'http']
          break
        }
      }
      if (this.tcpMode !== 'raw') return
    }
    this.rawStream(dir, final)
    if (final) this.rawStream(dir === 'a2b' ? 'b2a' : 'a2b', final)
  }

  private rawStream(dir: WireDir, final: boolean): void {
    const stream = this.tcp![dir].stream
    if (stream.available === 0) return
    if (!this.decoder && stream.consumed === 0 && looksLikeTls(stream)) {
      this.ctx.note('TLS-encrypted: the payload cannot be decoded without the session keys')
    }
    const decoder = this.decoderFor('tcp', stream.peek(Math.min(stream.available, 256)), dir, final)
    // A first segment can stop inside a frame header (a partial write): a probe asked for more bytes.
    if (!decoder) return
    this.runStream(decoder, dir, stream, final)
  }

  private runStream(decoder: ProtocolDecoder, dir: WireDir, stream: ByteStream, final: boolean): void {
    try {
      if (decoder.stream) decoder.stream(dir, stream, this.stack, this.emitOut, final)
      else this.unknown.stream(dir, stream, this.stack, this.emitOut, final)
    } catch (e) {
      this.ctx.note(`decoder failed: ${(e as Error).message}; rest of the stream kept undecoded`)
      this.decoder = this.unknown
      this.unknown.stream(dir, stream, this.stack, this.emitOut, final)
    }
    // At the end of the capture nothing may stay hidden in a buffer: bytes no message took are shown.
    if (final && stream.available > 0) {
      this.unknown.stream(dir, stream, this.stack, this.emitOut, final, `${stream.available} bytes at the end of the stream did not complete a message`)
    }
  }

  private onTcpGap(dir: WireDir, gap: TcpGap): void {
    this.ctx.note(`TCP ${dir === 'a2b' ? 'a→b' : 'b→a'}: ${gap.length} bytes missing at stream offset ${gap.offset}`)
    if (this.tcpMode !== 'raw') return
    const stream = this.tcp![dir].stream
    const decoder = this.decoder ?? this.unknown
    if (decoder.gap) decoder.gap(dir, stream, gap.length, this.stack, this.emitOut)
    else if (stream.available) this.unknown.stream(dir, stream, this.stack, this.emitOut, true)
  }

  private onWsEvent(ev: WsEvent): void {
    const dir: WireDir = ev.dir === 'c2s' ? 'a2b' : 'b2a'
    switch (ev.kind) {
      case 'handshake':
        if (ev.request) {
          this.wsPath = ev.request.path
          this.roleFromHandshake = true
          this.clientSide = 'a'
        }
        if (ev.response) this.wsProtocol = ev.response.protocol
        this.emitOut(websocketHandshakeMessage(ev, dir))
        return
      case 'message': {
        const decoder = this.decoderFor('websocket', ev.payload, dir) ?? this.unknown
        const pdu = { dir, frames: ev.frames, time: ev.time, draft: ev.draft, source: ev.payloadSource, offset: ev.payloadOffset, bytes: ev.payload, stack: ['tcp', 'websocket'] }
        this.runDatagram(decoder, pdu)
        return
      }
      case 'control':
        this.emitOut(websocketControlMessage(ev, dir))
        return
      case 'error':
        this.ctx.note(`WebSocket ${ev.dir}: ${ev.message}`)
        // A message that was framed but could not be unpacked (e.g. inflate failed) is still shown.
        if (ev.draft) this.emitOut(websocketFailedMessage(ev, dir))
        return
      case 'mode':
        if (ev.mode === 'http-failed') this.ctx.note(`HTTP upgrade refused: ${ev.reason}`)
        return
    }
  }

  /** End of capture: give up on TCP holes and flush what every layer still holds. */
  finish(lastFrame: number): void {
    if (this.tcp) {
      for (const dir of ['a2b', 'b2a'] as const) this.tcp[dir].flush(lastFrame)
      this.tcpData('a2b', true)
    }
    try {
      this.decoder?.finish?.(this.emitOut)
    } catch (e) {
      this.ctx.note(`decoder failed at the end of the capture: ${(e as Error).message}`)
    }
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
      roleFromHandshake: this.roleFromHandshake,
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
    if (!this.tcp) return []
    const out: string[] = []
    const { a2b, b2a } = this.tcp
    const retrans = a2b.stats.retransmissions + b2a.stats.retransmissions
    const ooo = a2b.stats.outOfOrder + b2a.stats.outOfOrder
    if (retrans) out.push(`${retrans} retransmitted TCP segments ignored`)
    if (ooo) out.push(`${ooo} out-of-order TCP segments reordered`)
    if (!a2b.synSeen && !b2a.synSeen) out.push('TCP handshake not captured: joined mid-stream')
    if (a2b.rstSeen || b2a.rstSeen) out.push('connection reset (RST)')
    return out
  }

  /** Direction of a wire direction as exported: c2s/s2c when the client is known. */
  direction(dir: WireDir): 'c2s' | 's2c' | 'a2b' | 'b2a' {
    if (!this.clientSide) return dir
    const fromA = dir === 'a2b'
    return fromA === (this.clientSide === 'a') ? 'c2s' : 's2c'
  }

  /** The endpoints a message in `dir` went from and to. */
  endpoints(dir: WireDir): { src: Endpoint; dst: Endpoint } {
    return dir === 'a2b' ? { src: this.a, dst: this.b } : { src: this.b, dst: this.a }
  }
}

/** A TLS record header (handshake or application data, version 3.x) at the start of a stream. */
function looksLikeTls(stream: ByteStream): boolean {
  if (stream.available < 3) return false
  const type = stream.byteAt(0)
  return (type === 0x16 || type === 0x17) && stream.byteAt(1) === 3 && stream.byteAt(2) <= 4
}
