// HTTP/1.x (RFC 9112) over one reassembled TCP connection: the head parser (also used by the WebSocket
// upgrade) and HttpConnection, which frames whole requests and responses out of the two byte streams.
//
// Like WebSocketConnection it owns only the read positions of its ByteStreams: the caller pushes bytes and
// calls `process(dir)`, which consumes every message complete in that direction and returns events in
// stream order. It never throws. What it handles: several messages per connection (keep-alive) and
// pipelined requests; bodies by Content-Length, chunked transfer coding, or (responses only) up to the end
// of the connection; no body for HEAD responses, 1xx, 204 and 304. Responses are paired with requests in
// order (HTTP/1.1 answers in request order). Nothing is trusted before it is checked: the head is at most
// MAX_HTTP_HEAD bytes, a body at most `maxBodyBytes`, a chunk-size line at most 1 KiB. A direction whose
// bytes stop being HTTP is stopped: nothing more is consumed from it, and the caller shows the rest.
// Bytes NUL, CR and LF before a start line are taken as padding (RFC 9112 §2.2 allows empty lines; the
// SFS2X C# BlueBox client writes a NUL after each request body).

import type { ByteStream } from './byte-stream'
import { defineField, defineFields } from '../bytes/fields'
import { FULL_TREES, MessageDraft, label, type TreeSwitch } from '../bytes/tree'

// ---------------------------------------------------------------------------------------------------------
// HTTP head

/** The longest HTTP header block accepted (request line + headers + blank line). */
export const MAX_HTTP_HEAD = 8192

export interface HttpHeader {
  name: string
  value: string
  /** Byte offset and length of the header's line(s) in the head, without the line ending. */
  start: number
  length: number
}

export interface HttpHead {
  kind: 'request' | 'response'
  startLine: string
  /** Request only. */
  method?: string
  target?: string
  /** e.g. "HTTP/1.1". */
  version: string
  /** Response only. */
  status?: number
  reason?: string
  headers: HttpHeader[]
  /** Bytes of the whole head including the terminating blank line. */
  length: number
}

export type HttpHeadResult = { status: 'ok'; head: HttpHead } | { status: 'need-more' } | { status: 'invalid'; reason: string }

function latin1(bytes: Uint8Array, start: number, end: number): string {
  let s = ''
  for (let i = start; i < end; i += 4096) {
    s += String.fromCharCode.apply(null, Array.from(bytes.subarray(i, Math.min(end, i + 4096))))
  }
  return s
}

/** True when `prefix` (possibly incomplete) can still become an HTTP request or status line. */
function plausibleStartPrefix(bytes: Uint8Array): boolean {
  const http = 'HTTP/'
  let isHttp = true
  for (let i = 0; i < Math.min(bytes.length, http.length); i++) if (bytes[i] !== http.charCodeAt(i)) isHttp = false
  if (isHttp) return true
  // request: METHOD (token characters, we accept upper-case letters and '-') then a space
  for (let i = 0; i < bytes.length && i < 32; i++) {
    const b = bytes[i]
    if (b === 0x20) return i > 0
    if (!((b >= 0x41 && b <= 0x5a) || b === 0x2d)) return false
  }
  return bytes.length < 32
}

/**
 * Parses an HTTP/1.x request or response head (start line, headers, blank line) from the start of `bytes`.
 * Looks at most at MAX_HTTP_HEAD bytes: 'need-more' while the head is incomplete and shorter than that,
 * 'invalid' when it cannot be an HTTP head (or is longer). Bare LF line endings are accepted.
 */
