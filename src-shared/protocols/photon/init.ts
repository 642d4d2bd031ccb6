// The two Init forms that do not start with F3 00 (docs/photon.md, "Init"): InitV3, signal 0xF5, and the
// HTTP-style `POST /?init=&app=…` a client with a PhotonToken sends instead of the 41-byte Init. Both are
// reported as an Init message (type 0) and give the conversation its protocol version, as the 41-byte form does.

import { DecodeError, type FieldReader } from '../../bytes/reader'
import { readTypedValue, type GpVersion } from './gpbinary'
import type { MessageResult, MessageSession, PhotonInit } from './message'
import { F_INIT, F_MSG } from './message-fields'

export const SIGNAL_INIT_V3 = 0xf5
const INIT = 0
const HTTP_INIT = 'POST /?'
const V3_FLAGS: [number, string][] = [
  [1, 'encryption'],
  [2, 'IPv6'],
  [4, 'release SDK']
]

/** Whether the bytes at `at` start an HTTP-style init (`POST /?`). */
export function isHttpInit(b: Uint8Array, at: number, end = b.length): boolean {
  if (end - at < HTTP_INIT.length) return false
  for (let i = 0; i < HTTP_INIT.length; i++) if (b[at + i] !== HTTP_INIT.charCodeAt(i)) return false
  return true
}

function asInit(res: MessageResult): void {
  res.msgType = INIT
  res.name = 'Init'
  res.value.msgType = INIT
  res.value.msgTypeName = 'Init'
}

function setVersion(res: MessageResult, session: MessageSession, version: GpVersion | null, init: PhotonInit): void {
  res.value.protocol = version === 18 ? 'GpBinary18' : version === 16 ? 'GpBinary16' : null
  res.value.init = init
  session.onInit(version, init.appId)
}

function summary(init: PhotonInit, form: string): string {
  return `Init (${form}) protocol ${init.protocolVersion} lib ${init.libraryVersion} app=${JSON.stringify(init.appId)}`
}

/**
 * InitV3, the signal byte already read: flags u16, protocol 16|18, library version (4 bytes), client SDK
 * byte, a zero byte, app id (u8 length + UTF-8), token (u16 length + bytes), then a serialized Dictionary.
 */
export function readInitV3(r: FieldReader, session: MessageSession, res: MessageResult): void {
  asInit(res)
  const flagsAt = r.pos
  const flags = r.u16(null)
  r.record(F_INIT.flags, flags, flagsAt, 2, () => {
    const on = V3_FLAGS.filter(([bit]) => flags & bit).map(([, n]) => n)
    return `InitV3 flags: 0x${flags.toString(16).padStart(4, '0')}${on.length ? ` (${on.join(', ')})` : ''}`
  })
  const proto = r.u8(F_INIT.protocol)
  const libAt = r.pos
  r.need(4, 'library version')
  const lib = r.bytesField(null, 4)
  const libraryVersion = Array.from(lib).join('.')
  r.record(F_INIT.library, libraryVersion, libAt, 4)
  const sdk = r.u8(F_INIT.client_sdk)
  r.u8(F_INIT.reserved)
  const appLen = r.u8(F_INIT.app_id_length)
  r.need(appLen, 'application id')
  const appAt = r.pos
  const appId = r.utf8(null, appLen)
  r.record(F_INIT.app_id, appId, appAt, appLen, () => `Application id: ${JSON.stringify(appId)}`)
  const tokenLen = r.u16(F_INIT.token_length)
  r.need(tokenLen, 'token')
  const token = r.bytesField(F_INIT.token, tokenLen)
  const version: GpVersion | null = proto === 16 ? 16 : proto === 18 ? 18 : null
  const init: PhotonInit = {
    form: 'InitV3',
    protocolVersion: version ? `1.${version - 10}` : String(proto),
    clientSdkId: sdk >> 1,
    libraryVersion,
    ipv6: (flags & 2) !== 0,
    appId,
    flags,
    encryption: (flags & 1) !== 0,
    token
  }
  setVersion(res, session, version, init)
  res.summary = summary(init, 'V3')
  if (!version) throw new DecodeError(`InitV3 protocol byte ${proto} is neither 16 nor 18: its Dictionary cannot be read`, flagsAt + 2)
  init.data = readTypedValue(r, version, { key: F_INIT.data.key })
  if (r.remaining) {
    const at = r.pos
    r.bytesField(F_MSG.body, r.remaining)
    throw new DecodeError(`${r.end - at} bytes after the InitV3 Dictionary`, at)
  }
}

