// WebSocket (RFC 6455, with permessage-deflate from RFC 7692) over one reassembled TCP connection.
//
// A WebSocketConnection owns nothing but its two ByteStreams' read positions: the caller pushes reassembled
// bytes into the streams and calls `process(dir)`, which consumes whatever is complete in that direction
// and returns events in stream order. It never throws: problems become `error` events.
//
// Modes (`connection.mode`):
//   'handshake'   waiting for the client's HTTP request and the server's HTTP response;
//   'websocket'   the server answered 101 and the bytes that follow are RFC 6455 frames;
//   'raw'         the server answered 101 but the bytes that follow are not WebSocket frames (the "fake
//                 upgrade preamble" some SmartFoxServer games use: a literal HTTP Upgrade exchange, then
//                 both sides talk unframed). Nothing more is consumed from either stream: the caller reads
//                 the ByteStreams directly from here on (they start exactly at the first unframed byte,
//                 unless a direction had already yielded WebSocket-looking frames before the other
//                 direction proved the connection raw);
//   'http-failed' the client did not send a parseable HTTP request, or the server's answer was not
//                 101 (e.g. 400): the connection is plain HTTP or something else. Nothing more is consumed
//                 either; the rest of both streams (e.g. an HTTP error body) is left to the caller.
// Each switch to a mode other than 'handshake' is announced once with a `mode` event.
//
// Frames: a frame is consumed only once it is complete in the stream (header peeked, total length computed,
// then taken). Control frames (close, ping, pong) are emitted when they arrive, so one interleaved in a
// fragmented message comes before that message's event. A header that breaks RFC 6455 on a direction's
// first frame after the handshake switches the connection to 'raw'; later, a header that loses the
// framing (reserved opcode, RSV bits without an extension, bad or oversized length) ends framing in that
// direction with an error, and lesser violations (wrong masking, long control frames) become draft warnings.
//
// Deflate context: each direction keeps the last 32 KiB of its inflated output and inflates each compressed
// message on its own with that window as its preset `dictionary` (RFC 7692 context takeover),
// or with no dictionary when `*_no_context_takeover` was negotiated for that direction.

import { concatBytes } from '../bytes/concat'
import { inflateCapped } from '../bytes/inflate'
import { latestTime, type ByteStream, type TakenBytes } from './byte-stream'
import { defineField, defineFields, type FieldDef } from '../bytes/fields'
import { MessageDraft, label, type TreeSwitch } from '../bytes/tree'
import type { FieldScalar } from '../model/types'
import { headerValue, MAX_HTTP_HEAD, parseHttpHead, tokenList, type HttpHead, type HttpHeader } from './http'

// The HTTP head parser moved to ./http (shared with the HTTP/1.1 layer); re-exported for existing callers.
export { headerValue, MAX_HTTP_HEAD, parseHttpHead, type HttpHead, type HttpHeadResult, type HttpHeader } from './http'

// ---------------------------------------------------------------------------------------------------------
// Fields

const OPCODE_NAMES: Record<number, string> = { 0: 'continuation', 1: 'text', 2: 'binary', 8: 'close', 9: 'ping', 10: 'pong' }

const CLOSE_CODE_NAMES: Record<number, string> = {
  1000: 'Normal closure',
  1001: 'Going away',
  1002: 'Protocol error',
  1003: 'Unsupported data',
  1005: 'No status received',
  1006: 'Abnormal closure',
  1007: 'Invalid payload data',
  1008: 'Policy violation',
  1009: 'Message too big',
  1010: 'Mandatory extension',
  1011: 'Internal error',
  1012: 'Service restart',
  1013: 'Try again later',
  1014: 'Bad gateway',
  1015: 'TLS handshake'
}

const F_ROOT = defineField('websocket', 'WebSocket', 'none')
export const WS_FIELDS = defineFields('websocket', {
  frame: ['Frame', 'none'],
  fin: ['FIN', 'bool'],
  rsv1: ['RSV1', 'bool'],
  rsv2: ['RSV2', 'bool'],
  rsv3: ['RSV3', 'bool'],
  opcode: ['Opcode', 'u8', { names: OPCODE_NAMES }],
  mask: ['Mask', 'bool'],
  payload_len: ['Payload length', 'u32', { description: 'The frame payload length (7-bit field plus the 16- or 64-bit extension when present)' }],
  masking_key: ['Masking key', 'bytes'],
  payload: ['Payload', 'bytes', { description: 'Frame payload as on the wire (masked when the frame is masked)' }],
  compressed: ['Compressed (permessage-deflate)', 'bool'],
  unmasked: ['Unmasked payload', 'bytes'],
  inflated: ['Inflated payload', 'bytes'],
  message_len: ['Message length', 'u32', { description: 'Length of the final (unmasked, joined, inflated) message payload' }],
  close_code: ['Close code', 'u16', { names: CLOSE_CODE_NAMES }],
  close_reason: ['Close reason', 'string'],
  handshake: ['HTTP handshake', 'none'],
  http_line: ['HTTP start line', 'string'],
  http_header: ['HTTP header', 'string']
})
const F = WS_FIELDS

