// A small server-side WebSocket (RFC 6455) for `gamewire serve`: the handshake, text messages in both
// directions (fragmented ones reassembled), ping/pong and close. No extensions are negotiated. Client
// frames must be masked (RFC 6455 §5.1); a message over `maxMessage` bytes or any protocol error closes
// the connection with the matching status code instead of buffering without bound.

import { createHash } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'
const OP_CONT = 0x0
const OP_TEXT = 0x1
const OP_BINARY = 0x2
const OP_CLOSE = 0x8
const OP_PING = 0x9
const OP_PONG = 0xa

export const CLOSE_NORMAL = 1000
export const CLOSE_PROTOCOL = 1002
export const CLOSE_UNSUPPORTED = 1003
export const CLOSE_POLICY = 1008
export const CLOSE_TOO_BIG = 1009

/** The Sec-WebSocket-Accept value for a client key (RFC 6455 §4.2.2). */
export function acceptKey(key: string): string {
  return createHash('sha1')
    .update(key + GUID)
    .digest('base64')
}

/** Checks the upgrade request's WebSocket headers; returns the client key or a reason to refuse. */
export function checkUpgrade(req: IncomingMessage): { key: string } | { error: string } {
  if (req.method !== 'GET') return { error: 'WebSocket upgrade must be a GET' }
  if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') return { error: 'not a WebSocket upgrade' }
  if (req.headers['sec-websocket-version'] !== '13') return { error: 'unsupported WebSocket version' }
  const key = req.headers['sec-websocket-key']
  if (typeof key !== 'string' || Buffer.from(key, 'base64').length !== 16) return { error: 'bad Sec-WebSocket-Key' }
  return { key }
}

/** Encodes one unmasked server frame. */
export function encodeFrame(opcode: number, payload: Uint8Array, fin = true): Buffer {
  const len = payload.length
  const head = len < 126 ? 2 : len < 65536 ? 4 : 10
  const out = Buffer.allocUnsafe(head + len)
  out[0] = (fin ? 0x80 : 0) | opcode
  if (len < 126) out[1] = len
  else if (len < 65536) {
    out[1] = 126
    out.writeUInt16BE(len, 2)
  } else {
    out[1] = 127
    out.writeBigUInt64BE(BigInt(len), 2)
  }
  out.set(payload, head)
  return out
}

export interface WebSocketHandlers {
  message(text: string): void
  close(code: number, reason: string): void
}

export class WebSocketConnection {
  private pending: Buffer = Buffer.alloc(0)
  private fragments: Buffer[] = []
  private fragmentBytes = 0
  private fragmentOpcode = -1
  private closed = false
  /** Frame bytes this has written (what the peer has taken is this less what the socket still queues). */
  private sent = 0
  private stallTimer: ReturnType<typeof setTimeout> | null = null

