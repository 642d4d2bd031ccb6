// The per-conversation SFS2X decoder: WebSocket messages (one packet each) and raw TCP / post-preamble
// byte streams (framed here, waiting for whole packets, resynchronising when the framing is lost).

import { MessageDraft } from '../../bytes/tree'
import type { KeyEntry } from '../../keys/keyfile'
import { keyConversation, missingKeyWarning } from '../../keys/hint'
import type { ByteStream } from '../../net/byte-stream'
import { pduBytes, type DecoderContext, type Emit, type Pdu, type ProtocolDecoder, type WireDir } from '../registry'
import { F, F_ROOT } from './fields'
import { arraySource, parseHeader, plausiblePacketAt, uncountedZstdPrefix } from './framing'
import { decodePacket, emptyValue, type PacketContext, type PacketInput, type PacketOutput } from './packet'
import { DEFAULT_MAX_DEPTH } from './sfsobject'
import { DEFAULT_MAX_DECOMPRESSED, aesFirstBlock } from './transforms'
import { BlueBoxState, blueboxDatagram } from './bluebox'
import { expectsResponse } from './names'

export interface Sfs2xOptions {
  /** Decompressed bodies stop here ("decompression capped at N bytes"). */
  maxDecompressed?: number
  /** Deepest SFSObject/SFSArray nesting decoded. */
  maxDepth?: number
}

/** The JS SDK's default until the Handshake response says otherwise. */
const DEFAULT_COMPRESSION_THRESHOLD = 1024

interface DirState {
  /** Framing lost: scanning for a plausible packet header. */
  lost: boolean
  /** Where the next scan starts (1 right after a bad header, whose first byte is known bad). */
  scanFrom: number
  reason: string
  /** The Last War XOR was needed in this direction: try it first. */
  xorFirst: boolean
}

const PROTOCOL = 'sfs2x'

/** A request waiting for its response: its last frame and that frame's time, and its `_id` if any. */
interface PendingRequest {
  frame: number
  time: number
  id: number | undefined
}

/** Requests kept per action (and extension command) while unanswered; older ones are dropped past it. */
const MAX_PENDING = 1024

export class Sfs2xDecoder implements ProtocolDecoder {
  private readonly maxDecompressed: number
  private readonly maxDepth: number
  private compressionThreshold = DEFAULT_COMPRESSION_THRESHOLD
  private thresholdFromHandshake = false
  private maxMessageSize: number | null = null
  private lastKey: KeyEntry | undefined
  private keyCache: { version: number; keys: readonly KeyEntry[] } | undefined
  private readonly dirs: Record<WireDir, DirState> = {
    a2b: { lost: false, scanFrom: 0, reason: '', xorFirst: false },
    b2a: { lost: false, scanFrom: 0, reason: '', xorFirst: false }
  }

  constructor(
    private readonly ctx: DecoderContext,
    opts: Sfs2xOptions = {}
  ) {
    this.maxDecompressed = opts.maxDecompressed ?? DEFAULT_MAX_DECOMPRESSED
    this.maxDepth = opts.maxDepth ?? DEFAULT_MAX_DEPTH
  }

  private missingKeyText(): string {
    return missingKeyWarning(['SFS2X_AES'], keyConversation(this.ctx.a, this.ctx.b, this.ctx.clientDir))
  }

  private keys(): readonly KeyEntry[] {
    const store = this.ctx.keys
    if (!store) return []
    if (!this.keyCache || this.keyCache.version !== store.version) {
      this.keyCache = { version: store.version, keys: store.find('SFS2X_AES', this.ctx.a, this.ctx.b) }
    }
    return this.keyCache.keys
  }

  private packetContext(dir: WireDir, jsSdk: boolean): PacketContext {
    return {
      recording: this.ctx.recording,
      labels: this.ctx.labels,
      interest: this.ctx.interest,
      maxDecompressed: this.maxDecompressed,
      maxDepth: this.maxDepth,
      keys: this.keys(),
      lastKey: this.lastKey,
      missingKeyWarning: () => this.missingKeyText(),
      xorFirst: this.dirs[dir].xorFirst,
      compressionThreshold: this.compressionThreshold,
      thresholdFromHandshake: this.thresholdFromHandshake,
      jsSdk,
      maxMessageSize: this.maxMessageSize,
      fromServer: this.ctx.roleFrom === 'first-packet' ? null : this.ctx.clientDir !== dir,
      schema: this.ctx.schema?.sfs2x
    }
  }

  private decode(dir: WireDir, inp: PacketInput, jsSdk = false): PacketOutput {
    const out = decodePacket(inp, this.packetContext(dir, jsSdk))
    // What this packet teaches about the conversation.
    if (out.usedKey) this.lastKey = out.usedKey
    if (out.usedXor && !this.dirs[dir].xorFirst) {
      this.dirs[dir].xorFirst = true
      this.ctx.note('SFS2X "Last War" variant: bodies XOR-obfuscated with their length')
    }
    if (out.sentBy) this.ctx.setClient(out.sentBy.side === 'client' ? dir : dir === 'a2b' ? 'b2a' : 'a2b', out.sentBy.from)
    if (out.compressionThreshold !== undefined) {
      this.compressionThreshold = out.compressionThreshold
      this.thresholdFromHandshake = true
    }
    if (out.maxMessageSize !== undefined) this.maxMessageSize = out.maxMessageSize
    return out
  }