export interface WsExtension {
  name: string
  params: Record<string, string | true>
}

/** Parses a Sec-WebSocket-Extensions value: `name; p1; p2=v, name2; p="v"`. */
export function parseExtensions(value: string | undefined): WsExtension[] {
  if (!value) return []
  const out: WsExtension[] = []
  // split on commas outside quotes
  const items: string[] = []
  let cur = ''
  let quoted = false
  for (const ch of value) {
    if (ch === '"') quoted = !quoted
    if (ch === ',' && !quoted) {
      items.push(cur)
      cur = ''
    } else cur += ch
  }
  items.push(cur)
  for (const item of items) {
    const parts = item.split(';').map((p) => p.trim())
    if (!parts[0]) continue
    const ext: WsExtension = { name: parts[0].toLowerCase(), params: {} }
    for (const p of parts.slice(1)) {
      if (!p) continue
      const eq = p.indexOf('=')
      if (eq < 0) ext.params[p.toLowerCase()] = true
      else
        ext.params[p.slice(0, eq).trim().toLowerCase()] = p
          .slice(eq + 1)
          .trim()
          .replace(/^"(.*)"$/, '$1')
    }
    out.push(ext)
  }
  return out
}

/**
 * Whether the first bytes a client sent start an HTTP/1.1 GET with `Upgrade: websocket`.
 * 'need-more' while the head is incomplete (and still shorter than 8 KiB).
 */
export function detectHttpUpgrade(firstClientBytes: Uint8Array): 'http-upgrade' | 'no' | 'need-more' {
  const get = 'GET '
  for (let i = 0; i < Math.min(firstClientBytes.length, get.length); i++) {
    if (firstClientBytes[i] !== get.charCodeAt(i)) return 'no'
  }
  const r = parseHttpHead(firstClientBytes)
  if (r.status === 'need-more') return 'need-more'
  if (r.status === 'invalid') return 'no'
  const h = r.head
  if (h.kind !== 'request' || h.method !== 'GET' || !/^HTTP\/1\.[1-9]$/.test(h.version)) return 'no'
  return tokenList(headerValue(h, 'upgrade')).some((t) => t.toLowerCase() === 'websocket') ? 'http-upgrade' : 'no'
}

// ---------------------------------------------------------------------------------------------------------
// Events

export type WsDirection = 'c2s' | 's2c'
export type WsMode = 'handshake' | 'websocket' | 'raw' | 'http-failed'

export interface WsRequestInfo {
  method: string
  /** Request target as sent (path and query). */
  path: string
  version: string
  host?: string
  /** Sec-WebSocket-Protocol values offered, in order. */
  protocols: string[]
  /** Sec-WebSocket-Extensions offered (raw header value and parsed). */
  extensionsHeader?: string
  extensions: WsExtension[]
  key?: string
  wsVersion?: string
  headers: HttpHeader[]
}

export interface DeflateParams {
  clientNoContextTakeover: boolean
  serverNoContextTakeover: boolean
  clientMaxWindowBits: number | null
  serverMaxWindowBits: number | null
}

export interface WsResponseInfo {
  status: number
  reason: string
  version: string
  /** Sec-WebSocket-Protocol accepted. */
  protocol?: string
  /** Sec-WebSocket-Extensions accepted (raw header value and parsed). */
  extensionsHeader?: string
  extensions: WsExtension[]
  /** permessage-deflate parameters when the server accepted it. */
  deflate: DeflateParams | null
  accept?: string
  headers: HttpHeader[]
}

interface WsEventBase {
  dir: WsDirection
  /** Capture frame numbers that carried a byte of this event, ascending. */
  frames: number[]
  /** Time of the last of `frames`. */
  time: number
  /** Stream offset (in this direction) of the event's first byte. */
  offset: number
}

export interface WsHandshakeEvent extends WsEventBase {
  kind: 'handshake'
  /** The HTTP head bytes (consumed from the stream). */
  bytes: Uint8Array
  head: HttpHead
  /** Set on the c2s handshake event. */
  request?: WsRequestInfo
  /** Set on the s2c handshake event. */
  response?: WsResponseInfo
  /** Source 0 "HTTP handshake" with a `websocket.handshake` group of start line and header fields. */
  draft: MessageDraft
}

export interface WsModeEvent {
  kind: 'mode'
  mode: Exclude<WsMode, 'handshake'>
  reason: string
  /** The direction whose bytes decided the mode. */
  dir: WsDirection
  /** Stream offset (in `dir`) where the mode starts to apply; for 'raw', the first unframed byte. */
  offset: number
  frames: number[]
}

export interface WsMessageEvent extends WsEventBase {
  kind: 'message'
  opcode: 1 | 2
  text: boolean
  compressed: boolean
  /** Final payload: unmasked, joined, inflated. */
  payload: Uint8Array
  /**
   * The draft source holding `payload`, and where in it the payload starts (length = payload.length).
   * A non-empty payload is always a whole source of its own (payloadOffset 0), so a decoder may read
   * `payload` as source `payloadSource` directly; an empty payload points at source 0.
   */
  payloadSource: number
  payloadOffset: number
  /**
   * Source 0 "WebSocket frames" (all its frames as on the wire, masked), then the payload source: 1 "Payload"
   * (a view of one unmasked frame's payload), "Unmasked payload" (masked) or "Joined payload" (several
   * unmasked frames); then "Inflated payload" when compressed. Tree: group `websocket` with one
   * `websocket.frame` subgroup per frame (fin, rsv1-3, opcode, mask, payload_len, masking_key, payload with
   * ranges into source 0), then `websocket.unmasked`, `websocket.inflated`, `websocket.compressed`,
   * `websocket.message_len`.
   */
  draft: MessageDraft
}

