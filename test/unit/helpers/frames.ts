// Builds Ethernet/IPv4 frames for engine tests (the golden tests use real captures; these cover the
// corner cases real traffic rarely shows).
import type { CaptureFrame } from '../../../src-shared/capture/types'

let frameNumber = 0
export function resetFrames(): void {
  frameNumber = 0
}

function ipv4(src: string, dst: string, proto: number, payload: Uint8Array): Uint8Array {
  const eth = [2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00]
  const ip = new Uint8Array(20)
  ip[0] = 0x45
  ip[2] = (20 + payload.length) >> 8
  ip[3] = (20 + payload.length) & 0xff
  ip[8] = 64
  ip[9] = proto
  ip.set(src.split('.').map(Number), 12)
  ip.set(dst.split('.').map(Number), 16)
  const out = new Uint8Array(14 + 20 + payload.length)
  out.set(eth)
  out.set(ip, 14)
  out.set(payload, 34)
  return out
}

function frame(data: Uint8Array): CaptureFrame {
  frameNumber++
  return { number: frameNumber, interfaceId: 0, linkType: 1, tsSec: 1_700_000_000 + frameNumber, tsNsec: 0, originalLength: data.length, data }
}

export function udpFrame(src: string, sport: number, dst: string, dport: number, payload: Uint8Array | string): CaptureFrame {
  const p = typeof payload === 'string' ? new TextEncoder().encode(payload) : payload
  const u = new Uint8Array(8 + p.length)
  u.set([sport >> 8, sport & 0xff, dport >> 8, dport & 0xff, (8 + p.length) >> 8, (8 + p.length) & 0xff])
  u.set(p, 8)
  return frame(ipv4(src, dst, 17, u))
}

export const SYN = 0x02
export const ACK = 0x10
export const PSH = 0x08
export const FIN = 0x01
export const RST = 0x04

export function tcpFrame(src: string, sport: number, dst: string, dport: number, seq: number, flags: number, payload: Uint8Array | string = ''): CaptureFrame {
  const p = typeof payload === 'string' ? new TextEncoder().encode(payload) : payload
  const t = new Uint8Array(20 + p.length)
  t.set([sport >> 8, sport & 0xff, dport >> 8, dport & 0xff, (seq >>> 24) & 0xff, (seq >>> 16) & 0xff, (seq >>> 8) & 0xff, seq & 0xff])
  t[12] = 0x50
  t[13] = flags
  t.set(p, 20)
  return frame(ipv4(src, dst, 6, t))
}
