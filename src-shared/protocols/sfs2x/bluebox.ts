// SFS2X BlueBox: the HTTP polling tunnel of the TCP SDKs (AS3, Unity/C#, Java, C++), used when a socket to
// 9933 cannot be opened. Every request is `POST /BlueBox/BlueBox.do` with the form field
// `sfsHttp=<session>|<command>|<data>` (URL-encoded), every response body `<command>|<data>`; commands
// connect, poll, data, disconnect (and the server's err01); data is base64 of SFS2X packets, "null" when
// there is none. See docs/sfs2x.md ("BlueBox HTTP tunnel").
//
// The HTTP layer (net/http.ts) hands each whole message here as a Pdu with `http` set. This unwraps the
// BlueBox envelope into fields, gives the base64-decoded bytes a data source of their own, and has the
// SFS2X packet decoder read them from there, so the packet's tree is the one it has on TCP.

import { defineField, defineFields } from '../../bytes/fields'
import { MessageDraft, label } from '../../bytes/tree'
import type { DecoderContext, Emit, MessageOut, Pdu } from '../registry'
import { arraySource, parseHeader } from './framing'
import { emptyValue } from './packet'
import { counted } from '../../model/text'

/** The BlueBox servlet's path (the SDKs' BB_SERVLET), with an optional query. */
export const BLUEBOX_SERVLET = /^(?:https?:\/\/[^/]*)?\/BlueBox\/BlueBox\.do(?:[?;#].*)?$/i

const F_ROOT = defineField('bluebox', 'SFS2X BlueBox', 'none')
export const BLUEBOX_FIELDS = defineFields('bluebox', {
  form: ['sfsHttp form value', 'string', { description: "The request's sfsHttp field as on the wire (URL-encoded)" }],
  session: ['Session id', 'string', { description: 'The BlueBox session: "null" before connect; a response carries its request\'s', index: true }],
  command: ['Command', 'string', { description: 'connect, poll, data, disconnect, or err01 (invalid session)', index: true }],
  data: ['Data', 'string', { description: 'Base64 of SFS2X packets, or "null"' }],
  data_length: ['Data length', 'u32', { description: 'Bytes after base64 decoding' }],
  packet_index: ['Packet', 'u32', { description: 'Which packet of the data this message is (when it holds several)' }],
  note: ['Note', 'string']
})
const F = BLUEBOX_FIELDS

const STACK = ['tcp', 'http', 'bluebox']
const PROTOCOL = 'sfs2x'
const URL_DECODED = 'sfsHttp (URL-decoded)'
const DATA_SOURCE = 'BlueBox data (base64-decoded)'

/** What a BlueBox request leaves on its HTTP request record, for the response. */
interface RequestTag {
  session: string
  command: string
}

/** Per conversation: the sessions seen (for the conversation's notes). */
export class BlueBoxState {
  readonly sessions: string[] = []
}

/** Decodes the SFS2X packet at `pdu` (its source, offset, bytes) and emits it. */
export type PacketDecoder = (pdu: Pdu, emit: Emit) => void

interface Envelope {
  session: string
  command: string
  data: string
  /** Where the three parts are: source and offsets (end exclusive). */
  source: number
  sessionAt?: [number, number]
  /** Requests: the sfsHttp value as on the wire and where it is in the body's source. */
  form?: string
  formAt?: [number, number]
  commandAt: [number, number]
  dataAt: [number, number]
}

export function blueboxDatagram(pdu: Pdu, emit: Emit, ctx: DecoderContext, state: BlueBoxState, decodePacket: PacketDecoder): void {
  const http = pdu.http!
  const draft = pdu.draft
  const t = draft.tree
  const isRequest = http.head.kind === 'request'
  const env = isRequest ? requestEnvelope(pdu) : responseEnvelope(pdu)
  const tag = http.request?.tag as RequestTag | undefined
  if (!env) {
    // Not BlueBox (e.g. an error page): the HTTP message alone.
    const what = isRequest ? `${http.head.method} ${http.head.target}` : `${http.head.status} ${http.head.reason}`
    if (draft.error === null) draft.error = isRequest ? 'not a BlueBox request: no sfsHttp form field' : 'not a BlueBox response: no "<command>|<data>" body'
    emit({
      dir: pdu.dir,
      frames: pdu.frames,
      time: pdu.time,
      protocol: 'http',
      stack: ['tcp', 'http'],
      name: `HTTP ${what}`,
      summary: counted(pdu.bytes.length, 'body byte'),
      value: httpValue(pdu),
      draft
    })
    return
  }
  const command = env.command
  // A response's session is its request's; a connect response's is the new one it hands out.
  const session = isRequest ? env.session : command === 'connect' ? env.data : (tag?.session ?? null)
  if (isRequest && http.request) http.request.tag = { session: env.session, command } satisfies RequestTag
  if (session && session !== 'null' && !state.sessions.includes(session) && state.sessions.length < 16) {
    state.sessions.push(session)
    ctx.note(`BlueBox session ${session}`)
  }

  // The data: base64 of SFS2X packets, decoded into a source of its own.
  const hasData = env.data !== '' && env.data !== 'null' && command !== 'connect' && command !== 'err01'
  let data: Uint8Array | undefined
  let dataError: string | undefined
  if (hasData) {
    data = decodeBase64(env.data) ?? undefined
    if (!data) dataError = `BlueBox data is not base64 (${env.data.length} characters)`
  }
  const dataSource = data ? draft.addSource(DATA_SOURCE, data) : -1

  const bb = { session, command, data: hasData ? (data ? data.length : null) : null, ...(tag && !isRequest ? { request: tag.command } : {}) }
  const group = (d: MessageDraft, dataAt: number, packetIndex?: number): void => {
    const tr = d.tree
    const sessionValue = session ?? ''
    tr.open({
      key: F_ROOT.key,
      label: `SFS2X BlueBox ${isRequest ? 'request' : 'response'}: ${command}${session && session !== 'null' ? `, session ${session}` : ''}`,
      type: 'none',
      source: pdu.source,
      start: pdu.offset,
      length: pdu.bytes.length
    })
    if (env.formAt && env.form !== undefined)
      tr.add({
        key: F.form.key,
        label: label(F.form, clip(env.form)),
        type: 'string',
        value: env.form,
        source: pdu.source,
        start: env.formAt[0],
        length: env.formAt[1] - env.formAt[0]
      })
    if (env.sessionAt)
      tr.add({
        key: F.session.key,
        label: label(F.session, env.session),
        type: 'string',
        value: env.session,
        source: env.source,
        start: env.sessionAt[0],
        length: env.sessionAt[1] - env.sessionAt[0]
      })
    else if (session !== null)
      tr.add({
        key: F.session.key,
        label: `Session id: ${JSON.stringify(sessionValue)} (${command === 'connect' ? 'handed out by this response' : 'from the request'})`,
        type: 'string',
        value: sessionValue
      })
    tr.add({
      key: F.command.key,
      label: label(F.command, command),
      type: 'string',
      value: command,
      source: env.source,
      start: env.commandAt[0],
      length: env.commandAt[1] - env.commandAt[0]
    })
    tr.add({
      key: F.data.key,
      label: label(F.data, clip(env.data)),
      type: 'string',
      value: env.data,
      source: env.source,
      start: env.dataAt[0],
      length: env.dataAt[1] - env.dataAt[0]
    })
    if (data)
      tr.add({
        key: F.data_length.key,
        label: label(F.data_length, data.length),
        type: 'u32',
        value: data.length,
        source: dataAt,
        start: 0,
        length: data.length
      })
    if (packetIndex !== undefined) tr.add({ key: F.packet_index.key, label: `Packet ${packetIndex + 1} of the data`, type: 'u32', value: packetIndex + 1 })
    if (session && session !== 'null') {
      const text = `Session ${session}: a BlueBox session spans several HTTP connections (the C# SDK opens one per request); the filter bluebox.session == "${session}" shows all of them`
      tr.add({ key: F.note.key, label: text, type: 'string', value: text })
    }
    tr.close()
  }
  // The index pass has no tree: keep the index fields' values as the tree would.
  const indexOnly = (d: MessageDraft): void => {
    if (session !== null) d.tree.indexValue(F.session, session)
    d.tree.indexValue(F.command, command)
  }

  const withBlueBox = (m: MessageOut, packetIndex?: number): MessageOut => {
    const value = (m.value ?? {}) as Record<string, unknown>
    value.bluebox = packetIndex ? { ...bb, packet: packetIndex + 1 } : bb
    if (http.request && !isRequest && http.request.frame) {
      value.responseTo = http.request.frame
      value.responseTimeMs = http.responseTimeMs ?? null
    }
    return { ...m, stack: STACK, value }
  }

  if (!data) {
    if (t.recording) group(draft, dataSource)
    else indexOnly(draft)
    if (dataError && draft.error === null) draft.error = dataError
    if (command === 'err01') draft.warn(`BlueBox err01 (invalid session)${env.data && env.data !== 'null' ? `: ${env.data}` : ''}`)
    const name = command === 'poll' && !isRequest && !hasData ? 'BlueBox poll (empty)' : `BlueBox ${command}`
    const summary = isRequest
      ? `session=${env.session}`
      : command === 'connect'
        ? `session=${env.data}`
        : hasData
          ? `${env.data.length} characters of data`
          : env.data
    emit(withBlueBox({ dir: pdu.dir, frames: pdu.frames, time: pdu.time, protocol: PROTOCOL, stack: STACK, name, summary, value: emptyValue(), draft }))
    return
  }

  // One message per SFS2X packet in the data (the SDKs feed it to their stream reader, so it may hold several).
  const bounds = packetBounds(data)
  bounds.forEach(([start, end], i) => {
    const d = i === 0 ? draft : new MessageDraft(draft.tree)
    const source = i === 0 ? dataSource : d.addSource(DATA_SOURCE, data)
    if (d.tree.recording) group(d, source, bounds.length > 1 ? i : undefined)
    else indexOnly(d)
    const sub: Pdu = { dir: pdu.dir, frames: pdu.frames, time: pdu.time, draft: d, source, offset: start, bytes: data.subarray(start, end), stack: STACK }
    decodePacket(sub, (m) => {
      const out = withBlueBox(m, bounds.length > 1 ? i : undefined)
      out.summary = `${out.summary} (BlueBox ${command})`
      emit(out)
    })
  })
}

/** Where each SFS2X packet of the data starts and ends; what does not frame is left to the last packet. */
function packetBounds(data: Uint8Array): [number, number][] {
  const out: [number, number][] = []
  let at = 0
  while (at < data.length && out.length < 1024) {
    const hr = parseHeader(arraySource(data), at, false)
    if (hr.kind !== 'ok') break
    const end = at + hr.header.headerSize + hr.header.length
    if (end > data.length || end === data.length) break
    out.push([at, end])
    at = end
  }
  out.push([at, data.length])
  return out
}

/** The request body: form fields `a=b&…` with `sfsHttp=<session>|<command>|<data>` URL-encoded. */
function requestEnvelope(pdu: Pdu): Envelope | undefined {
  const body = pdu.bytes
  const base = pdu.offset
  let start = 0
  while (start <= body.length) {
    let end = body.indexOf(0x26 /* & */, start)
    if (end < 0) end = body.length
    const name = ascii(body, start, Math.min(end, start + 8))
    if (name === 'sfsHttp=') {
      let vEnd = end
      // The C# SDK writes a NUL after the body; a client that counts it leaves it inside.
      while (vEnd > start + 8 && (body[vEnd - 1] === 0 || body[vEnd - 1] === 0x0a || body[vEnd - 1] === 0x0d)) vEnd--
      const raw = body.subarray(start + 8, vEnd)
      const form = ascii(raw, 0, raw.length)
      const formAt: [number, number] = [base + start + 8, base + vEnd]
      const encoded = raw.some((b) => b === 0x25 /* % */ || b === 0x2b /* + */)
      let text = raw
      let source = pdu.source
      let off = base + start + 8
      if (encoded) {
        text = urlDecode(raw)
        source = pdu.draft.addSource(URL_DECODED, text)
        off = 0
      }
      const p1 = text.indexOf(0x7c)
      const p2 = p1 < 0 ? -1 : text.indexOf(0x7c, p1 + 1)
      if (p2 < 0) return undefined
      return {
        form,
        formAt,
        session: utf8(text, 0, p1),
        command: utf8(text, p1 + 1, p2),
        data: utf8(text, p2 + 1, text.length),
        source,
        sessionAt: [off, off + p1],
        commandAt: [off + p1 + 1, off + p2],
        dataAt: [off + p2 + 1, off + text.length]
      }
    }
    start = end + 1
  }
  return undefined
}

/** The response body: `<command>|<data>` (trailing white space and NULs are not part of it). */
function responseEnvelope(pdu: Pdu): Envelope | undefined {
  const b = pdu.bytes
  let end = b.length
  while (end > 0 && (b[end - 1] === 0 || b[end - 1] === 0x20 || b[end - 1] === 0x0a || b[end - 1] === 0x0d || b[end - 1] === 0x09)) end--
  const p = b.subarray(0, end).indexOf(0x7c)
  if (p <= 0 || p > 32) return undefined
  const command = ascii(b, 0, p)
  if (!/^[a-z][a-z0-9]*$/i.test(command)) return undefined
  const off = pdu.offset
  return { session: '', command, data: utf8(b, p + 1, end), source: pdu.source, commandAt: [off, off + p], dataAt: [off + p + 1, off + end] }
}

function httpValue(pdu: Pdu): Record<string, unknown> {
  const h = pdu.http!.head
  return h.kind === 'request'
    ? { method: h.method, target: h.target, bodyLength: pdu.bytes.length }
    : { status: h.status, reason: h.reason, bodyLength: pdu.bytes.length }
}

function clip(s: string): string {
  return s.length > 80 ? `${s.slice(0, 80)}…` : s
}

function ascii(b: Uint8Array, start: number, end: number): string {
  let s = ''
  for (let i = start; i < end; i++) s += String.fromCharCode(b[i])
  return s
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: false })
function utf8(b: Uint8Array, start: number, end: number): string {
  return utf8Decoder.decode(b.subarray(start, end))
}

function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30
  if (c >= 0x41 && c <= 0x46) return c - 0x37
  if (c >= 0x61 && c <= 0x66) return c - 0x57
  return -1
}