  private emitOut(emit: Emit, dir: WireDir, frames: number[], time: number, stack: string[], draft: MessageDraft, out: PacketOutput): void {
    // BlueBox messages are paired by their HTTP exchange instead (bluebox.ts).
    if (!stack.includes('bluebox')) this.pair(dir, frames[frames.length - 1], time, draft, out)
    emit({ dir, frames, time, protocol: PROTOCOL, stack, name: out.name, summary: out.summary, value: out.value, draft })
  }

  private pendingMap: Map<string, PendingRequest[]> | undefined

  /**
   * Pairs a response with its request (docs/sfs2x.md, Requests and responses): the server answers on the
   * request's controller and action (and extension command); an `_id` in both picks the request, else the
   * oldest one waiting. Only once the roles are known, since which side asks decides what is a response.
   */
  private pair(dir: WireDir, frame: number, time: number, draft: MessageDraft, out: PacketOutput): void {
    const fromServer = this.ctx.roleFrom === 'first-packet' ? null : this.ctx.clientDir !== dir
    const v = out.value
    if (fromServer === null || v.controllerId === undefined || v.actionId === undefined) return
    // The key is built only for a request that expects an answer, or a response.
    if (!fromServer && !expectsResponse(v.controllerId, v.actionId)) return
    if (fromServer && !out.name.endsWith('Response')) return // a push or an event, not an answer
    const key = `${v.controllerId}:${v.actionId}:${v.command ?? ''}`
    if (!fromServer) {
      const pending = (this.pendingMap ??= new Map())
      const q = pending.get(key) ?? []
      if (q.length >= MAX_PENDING) q.shift()
      q.push({ frame, time, id: v.requestId })
      pending.set(key, q)
      return
    }
    const q = this.pendingMap?.get(key)
    if (!q?.length) return
    const at = v.requestId === undefined ? 0 : q.findIndex((r) => r.id === v.requestId)
    if (at < 0) return
    const [req] = q.splice(at, 1)
    const ms = Math.round((time - req.time) * 1e6) / 1e3
    v.responseTo = req.frame
    v.responseTimeMs = ms
    if (draft.tree.recording)
      draft.tree.add({ key: F.response_to.key, label: `Response to the request in frame ${req.frame} (${ms} ms later)`, type: 'u32', value: req.frame })
  }

  // ---- WebSocket: one packet per message ----

  datagram(pdu: Pdu, emit: Emit): void {
    // BlueBox: an HTTP message whose body wraps packets (bluebox.ts unwraps it and calls back for each).
    if (pdu.http) return blueboxDatagram(pdu, emit, this.ctx, (this.bluebox ??= new BlueBoxState()), (p, e) => this.packetDatagram(p, e))
    this.packetDatagram(pdu, emit)
  }

  private bluebox: BlueBoxState | undefined

  private packetDatagram(pdu: Pdu, emit: Emit): void {
    const { bytes, source, start, end } = pduBytes(pdu)
    let extra = 0
    const hr = parseHeader(arraySource(bytes, start, end), 0, false)
    if (hr.kind === 'ok' && end - start === hr.header.headerSize + hr.header.length + 4) {
      extra = uncountedZstdPrefix(bytes.subarray(start, end), hr.header.headerSize, hr.header, true) === 4 ? 4 : 0
    }
    const out = this.decode(pdu.dir, { draft: pdu.draft, source, bytes, start, end, extra }, true)
    this.emitOut(emit, pdu.dir, pdu.frames, pdu.time, pdu.stack, pdu.draft, out)
  }

  // ---- TCP: framed from the byte stream ----

  stream(dir: WireDir, s: ByteStream, stack: string[], emit: Emit, final: boolean): void {
    const st = this.dirs[dir]
    for (;;) {
      if (s.available === 0) return
      if (st.lost) {
        if (!this.resync(dir, s, stack, emit, final)) return
        continue
      }
      const head = s.peek(Math.min(s.available, 16))
      const hr = parseHeader(arraySource(head))
      if (hr.kind === 'need') {
        if (final) this.cutShort(dir, s, stack, emit, `incomplete packet header at stream offset ${s.consumed}: the stream ends after ${s.available} bytes`)
        return
      }
      if (hr.kind === 'bad') {
        st.lost = true
        st.scanFrom = 1
        st.reason = `framing lost at stream offset ${s.consumed}: ${hr.reason}`
        continue
      }
      const h = hr.header
      const size = h.headerSize + h.length
      let extra = 0
      if (h.blueBoxed) {
        const e = uncountedZstdPrefix(s.peek(Math.min(s.available, size + 4)), h.headerSize, h, final)
        if (e === 'need') return
        extra = e
      }
      if (s.available < size + extra) {
        if (final)
          this.cutShort(
            dir,
            s,
            stack,
            emit,
            `packet at stream offset ${s.consumed} cut short by the end of the capture: ${s.available} of ${size + extra} bytes`
          )
        return
      }
      const bytes = s.peek(size + extra)
      let draft = new MessageDraft(this.ctx)
      let out = this.decode(dir, { draft, source: draft.addSource('TCP payload', bytes), bytes, start: 0, end: bytes.length, extra })
      let taken = bytes.length
      if (out.bodyEndsEarly !== undefined && out.bodyEndsEarly < bytes.length) {
        // The SFSObject ended before the length: if a packet starts right there, the length was wrong.
        const k = out.bodyEndsEarly
        const rest = s.peek(Math.min(s.available, k + 64))
        if (plausiblePacketAt(arraySource(rest), k, this.firstBlockDecrypter()) === 'yes') {
          draft = new MessageDraft(this.ctx)
          const short = bytes.subarray(0, k)
          out = this.decode(dir, { draft, source: draft.addSource('TCP payload', short), bytes: short, start: 0, end: k, extra: 0, lengthWrong: true })
          taken = k
        }
      }
      const t = s.take(taken)
      this.emitOut(emit, dir, t.frames, t.time, stack, draft, out)
    }
  }

