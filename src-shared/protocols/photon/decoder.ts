// The per-conversation Photon decoder: UDP datagrams (one message per command, fragments reassembled,
// reliable sequence numbers and ACKs followed), TCP frames, and WebSocket messages. Conversation state —
// protocol version from Init, DH public keys, keys from the key store, pending requests — lives here.

import { DecodeError, FieldReader } from '../../bytes/reader'
import { MessageDraft, TreeBuilder } from '../../bytes/tree'
import type { KeyEntry } from '../../keys/keyfile'
import { keyConversation, missingKeyWarning } from '../../keys/hint'
import type { PhotonTables } from '../../schema/set'
import type { ByteStream } from '../../net/byte-stream'
import { pduBytes, type DecoderContext, type Emit, type Pdu, type ProtocolDecoder, type WireDir } from '../registry'
import { aesKeyFromSecret, matchPrivateExponent, sharedSecret } from './crypto'
import type { GpVersion } from './gpbinary'
import { decodePhotonMessage, MSG, startsMessage, type MessageResult, type MessageSession, type PhotonAesKey, type PhotonMessageValue } from './message'
import { F_LINK, F_ROOT, F_TCP } from './message-fields'
import { DISCONNECT_REASONS, nameOf } from './names'
import { commandDraft, errorLine, FragmentLinks, markPosition, ReliableLinks, type IncompleteInLane } from '../transport-links'
import { readTcpHeader, tcpFrameAt, TCP_MESSAGE, TCP_HEADER } from './tcp'
import { carriesMessage, CMD, commandName, isAck, isFragment, readCommand, readHeader, type PhotonCommand, type PhotonHeader } from './udp'

const PROTOCOL = 'photon'
const other = (d: WireDir): WireDir => (d === 'a2b' ? 'b2a' : 'a2b')

/** Conversation state the message layer reads and updates. */
class PhotonSession implements MessageSession {
  version: GpVersion | null = null
  versionFrom: 'init' | 'subprotocol' = 'init'
  guessedVersion: GpVersion | null = null
  appId: string | null = null
  clientPublic: Uint8Array | null = null
  serverPublic: Uint8Array | null = null
  /** The keys for the key store's version; dropped when a public key comes (a new exchange changes the DH key). */
  private cache: { version: number; keys: PhotonAesKey[] } | undefined

  constructor(private readonly ctx: DecoderContext) {}

  get schema(): PhotonTables | undefined {
    return this.ctx.schema?.photon
  }

  /** Photon's WebSocket clients name the serialization in the subprotocol: GpBinaryV16 / GpBinaryV18. */
  onSubprotocol(protocol: string | undefined): void {
    const m = /^GpBinaryV(16|18)$/i.exec(protocol ?? '')
    if (!m || this.version) return
    this.version = m[1] === '18' ? 18 : 16
    this.versionFrom = 'subprotocol'
  }

  onInit(version: GpVersion | null, appId: string): void {
    if (version) {
      this.version = version
      this.versionFrom = 'init'
    }
    this.appId = appId
  }

  onPublicKey(key: Uint8Array, fromResponse: boolean): void {
    if (fromResponse) this.serverPublic = key
    else this.clientPublic = key
    this.cache = undefined
  }

  missingKeyWarning(): string {
    // A PHOTON_DH_PRIVATE line is there but the capture lacks InitEncryption's public keys: only the other two can open it.
    const dhUseless = !(this.clientPublic && this.serverPublic) && !!this.ctx.keys?.find('PHOTON_DH_PRIVATE', this.ctx.a, this.ctx.b).length
    const types = dhUseless ? (['PHOTON_SECRET', 'PHOTON_AES_KEY'] as const) : (['PHOTON_SECRET', 'PHOTON_AES_KEY', 'PHOTON_DH_PRIVATE'] as const)
    return missingKeyWarning(types, keyConversation(this.ctx.a, this.ctx.b, this.ctx.clientDir))
  }