export function parseHttpHead(bytes: Uint8Array): HttpHeadResult {
  const limit = Math.min(bytes.length, MAX_HTTP_HEAD)
  if (limit > 0 && !plausibleStartPrefix(bytes.subarray(0, Math.min(limit, 32)))) {
    return { status: 'invalid', reason: 'does not start with an HTTP request or status line' }
  }
  let end = -1
  for (let i = 0; i < limit; i++) {
    const b = bytes[i]
    if (b === 0x0a) {
      if (i + 1 < limit && bytes[i + 1] === 0x0a) {
        end = i + 2
        break
      }
      if (i + 2 < limit && bytes[i + 1] === 0x0d && bytes[i + 2] === 0x0a) {
        end = i + 3
        break
      }
    } else if ((b < 0x20 && b !== 0x09 && b !== 0x0d) || b === 0x7f) {
      return { status: 'invalid', reason: `control byte 0x${b.toString(16).padStart(2, '0')} at offset ${i} in HTTP head` }
    }
  }
  if (end < 0) {
    if (bytes.length >= MAX_HTTP_HEAD) return { status: 'invalid', reason: `no end of HTTP head within ${MAX_HTTP_HEAD} bytes` }
    return { status: 'need-more' }
  }

  // Split into lines with their byte offsets (latin1: one char per byte, so offsets line up).
  const text = latin1(bytes, 0, end)
  const lines: { text: string; start: number }[] = []
  let pos = 0
  while (pos < end) {
    const nl = text.indexOf('\n', pos)
    const lineEnd = nl < 0 ? end : nl
    const contentEnd = lineEnd > pos && text.charCodeAt(lineEnd - 1) === 0x0d ? lineEnd - 1 : lineEnd
    lines.push({ text: text.slice(pos, contentEnd), start: pos })
    pos = lineEnd + 1
  }
  // The last line is the empty terminator.
  while (lines.length && lines[lines.length - 1].text === '') lines.pop()
  if (lines.length === 0) return { status: 'invalid', reason: 'empty HTTP head' }

  const startLine = lines[0].text
  let head: HttpHead
  const resp = /^(HTTP\/\d+(?:\.\d+)?) +(\d{3})(?: +(.*))?$/.exec(startLine)
  if (resp) {
    head = { kind: 'response', startLine, version: resp[1], status: Number(resp[2]), reason: resp[3] ?? '', headers: [], length: end }
  } else {
    const req = /^([A-Z][A-Z-]*) +(\S+) +(HTTP\/\d+(?:\.\d+)?)$/.exec(startLine)
    if (!req) return { status: 'invalid', reason: `not an HTTP start line: ${JSON.stringify(startLine.slice(0, 80))}` }
    head = { kind: 'request', startLine, method: req[1], target: req[2], version: req[3], headers: [], length: end }
  }
  for (let i = 1; i < lines.length; i++) {
    const { text: line, start } = lines[i]
    if ((line.startsWith(' ') || line.startsWith('\t')) && head.headers.length) {
      // obsolete line folding: continue the previous header's value
      const prev = head.headers[head.headers.length - 1]
      prev.value = `${prev.value} ${line.trim()}`.trim()
      prev.length = start + line.length - prev.start
      continue
    }
    const colon = line.indexOf(':')
    if (colon <= 0) return { status: 'invalid', reason: `malformed HTTP header line: ${JSON.stringify(line.slice(0, 80))}` }
    head.headers.push({ name: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim(), start, length: line.length })
  }
  return { status: 'ok', head }
}

/** All values of header `name` (case-insensitive) joined with ", ", or undefined when absent. */
export function headerValue(head: HttpHead, name: string): string | undefined {
  const lower = name.toLowerCase()
  const values = head.headers.filter((h) => h.name.toLowerCase() === lower).map((h) => h.value)
  return values.length ? values.join(', ') : undefined
}

export function tokenList(value: string | undefined): string[] {
  if (!value) return []
  return value
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t.length > 0)
}

// ---------------------------------------------------------------------------------------------------------
// Fields

const F_ROOT = defineField('http', 'HTTP', 'none')
export const HTTP_FIELDS = defineFields('http', {
  padding: ['Padding', 'bytes', { description: 'NUL, CR or LF bytes before the start line' }],
  request_line: ['Request line', 'string'],
  response_line: ['Status line', 'string'],
  method: ['Method', 'string'],
  uri: ['Request target', 'string'],
  version: ['Version', 'string'],
  status: ['Status code', 'u16'],
  reason: ['Reason phrase', 'string'],
  header: ['Header', 'string', { description: 'One header line, "Name: value"' }],
  host: ['Host', 'string'],
  content_length: ['Content-Length', 'u32'],
  content_type: ['Content-Type', 'string'],
  transfer_encoding: ['Transfer-Encoding', 'string'],
  connection: ['Connection', 'string'],
  user_agent: ['User-Agent', 'string'],
  server: ['Server', 'string'],
  chunked: ['Chunked body', 'none'],
  chunk: ['Chunk', 'none'],
  chunk_size: ['Chunk size', 'u32'],
  chunk_data: ['Chunk data', 'bytes'],
  trailer: ['Trailer', 'string'],
  body: ['Body', 'bytes', { description: 'The message body (de-chunked when chunked)' }],
  response_to: ['Response to frame', 'u32', { description: 'Last frame of the request this response answers' }],
  response_time: ['Response time (ms)', 'f64']
})
const F = HTTP_FIELDS