export interface WsControlEvent extends WsEventBase {
  kind: 'control'
  opcode: 8 | 9 | 10
  closeCode?: number
  closeReason?: string
  /** Unmasked payload. */
  payload: Uint8Array
  /** As for messages; close code/reason fields point into this source. */
  payloadSource: number
  payloadOffset: number
  /** Same layout as a message's draft, plus `websocket.close_code` / `websocket.close_reason` for close frames. */
  draft: MessageDraft
}

export interface WsErrorEvent {
  kind: 'error'
  dir: WsDirection
  /** Human-readable, includes the stream offset. */
  message: string
  offset: number
  frames: number[]
  time?: number
  /** For a message that was framed but could not be decoded (e.g. inflate failed): its draft, with `error` set. */
  draft?: MessageDraft
}

export type WsEvent = WsHandshakeEvent | WsModeEvent | WsMessageEvent | WsControlEvent | WsErrorEvent

export interface WebSocketOptions {
  /** Largest payload of one frame and of one joined message (default 64 MiB). */
  maxMessageBytes?: number
  /** Largest inflated message (default 64 MiB). */
  maxInflateBytes?: number
  /** Build field trees in drafts (default true; sources are always added); a switch is read per message. */
  recordTree?: boolean | TreeSwitch
}

// ---------------------------------------------------------------------------------------------------------
// Connection

interface WireFrame {
  taken: TakenBytes
  fin: boolean
  rsv1: boolean
  rsv2: boolean
  rsv3: boolean
  opcode: number
  masked: boolean
  /** Bytes of the extended length (0, 2 or 8). */
  extLen: number
  hdrLen: number
  len: number
  /** Unmasked payload. */
  payload: Uint8Array
}

interface PendingMessage {
  opcode: 1 | 2
  compressed: boolean
  parts: WireFrame[]
  size: number
  warnings: string[]
}

interface DirState {
  /** Framing lost or given up in this direction: nothing more is consumed. */
  stopped: boolean
  /** No more bytes will arrive (process was called with final). */
  ended: boolean
  endReported: boolean
  /** WebSocket frames consumed in this direction after the handshake. */
  frameCount: number
  closed: boolean
  msg: PendingMessage | null
  /**
   * Last inflated output, at most 32 KiB (the LZ77 window for context takeover): `window[0, windowLen)`.
   * One buffer per direction, made on the first compressed message and slid in place (a new 32 KiB array
   * per message was a large share of the allocation on compressed traffic).
   */
  window: Uint8Array | null
  windowLen: number
  contextLost: boolean
}

const WINDOW = 32768
const DEFLATE_TAIL = new Uint8Array([0x00, 0x00, 0xff, 0xff])
const utf8Fatal = new TextDecoder('utf-8', { fatal: true })
const utf8Lenient = new TextDecoder('utf-8', { fatal: false })

/** A problem with a frame header: `fatal` loses framing; any problem on a direction's first frame means raw. */
interface FrameProblem {
  reason: string
  fatal: boolean
}

export class WebSocketConnection {
  mode: WsMode = 'handshake'
  modeReason = ''
  request: WsRequestInfo | null = null
  response: WsResponseInfo | null = null
  readonly maxMessageBytes: number
  readonly maxInflateBytes: number
  private readonly trees: TreeSwitch
  private readonly st: Record<WsDirection, DirState>

  constructor(
    readonly c2s: ByteStream,
    readonly s2c: ByteStream,
    opts: WebSocketOptions = {}
  ) {
    this.maxMessageBytes = opts.maxMessageBytes ?? 64 * 1024 * 1024
    this.maxInflateBytes = opts.maxInflateBytes ?? 64 * 1024 * 1024
    const record = opts.recordTree ?? true
    this.trees = typeof record === 'boolean' ? { recording: record, labels: record } : record
    const mk = (): DirState => ({
      stopped: false,
      ended: false,
      endReported: false,
      frameCount: 0,
      closed: false,
      msg: null,
      window: null,
      windowLen: 0,
      contextLost: false
    })
    this.st = { c2s: mk(), s2c: mk() }
  }

  /** permessage-deflate parameters negotiated, or null. */
  get deflate(): DeflateParams | null {
    return this.response?.deflate ?? null
  }

  stream(dir: WsDirection): ByteStream {
    return dir === 'c2s' ? this.c2s : this.s2c
  }