  aesKeys(): PhotonAesKey[] {
    const store = this.ctx.keys
    if (!store) return []
    if (this.cache && this.cache.version === store.version) return this.cache.keys
    const keys: PhotonAesKey[] = []
    const where = (e: KeyEntry) => (e.line ? `line ${e.line}` : 'added in the app')
    for (const e of store.find('PHOTON_AES_KEY', this.ctx.a, this.ctx.b)) keys.push({ key: e.key, from: `PHOTON_AES_KEY (${where(e)})` })
    for (const e of store.find('PHOTON_SECRET', this.ctx.a, this.ctx.b))
      keys.push({ key: aesKeyFromSecret(e.key), from: `SHA-256 of PHOTON_SECRET (${where(e)})` })
    const priv = store.find('PHOTON_DH_PRIVATE', this.ctx.a, this.ctx.b)
    if (priv.length && this.clientPublic && this.serverPublic) {
      for (const e of priv) {
        const side = matchPrivateExponent(e.key, this.clientPublic, this.serverPublic)
        if (!side) continue
        try {
          const secret = sharedSecret(e.key, side === 'client' ? this.serverPublic : this.clientPublic)
          keys.push({ key: aesKeyFromSecret(secret), from: `PHOTON_DH_PRIVATE of the ${side} (${where(e)}) with the public keys of InitEncryption` })
        } catch (err) {
          this.ctx.note(`Photon key exchange: ${(err as Error).message}`)
        }
      }
    }
    this.cache = { version: store.version, keys }
    return keys
  }
}

interface PendingRequest {
  frame: number
  time: number
}

export class PhotonDecoder implements ProtocolDecoder {
  private readonly session: PhotonSession
  private readonly fragments = new FragmentLinks(F_LINK.reassembled, 'Reassembled message', { message: {} })
  private readonly reliable = new ReliableLinks(F_LINK.ack_frame)
  /** Requests waiting for their response, by direction and "(internal:)opcode", oldest first; made on first use. */
  private pendingMap: Map<string, PendingRequest[]> | undefined
  private readonly tcpLost: Record<WireDir, string | null> = { a2b: null, b2a: null }
  /** SERVERTIME commands waiting for their ACK, keyed "dir:channel:seq" (oldest first, bounded). */
  private serverTimeAsks: Map<string, number> | undefined

  constructor(private readonly ctx: DecoderContext) {
    this.session = new PhotonSession(ctx)
  }

  // ---- messages (shared by every transport) ----

  private message(r: FieldReader, draft: MessageDraft, dir: WireDir, frame: number, time: number): MessageResult {
    const res = decodePhotonMessage(r, draft, this.session)
    this.roleEvidence(res.msgType, dir)
    this.pair(res, dir, frame, time, draft)
    return res
  }

  /**
   * Who sends which message type (docs/photon.md, Roles): Init and InitResponse are the handshake; only a
   * client sends (internal) operation requests, only a server responses and events.
   */
  private roleEvidence(t: number | null, dir: WireDir): void {
    if (t === MSG.INIT) this.ctx.setClient(dir, 'handshake')
    else if (t === MSG.INIT_RESPONSE) this.ctx.setClient(other(dir), 'handshake')
    else if (t === MSG.OP_REQUEST || t === MSG.INTERNAL_REQUEST) this.ctx.setClient(dir, 'semantics')
    else if (t === MSG.OP_RESPONSE || t === MSG.INTERNAL_RESPONSE || t === MSG.EVENT) this.ctx.setClient(other(dir), 'semantics')
  }

  /** Links an OperationResponse to the oldest unanswered request with its code from the other side. */
  private pair(res: MessageResult, dir: WireDir, frame: number, time: number, draft: MessageDraft): void {
    if (res.opCode === undefined) return
    const t = res.msgType
    const internal = t === MSG.INTERNAL_REQUEST || t === MSG.INTERNAL_RESPONSE
    if (t === MSG.OP_REQUEST || t === MSG.INTERNAL_REQUEST) {
      const k = `${dir}:${internal ? 'i' : ''}${res.opCode}`
      const pending = (this.pendingMap ??= new Map())
      const q = pending.get(k) ?? []
      if (q.length < 1024) q.push(Object.freeze({ frame, time })) // frozen: a detail checkpoint shares it (engine/state-copy.ts)
      pending.set(k, q)
    } else if (t === MSG.OP_RESPONSE || t === MSG.INTERNAL_RESPONSE) {
      const req = this.pendingMap?.get(`${other(dir)}:${internal ? 'i' : ''}${res.opCode}`)?.shift()
      if (!req) return
      const ms = Math.round((time - req.time) * 1e6) / 1e3
      res.value.responseTo = req.frame
      res.value.responseTimeMs = ms
      if (draft.tree.recording) {
        draft.tree.add({ key: F_LINK.response_to.key, label: `Response to the request in frame ${req.frame} (${ms} ms later)`, type: 'u32', value: req.frame })
      }
    }
  }

