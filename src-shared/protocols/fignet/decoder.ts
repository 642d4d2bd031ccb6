// The per-conversation FigNet decoder. Over UDP it picks the transport from the first datagram (ENet or
// LiteNetLib) and is that transport's CarriedDecoder; over WebSocket each binary message is one envelope.
// Conversation state kept here: the envelope prefix form (decided from evidence across messages),
// requests waiting for their reply (by callback id), the registration timing the server enforces (about
// 5 s) and the handshake order (RegisterIdentity, its reply, then AppKey).

import { counted } from '../../model/text'
import { DecodeError, FieldReader } from '../../bytes/reader'
import { keyConversation, missingKeyWarning } from '../../keys/hint'
import { TreeBuilder, type MessageDraft } from '../../bytes/tree'
import type { CarriedDecoder, CarriedPayload, CarriedResult } from '../carried'
import { pduBytes, type DecoderContext, type Emit, type Pdu, type ProtocolDecoder, type WireDir } from '../registry'
import { EnetTransport } from '../enet/decoder'
import { probeEnet } from '../enet/variant'
import { LiteNetLibTransport } from '../litenetlib/decoder'
import { probeLiteNetLib } from '../litenetlib/probe'
import { decryptPayload } from './crypto'
import { F_ENV, PrefixChooser, readEnvelope, type PayloadFit } from './envelope'
import { REGISTER_IDENTITY_FAILURE_SECRET } from './bitbuffer'
import { messageName, MSG_APP_KEY, MSG_REGISTER_IDENTITY } from './names'
import { decodeFigNetPayload } from './payload'
import { F_SCHEMA } from '../../schema/set'

const PROTOCOL = 'fignet'
/** The server disconnects peers that have not registered this long after connecting (docs/fignet.md, guide §5). */
export const REGISTER_TIMEOUT_S = 5

interface Transport {
  datagram(pdu: Pdu, emit: Emit): void
  finish(emit: Emit): void
}

export class FigNetDecoder implements ProtocolDecoder, CarriedDecoder {
  private transport: Transport | null = null
  private transportName = ''
  private readonly prefixes = new PrefixChooser()
  private prefixRevisions = 0
  /** The client's RegisterIdentity has been seen; its reply: 'ok', 'rejected' or 'unread' (encrypted). */
  private registerReply: 'ok' | 'rejected' | 'unread' | null = null
  private firstTime: number | null = null
  private registeredAt: number | null = null
  private lateNoted = false
  /** Requests with a callback id, by direction and id: the frame and time they were sent (made on first use). */
  private pendingMap: Map<string, { frame: number; time: number; msgId: number }> | undefined

  constructor(private readonly ctx: DecoderContext) {}

  // ---- carriers ----

  datagram(pdu: Pdu, emit: Emit): void {
    if (this.firstTime === null) this.firstTime = pdu.time
    if (pdu.stack.includes('websocket')) return this.wsMessage(pdu, emit)
    if (!this.transport) this.chooseTransport(pdu.bytes)
    this.transport!.datagram(pdu, emit)
  }

  finish(emit: Emit): void {
    this.transport?.finish(emit)
    if (this.registeredAt === null && this.firstTime !== null && this.sawPayload && !this.lateNoted) {
      this.ctx.note('no RegisterIdentity (60000) was seen: the server disconnects peers that do not register within about 5 s')
    }
  }

  private sawPayload = false
  private decryptedWith = ''

  private chooseTransport(first: Uint8Array): void {
    // The transport's handshake (ENet CONNECT, LiteNetLib ConnectRequest) names the client in the conversation.
    const ctx = this.ctx
    if (probeLiteNetLib(first) > probeEnet(first)) {
      this.transport = new LiteNetLibTransport(ctx, this)
      this.transportName = 'LiteNetLib'
    } else {
      this.transport = new EnetTransport(ctx, this)
      this.transportName = 'ENet'
    }
  }