/** Headers that also get a field of their own (under their `http.header` line). */
const KNOWN_HEADERS: Record<string, { key: string; name: string; type: 'string' | 'u32' }> = {
  host: F.host,
  'content-length': F.content_length as { key: string; name: string; type: 'u32' },
  'content-type': F.content_type,
  'transfer-encoding': F.transfer_encoding,
  connection: F.connection,
  'user-agent': F.user_agent,
  server: F.server
} as Record<string, { key: string; name: string; type: 'string' | 'u32' }>

// ---------------------------------------------------------------------------------------------------------
// Connection

export type HttpDirection = 'c2s' | 's2c'

/** A request as the connection remembers it, to pair its response; the layer above may set `tag`. */
export interface HttpRequestRecord {
  method: string
  target: string
  /** Last frame and time of the request (set when it completes). */
  frame: number
  time: number
  tag?: unknown
}

export interface HttpMessageEvent {
  kind: 'message'
  dir: HttpDirection
  frames: number[]
  time: number
  /** Stream offset of the message's first byte (padding included). */
  offset: number
  head: HttpHead
  /** The body (de-chunked); empty when there is none. */
  body: Uint8Array
  /** Where `body` lives in `draft`: source 0 "HTTP message" for a plain body, "De-chunked body" otherwise. */
  bodySource: number
  bodyOffset: number
  /** A request's own record (c2s), or the request a response answers (s2c, when there was one). */
  request?: HttpRequestRecord
  /** Response time in ms (responses with a request). */
  responseTimeMs?: number
  /** Source 0 "HTTP message" (the bytes as on the wire) and the `http` field group; `error` when cut short. */
  draft: MessageDraft
}

export interface HttpNoteEvent {
  kind: 'note'
  dir: HttpDirection
  text: string
}

/** The direction stopped being HTTP at `offset`: nothing more is consumed from it. */
export interface HttpStopEvent {
  kind: 'stopped'
  dir: HttpDirection
  reason: string
  offset: number
}

export type HttpEvent = HttpMessageEvent | HttpNoteEvent | HttpStopEvent

export interface HttpOptions {
  /** Largest body accepted (default 16 MiB). */
  maxBodyBytes?: number
  /** Build field trees in drafts (sources are always added); read per message. */
  recordTree?: TreeSwitch
}

export const DEFAULT_MAX_HTTP_BODY = 16 * 1024 * 1024
const MAX_PADDING = 64
const MAX_CHUNK_LINE = 1024

type BodyKind = 'none' | 'length' | 'chunked' | 'close'

interface Chunk {
  /** Offsets from the message start: the size line (without its line end), the data. */
  lineStart: number
  lineLength: number
  size: number
  dataStart: number
  /** Offset just past the chunk (its data's line end, or the size line's for the last chunk). */
  end: number
}

interface Pending {
  pad: number
  head: HttpHead
  /** Offset (from the message start) where the body starts. */
  bodyStart: number
  kind: BodyKind
  length: number
  chunks: Chunk[]
  trailers: { start: number; length: number }[]
  /** Chunked: offset where parsing continues; whether the last chunk and trailers are in. */
  scan: number
  done: boolean
  bodySize: number
  request?: HttpRequestRecord
}

interface DirState {
  stopped: boolean
  pending: Pending | null
}

export class HttpConnection {
  readonly maxBodyBytes: number
  private readonly trees: TreeSwitch
  private readonly st: Record<HttpDirection, DirState> = { c2s: { stopped: false, pending: null }, s2c: { stopped: false, pending: null } }
  /** Requests waiting for their response, oldest first. */
  private readonly waiting: HttpRequestRecord[] = []

  constructor(
    readonly c2s: ByteStream,
    readonly s2c: ByteStream,
    opts: HttpOptions = {}
  ) {
    this.maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_HTTP_BODY
    this.trees = opts.recordTree ?? FULL_TREES
  }

  stopped(dir: HttpDirection): boolean {
    return this.st[dir].stopped
  }