  /**
   * Consumes what is complete in `dir` and returns the events in order. `final` means no more bytes will
   * arrive in that direction: an incomplete frame or message is then reported as an error.
   * When the server's handshake response completes, client frames that were waiting for it are processed
   * in the same call (their events carry dir 'c2s'). In 'raw' and 'http-failed' modes nothing is consumed.
   */
  process(dir: WsDirection, final = false): WsEvent[] {
    const out: WsEvent[] = []
    try {
      if (final) this.st[dir].ended = true
      this.run(dir, out)
    } catch (e) {
      const s = this.stream(dir)
      this.st[dir].stopped = true
      out.push({ kind: 'error', dir, message: `internal error at offset ${s.consumed}: ${(e as Error)?.message ?? String(e)}`, offset: s.consumed, frames: [] })
    }
    return out
  }

  private run(dir: WsDirection, out: WsEvent[]): void {
    if (this.mode === 'raw' || this.mode === 'http-failed') return
    if (dir === 'c2s') {
      if (!this.request) {
        if (!this.readHead('c2s', out)) return
      }
      if (!this.response || this.mode !== 'websocket') return
      this.readFrames('c2s', out)
    } else {
      if (!this.response) {
        if (!this.readHead('s2c', out)) return
        if (this.mode !== 'websocket') return
        this.readFrames('s2c', out)
        // client frames that waited for the server's answer
        this.run('c2s', out)
        return
      }
      if (this.mode !== 'websocket') return
      this.readFrames('s2c', out)
    }
  }

  private setMode(mode: Exclude<WsMode, 'handshake'>, reason: string, dir: WsDirection, out: WsEvent[]): void {
    if (this.mode === mode) return
    this.mode = mode
    this.modeReason = reason
    const s = this.stream(dir)
    const nf = s.nextFrame
    out.push({ kind: 'mode', mode, reason, dir, offset: s.consumed, frames: nf === undefined ? [] : [nf] })
  }

