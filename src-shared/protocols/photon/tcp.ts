// Photon's TCP framing (docs/photon.md): `FB` + i32 BE length (the whole frame) + channel +
// reliable flag, then one message; `F0` pings (client: 5 bytes, server reply: 9); `F1` proxy bytes.

import type { FieldReader } from '../../bytes/reader'
import { F_TCP } from './message-fields'

export const TCP_MESSAGE = 0xfb
export const TCP_PING = 0xf0
export const TCP_PROXY = 0xf1
export const TCP_HEADER = 7
/** Frames above this are taken as lost framing rather than waited for. */
export const TCP_MAX_FRAME = 64 * 1024 * 1024

export type TcpFrame =
  | { kind: 'message'; size: number; channel: number; reliable: number }
  | { kind: 'ping' | 'proxy'; size: number }
  | { kind: 'need' }
  | { kind: 'bad'; reason: string }

/** The frame at the start of `b` (`fromClient` decides a ping's size). */
export function tcpFrameAt(b: Uint8Array, fromClient: boolean): TcpFrame {
  if (b.length < 1) return { kind: 'need' }
  switch (b[0]) {
    case TCP_MESSAGE: {
      if (b.length < TCP_HEADER) return { kind: 'need' }
      const size = ((b[1] << 24) | (b[2] << 16) | (b[3] << 8) | b[4]) >>> 0
      if (size < TCP_HEADER + 2) return { kind: 'bad', reason: `frame length ${size} is below the 9-byte minimum` }
      if (size > TCP_MAX_FRAME) return { kind: 'bad', reason: `frame length ${size} is above ${TCP_MAX_FRAME}` }
      if (b[6] > 1) return { kind: 'bad', reason: `reliable flag ${b[6]} is not 0 or 1` }
      return { kind: 'message', size, channel: b[5], reliable: b[6] }
    }
    case TCP_PING:
      return { kind: 'ping', size: fromClient ? 5 : 9 }
    case TCP_PROXY:
      return { kind: 'proxy', size: 2 }
    default:
      return { kind: 'bad', reason: `0x${b[0].toString(16).padStart(2, '0')} does not start a Photon TCP frame` }
  }
}

/** Records a frame's header (or a whole ping/proxy frame) through the reader; returns a ping's times. */
export function readTcpHeader(r: FieldReader, frame: TcpFrame, fromClient: boolean): { clientTime?: number; serverTime?: number } {
  r.u8(F_TCP.signal)
  if (frame.kind === 'message') {
    r.u32(F_TCP.length)
    r.u8(F_TCP.channel)
    r.u8(F_TCP.reliable)
  } else if (frame.kind === 'ping') {
    if (fromClient) return { clientTime: r.u32(F_TCP.ping_time) }
    const serverTime = r.u32(F_TCP.server_time)
    return { serverTime, clientTime: r.u32(F_TCP.ping_time) }
  } else if (frame.kind === 'proxy') r.u8(F_TCP.proxy)
  return {}
}