  private out(
    emit: Emit,
    dir: WireDir,
    frames: number[],
    time: number,
    stack: string[],
    draft: MessageDraft,
    name: string,
    summary: string,
    value: unknown,
    error?: DecodeError
  ): void {
    if (error && draft.error === null) draft.error = errorLine(error)
    emit({ dir, frames, time, protocol: PROTOCOL, stack, name, summary, value, draft })
  }

  // ---- UDP and WebSocket ----

  datagram(pdu: Pdu, emit: Emit): void {
    if (pdu.stack.includes('websocket')) this.wsMessage(pdu, emit)
    else this.udpDatagram(pdu, emit)
  }

  private wsMessage(pdu: Pdu, emit: Emit): void {
    this.session.onSubprotocol(this.ctx.websocket?.protocol)
    const at = pduBytes(pdu, 'WebSocket message')
    const r = new FieldReader(at.bytes, pdu.draft.tree, at.source, at.start, at.end)
    const res = this.message(r, pdu.draft, pdu.dir, pdu.frames[pdu.frames.length - 1], pdu.time)
    this.out(emit, pdu.dir, pdu.frames, pdu.time, pdu.stack, pdu.draft, res.name, res.summary, res.value, res.error)
  }

  private udpDatagram(pdu: Pdu, emit: Emit): void {
    const bytes = pdu.bytes
    const frame = pdu.frames[pdu.frames.length - 1]
    // First pass without a tree: the header and where each command is. The index pass keeps what these
    // reads leave in their tree-less builders (the index values of the header and of each command) and
    // gives them to each command's draft; with a tree, each draft reads its header and command again.
    const headerTree = new TreeBuilder(false)
    const scan = new FieldReader(bytes, headerTree, 0)
    const commandTrees: TreeBuilder[] | null = this.ctx.recording ? null : []
    let header: PhotonHeader
    try {
      header = readHeader(scan)
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e
      const { draft, r } = this.udpDraft(pdu, 0)
      try {
        readHeader(r)
      } catch {
        /* the error is reported below; the fields read stay in the tree */
      }
      r.tree.closeAll(r.pos)
      return this.out(
        emit,
        pdu.dir,
        pdu.frames,
        pdu.time,
        pdu.stack,
        draft,
        'Malformed datagram',
        `Photon datagram, ${bytes.length} bytes: ${e.message}`,
        { command: null },
        e
      )
    }
    if (header.datagramEncrypted) return this.encryptedDatagram(pdu, header, emit)
    const commands: PhotonCommand[] = []
    let cmdError: DecodeError | undefined
    for (let i = 0; i < header.commandCount; i++) {
      try {
        if (commandTrees) {
          const tree = new TreeBuilder(false)
          const cr = new FieldReader(bytes, tree, 0, scan.pos)
          commands.push(readCommand(cr))
          scan.pos = cr.pos
          commandTrees.push(tree)
        } else commands.push(readCommand(scan))
      } catch (e) {
        if (!(e instanceof DecodeError)) throw e
        cmdError = e
        break
      }
    }
    const trailing = cmdError ? 0 : scan.remaining
    if (commands.length === 0) {
      const { draft, r } = this.udpDraft(pdu, 0)
      readHeader(r)
      const why = cmdError ?? new DecodeError(header.commandCount === 0 ? 'datagram without commands' : 'no command could be read', r.pos)
      if (cmdError) this.tryCommand(r)
      r.tree.closeAll(r.pos)
      return this.out(
        emit,
        pdu.dir,
        pdu.frames,
        pdu.time,
        pdu.stack,
        draft,
        cmdError ? 'Malformed datagram' : 'Empty datagram',
        `Photon datagram with ${header.commandCount} commands: ${why.message}`,
        { command: null, peerId: header.peerId },
        cmdError ? why : undefined
      )
    }
    for (let i = 0; i < commands.length; i++) {
      const cmd = commands[i]
      const { draft, r } = this.udpDraft(pdu, i)
      if (commandTrees) {
        draft.tree.append(headerTree)
        draft.tree.append(commandTrees[i])
      } else {
        readHeader(r, header)
        r.pos = cmd.start
        readCommand(r)
      }
      if (header.crc && !header.crc.ok)
        draft.warn(
          `CRC mismatch: datagram says 0x${(header.crc.value >>> 0).toString(16).padStart(8, '0')}, computed 0x${(header.crc.computed >>> 0).toString(16).padStart(8, '0')}`
        )
      if (header.warning) draft.warn(header.warning)
      if (i === commands.length - 1) {
        if (cmdError) draft.warn(`command ${i + 2} of ${header.commandCount} could not be read: ${cmdError.message}`)
        if (trailing) draft.warn(`${trailing} bytes after the last of ${header.commandCount} commands`)
      }
      markPosition(draft, r.source, cmd.start, i, commands.length)
      this.command(pdu, draft, r, header, cmd, frame, emit)
    }
  }