  constructor(
    private readonly socket: Duplex,
    private readonly handlers: WebSocketHandlers,
    private readonly maxMessage = 4 << 20
  ) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk))
    socket.on('close', () => this.finish(1006, 'connection lost'))
    socket.on('error', () => this.finish(1006, 'connection error'))
  }

  /** Completes the handshake on an upgrade request (already checked with checkUpgrade). */
  static accept(socket: Duplex, key: string, handlers: WebSocketHandlers, maxMessage?: number): WebSocketConnection {
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' + `Sec-WebSocket-Accept: ${acceptKey(key)}\r\n\r\n`)
    return new WebSocketConnection(socket, handlers, maxMessage)
  }

  get isOpen(): boolean {
    return !this.closed
  }

  send(text: string): void {
    if (this.closed) return
    const frame = encodeFrame(OP_TEXT, Buffer.from(text, 'utf8'))
    this.sent += frame.length
    this.socket.write(frame)
  }

  /** Bytes written but not yet taken by the peer (what a client that never reads makes the server hold). */
  get unreadBytes(): number {
    return this.socket.writableLength
  }

  /**
   * While more than `limit` bytes wait for the peer: drops the connection once it has taken none of them
   * for `ms`. A peer that is still reading (one large reply, say) is watched again instead.
   */
  watchUnread(limit: number, ms: number, reason: string): void {
    if (this.closed || this.stallTimer || this.unreadBytes <= limit) return
    const taken = this.sent - this.unreadBytes
    this.stallTimer = setTimeout(() => {
      this.stallTimer = null
      if (this.closed || this.unreadBytes <= limit) return
      if (this.sent - this.unreadBytes === taken) this.drop(CLOSE_POLICY, reason)
      else this.watchUnread(limit, ms, reason)
    }, ms)
    this.stallTimer.unref?.()
  }

  /**
   * Closes without waiting for the peer to read: what is queued is thrown away. For a client that does not
   * read, a closing handshake would only queue behind what it never took.
   */
  drop(code: number, reason: string): void {
    if (this.closed) return
    this.socket.destroy()
    this.finish(code, reason)
  }

  close(code = CLOSE_NORMAL, reason = ''): void {
    if (this.closed) return
    const r = Buffer.from(reason.slice(0, 100), 'utf8')
    const body = Buffer.allocUnsafe(2 + r.length)
    body.writeUInt16BE(code, 0)
    r.copy(body, 2)
    this.socket.end(encodeFrame(OP_CLOSE, body))
    this.finish(code, reason)
  }

  private finish(code: number, reason: string): void {
    if (this.closed) return
    this.closed = true
    if (this.stallTimer) clearTimeout(this.stallTimer)
    this.stallTimer = null
    this.pending = Buffer.alloc(0)
    this.fragments = []
    this.handlers.close(code, reason)
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk
    while (!this.closed) {
      const used = this.parseFrame(this.pending)
      if (used === 0) break
      this.pending = this.pending.subarray(used)
    }
  }

  /** Handles one complete frame at the start of `b`; returns its size, or 0 when it is not complete yet. */
  private parseFrame(b: Buffer): number {
    if (b.length < 2) return 0
    const fin = (b[0] & 0x80) !== 0
    const rsv = b[0] & 0x70
    const opcode = b[0] & 0x0f
    const masked = (b[1] & 0x80) !== 0
    let len = b[1] & 0x7f
    let at = 2
    if (rsv) return this.fail(CLOSE_PROTOCOL, 'reserved bits set without an extension')
    if (!masked) return this.fail(CLOSE_PROTOCOL, 'client frames must be masked')
    if (len === 126) {
      if (b.length < 4) return 0
      len = b.readUInt16BE(2)
      at = 4
    } else if (len === 127) {
      if (b.length < 10) return 0
      const big = b.readBigUInt64BE(2)
      if (big > BigInt(this.maxMessage)) return this.fail(CLOSE_TOO_BIG, 'message too big')
      len = Number(big)
      at = 10
    }
    const control = opcode >= 0x8
    if (control && (len > 125 || !fin)) return this.fail(CLOSE_PROTOCOL, 'bad control frame')
    if (!control && this.fragmentBytes + len > this.maxMessage) return this.fail(CLOSE_TOO_BIG, 'message too big')
    if (b.length < at + 4 + len) return 0
    const mask = b.subarray(at, at + 4)
    const payload = Buffer.allocUnsafe(len)
    for (let i = 0; i < len; i++) payload[i] = b[at + 4 + i] ^ mask[i & 3]
    const size = at + 4 + len
    switch (opcode) {
      case OP_PING:
        this.socket.write(encodeFrame(OP_PONG, payload))
        return size
      case OP_PONG:
        return size
      case OP_CLOSE: {
        const code = payload.length >= 2 ? payload.readUInt16BE(0) : CLOSE_NORMAL
        this.close(code === 1005 || code === 1006 ? CLOSE_NORMAL : code)
        return size
      }
      case OP_TEXT:
      case OP_BINARY:
        if (this.fragmentOpcode !== -1) return this.fail(CLOSE_PROTOCOL, 'new message inside a fragmented one')
        this.fragmentOpcode = opcode
        break
      case OP_CONT:
        if (this.fragmentOpcode === -1) return this.fail(CLOSE_PROTOCOL, 'continuation without a message')
        break
      default:
        return this.fail(CLOSE_PROTOCOL, `unknown opcode ${opcode}`)
    }
    this.fragments.push(payload)
    this.fragmentBytes += len
    if (!fin) return size
    const whole = this.fragments.length === 1 ? this.fragments[0] : Buffer.concat(this.fragments)
    const op = this.fragmentOpcode
    this.fragments = []
    this.fragmentBytes = 0
    this.fragmentOpcode = -1
    if (op === OP_BINARY) return this.fail(CLOSE_UNSUPPORTED, 'only text messages are accepted')
    const text = new TextDecoder('utf-8', { fatal: true })
    let message: string
    try {
      message = text.decode(whole)
    } catch {
      return this.fail(1007, 'text message is not UTF-8')
    }
    this.handlers.message(message)
    return size
  }

  private fail(code: number, reason: string): number {
    this.close(code, reason)
    return 0
  }
}