  private wsMessage(pdu: Pdu, emit: Emit): void {
    this.transportName = 'WebSocket'
    const at = pduBytes(pdu, 'WebSocket message')
    const r = new FieldReader(at.bytes, pdu.draft.tree, at.source, at.start, at.end)
    const frame = pdu.frames[pdu.frames.length - 1]
    const res = this.decode(r, pdu.draft, { dir: pdu.dir, channel: 0, delivery: 'Reliable', frame, time: pdu.time })
    if (res.error && pdu.draft.error === null) pdu.draft.error = res.error.message
    emit({
      dir: pdu.dir,
      frames: pdu.frames,
      time: pdu.time,
      protocol: PROTOCOL,
      stack: [...pdu.stack, PROTOCOL],
      name: res.name,
      summary: res.summary,
      value: { ...res.value, channel: null, delivery: 'Reliable' },
      draft: pdu.draft
    })
  }

  // ---- the envelope, for every transport ----

  decode(r: FieldReader, draft: MessageDraft, p: CarriedPayload): CarriedResult {
    this.sawPayload = true
    const value: Record<string, unknown> = { magic: null, msgId: null, msgName: null, callbackId: null, encrypted: false, codec: 'raw', payload: null }
    let name = 'FigNet message'
    let summary = ''
    try {
      r.open(F_ENV.envelope, r.tree.labels ? `FigNet envelope (${r.remaining} bytes)` : undefined)
      try {
        const dir = this.directionOf(p.dir)
        const start = r.pos
        const end = r.end
        const decision = this.prefixes.choose(r.bytes, start, end, (at) => this.payloadFit(r.bytes.subarray(start, end), at, dir))
        r.record(F_ENV.prefix_form, decision.prefix, start, 0, r.tree.labels ? `Prefix form: ${decision.why()}` : undefined)
        if (decision.revisedFrom && this.prefixRevisions++ < 3) {
          this.ctx.note(
            `FigNet prefix form revised from ${decision.revisedFrom} to ${decision.prefix} at frame ${p.frame}: this message's id and payload read only that way`
          )
        }
        const env = readEnvelope(r, decision.prefix, draft)
        value.magic = env.magic
        if (env.prefix === 'hash') draft.warn('4-byte prefix before the header (older FigNet builds: HASH_SIZE = 4); its algorithm is not verified')
        name = messageName(env.msgId)
        // The keys exist already: their order in the value stays.
        value.msgId = env.msgId
        value.msgName = name
        value.callbackId = env.callbackId
        value.encrypted = env.encrypted
        const pack = this.ctx.schema?.fignet?.messages.get(env.msgId)
        if (pack) {
          name = value.msgName = pack.name
          r.record(
            F_SCHEMA.name,
            pack.name,
            env.headerStart,
            2,
            r.tree.labels ? `Schema name: ${JSON.stringify(pack.name)} (pack ${JSON.stringify(pack.pack)})` : undefined
          )
        }
        if (this.transportName !== 'WebSocket') {
          // Transport facts, as zero-length fields so `fignet.channel == 1` filters across ENet and LiteNetLib.
          r.record(F_ENV.channel, p.channel, r.pos, 0)
          r.record(F_ENV.delivery, p.delivery, r.pos, 0)
        }
        this.onMessage(env.msgId, env.callbackId, p, draft, value)
        if (env.msgId === MSG_APP_KEY) this.appKeyOrder(p, draft, r)
        // A reply echoes its request's message id: name it as the response, as Photon does (docs/fignet.md).
        if (value.responseTo !== undefined) name = `${name} response`
        let body: FieldReader = r
        if (env.encrypted) {
          const opened = this.decryptInto(r, draft, env.headerStart, env.payloadStart, p.dir)
          if (!opened) {
            // Still a registration: its timing and the handshake order do not need the payload.
            if (env.msgId === MSG_REGISTER_IDENTITY) this.registration(p, draft, true, null)
            value.codec = 'raw'
            summary = `${name} #${env.callbackId} encrypted ${counted(r.remaining, 'byte')}`
            r.bytesField(F_ENV.ciphertext, r.remaining)
            return { protocol: PROTOCOL, name, summary, value }
          }
          body = opened
          value.decryptedWith = this.decryptedWith
        }
        const res = decodeFigNetPayload(body, env.msgId, dir, pack)
        value.codec = res.codec
        value.model = res.model
        value.payload = res.payload
        for (const w of res.warnings) draft.warn(w)
        for (const n of res.notes) draft.warn(n)
        if (env.msgId === MSG_REGISTER_IDENTITY) this.registration(p, draft, env.encrypted, res.payload)
        summary = `${name}${env.callbackId ? ` #${env.callbackId}` : ''}${res.summary ? ` ${res.summary}` : ''}`
        if (res.error) return { protocol: PROTOCOL, name, summary, value, error: res.error }
        return { protocol: PROTOCOL, name, summary, value }
      } finally {
        r.tree.closeAll(r.pos)
      }
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e
      return { protocol: PROTOCOL, name, summary: summary || `${name}: ${e.message}`, value, error: e }
    }
  }