  /** A fresh draft for the i-th message of a datagram (the first reuses the engine's draft). */
  private udpDraft(pdu: Pdu, i: number): { draft: MessageDraft; r: FieldReader; source: number } {
    const { draft, source } = commandDraft(pdu, i, this.ctx)
    return { draft, r: new FieldReader(pdu.bytes, draft.tree, source), source }
  }

  private tryCommand(r: FieldReader): void {
    try {
      readCommand(r)
    } catch {
      /* reported by the caller */
    }
  }

  private encryptedDatagram(pdu: Pdu, header: PhotonHeader, emit: Emit): void {
    const { draft, r } = this.udpDraft(pdu, 0)
    readHeader(r)
    draft.warn('datagram encryption: the commands are AES-encrypted with a secret the server gives at authentication, which the capture does not show')
    const blob = header.encrypted ? header.encrypted.blobEnd - header.encrypted.blobStart : 0
    this.out(emit, pdu.dir, pdu.frames, pdu.time, pdu.stack, draft, 'Encrypted datagram', `Encrypted datagram peer=${header.peerId} ${blob} bytes + HMAC`, {
      command: null,
      peerId: header.peerId,
      datagramEncrypted: true,
      challenge: header.challenge
    })
  }

  private command(pdu: Pdu, draft: MessageDraft, r: FieldReader, header: PhotonHeader, cmd: PhotonCommand, frame: number, emit: Emit): void {
    const dir = pdu.dir
    const base: PhotonMessageValue | Record<string, unknown> = {
      command: commandName(cmd.type),
      channel: cmd.channel,
      peerId: header.peerId,
      reliableSeq: cmd.reliableSeq
    }
    let name = commandName(cmd.type)
    // The plain summary is made at the end, for commands without a message of their own.
    let summary = ''
    let error: DecodeError | undefined
    let frames = pdu.frames
    let time = pdu.time
    if (cmd.type === CMD.CONNECT) this.ctx.setClient(dir, 'handshake')
    else if (cmd.type === CMD.VERIFYCONNECT) this.ctx.setClient(other(dir), 'handshake')
    if (cmd.flags & 1 && !isAck(cmd.type)) {
      const first = this.reliable.reliable(draft, dir, cmd.channel, cmd.reliableSeq, frame, pdu.time)
      if (first !== undefined) (base as Record<string, unknown>).retransmissionOf = first
    }
    if (cmd.type === CMD.SERVERTIME) this.serverTimeAsked(dir, cmd)
    let msg: MessageResult | undefined
    if (carriesMessage(cmd.type)) {
      msg = this.message(new FieldReader(pdu.bytes, draft.tree, r.source, cmd.payloadStart, cmd.payloadEnd), draft, dir, frame, pdu.time)
    } else if (isFragment(cmd.type) && cmd.fragment) {
      const f = cmd.fragment
      const res = this.fragments.add(draft, dir, 'message', cmd.channel, f, pdu.bytes.subarray(cmd.payloadStart, cmd.payloadEnd), frame, pdu.time)
      ;(base as Record<string, unknown>).fragment = { ...f }
      summary = `${name} ${f.number + 1}/${f.count} of startSeq ${f.startSeq} ch=${cmd.channel}`
      if (res.kind === 'complete') {
        frames = res.frames
        time = res.time
        // The reassembled message is one reliable message with the start sequence (docs/photon.md).
        ;(base as Record<string, unknown>).reliableSeq = f.startSeq
        msg = this.message(new FieldReader(res.bytes, draft.tree, res.source), draft, dir, frame, pdu.time)
      } else if (res.kind === 'pending') {
        summary += ` (${res.received} of ${res.count} received; the message is decoded with its last fragment)`
      } else if (res.kind === 'duplicate') {
        summary += ' (duplicate)'
      } else {
        error = new DecodeError(`fragment rejected: ${res.message}`, cmd.start)
      }
    } else if (isAck(cmd.type) && cmd.ack) {
      const ack = this.reliable.ack(draft, dir, cmd.channel, cmd.ack.seq, pdu.time)
      Object.assign(base, { ackedSeq: cmd.ack.seq, ackedSentTime: cmd.ack.sentTime })
      summary = `${name} ch=${cmd.channel} seq=${cmd.ack.seq}${ack.text}`
      if (ack.acknowledges !== undefined) Object.assign(base, { acknowledges: ack.acknowledges, rttMs: ack.rttMs })
      if (this.serverTimeAsks?.has(`${other(dir)}:${cmd.channel}:${cmd.ack.seq}`)) {
        // The client reads the server clock from the sent time of the datagram acknowledging SERVERTIME.
        Object.assign(base, { serverTime: header.sentTime })
        summary += ` server time ${header.sentTime}`
        // A string made only with a tree: a closure over `header` would cost command() a context on every call.
        r.record(
          F_LINK.server_time,
          header.sentTime,
          4,
          4,
          r.tree.labels ? `Server time: ${header.sentTime} (this datagram's sent time, acknowledging SERVERTIME)` : undefined
        )
      }
    } else if (cmd.type === CMD.CONNECT && cmd.connect) {
      Object.assign(base, { connect: cmd.connect })
      summary = `${name} mtu=${cmd.connect.mtu} channels=${cmd.connect.channelCount}`
    } else if (cmd.type === CMD.VERIFYCONNECT) {
      Object.assign(base, { assignedPeerId: cmd.verifyPeerId })
      summary = `${name} peerId=${cmd.verifyPeerId}`
    } else if (cmd.type === CMD.DISCONNECT) {
      const reason = cmd.disconnectReason ?? cmd.reserved
      Object.assign(base, { reason, reasonName: nameOf(DISCONNECT_REASONS, reason) })
      summary = `${name} reason=${reason}${nameOf(DISCONNECT_REASONS, reason) ? ` (${nameOf(DISCONNECT_REASONS, reason)})` : ''}`
    }
    let value: Record<string, unknown> = base as Record<string, unknown>
    if (msg) {
      // The message's value is this command's alone: the transport fields are added to it in place (the
      // same keys in the same order as a spread into a new object, without the copy).
      value = Object.assign(msg.value, base)
      name = msg.name
      summary = msg.summary
      error = msg.error
    }
    if (!summary) summary = `${name} ch=${cmd.channel}`
    r.tree.closeAll()
    this.out(emit, dir, frames, time, pdu.stack, draft, name, summary, value, error)
  }

