// The decoder registry. Each protocol offers a probe (how sure it is, from the first bytes) and a
// stateful per-conversation decoder. Ports only break ties between probes; "decode as" overrides both.

import type { MessageDraft, TreeInterest } from '../bytes/tree'
import type { ByteStream } from '../net/byte-stream'
import type { KeyStore } from '../keys/store'
import type { AppliedSchema } from '../schema/set'
import type { HttpHead, HttpRequestRecord } from '../net/http'
import type { RoleFrom, WireDir } from '../model/types'

export type { RoleFrom }

export type { WireDir }

/** What a protocol's payload rides on, as the probe sees it. */
export type Carrier = 'udp' | 'tcp' | 'websocket' | 'http'

export interface ProbeInput {
  carrier: Carrier
  /** The first payload seen (a datagram, a WebSocket message, or the first bytes of a TCP direction). */
  bytes: Uint8Array
  dir: WireDir
  aPort: number
  bPort: number
  /** WebSocket request path and negotiated subprotocol, when carried over WebSocket. */
  wsPath?: string
  wsProtocol?: string
  /** HTTP: the first request's target (path and query); `bytes` are the start of the client's stream. */
  httpPath?: string
  /** How many probes this conversation has had, this one included (1 = its first payload). */
  attempt?: number
}

export interface DecoderContext {
  readonly conversationId: number
  readonly keys: KeyStore | undefined
  /** The loaded schema packs that apply to this conversation (src-shared/schema), if any. */
  readonly schema?: AppliedSchema
  /** Endpoints as `ip:port` strings, for key lookup. */
  readonly a: string
  readonly b: string
  /** Whether decoders should build full field trees (false in the fast row pass), and with labels. */
  readonly recording: boolean
  readonly labels: boolean
  /** With trees: the keys they keep (TreeInterest; null or absent: every node). */
  readonly interest?: TreeInterest | null
  /**
   * Evidence of who the client is: `dir` is the direction the client sends in. Call it before emitting the
   * message that shows it. Stronger evidence than the conversation has changes its roles, and the
   * conversation's frames are then decoded again from the start with the new roles.
   */
  setClient(dir: WireDir, from?: 'handshake' | 'semantics'): void
  /**
   * The direction the conversation's client sends in, as decided so far, and what decided it. Decoders that
   * name messages by who sent them, or write texts that name the client first (key lines), read it per message.
   */
  readonly clientDir: WireDir
  readonly roleFrom: RoleFrom
  /** A note about the whole conversation (shown on it and in the export). */
  note(text: string): void
  /** The WebSocket upgrade's request path and negotiated subprotocol, once seen. */
  readonly websocket?: { path?: string; protocol?: string }
}

/** A message a decoder finished. */
export interface MessageOut {
  dir: WireDir
  frames: number[]
  time: number
  protocol: string
  stack: string[]
  name: string
  summary: string
  value: unknown
  draft: MessageDraft
}

export type Emit = (m: MessageOut) => void

/** One unit of payload handed to a datagram-style decoder (a UDP datagram or one WebSocket message). */
export interface Pdu {
  dir: WireDir
  frames: number[]
  time: number
  /** The draft already holds the lower layers' sources and fields. */
  draft: MessageDraft
  /** Index of the source in `draft` holding `bytes`, and where in it they start. */
  source: number
  offset: number
  bytes: Uint8Array
  /** Layers below the protocol, bottom up (e.g. ['tcp', 'websocket']). */
  stack: string[]
  /** For an HTTP message (carrier 'http'; `bytes` is its body): its head, and the request it answers or is. */
  http?: { head: HttpHead; request?: HttpRequestRecord; responseTimeMs?: number }
}