/** application/x-www-form-urlencoded value to bytes: %XX and '+' (a bad escape stays as it is). */
function urlDecode(raw: Uint8Array): Uint8Array {
  const out = new Uint8Array(raw.length)
  let w = 0
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]
    if (c === 0x25 && i + 2 < raw.length + 0 && hexDigit(raw[i + 1]) >= 0 && hexDigit(raw[i + 2]) >= 0) {
      out[w++] = (hexDigit(raw[i + 1]) << 4) | hexDigit(raw[i + 2])
      i += 2
    } else out[w++] = c === 0x2b ? 0x20 : c
  }
  return out.subarray(0, w)
}

const B64 = new Int16Array(256).fill(-1)
for (let i = 0; i < 64; i++) B64['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i

/** Strict base64 (RFC 4648 §4, padding optional; white space ignored); null when it is not. */
export function decodeBase64(text: string): Uint8Array | null {
  const s = text.replace(/[\r\n\t ]/g, '').replace(/=+$/, '')
  if (s.length % 4 === 1) return null
  const out = new Uint8Array(Math.floor((s.length * 3) / 4))
  let w = 0
  let acc = 0
  let bits = 0
  for (let i = 0; i < s.length; i++) {
    const v = s.charCodeAt(i) < 256 ? B64[s.charCodeAt(i)] : -1
    if (v < 0) return null
    acc = (acc << 6) | v
    bits += 6
    if (bits >= 8) {
      bits -= 8
      out[w++] = (acc >> bits) & 0xff
    }
  }
  return out.subarray(0, w)
}