  /** Consumes every message complete in `dir`; with `final` (no more bytes) what is left is reported cut short. */
  process(dir: HttpDirection, final = false): HttpEvent[] {
    const out: HttpEvent[] = []
    const s = dir === 'c2s' ? this.c2s : this.s2c
    try {
      while (!this.st[dir].stopped && this.step(dir, s, final, out)) {
        /* one message per step */
      }
    } catch (e) {
      this.stop(dir, s, `internal error at offset ${s.consumed}: ${(e as Error)?.message ?? String(e)}`, out)
    }
    return out
  }

  /** Bytes were lost in `dir` (a TCP gap): its framing cannot be trusted any more, so the direction stops. */
  abandon(dir: HttpDirection, reason: string): HttpEvent[] {
    const out: HttpEvent[] = []
    this.stop(dir, dir === 'c2s' ? this.c2s : this.s2c, reason, out)
    return out
  }

  private stop(dir: HttpDirection, s: ByteStream, reason: string, out: HttpEvent[]): void {
    const st = this.st[dir]
    if (st.stopped) return
    st.stopped = true
    st.pending = null
    out.push({ kind: 'stopped', dir, reason, offset: s.consumed })
  }

  /** One message (or the wait for more bytes). Returns true when it consumed one and may go on. */
  private step(dir: HttpDirection, s: ByteStream, final: boolean, out: HttpEvent[]): boolean {
    const st = this.st[dir]
    if (!st.pending) {
      if (s.available === 0) return false
      let pad = 0
      while (pad < s.available && pad < MAX_PADDING && isPadding(s.byteAt(pad))) pad++
      if (pad === s.available) {
        if (final) {
          s.take(pad)
          out.push({ kind: 'note', dir, text: `${pad} padding byte(s) (NUL/CR/LF) after the last HTTP ${dir === 'c2s' ? 'request' : 'response'}` })
        }
        return false
      }
      const r = parseHttpHead(s.peek(Math.min(s.available - pad, MAX_HTTP_HEAD), pad))
      const what = dir === 'c2s' ? 'request' : 'response'
      if (r.status === 'need-more') {
        if (final) this.stop(dir, s, `connection ended inside an HTTP ${what} head at offset ${s.consumed} (${s.available} bytes, no blank line)`, out)
        return false
      }
      if (r.status === 'invalid') {
        this.stop(dir, s, `not an HTTP ${what} at offset ${s.consumed}: ${r.reason}`, out)
        return false
      }
      if (r.head.kind !== (dir === 'c2s' ? 'request' : 'response')) {
        this.stop(dir, s, `expected an HTTP ${what} at offset ${s.consumed}, found a ${r.head.kind}`, out)
        return false
      }
      const framing = this.framing(dir, r.head)
      if ('problem' in framing) {
        this.stop(dir, s, `HTTP ${what} at offset ${s.consumed}: ${framing.problem}`, out)
        return false
      }
      st.pending = {
        pad,
        head: r.head,
        bodyStart: pad + r.head.length,
        kind: framing.kind,
        length: framing.length,
        chunks: [],
        trailers: [],
        scan: pad + r.head.length,
        done: false,
        bodySize: 0,
        request: framing.request
      }
      if (dir === 'c2s' && this.waiting.length < 4096) this.waiting.push(st.pending.request!)
    }
    const p = st.pending!
    let end: number
    let cut: string | undefined
    switch (p.kind) {
      case 'none':
        end = p.bodyStart
        break
      case 'length':
        if (p.length > this.maxBodyBytes) {
          // The head is shown with the error; the body cannot be framed within the cap, so the direction stops.
          this.emit(dir, s, p, p.bodyStart, `Content-Length ${p.length} is above the ${this.maxBodyBytes}-byte cap`, out)
          this.stop(dir, s, `HTTP body of ${p.length} bytes at offset ${s.consumed} is above the ${this.maxBodyBytes}-byte cap`, out)
          return false
        }
        end = p.bodyStart + p.length
        if (s.available < end) {
          if (!final) return false
          cut = `body cut short by the end of the connection: ${s.available - p.bodyStart} of ${p.length} bytes`
          end = s.available
        }
        break
      case 'chunked': {
        const problem = this.chunks(p, s, final)
        if (problem === 'need-more') return false
        if (problem?.startsWith('cut short')) {
          cut = problem
          end = s.available
        } else if (problem) {
          // The framing is lost: the message as far as it was read, then the direction stops.
          this.emit(dir, s, p, p.scan, problem, out)
          this.stop(dir, s, `chunked body lost its framing at stream offset ${s.consumed}`, out)
          return false
        } else end = p.scan
        break
      }
      case 'close':
        if (!final) return false
        if (s.available - p.bodyStart > this.maxBodyBytes) {
          cut = `body longer than the ${this.maxBodyBytes}-byte cap; the rest is not shown`
          end = p.bodyStart + this.maxBodyBytes
        } else end = s.available
        break
    }
    this.emit(dir, s, p, end, cut, out)
    if (p.head.status === 101) {
      // Switching protocols: what follows on both sides is not HTTP.
      this.stop('s2c', this.s2c, `protocol switched (101) at stream offset ${this.s2c.consumed}`, out)
      this.stop('c2s', this.c2s, `protocol switched (101) at stream offset ${this.c2s.consumed}`, out)
    }
    return !cut
  }