  /** Dry-runs the payload after the header at `at` (no tree): how well it decodes, for the prefix choice. */
  private payloadFit(b: Uint8Array, at: number, dir: 'c2s' | 's2c' | null): PayloadFit {
    const msgId = b[at] | (b[at + 1] << 8)
    if (b[at + 2] & 0x80) return 1 // encrypted: the payload cannot be checked
    const res = decodeFigNetPayload(new FieldReader(b, new TreeBuilder(false), 0, at + 3, b.length), msgId, dir, this.ctx.schema?.fignet?.messages.get(msgId))
    if (res.error || res.codec === 'raw') return 0
    return res.payload && Object.keys(res.payload).length ? 2 : 1
  }

  /** The guide's handshake (§5): RegisterIdentity, its reply, then AppKey; an AppKey out of that order is flagged. */
  private appKeyOrder(p: CarriedPayload, draft: MessageDraft, r: FieldReader): void {
    if (this.directionOf(p.dir) !== 'c2s') return
    const problem =
      this.registeredAt === null
        ? 'AppKey (60304) before any RegisterIdentity (60000)'
        : this.registerReply === null
          ? 'AppKey (60304) before the RegisterIdentity (60000) reply'
          : this.registerReply === 'rejected'
            ? 'AppKey (60304) after a rejected RegisterIdentity (60000)'
            : ''
    if (!problem) return
    const text = `out-of-order handshake: ${problem}; the guide's order is RegisterIdentity, its reply, then AppKey (docs/fignet.md, guide §5)`
    draft.warn(text)
    r.record(F_ENV.handshake, 'out-of-order', r.pos, 0, text)
  }

  /** c2s/s2c once evidence decided the roles; null while they are only the first packet's guess. */
  private directionOf(dir: WireDir): 'c2s' | 's2c' | null {
    if (this.ctx.roleFrom === 'first-packet') return null
    return dir === this.ctx.clientDir ? 'c2s' : 's2c'
  }

  /** Callback ids pair a request with its reply (the server echoes the id on the same message id). */
  private onMessage(msgId: number, callbackId: number, p: CarriedPayload, draft: MessageDraft, value: Record<string, unknown>): void {
    const other = p.dir === 'a2b' ? 'b2a' : 'a2b'
    const pending = (this.pendingMap ??= new Map())
    const req = callbackId === 0 ? undefined : pending.get(`${other}:${msgId}:${callbackId}`)
    // A client registers; the server's reply carries the same message id.
    if (msgId === MSG_REGISTER_IDENTITY && !req) this.ctx.setClient(p.dir, 'handshake')
    if (callbackId === 0) return
    if (req) {
      // Only the server replies (docs/fignet.md): the request's sender is the client.
      this.ctx.setClient(other, 'semantics')
      pending.delete(`${other}:${msgId}:${callbackId}`)
      const ms = Math.round((p.time - req.time) * 1e6) / 1e3
      value.responseTo = req.frame
      value.responseTimeMs = ms
      if (draft.tree.recording)
        draft.tree.add({ key: F_ENV.response_to.key, label: `Reply to the request in frame ${req.frame} (${ms} ms later)`, type: 'u32', value: req.frame })
      return
    }
    if (pending.size < 4096) pending.set(`${p.dir}:${msgId}:${callbackId}`, { frame: p.frame, time: p.time, msgId })
  }