  private serverTimeAsked(dir: WireDir, cmd: PhotonCommand): void {
    const asks = (this.serverTimeAsks ??= new Map())
    const key = `${dir}:${cmd.channel}:${cmd.reliableSeq}`
    asks.delete(key)
    asks.set(key, cmd.reliableSeq)
    if (asks.size > 64) asks.delete(asks.keys().next().value!)
  }

  // ---- TCP ----

  private fromClient(dir: WireDir): boolean {
    return this.ctx.clientDir === dir
  }

  stream(dir: WireDir, s: ByteStream, stack: string[], emit: Emit, final: boolean): void {
    for (;;) {
      if (s.available === 0) return
      if (this.tcpLost[dir] !== null && !this.resync(dir, s, stack, emit, final)) return
      const head = s.peek(Math.min(s.available, TCP_HEADER))
      const fr = tcpFrameAt(head, this.fromClient(dir))
      if (fr.kind === 'need') {
        if (final) this.skip(dir, s, s.available, stack, emit, `incomplete frame header at stream offset ${s.consumed}: the stream ends`)
        return
      }
      if (fr.kind === 'bad') {
        this.tcpLost[dir] = `framing lost at stream offset ${s.consumed}: ${fr.reason}`
        continue
      }
      if (s.available < fr.size) {
        if (final)
          this.skip(
            dir,
            s,
            s.available,
            stack,
            emit,
            `frame at stream offset ${s.consumed} cut short by the end of the capture: ${s.available} of ${fr.size} bytes`
          )
        return
      }
      const t = s.take(fr.size)
      const draft = new MessageDraft(this.ctx)
      const src = draft.addSource('TCP payload', t.bytes)
      const r = new FieldReader(t.bytes, draft.tree, src)
      const root = draft.tree.recording
        ? draft.tree.open({ key: F_ROOT.key, label: 'Photon (TCP)', type: 'none', source: src, start: 0, length: fr.size })
        : null
      const times = readTcpHeader(r, fr, this.fromClient(dir))
      if (fr.kind === 'message') {
        const res = this.message(new FieldReader(t.bytes, draft.tree, src, TCP_HEADER, fr.size), draft, dir, t.frames[t.frames.length - 1], t.time)
        if (root) root.label = `Photon (TCP frame, channel ${fr.channel}, ${fr.reliable ? 'reliable' : 'unreliable'})`
        draft.tree.closeAll(fr.size)
        this.out(
          emit,
          dir,
          t.frames,
          t.time,
          stack,
          draft,
          res.name,
          res.summary,
          { ...res.value, channel: fr.channel, reliable: fr.reliable === 1 },
          res.error
        )
      } else {
        draft.tree.closeAll(fr.size)
        const ping = fr.kind === 'ping'
        const name = ping ? (this.fromClient(dir) ? 'Ping' : 'Ping reply') : 'Proxy'
        const at = times.serverTime !== undefined ? ` server time ${times.serverTime}` : ''
        this.out(emit, dir, t.frames, t.time, stack, draft, name, `${name}${at} (TCP ${ping ? 'F0' : 'F1'}, ${fr.size} bytes)`, {
          command: ping ? 'PING' : 'PROXY',
          ...times
        })
      }
    }
  }