  /** How the body of a message with this head is delimited (RFC 9112 §6.3). */
  private framing(dir: HttpDirection, head: HttpHead): { kind: BodyKind; length: number; request?: HttpRequestRecord } | { problem: string } {
    let request: HttpRequestRecord | undefined
    if (dir === 'c2s') request = { method: head.method ?? '', target: head.target ?? '', frame: 0, time: 0 }
    else {
      const st = head.status ?? 0
      // An interim 1xx (but 101) does not answer the request: the final response follows.
      if (st >= 200 || st === 101) request = this.waiting.shift()
      else request = this.waiting[0]
      if ((st >= 100 && st < 200) || st === 204 || st === 304 || request?.method === 'HEAD') return { kind: 'none', length: 0, request }
    }
    const te = headerValue(head, 'transfer-encoding')
    if (te !== undefined) {
      const codings = tokenList(te).map((t) => t.toLowerCase())
      if (codings[codings.length - 1] === 'chunked') return { kind: 'chunked', length: 0, request }
      if (dir === 'c2s') return { problem: `request body with Transfer-Encoding "${te}" (not ending in chunked) cannot be delimited` }
      return { kind: 'close', length: 0, request }
    }
    const cl = headerValue(head, 'content-length')
    if (cl !== undefined) {
      const values = [...new Set(cl.split(',').map((v) => v.trim()))]
      if (values.length !== 1 || !/^\d{1,15}$/.test(values[0])) return { problem: `invalid Content-Length ${JSON.stringify(cl)}` }
      return { kind: 'length', length: Number(values[0]), request }
    }
    return dir === 'c2s' ? { kind: 'none', length: 0, request } : { kind: 'close', length: 0, request }
  }

  /**
   * Parses chunks from where it stopped: undefined when the body is complete (p.scan is its end), 'need-more',
   * or a problem (starting "cut short" when only the end of the connection stopped it).
   */
  private chunks(p: Pending, s: ByteStream, final: boolean): string | undefined | 'need-more' {
    const buf = s.peek(s.available)
    const more = (): 'need-more' | string =>
      final ? `cut short by the end of the connection inside the chunked body (${p.chunks.length} chunks read)` : 'need-more'
    while (!p.done) {
      const lf = indexOfLf(buf, p.scan, MAX_CHUNK_LINE + 2)
      if (lf < 0) {
        if (buf.length - p.scan > MAX_CHUNK_LINE) return `no end of line within ${MAX_CHUNK_LINE} bytes at body offset ${p.scan - p.bodyStart}`
        return more()
      }
      const lineEnd = lf > p.scan && buf[lf - 1] === 0x0d ? lf - 1 : lf
      const line = latin1(buf, p.scan, lineEnd)
      if (p.chunks.length && p.chunks[p.chunks.length - 1].size === 0) {
        // trailer section: header lines up to an empty line
        if (line === '') {
          p.scan = lf + 1
          p.done = true
          break
        }
        if (p.scan - p.bodyStart > this.maxBodyBytes + MAX_HTTP_HEAD) return 'trailer section too long'
        p.trailers.push({ start: p.scan, length: lineEnd - p.scan })
        p.scan = lf + 1
        continue
      }
      const m = /^([0-9a-fA-F]{1,8})[ \t]*(?:;.*)?$/.exec(line)
      if (!m) return `bad chunk-size line ${JSON.stringify(line.slice(0, 40))} at body offset ${p.scan - p.bodyStart}`
      const size = parseInt(m[1], 16)
      if (p.bodySize + size > this.maxBodyBytes) return `chunked body above the ${this.maxBodyBytes}-byte cap`
      const dataStart = lf + 1
      if (size === 0) {
        p.chunks.push({ lineStart: p.scan, lineLength: lineEnd - p.scan, size, dataStart, end: dataStart })
        p.scan = dataStart
        continue
      }
      const dataEnd = dataStart + size
      if (buf.length < dataEnd + 1 || (buf[dataEnd] === 0x0d && buf.length < dataEnd + 2)) return more()
      const crlf = buf[dataEnd] === 0x0a ? 1 : buf[dataEnd] === 0x0d && buf[dataEnd + 1] === 0x0a ? 2 : 0
      if (!crlf) return `chunk data of ${size} bytes not followed by CRLF at body offset ${dataEnd - p.bodyStart}`
      p.chunks.push({ lineStart: p.scan, lineLength: lineEnd - p.scan, size, dataStart, end: dataEnd + crlf })
      p.bodySize += size
      p.scan = dataEnd + crlf
    }
    return undefined
  }