  /** Reads the HTTP head of `dir`. Returns true when it was read and the connection can go on. */
  private readHead(dir: WsDirection, out: WsEvent[]): boolean {
    const s = this.stream(dir)
    const st = this.st[dir]
    if (st.stopped) return false
    const what = dir === 'c2s' ? "client's HTTP request" : "server's HTTP response"
    const r = parseHttpHead(s.peek(Math.min(s.available, MAX_HTTP_HEAD)))
    if (r.status === 'need-more') {
      if (st.ended && !st.endReported) {
        st.endReported = true
        st.stopped = true
        const message = s.available
          ? `connection ended inside the ${what} at offset ${s.consumed} (${s.available} bytes, no blank line)`
          : `connection ended before the ${what} (offset ${s.consumed})`
        out.push({ kind: 'error', dir, message, offset: s.consumed, frames: frameOf(s) })
      }
      return false
    }
    if (r.status === 'invalid' || r.head.kind !== (dir === 'c2s' ? 'request' : 'response')) {
      const reason = r.status === 'invalid' ? r.reason : `expected an HTTP ${dir === 'c2s' ? 'request' : 'response'}`
      this.setMode('http-failed', `${what} at offset ${s.consumed} is not valid: ${reason}`, dir, out)
      return false
    }
    const head = r.head
    const taken = s.take(head.length)
    const draft = new MessageDraft(this.trees)
    draft.addSource('HTTP handshake', taken.bytes)
    const t = draft.tree
    if (t.recording) {
      t.open({ key: F.handshake.key, label: `HTTP ${head.kind}: ${head.startLine}`, type: 'none', source: 0, start: 0, length: head.length })
      t.add({ key: F.http_line.key, label: head.startLine, type: 'string', value: head.startLine, source: 0, start: 0, length: head.startLine.length })
      for (const h of head.headers) {
        const v = `${h.name}: ${h.value}`
        t.add({ key: F.http_header.key, label: v, type: 'string', value: v, source: 0, start: h.start, length: h.length })
      }
      t.close()
    }
    const base = { kind: 'handshake' as const, dir, frames: taken.frames, time: taken.time, offset: taken.offset, bytes: taken.bytes, head, draft }
    if (dir === 'c2s') {
      const extensionsHeader = headerValue(head, 'sec-websocket-extensions')
      this.request = {
        method: head.method ?? '',
        path: head.target ?? '',
        version: head.version,
        host: headerValue(head, 'host'),
        protocols: tokenList(headerValue(head, 'sec-websocket-protocol')),
        extensionsHeader,
        extensions: parseExtensions(extensionsHeader),
        key: headerValue(head, 'sec-websocket-key'),
        wsVersion: headerValue(head, 'sec-websocket-version'),
        headers: head.headers
      }
      if (!tokenList(headerValue(head, 'upgrade')).some((x) => x.toLowerCase() === 'websocket')) {
        draft.warn('request has no "Upgrade: websocket" header')
      }
      out.push({ ...base, request: this.request })
      return true
    }
    const extensionsHeader = headerValue(head, 'sec-websocket-extensions')
    const extensions = parseExtensions(extensionsHeader)
    const pmd = extensions.find((e) => e.name === 'permessage-deflate')
    const bits = (v: string | true | undefined): number | null => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null)
    this.response = {
      status: head.status ?? 0,
      reason: head.reason ?? '',
      version: head.version,
      protocol: headerValue(head, 'sec-websocket-protocol'),
      extensionsHeader,
      extensions,
      deflate: pmd
        ? {
            clientNoContextTakeover: pmd.params['client_no_context_takeover'] !== undefined,
            serverNoContextTakeover: pmd.params['server_no_context_takeover'] !== undefined,
            clientMaxWindowBits: bits(pmd.params['client_max_window_bits']),
            serverMaxWindowBits: bits(pmd.params['server_max_window_bits'])
          }
        : null,
      accept: headerValue(head, 'sec-websocket-accept'),
      headers: head.headers
    }
    const unknown = extensions.filter((e) => e.name !== 'permessage-deflate')
    if (unknown.length) draft.warn(`unsupported extension(s) accepted: ${unknown.map((e) => e.name).join(', ')}; their frames are shown undecoded`)
    out.push({ ...base, response: this.response })
    if (this.response.status !== 101) {
      this.setMode('http-failed', `server answered ${this.response.status} ${this.response.reason}`.trim(), 's2c', out)
      return false
    }
    this.setMode('websocket', `server answered ${this.response.status} ${this.response.reason}`.trim(), 's2c', out)
    return true
  }

  private get unknownExtensions(): boolean {
    return (this.response?.extensions ?? []).some((e) => e.name !== 'permessage-deflate')
  }

  /** Checks what the first two header bytes allow (before the rest of the frame has arrived). */
  private checkHeaderStart(dir: WsDirection, b0: number, b1: number): FrameProblem | null {
    const st = this.st[dir]
    const rsv1 = (b0 & 0x40) !== 0
    const rsv2 = (b0 & 0x20) !== 0
    const rsv3 = (b0 & 0x10) !== 0
    const fin = (b0 & 0x80) !== 0
    const opcode = b0 & 0x0f
    const masked = (b1 & 0x80) !== 0
    const len7 = b1 & 0x7f
    const ext = this.unknownExtensions
    if ((opcode >= 3 && opcode <= 7) || opcode >= 11) return { reason: `reserved opcode ${opcode}`, fatal: true }
    if ((rsv2 || rsv3) && !ext) return { reason: `RSV${rsv2 ? 2 : 3} set without a negotiated extension`, fatal: true }
    if (rsv1 && !ext && !this.deflate) return { reason: 'RSV1 set without a negotiated extension', fatal: true }
    if (dir === 'c2s' && !masked) return { reason: 'client frame not masked', fatal: false }
    if (dir === 's2c' && masked) return { reason: 'server frame masked', fatal: false }
    if (opcode >= 8) {
      if (!fin) return { reason: 'fragmented control frame', fatal: false }
      if (len7 > 125) return { reason: 'control frame payload longer than 125 bytes', fatal: false }
      if (rsv1 && !ext) return { reason: 'RSV1 set on a control frame', fatal: false }
    } else if (opcode === 0) {
      if (!st.msg) return { reason: 'continuation frame without a message in progress', fatal: false }
      if (rsv1 && !ext) return { reason: 'RSV1 set on a continuation frame', fatal: false }
    }
    return null
  }

  private readFrames(dir: WsDirection, out: WsEvent[]): void {
    const s = this.stream(dir)
    const st = this.st[dir]
    for (;;) {
      if (st.stopped || this.mode !== 'websocket') return
      const avail = s.available
      if (avail === 0) {
        if (st.ended && !st.endReported) {
          st.endReported = true
          this.unfinishedMessage(dir, out)
        }
        return
      }
      const offset = s.consumed
      if (st.closed) {
        st.stopped = true
        out.push({ kind: 'error', dir, message: `${avail} byte(s) after the close frame at offset ${offset}`, offset, frames: frameOf(s) })
        return
      }
      if (avail < 2) return this.pending(dir, out, 2)
      const b0 = s.byteAt(0)
      const b1 = s.byteAt(1)
      const first = st.frameCount === 0
      const problem = this.checkHeaderStart(dir, b0, b1)
      if (problem && (first || problem.fatal)) return this.reject(dir, problem.reason, first, out)
      const masked = (b1 & 0x80) !== 0
      const len7 = b1 & 0x7f
      const extLen = len7 === 126 ? 2 : len7 === 127 ? 8 : 0
      const hdrLen = 2 + extLen + (masked ? 4 : 0)
      if (avail < hdrLen) return this.pending(dir, out, hdrLen)
      let len = len7
      if (extLen === 2) {
        len = (s.byteAt(2) << 8) | s.byteAt(3)
      } else if (extLen === 8) {
        const hi = ((s.byteAt(2) << 24) | (s.byteAt(3) << 16) | (s.byteAt(4) << 8) | s.byteAt(5)) >>> 0
        const lo = ((s.byteAt(6) << 24) | (s.byteAt(7) << 16) | (s.byteAt(8) << 8) | s.byteAt(9)) >>> 0
        if (hi & 0x80000000) return this.reject(dir, '64-bit payload length with the most significant bit set', first, out)
        if (hi > 0x1fffff) {
          const big = (BigInt(hi) << 32n) | BigInt(lo)
          return this.reject(dir, `payload length ${big} exceeds maxMessageBytes (${this.maxMessageBytes})`, false, out)
        }
        len = hi * 0x100000000 + lo
      }
      if (len > this.maxMessageBytes) return this.reject(dir, `payload length ${len} exceeds maxMessageBytes (${this.maxMessageBytes})`, false, out)
      const opcode = b0 & 0x0f
      if (opcode === 0 && st.msg && st.msg.size + len > this.maxMessageBytes) {
        return this.reject(dir, `fragmented message reaches ${st.msg.size + len} bytes, more than maxMessageBytes (${this.maxMessageBytes})`, false, out)
      }
      const total = hdrLen + len
      if (avail < total) return this.pending(dir, out, total)
      if (opcode === 8 && first) {
        // A close as the very first frame is legal, but so is a fake-preamble byte 0x88 0x00 (e.g. an SFS2X
        // "big size" header). Nothing may follow a close: look ahead before accepting it.
        if (avail > total) return this.reject(dir, 'bytes follow a close frame', true, out)
        if (!st.ended) return
      }
      if (opcode === 8 && len >= 2 && first) {
        const code = (s.byteAt(hdrLen) ^ (masked ? s.byteAt(hdrLen - 4) : 0)) * 256 + (s.byteAt(hdrLen + 1) ^ (masked ? s.byteAt(hdrLen - 3) : 0))
        if (!validCloseCode(code)) return this.reject(dir, `invalid close code ${code}`, true, out)
      }
      if (opcode === 8 && len === 1 && first) return this.reject(dir, 'close frame with a 1-byte payload', true, out)

      const taken = s.take(total)
      st.frameCount++
      const bytes = taken.bytes
      let payload: Uint8Array
      if (masked) {
        const k = hdrLen - 4
        payload = new Uint8Array(len)
        for (let i = 0; i < len; i++) payload[i] = bytes[hdrLen + i] ^ bytes[k + (i & 3)]
      } else {
        payload = bytes.subarray(hdrLen)
      }
      const wf: WireFrame = {
        taken,
        fin: (b0 & 0x80) !== 0,
        rsv1: (b0 & 0x40) !== 0,
        rsv2: (b0 & 0x20) !== 0,
        rsv3: (b0 & 0x10) !== 0,
        opcode,
        masked,
        extLen,
        hdrLen,
        len,
        payload
      }
      this.onFrame(dir, wf, problem?.reason ?? null, out)
    }
  }

  /** Waits for more bytes, or reports the truncated frame when the direction has ended. */
  private pending(dir: WsDirection, out: WsEvent[], need: number): void {
    const st = this.st[dir]
    if (!st.ended || st.endReported) return
    st.endReported = true
    st.stopped = true
    const s = this.stream(dir)
    const taken = s.takeAll()
    out.push({
      kind: 'error',
      dir,
      message: `truncated frame at offset ${taken.offset}: needs ${need} bytes, only ${taken.bytes.length} present before the end of the stream`,
      offset: taken.offset,
      frames: taken.frames,
      time: taken.time
    })
    this.unfinishedMessage(dir, out)
  }

  /** The direction ended while a fragmented message was still open: report it and drop it. */
  private unfinishedMessage(dir: WsDirection, out: WsEvent[]): void {
    const m = this.st[dir].msg
    if (!m) return
    this.st[dir].msg = null
    out.push({
      kind: 'error',
      dir,
      message: `connection ended inside a fragmented message starting at offset ${m.parts[0].taken.offset} (${m.parts.length} frame(s), no FIN)`,
      offset: m.parts[0].taken.offset,
      frames: unionFrames(m.parts),
      time: latestTime(m.parts.map((p) => p.taken))
    })
  }

  /** A frame header that cannot be accepted: raw mode when it is the direction's first frame, else framing lost. */
  private reject(dir: WsDirection, reason: string, mayBeRaw: boolean, out: WsEvent[]): void {
    const s = this.stream(dir)
    const st = this.st[dir]
    const offset = s.consumed
    if (mayBeRaw && st.frameCount === 0) {
      this.setMode('raw', `${dir} bytes at offset ${offset} after the HTTP handshake are not WebSocket frames (${reason})`, dir, out)
      return
    }
    st.stopped = true
    out.push({
      kind: 'error',
      dir,
      message: `invalid frame at offset ${offset}: ${reason}; WebSocket framing lost in this direction`,
      offset,
      frames: frameOf(s)
    })
  }

  private onFrame(dir: WsDirection, wf: WireFrame, warning: string | null, out: WsEvent[]): void {
    const st = this.st[dir]
    if (wf.opcode >= 8) {
      out.push(this.control(dir, wf, warning))
      if (wf.opcode === 8) st.closed = true
      return
    }
    if (wf.opcode === 0) {
      if (!st.msg) {
        out.push({
          kind: 'error',
          dir,
          message: `continuation frame at offset ${wf.taken.offset} without a message in progress (skipped)`,
          offset: wf.taken.offset,
          frames: wf.taken.frames,
          time: wf.taken.time
        })
        return
      }
      st.msg.parts.push(wf)
      st.msg.size += wf.len
    } else {
      if (st.msg) {
        const m = st.msg
        out.push({
          kind: 'error',
          dir,
          message: `fragmented message starting at offset ${m.parts[0].taken.offset} never finished: a new message starts at offset ${wf.taken.offset}`,
          offset: m.parts[0].taken.offset,
          frames: unionFrames(m.parts),
          time: latestTime(m.parts.map((p) => p.taken))
        })
      }
      st.msg = { opcode: wf.opcode as 1 | 2, compressed: wf.rsv1 && !!this.deflate, parts: [wf], size: wf.len, warnings: [] }
    }
    const m = st.msg
    if (warning) m.warnings.push(`frame at offset ${wf.taken.offset}: ${warning}`)
    if (wf.fin) {
      st.msg = null
      out.push(this.finish(dir, m))
    }
  }

  /** Draft with source 0 (wire bytes), the frame tree, and source 1 (unmasked/joined) when needed. */
  private frameDraft(parts: WireFrame[], kindLabel: string): { draft: MessageDraft; joined: Uint8Array; joinedSource: number; joinedOffset: number } {
    const draft = new MessageDraft(this.trees)
    const wire = concatBytes(parts.map((p) => p.taken.bytes))
    draft.addSource('WebSocket frames', wire)
    const t = draft.tree
    if (t.recording) {
      t.open({
        key: F_ROOT.key,
        label: `WebSocket ${kindLabel}, ${parts.length} frame${parts.length === 1 ? '' : 's'}, ${wire.length} bytes`,
        type: 'none',
        source: 0,
        start: 0,
        length: wire.length
      })
      let base = 0
      parts.forEach((p, i) => {
        const opName = OPCODE_NAMES[p.opcode] ?? `opcode ${p.opcode}`
        const flags = [p.fin ? 'FIN' : '', p.rsv1 ? 'RSV1' : '', p.masked ? 'masked' : ''].filter(Boolean).join(', ')
        t.open({
          key: F.frame.key,
          label: `Frame ${i + 1}: ${opName}${flags ? `, ${flags}` : ''}, payload ${p.len} bytes`,
          type: 'none',
          source: 0,
          start: base,
          length: p.taken.bytes.length
        })
        leaf(t, F.fin, p.fin, base, 1)
        leaf(t, F.rsv1, p.rsv1, base, 1)
        leaf(t, F.rsv2, p.rsv2, base, 1)
        leaf(t, F.rsv3, p.rsv3, base, 1)
        leaf(t, F.opcode, p.opcode, base, 1)
        leaf(t, F.mask, p.masked, base + 1, 1)
        leaf(t, F.payload_len, p.len, base + 1, 1 + p.extLen)
        if (p.masked) leaf(t, F.masking_key, wire.subarray(base + p.hdrLen - 4, base + p.hdrLen), base + p.hdrLen - 4, 4)
        const wirePayload = wire.subarray(base + p.hdrLen, base + p.hdrLen + p.len)
        leaf(
          t,
          F.payload,
          wirePayload,
          base + p.hdrLen,
          p.len,
          p.masked ? `Payload (masked): ${label(F.payload, wirePayload).slice(F.payload.name.length + 2)}` : undefined
        )
        t.close()
        base += p.taken.bytes.length
      })
    }
    // The payload always gets a source of its own (offset 0), so a decoder can read `payload` with
    // `payloadSource` directly: a zero-copy view for one unmasked frame, else the unmasked, joined bytes.
    let joined: Uint8Array
    let name: string
    if (parts.length === 1 && !parts[0].masked) {
      joined = parts[0].payload
      name = 'Payload'
    } else {
      joined = concatBytes(parts.map((p) => p.payload))
      name = parts.some((p) => p.masked) ? 'Unmasked payload' : 'Joined payload'
    }
    let joinedSource = 0
    let joinedOffset = parts[0].hdrLen
    if (joined.length > 0) {
      joinedSource = draft.addSource(name, joined)
      joinedOffset = 0
      leaf(t, F.unmasked, joined, 0, joined.length, `${name}: ${label(F.unmasked, joined).slice(F.unmasked.name.length + 2)}`, joinedSource)
    }
    return { draft, joined, joinedSource, joinedOffset }
  }

  private control(dir: WsDirection, wf: WireFrame, warning: string | null): WsControlEvent {
    const name = OPCODE_NAMES[wf.opcode] ?? `opcode ${wf.opcode}`
    const { draft, joined, joinedSource, joinedOffset } = this.frameDraft([wf], `${name} frame`)
    if (warning) draft.warn(warning)
    const ev: WsControlEvent = {
      kind: 'control',
      dir,
      opcode: wf.opcode as 8 | 9 | 10,
      frames: wf.taken.frames,
      time: wf.taken.time,
      offset: wf.taken.offset,
      payload: joined,
      payloadSource: joinedSource,
      payloadOffset: joinedOffset,
      draft
    }
    if (wf.opcode === 8) {
      if (joined.length >= 2) {
        ev.closeCode = (joined[0] << 8) | joined[1]
        leaf(draft.tree, F.close_code, ev.closeCode, joinedOffset, 2, undefined, joinedSource)
        if (!validCloseCode(ev.closeCode)) draft.warn(`invalid close code ${ev.closeCode}`)
        const reasonBytes = joined.subarray(2)
        try {
          ev.closeReason = utf8Fatal.decode(reasonBytes)
        } catch {
          ev.closeReason = utf8Lenient.decode(reasonBytes)
          draft.warn('close reason is not valid UTF-8')
        }
        if (reasonBytes.length) leaf(draft.tree, F.close_reason, ev.closeReason, joinedOffset + 2, reasonBytes.length, undefined, joinedSource)
      } else if (joined.length === 1) {
        draft.warn('close frame with a 1-byte payload')
      }
    }
    draft.tree.closeAll()
    return ev
  }

  private finish(dir: WsDirection, m: PendingMessage): WsMessageEvent | WsErrorEvent {
    const st = this.st[dir]
    const first = m.parts[0]
    const time = latestTime(m.parts.map((p) => p.taken))
    const kindLabel = `${m.opcode === 1 ? 'text' : 'binary'} message${m.compressed ? ' (compressed)' : ''}`
    const { draft, joined, joinedSource, joinedOffset } = this.frameDraft(m.parts, kindLabel)
    for (const w of m.warnings) draft.warn(w)
    const t = draft.tree
    leaf(t, F.compressed, m.compressed, 0, 1)
    const frames = unionFrames(m.parts)
    const fail = (message: string): WsErrorEvent => {
      draft.error = message
      t.closeAll()
      return { kind: 'error', dir, message, offset: first.taken.offset, frames, time, draft }
    }
    let payload = joined
    let payloadSource = joinedSource
    let payloadOffset = joinedOffset
    if (m.compressed) {
      const d = this.deflate!
      const takeover = dir === 'c2s' ? !d.clientNoContextTakeover : !d.serverNoContextTakeover
      if (takeover && st.contextLost) {
        return fail(`compressed message at offset ${first.taken.offset}: deflate context lost (an earlier message in this direction could not be inflated)`)
      }
      const r = inflateMessage(joined, takeover && st.window ? st.window.subarray(0, st.windowLen) : null, this.maxInflateBytes)
      if (!r.ok) {
        if (takeover) st.contextLost = true
        return fail(`compressed message at offset ${first.taken.offset}: ${r.error}`)
      }
      payload = r.out
      if (takeover) slideWindow(st, payload)
      payloadSource = draft.addSource('Inflated payload', payload)
      payloadOffset = 0
      leaf(t, F.inflated, payload, 0, payload.length, undefined, payloadSource)
    }
    leaf(t, F.message_len, payload.length, payloadOffset, payload.length, undefined, payloadSource)
    if (m.opcode === 1) {
      try {
        utf8Fatal.decode(payload)
      } catch {
        draft.warn('text message is not valid UTF-8')
      }
    }
    t.closeAll()
    return {
      kind: 'message',
      dir,
      opcode: m.opcode,
      text: m.opcode === 1,
      compressed: m.compressed,
      frames,
      time,
      offset: first.taken.offset,
      payload,
      payloadSource,
      payloadOffset,
      draft
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Helpers

function leaf(t: MessageDraft['tree'], def: FieldDef, value: FieldScalar, start: number, length: number, labelText?: string, source = 0): void {
  if (!t.recording) return
  t.add({ key: def.key, label: labelText ?? label(def, value), type: def.type, value, source, start, length })
}

function validCloseCode(code: number): boolean {
  return (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999)
}

function frameOf(s: ByteStream): number[] {
  const f = s.nextFrame
  return f === undefined ? [] : [f]
}

function unionFrames(parts: WireFrame[]): number[] {
  if (parts.length === 1) return parts[0].taken.frames
  const all = new Set<number>()
  for (const p of parts) for (const f of p.taken.frames) all.add(f)
  return [...all].sort((a, b) => a - b)
}

/** Appends `out` to the direction's window, keeping its last 32 KiB, in the direction's one buffer. */
function slideWindow(st: DirState, out: Uint8Array): void {
  const w = (st.window ??= new Uint8Array(WINDOW))
  if (out.length >= WINDOW) {
    w.set(out.subarray(out.length - WINDOW))
    st.windowLen = WINDOW
    return
  }
  const keep = Math.min(st.windowLen, WINDOW - out.length)
  w.copyWithin(0, st.windowLen - keep, st.windowLen)
  w.set(out, keep)
  st.windowLen = keep + out.length
}

/**
 * Inflates one permessage-deflate message (raw DEFLATE, sync-flushed, trailing 00 00 ff ff stripped by the
 * sender). `dictionary` is the previous output window for context takeover.
 */
export function inflateMessage(
  data: Uint8Array,
  dictionary: Uint8Array | null,
  maxBytes: number
): { ok: true; out: Uint8Array } | { ok: false; error: string } {
  const r = inflateCapped(data, maxBytes, { format: 'raw', dictionary, tail: DEFLATE_TAIL, final: false })
  if (r.capped) return { ok: false, error: `inflated size exceeds maxInflateBytes (${maxBytes})` }
  if (r.error !== null) return { ok: false, error: `inflate failed: ${r.error}` }
  return { ok: true, out: r.out }
}