  gap(dir: WireDir, s: ByteStream, missing: number, stack: string[], emit: Emit): void {
    if (s.available > 0) this.skip(dir, s, s.available, stack, emit, `frame at stream offset ${s.consumed} cut short by a TCP gap of ${missing} bytes`)
    this.tcpLost[dir] = `resynchronising after a TCP gap of ${missing} bytes`
  }

  /** Framing lost: skip to the next `FB <len> <ch> <0|1> F3`, emitting the bytes before it as one error. */
  private resync(dir: WireDir, s: ByteStream, stack: string[], emit: Emit, final: boolean): boolean {
    const all = s.peek(s.available)
    let found = -1
    for (let i = 1; i + TCP_HEADER + 1 < all.length; i++) {
      if (all[i] !== TCP_MESSAGE || !startsMessage(all, i + TCP_HEADER)) continue
      const fr = tcpFrameAt(all.subarray(i, i + TCP_HEADER), this.fromClient(dir))
      if (fr.kind === 'message') {
        found = i
        break
      }
    }
    if (found < 0 && !final) {
      // Keep the last few bytes: a header may be arriving.
      const keep = Math.min(all.length, TCP_HEADER + 1)
      if (all.length - keep > 0) this.skip(dir, s, all.length - keep, stack, emit, `${this.tcpLost[dir]}; bytes skipped`)
      return false
    }
    const n = found < 0 ? all.length : found
    this.skip(dir, s, n, stack, emit, `${this.tcpLost[dir]}; ${n} bytes skipped${found >= 0 ? ' up to the next frame' : ''}`)
    this.tcpLost[dir] = null
    return found >= 0
  }

  private skip(dir: WireDir, s: ByteStream, n: number, stack: string[], emit: Emit, why: string): void {
    const t = s.take(n)
    const draft = new MessageDraft(this.ctx)
    const src = draft.addSource('TCP payload', t.bytes)
    draft.error = why
    if (draft.tree.recording)
      draft.tree.add({ key: F_TCP.skipped.key, label: `Skipped bytes: ${n}`, type: 'bytes', value: t.bytes, source: src, start: 0, length: n })
    emit({
      dir,
      frames: t.frames,
      time: t.time,
      protocol: PROTOCOL,
      stack,
      name: 'Skipped bytes',
      summary: `${n} bytes skipped`,
      value: { command: null, skipped: t.bytes },
      draft
    })
  }

  // ---- end of capture ----

  finish(emit: Emit): void {
    for (const inc of this.fragments.incomplete()) this.incomplete(inc, emit)
  }

  private incomplete({ dir, inc, error }: IncompleteInLane, emit: Emit): void {
    const draft = new MessageDraft(this.ctx)
    draft.error = error
    emit({
      dir,
      frames: inc.frames,
      time: inc.lastTime,
      protocol: PROTOCOL,
      stack: ['udp'],
      name: 'Incomplete fragmented message',
      summary: `startSeq ${inc.startSeq} ch=${inc.channel}: ${inc.received} of ${inc.count} fragments (${inc.totalLength} bytes)`,
      value: { command: 'SEND_FRAGMENT', channel: inc.channel, startSeq: inc.startSeq, fragmentCount: inc.count, received: inc.received, missing: inc.missing },
      draft
    })
  }
}