  /** Takes the message (its first `end` bytes) and reports it; `cut` is its error when it could not complete. */
  private emit(dir: HttpDirection, s: ByteStream, p: Pending, end: number, cut: string | undefined, out: HttpEvent[]): void {
    this.st[dir].pending = null
    const taken = s.take(Math.min(end, s.available))
    const bytes = taken.bytes
    const n = bytes.length
    const draft = new MessageDraft(this.trees)
    if (cut) draft.error = cut
    draft.addSource('HTTP message', bytes)
    // The body: a view of the message bytes, or the chunks' data joined.
    let body: Uint8Array
    let bodySource = 0
    let bodyOffset = Math.min(p.bodyStart, n)
    if (p.kind === 'chunked') {
      const parts = p.chunks.filter((c) => c.size > 0)
      body = new Uint8Array(parts.reduce((a, c) => a + c.size, 0))
      let w = 0
      for (const c of parts) {
        body.set(bytes.subarray(c.dataStart, c.dataStart + c.size), w)
        w += c.size
      }
      bodySource = draft.addSource('De-chunked body', body)
      bodyOffset = 0
    } else {
      body = bytes.subarray(Math.min(p.bodyStart, n), n)
    }
    const request = p.request
    let responseTimeMs: number | undefined
    if (dir === 'c2s' && request) {
      request.frame = taken.frames[taken.frames.length - 1] ?? 0
      request.time = taken.time
    } else if (request?.frame) {
      responseTimeMs = Math.round((taken.time - request.time) * 1e6) / 1e3
    }
    const t = draft.tree
    if (t.recording) this.tree(t, p, bytes, body, bodySource, request, responseTimeMs)
    out.push({
      kind: 'message',
      dir,
      frames: taken.frames,
      time: taken.time,
      offset: taken.offset,
      head: p.head,
      body,
      bodySource,
      bodyOffset,
      request,
      responseTimeMs,
      draft
    })
  }