/**
 * `POST /?init=&app=<id>&clientversion=<v>&protocol=GpBinaryV16|V18&sid=<sdk byte>&[&IPv6] HTTP/1.1`, a
 * Host and a Content-Length header, a blank line, then Content-Length bytes: the serialized PhotonToken.
 */
export function readHttpInit(r: FieldReader, session: MessageSession, res: MessageResult): void {
  asInit(res)
  const start = r.pos
  let headEnd = -1
  for (let i = start; i + 3 < r.end; i++) {
    if (r.bytes[i] === 13 && r.bytes[i + 1] === 10 && r.bytes[i + 2] === 13 && r.bytes[i + 3] === 10) {
      headEnd = i + 4
      break
    }
  }
  if (headEnd < 0) {
    r.bytesField(F_MSG.body, r.remaining)
    throw new DecodeError('HTTP-style init: no blank line after its headers', start)
  }
  const head = r.utf8(null, headEnd - start)
  const lines = head.split('\r\n')
  r.record(F_INIT.http_request, head, start, headEnd - start, () => `HTTP init request: ${lines[0]}`)
  const m = /^POST \/\?(\S*) HTTP\/1\.[01]$/.exec(lines[0])
  const query = new Map<string, string>()
  for (const part of (m?.[1] ?? '').split('&')) {
    if (!part) continue
    const eq = part.indexOf('=')
    query.set(eq < 0 ? part : part.slice(0, eq), eq < 0 ? '' : decodeQuery(part.slice(eq + 1)))
  }
  const appId = query.get('app') ?? ''
  const proto = /^GpBinaryV(16|18)$/i.exec(query.get('protocol') ?? '')
  const version: GpVersion | null = proto ? (proto[1] === '18' ? 18 : 16) : null
  const sid = Number(query.get('sid'))
  const init: PhotonInit = {
    form: 'HTTP',
    protocolVersion: version ? `1.${version - 10}` : (query.get('protocol') ?? '?'),
    clientSdkId: Number.isInteger(sid) ? sid >> 1 : -1,
    libraryVersion: query.get('clientversion') ?? '?',
    ipv6: query.has('IPv6'),
    appId
  }
  // The app id also gets its own field over its bytes in the query (the filter field photon.init.app_id).
  const raw = /[?&]app=([^&\s]*)/.exec(head)
  const ascii = raw && /^[\x20-\x7e]*$/.test(head.slice(0, raw.index + raw[0].length))
  if (raw && ascii) r.record(F_INIT.app_id, appId, start + raw.index + 5, raw[1].length)
  else r.record(F_INIT.app_id, appId, start, 0)
  setVersion(res, session, version, init)
  res.summary = summary(init, 'HTTP')
  if (!m) throw new DecodeError(`HTTP-style init: request line ${JSON.stringify(lines[0].slice(0, 80))} is not POST /?… HTTP/1.1`, start)
  const cl = lines.map((l) => /^content-length:\s*(\d+)$/i.exec(l)).find(Boolean)
  const length = cl ? Number(cl[1]) : r.remaining
  if (length !== r.remaining) {
    if (r.remaining) r.bytesField(F_MSG.body, r.remaining)
    throw new DecodeError(`HTTP-style init: Content-Length ${length} but ${r.end - headEnd} bytes follow the headers`, headEnd)
  }
  if (length === 0) return
  if (!version) {
    r.bytesField(F_MSG.body, r.remaining)
    return
  }
  init.token = readTypedValue(r, version, { key: F_INIT.http_token.key })
}

function decodeQuery(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}
