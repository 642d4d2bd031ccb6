// WebSocket frames and HTTP upgrades for engine tests (RFC 6455; permessage-deflate via node:zlib).
import zlib from 'node:zlib'

const u32 = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]
const concat = (...parts: Uint8Array[]): Uint8Array => Uint8Array.from(Buffer.concat(parts))

export function wsFrame(payload: Uint8Array, o: { mask?: boolean; rsv1?: boolean; opcode?: number; fin?: boolean } = {}): Uint8Array {
  const len = payload.length
  const m = o.mask ? 0x80 : 0
  const hdr: number[] = [(o.fin === false ? 0 : 0x80) | (o.rsv1 ? 0x40 : 0) | (o.opcode ?? 2)]
  if (len < 126) hdr.push(m | len)
  else if (len < 65536) hdr.push(m | 126, len >> 8, len & 0xff)
  else hdr.push(m | 127, 0, 0, 0, 0, ...u32(len))
  const key = [0x37, 0xfa, 0x21, 0x3d]
  if (o.mask) hdr.push(...key)
  const body = o.mask ? payload.map((b, i) => b ^ key[i & 3]) : payload
  return concat(Uint8Array.from(hdr), body)
}

/** A permessage-deflate payload: sync-flushed raw deflate without the trailing 00 00 ff ff. */
export function pmd(data: Uint8Array): Uint8Array {
  const out = zlib.deflateRawSync(data, { finishFlush: zlib.constants.Z_SYNC_FLUSH })
  return Uint8Array.from(out.subarray(0, out.length - 4))
}

const header = (name: string, value: string) => (value ? `${name}: ${value}\r\n` : '')

export function upgradeRequest(path: string, extensions = '', protocol = ''): string {
  return (
    `GET ${path} HTTP/1.1\r\nHost: game.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n` +
    `${header('Sec-WebSocket-Extensions', extensions)}${header('Sec-WebSocket-Protocol', protocol)}Sec-WebSocket-Version: 13\r\n\r\n`
  )
}

export function upgradeResponse(extensions = '', protocol = ''): string {
  return (
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n` +
    `${header('Sec-WebSocket-Extensions', extensions)}${header('Sec-WebSocket-Protocol', protocol)}\r\n`
  )
}