  private tree(
    t: MessageDraft['tree'],
    p: Pending,
    bytes: Uint8Array,
    body: Uint8Array,
    bodySource: number,
    request: HttpRequestRecord | undefined,
    ms: number | undefined
  ): void {
    const h = p.head
    const pad = p.pad
    const n = bytes.length
    t.open({ key: F_ROOT.key, label: `HTTP ${h.kind}: ${h.startLine}`, type: 'none', source: 0, start: 0, length: n })
    if (pad) t.add({ key: F.padding.key, label: `Padding: ${pad} byte(s)`, type: 'bytes', value: bytes.subarray(0, pad), source: 0, start: 0, length: pad })
    const line = h.startLine
    const isReq = h.kind === 'request'
    t.open({ key: (isReq ? F.request_line : F.response_line).key, label: line, type: 'string', value: line, source: 0, start: pad, length: line.length })
    const parts: [typeof F.method, string | number | undefined][] = isReq
      ? [
          [F.method, h.method],
          [F.uri, h.target],
          [F.version, h.version]
        ]
      : [
          [F.version, h.version],
          [F.status, h.status],
          [F.reason, h.reason]
        ]
    let from = 0
    for (const [def, v] of parts) {
      if (v === undefined || v === '') continue
      const text = String(v)
      const at = line.indexOf(text, from)
      if (at < 0) continue
      from = at + text.length
      t.add({ key: def.key, label: label(def, v), type: def.type, value: v, source: 0, start: pad + at, length: text.length })
    }
    t.close()
    for (const hd of h.headers) {
      const text = `${hd.name}: ${hd.value}`
      const known = KNOWN_HEADERS[hd.name.toLowerCase()]
      if (!known) {
        t.add({ key: F.header.key, label: text, type: 'string', value: text, source: 0, start: pad + hd.start, length: hd.length })
        continue
      }
      t.open({ key: F.header.key, label: text, type: 'string', value: text, source: 0, start: pad + hd.start, length: hd.length })
      const valueAt = Math.max(0, hd.length - hd.value.length)
      const v = known.type === 'u32' && /^\d+$/.test(hd.value) ? Number(hd.value) : hd.value
      t.add({
        key: known.key,
        label: label({ name: known.name, type: typeof v === 'number' ? 'u32' : 'string' }, v),
        type: typeof v === 'number' ? 'u32' : 'string',
        value: v,
        source: 0,
        start: pad + hd.start + valueAt,
        length: hd.value.length
      })
      t.close()
    }
    if (p.kind === 'chunked') {
      const last = p.chunks[p.chunks.length - 1]
      const end = Math.min(n, p.done ? p.scan : (last?.end ?? p.bodyStart))
      t.open({
        key: F.chunked.key,
        label: `Chunked body: ${p.chunks.filter((c) => c.size).length} chunk(s), ${body.length} bytes`,
        type: 'none',
        source: 0,
        start: p.bodyStart,
        length: Math.max(0, end - p.bodyStart)
      })
      for (const c of p.chunks) {
        t.open({
          key: F.chunk.key,
          label: c.size ? `Chunk: ${c.size} bytes` : 'Last chunk',
          type: 'none',
          source: 0,
          start: c.lineStart,
          length: Math.min(n, c.end) - c.lineStart
        })
        t.add({ key: F.chunk_size.key, label: label(F.chunk_size, c.size), type: 'u32', value: c.size, source: 0, start: c.lineStart, length: c.lineLength })
        if (c.size)
          t.add({
            key: F.chunk_data.key,
            label: `Chunk data (${c.size} bytes)`,
            type: 'bytes',
            value: bytes.subarray(c.dataStart, Math.min(n, c.dataStart + c.size)),
            source: 0,
            start: c.dataStart,
            length: Math.max(0, Math.min(n, c.dataStart + c.size) - c.dataStart)
          })
        t.close()
      }
      for (const tr of p.trailers) {
        const text = latin1(bytes, tr.start, tr.start + tr.length)
        t.add({ key: F.trailer.key, label: `Trailer: ${text}`, type: 'string', value: text, source: 0, start: tr.start, length: tr.length })
      }
      t.close()
      if (body.length)
        t.add({
          key: F.body.key,
          label: `Body (${body.length} bytes, de-chunked)`,
          type: 'bytes',
          value: body,
          source: bodySource,
          start: 0,
          length: body.length
        })
    } else if (body.length) {
      t.add({ key: F.body.key, label: `Body (${body.length} bytes)`, type: 'bytes', value: body, source: 0, start: n - body.length, length: body.length })
    }
    if (h.kind === 'response' && request && request.frame) {
      t.add({
        key: F.response_to.key,
        label: `Response to the ${request.method} request in frame ${request.frame} (${ms} ms later)`,
        type: 'u32',
        value: request.frame
      })
    }
    t.close(n)
  }
}

function isPadding(b: number): boolean {
  return b === 0x00 || b === 0x0d || b === 0x0a
}

function indexOfLf(buf: Uint8Array, from: number, max: number): number {
  const end = Math.min(buf.length, from + max)
  for (let i = from; i < end; i++) if (buf[i] === 0x0a) return i
  return -1
}

/**
 * The target of the HTTP request whose request line starts `bytes` (only the line is needed), 'need-more'
 * while that line is incomplete but still looks like `METHOD /…`, undefined when it is not one.
 */
export function requestTarget(bytes: Uint8Array): string | 'need-more' | undefined {
  const lf = indexOfLf(bytes, 0, MAX_HTTP_HEAD)
  const line = latin1(bytes, 0, lf < 0 ? Math.min(bytes.length, 64) : lf)
  // Wait only once it reads `METHOD /`: other streams (text protocols too) are not held back.
  if (lf < 0) return /^[A-Z]{1,16} \/\S*$/.test(line) && bytes.length < MAX_HTTP_HEAD ? 'need-more' : undefined
  const m = /^[A-Z][A-Z-]* +(\S+) +HTTP\/\d+(?:\.\d+)?\r?$/.exec(line)
  return m ? m[1] : undefined
}