  gap(dir: WireDir, s: ByteStream, missing: number, stack: string[], emit: Emit): void {
    const st = this.dirs[dir]
    if (s.available > 0) {
      if (st.lost)
        this.skip(dir, s, s.available, stack, emit, `${st.reason || `framing lost at stream offset ${s.consumed}`}; then ${missing} bytes were lost (TCP gap)`)
      else
        this.cutShort(
          dir,
          s,
          stack,
          emit,
          `packet at stream offset ${s.consumed} cut short by a TCP gap: ${missing} bytes missing after its ${s.available} bytes`
        )
    }
    st.lost = true
    st.scanFrom = 0
    st.reason = `resynchronising after a TCP gap of ${missing} bytes`
  }

  /** Everything left in the stream as one packet that could not complete (decoded as far as it goes). */
  private cutShort(dir: WireDir, s: ByteStream, stack: string[], emit: Emit, why: string): void {
    const t = s.takeAll()
    const draft = new MessageDraft(this.ctx)
    const source = draft.addSource('TCP payload', t.bytes)
    const out = this.decode(dir, { draft, source, bytes: t.bytes, start: 0, end: t.bytes.length, extra: 0, cutShort: why })
    this.emitOut(emit, dir, t.frames, t.time, stack, draft, out)
  }

  private firstBlockDecrypter(): ((block: Uint8Array) => Uint8Array | null) | undefined {
    const key = this.lastKey ?? this.keys()[0]
    if (!key?.iv) return undefined
    const iv = key.iv
    return (block) => aesFirstBlock(block, key.key, iv)
  }

  /**
   * Framing is lost: looks for the next plausible packet header, emitting the bytes before it as one
   * error message. Returns true when a header was found (decoding continues there), false to wait.
   */
  private resync(dir: WireDir, s: ByteStream, stack: string[], emit: Emit, final: boolean): boolean {
    const st = this.dirs[dir]
    const all = s.peek(s.available)
    const src = arraySource(all)
    const decrypt = this.firstBlockDecrypter()
    let found = -1
    let waitAt = -1
    for (let i = st.scanFrom; i < all.length; i++) {
      if (!(all[i] & 0x80)) continue
      const v = plausiblePacketAt(src, i, decrypt)
      if (v === 'yes') {
        found = i
        break
      }
      if (v === 'need' && !final) {
        waitAt = i
        break
      }
    }
    const n = found >= 0 ? found : waitAt >= 0 ? waitAt : all.length
    if (n > 0) {
      const why = st.reason || `framing still lost at stream offset ${s.consumed}`
      this.skip(dir, s, n, stack, emit, `${why}; ${n} bytes skipped${found >= 0 ? ' up to the next plausible packet header' : ''}`)
      st.reason = ''
    }
    st.scanFrom = 0
    if (found >= 0) {
      st.lost = false
      return true
    }
    return false
  }

  private skip(dir: WireDir, s: ByteStream, n: number, stack: string[], emit: Emit, error: string): void {
    const t = s.take(n)
    const draft = new MessageDraft(this.ctx)
    const source = draft.addSource('TCP payload', t.bytes)
    draft.error = error
    if (draft.tree.recording) {
      draft.tree.open({ key: F_ROOT.key, label: `SmartFoxServer 2X: ${n} bytes skipped (framing lost)`, type: 'none', source, start: 0, length: n })
      draft.tree.add({ key: F.skipped.key, label: `Skipped bytes: ${n}`, type: 'bytes', value: t.bytes, source, start: 0, length: n })
      draft.tree.close(n)
    }
    const value = emptyValue()
    value.skipped = t.bytes
    emit({
      dir,
      frames: t.frames,
      time: t.time,
      protocol: PROTOCOL,
      stack,
      name: 'Skipped bytes',
      summary: `${n} bytes skipped (framing lost at stream offset ${t.offset})`,
      value,
      draft
    })
  }
}