export interface ProtocolDecoder {
  /** Datagram carriers (UDP, WebSocket messages). */
  datagram?(pdu: Pdu, emit: Emit): void
  /**
   * Stream carriers (TCP, raw bytes after a fake WebSocket preamble): consume whole messages from
   * `stream`; with `final` (end of capture) also flush what is left as an incomplete message.
   */
  stream?(dir: WireDir, stream: ByteStream, stack: string[], emit: Emit, final: boolean): void
  /** Bytes were lost before what the stream holds next (a TCP gap): resynchronise. */
  gap?(dir: WireDir, stream: ByteStream, missing: number, stack: string[], emit: Emit): void
  /** End of capture: report what never completed (e.g. fragments still missing). */
  finish?(emit: Emit): void
}

/** A probe's answer when a stream's first bytes are too few to decide. */
export const NEED_MORE = -1

export interface ProtocolModule {
  id: string
  name: string
  carriers: Carrier[]
  /**
   * Well-known server ports: they break ties between equally confident probes, and a conversation with one
   * on exactly one side takes that side as the server until a handshake or message semantics say otherwise.
   */
  ports?: number[]
  /**
   * 0 = not mine; higher is surer (100 = certain); NEED_MORE = it could be mine but the bytes stop too
   * early to tell (a stream's first segment ending inside a frame header). Must not throw on any input.
   */
  probe(input: ProbeInput): number
  /**
   * Its decoder reports who the client is (DecoderContext.setClient, from a handshake or semantics): until
   * it does, the conversation holds back its messages in case the roles swap. Without it, nothing is held.
   */
  reportsRoles?: boolean
  create(ctx: DecoderContext): ProtocolDecoder
}

export class ProtocolRegistry {
  private modules: ProtocolModule[] = []

  register(m: ProtocolModule): void {
    if (this.modules.some((x) => x.id === m.id)) throw new Error(`protocol ${m.id} registered twice`)
    this.modules.push(m)
    this.serverPorts = undefined
  }

  get(id: string): ProtocolModule | undefined {
    return this.modules.find((m) => m.id === id)
  }

  list(): readonly ProtocolModule[] {
    return this.modules
  }

  private serverPorts: Set<number> | undefined

  /** Whether `port` is a registered protocol's well-known server port. */
  isServerPort(port: number): boolean {
    this.serverPorts ??= new Set(this.modules.flatMap((m) => m.ports ?? []))
    return this.serverPorts.has(port)
  }

  /**
   * The best module for this first payload; `needMore` when none claims it yet but one asked for more
   * bytes; undefined when none claims it.
   */
  detect(input: ProbeInput): { module: ProtocolModule; confidence: number } | { needMore: true } | undefined {
    let best: { module: ProtocolModule; confidence: number; portMatch: boolean } | undefined
    let needMore = false
    for (const m of this.modules) {
      if (!m.carriers.includes(input.carrier)) continue
      let c = 0
      try {
        c = m.probe(input)
      } catch {
        c = 0 // a probe that throws on odd bytes simply does not claim them
      }
      if (c === NEED_MORE) needMore = true
      if (c <= 0) continue
      const portMatch = !!m.ports?.some((p) => p === input.aPort || p === input.bPort)
      if (!best || c > best.confidence || (c === best.confidence && portMatch && !best.portMatch)) best = { module: m, confidence: c, portMatch }
    }
    if (best) return { module: best.module, confidence: best.confidence }
    return needMore ? { needMore: true } : undefined
  }
}

/**
 * Where a datagram-style PDU's bytes live for field ranges: inside the draft's source the lower layer gave
 * (a WebSocket frame's payload), or, when they are not there (e.g. inflated), in a new source of their own.
 */
export function pduBytes(pdu: Pdu, sourceName = 'Payload'): { bytes: Uint8Array; source: number; start: number; end: number } {
  const held = pdu.draft.sources[pdu.source]
  if (held && pdu.offset >= 0 && pdu.offset + pdu.bytes.length <= held.bytes.length) {
    return { bytes: held.bytes, source: pdu.source, start: pdu.offset, end: pdu.offset + pdu.bytes.length }
  }
  return { bytes: pdu.bytes, source: pdu.draft.addSource(sourceName, pdu.bytes), start: 0, end: pdu.bytes.length }
}
