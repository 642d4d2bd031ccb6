// Encoders for the two Init forms that do not start with F3 00, written from docs/photon.md ("Init"), not
// from the decoder: InitV3 (signal 0xF5) and the HTTP-style `POST /?init=&app=…` of a client with a token.
import { valueBytes, type PV, type Version } from './gp-encoder'
import { concat } from './udp-encoder'

export interface InitV3Spec {
  /** 1 encryption, 2 IPv6, 4 release SDK. */
  flags?: number
  protocol: Version
  /** major, minor, build, revision. */
  library?: [number, number, number, number]
  /** The client SDK byte as sent: (sdk id << 1) | flag. */
  sdkByte?: number
  appId: string
  token?: Uint8Array
  /** The serialized Dictionary<byte, object> (key 0 = custom init data): a Dictionary typed value. */
  data: PV
}

/** F5, flags u16 BE, 16|18, 4 library bytes, SDK byte, 0, app id (u8 length + UTF-8), token (u16 BE length + bytes), Dictionary. */
export function initV3Message(s: InitV3Spec): Uint8Array {
  const app = Buffer.from(s.appId, 'utf8')
  const token = s.token ?? new Uint8Array(0)
  const flags = s.flags ?? 0
  const head = [0xf5, (flags >> 8) & 0xff, flags & 0xff, s.protocol, ...(s.library ?? [4, 1, 6, 25]), s.sdkByte ?? 0x1e, 0, app.length]
  return concat([Uint8Array.from(head), app, Uint8Array.from([(token.length >> 8) & 0xff, token.length & 0xff]), token, valueBytes(s.protocol, s.data)])
}

export interface HttpInitSpec {
  appId: string
  clientVersion?: string
  protocol: Version
  sdkByte?: number
  ipv6?: boolean
  host?: string
  /** The PhotonToken, serialized as one typed value after the headers. */
  token?: PV
}

/** The HTTP-style init: request line with init, app, clientversion, protocol and sid (each followed by &), Host, Content-Length, token. */
export function httpInitMessage(s: HttpInitSpec): { bytes: Uint8Array; head: string } {
  const token = s.token ? valueBytes(s.protocol, s.token) : new Uint8Array(0)
  let query = `init=&app=${s.appId}&clientversion=${s.clientVersion ?? '4.1.6.25'}&protocol=GpBinaryV${s.protocol}&sid=${s.sdkByte ?? 30}&`
  if (s.ipv6) query += '&IPv6'
  const head = `POST /?${query} HTTP/1.1\r\nHost: ${s.host ?? 'ns.exitgames.com'}\r\nContent-Length: ${token.length}\r\n\r\n`
  return { bytes: concat([Buffer.from(head, 'utf8'), token]), head }
}