  /** RegisterIdentity carries the app secret; over a transport without encryption that is a finding. */
  private registration(p: CarriedPayload, draft: MessageDraft, encrypted: boolean, payload: Record<string, unknown> | null): void {
    const fromClient = this.directionOf(p.dir) === 'c2s'
    if (!fromClient && this.registeredAt !== null && this.registerReply === null) {
      const key = (payload?.SecretKey as { value?: unknown } | undefined)?.value
      this.registerReply = payload === null ? 'unread' : key === REGISTER_IDENTITY_FAILURE_SECRET ? 'rejected' : 'ok'
    }
    const secret = (payload?.SecretKey as { value?: unknown } | undefined)?.value
    if (fromClient && !encrypted && typeof secret === 'string' && secret !== '') {
      const text = `security: RegisterIdentity sends the app secret unencrypted over ${this.transportName || 'the transport'} (anyone on the path can read it)`
      draft.warn(text)
      if (draft.tree.recording) draft.tree.add({ key: F_ENV.security.key, label: text, type: 'string', value: 'secret-in-clear' })
    }
    if (fromClient && this.registeredAt === null) {
      this.registeredAt = p.time
      const after = this.firstTime === null ? 0 : p.time - this.firstTime
      if (after > REGISTER_TIMEOUT_S) {
        const text = `the peer registered ${after.toFixed(1)} s after connecting: the server disconnects peers that do not register within about ${REGISTER_TIMEOUT_S} s`
        draft.warn(text)
        this.ctx.note(text)
        this.lateNoted = true
      }
    }
  }

  /** Opens an encrypted payload with the FIGNET_KEY lines that fit; returns a reader over the plaintext. */
  private decryptInto(r: FieldReader, draft: MessageDraft, headerStart: number, payloadStart: number, dir: WireDir): FieldReader | null {
    const store = this.ctx.keys
    const d = this.directionOf(dir) ?? undefined
    const entries = store ? store.find('FIGNET_KEY', this.ctx.a, this.ctx.b, d) : []
    if (!entries.length) {
      draft.warn(missingKeyWarning(['FIGNET_KEY'], keyConversation(this.ctx.a, this.ctx.b, this.ctx.clientDir), d))
      return null
    }
    const keys = entries.map((e) => ({ key: e.key, from: `FIGNET_KEY ${e.direction ?? 'both'}${e.line ? ` (line ${e.line})` : ''}` }))
    const header = r.bytes.subarray(headerStart, payloadStart)
    const payload = r.bytes.subarray(payloadStart, r.end)
    const res = decryptPayload(keys, header, payload)
    if (!res) {
      draft.warn(`encrypted: none of ${keys.length} FIGNET_KEY line(s) verified with any known layout`)
      return null
    }
    const prefix = res.layout.prefix
    r.bytesField(F_ENV.nonce, prefix)
    r.bytesField(F_ENV.ciphertext, payload.length - prefix - 16)
    r.bytesField(F_ENV.tag, 16)
    r.record(F_ENV.crypto_layout, res.layout.name, payloadStart, payload.length, () => `Decrypted with ${res.from}: ${res.layout.name}`)
    this.decryptedWith = `${res.from}: ${res.layout.name}`
    const src = draft.addSource('Decrypted payload', res.plaintext)
    if (draft.tree.recording)
      draft.tree.add({
        key: F_ENV.decrypted.key,
        label: `Decrypted payload: ${res.plaintext.length} bytes`,
        type: 'bytes',
        value: res.plaintext,
        source: src,
        start: 0,
        length: res.plaintext.length
      })
    return new FieldReader(res.plaintext, draft.tree, src)
  }
}
