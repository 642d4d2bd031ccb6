// IPv4 and IPv6 headers, and reassembly of fragmented datagrams (both versions share one reassembler).
// Given a FieldReader over the frame, the header parsers also record the header fields with their byte
// ranges (net/layers.ts); the index pass passes none.

import type { FieldReader } from '../bytes/reader'
import { F_IP, F_IPV6 } from './layer-fields'

export interface IpPacket {
  version: 4 | 6
  src: string
  dst: string
  /** Transport protocol number (6 TCP, 17 UDP, ...), after IPv6 extension headers. */
  protocol: number
  /** Transport-layer bytes (for a fragment: this fragment's bytes only). */
  payload: Uint8Array
  ttl: number
  /** Set on fragments: the reassembly key and the fragment's place. */
  fragment?: { key: string; offset: number; more: boolean }
}

export type IpResult = { ok: true; packet: IpPacket } | { ok: false; reason: string }

// A capture has few distinct addresses and every frame names two: their texts are kept, not rebuilt.
const IPV4_TEXTS = new Map<number, string>()

export function ipv4ToString(b: Uint8Array, at: number): string {
  const n = ((b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]) >>> 0
  let text = IPV4_TEXTS.get(n)
  if (text === undefined) {
    if (IPV4_TEXTS.size >= 1 << 16) IPV4_TEXTS.clear()
    text = `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`
    IPV4_TEXTS.set(n, text)
  }
  return text
}

/** RFC 5952 text form: lowercase, longest zero run (≥2 groups) as '::'. */
export function ipv6ToString(b: Uint8Array, at: number): string {
  const g: number[] = []
  for (let i = 0; i < 8; i++) g.push((b[at + 2 * i] << 8) | b[at + 2 * i + 1])
  let bestStart = -1
  let bestLen = 1
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++
      continue
    }
    let j = i
    while (j < 8 && g[j] === 0) j++
    if (j - i > bestLen) {
      bestStart = i
      bestLen = j - i
    }
    i = j
  }
  const hex = g.map((x) => x.toString(16))
  if (bestStart < 0) return hex.join(':')
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`
}

export function parseIpv4(d: Uint8Array, off: number, r?: FieldReader): IpResult {
  if (d.length - off < 20) return { ok: false, reason: 'truncated IPv4 header' }
  const ihl = (d[off] & 0x0f) * 4
  if (d[off] >> 4 !== 4 || ihl < 20) return { ok: false, reason: 'bad IPv4 header' }
  const total = (d[off + 2] << 8) | d[off + 3]
  if (total < ihl) return { ok: false, reason: `IPv4 total length ${total} below header length ${ihl}` }
  // Trust the total length only as far as bytes are present (Ethernet padding beyond it is dropped;
  // a snapped frame keeps what was captured).
  const end = Math.min(d.length, off + total)
  if (end < off + ihl) return { ok: false, reason: 'truncated IPv4 header' }
  const id = (d[off + 4] << 8) | d[off + 5]
  const flagsFrag = (d[off + 6] << 8) | d[off + 7]
  const more = (flagsFrag & 0x2000) !== 0
  const fragOffset = (flagsFrag & 0x1fff) * 8
  const protocol = d[off + 9]
  const src = ipv4ToString(d, off + 12)
  const dst = ipv4ToString(d, off + 16)
  if (r) recordIpv4(r, d, off, ihl, { total, id, flagsFrag, src, dst })
  const packet: IpPacket = { version: 4, src, dst, protocol, payload: d.subarray(off + ihl, end), ttl: d[off + 8] }
  if (more || fragOffset > 0) packet.fragment = { key: `4|${src}|${dst}|${protocol}|${id}`, offset: fragOffset, more }
  return { ok: true, packet }
}

const IPV6_EXT = new Set([0, 43, 60]) // hop-by-hop, routing, destination options: skipped over
const IPV6_FRAGMENT = 44

export function parseIpv6(d: Uint8Array, off: number, r?: FieldReader): IpResult {
  if (d.length - off < 40) return { ok: false, reason: 'truncated IPv6 header' }
  if (d[off] >> 4 !== 6) return { ok: false, reason: 'bad IPv6 header' }
  const payloadLen = (d[off + 4] << 8) | d[off + 5]
  const end = Math.min(d.length, off + 40 + payloadLen)
  let next = d[off + 6]
  let p = off + 40
  const src = ipv6ToString(d, off + 8)
  const dst = ipv6ToString(d, off + 24)
  let fragment: IpPacket['fragment']
  if (r) {
    r.pos = off
    r.open(F_IPV6.ipv6, () => `Internet Protocol Version 6, Src: ${src}, Dst: ${dst}`)
    const word = ((d[off] << 24) | (d[off + 1] << 16) | (d[off + 2] << 8) | d[off + 3]) >>> 0
    r.record(F_IPV6.version, d[off] >> 4, off, 1)
    r.record(F_IPV6.tclass, (word >>> 20) & 0xff, off, 4)
    r.record(F_IPV6.flow, word & 0xfffff, off + 1, 3)
    r.record(F_IPV6.plen, payloadLen, off + 4, 2)
    r.record(F_IPV6.nxt, next, off + 6, 1)
    r.record(F_IPV6.hlim, d[off + 7], off + 7, 1)
    r.record(F_IPV6.src, src, off + 8, 16)
    r.record(F_IPV6.dst, dst, off + 24, 16)
  }
  for (let hops = 0; hops < 16; hops++) {
    if (IPV6_EXT.has(next)) {
      if (end - p < 8) return { ok: false, reason: 'truncated IPv6 extension header' }
      const len = (d[p + 1] + 1) * 8
      if (end - p < len) return { ok: false, reason: 'truncated IPv6 extension header' }
      r?.record(F_IPV6.ext, next, p, len)
      next = d[p]
      p += len
    } else if (next === IPV6_FRAGMENT) {
      if (end - p < 8) return { ok: false, reason: 'truncated IPv6 fragment header' }
      const offFlags = (d[p + 2] << 8) | d[p + 3]
      const ident = ((d[p + 4] << 24) | (d[p + 5] << 16) | (d[p + 6] << 8) | d[p + 7]) >>> 0
      const fragNext = d[p]
      if (r) {
        r.pos = p
        r.open(F_IPV6.fraghdr, () => `Fragment header, offset ${offFlags & 0xfff8}, ${offFlags & 1 ? 'more fragments' : 'last fragment'}`)
        r.record(F_IPV6['fraghdr.nxt'], fragNext, p, 1)
        r.record(F_IPV6['fraghdr.offset'], offFlags >> 3, p + 2, 2, () => `Offset: ${offFlags >> 3} (${offFlags & 0xfff8} bytes)`)
        r.record(F_IPV6['fraghdr.more'], (offFlags & 1) === 1, p + 2, 2)
        r.record(F_IPV6['fraghdr.ident'], ident, p + 4, 4, () => `Identification: 0x${ident.toString(16).padStart(8, '0')}`)
        r.pos = p + 8
        r.close()
      }
      fragment = { key: `6|${src}|${dst}|${fragNext}|${ident}`, offset: offFlags & 0xfff8, more: (offFlags & 1) === 1 }
      next = fragNext
      p += 8
      // An atomic fragment (offset 0, no more) is a whole datagram.
      if (fragment.offset === 0 && !fragment.more) fragment = undefined
      break
    } else break
  }
  // (on an early return above the group stays open: the layer builder closes what is left)
  if (r) {
    r.pos = p
    r.close()
  }
  return { ok: true, packet: { version: 6, src, dst, protocol: next, payload: d.subarray(p, end), ttl: d[off + 7], fragment } }
}

function recordIpv4(
  r: FieldReader,
  d: Uint8Array,
  off: number,
  ihl: number,
  h: { total: number; id: number; flagsFrag: number; src: string; dst: string }
): void {
  r.pos = off
  r.open(F_IP.ip, () => `Internet Protocol Version 4, Src: ${h.src}, Dst: ${h.dst}`)
  r.record(F_IP.version, d[off] >> 4, off, 1)
  r.record(F_IP.hdr_len, ihl, off, 1, () => `Header length: ${ihl} bytes (${ihl >> 2})`)
  const ds = d[off + 1]
  r.record(F_IP.dsfield, ds, off + 1, 1, () => `Differentiated services field: 0x${ds.toString(16).padStart(2, '0')}`)
  r.record(F_IP['dsfield.dscp'], ds >> 2, off + 1, 1)
  r.record(F_IP['dsfield.ecn'], ds & 3, off + 1, 1)
  r.record(F_IP.len, h.total, off + 2, 2)
  r.record(F_IP.id, h.id, off + 4, 2, () => `Identification: 0x${h.id.toString(16).padStart(4, '0')} (${h.id})`)
  const flags = h.flagsFrag >> 13
  r.record(F_IP.flags, flags, off + 6, 1, () => `Flags: 0x${flags.toString(16)}${flags & 2 ? ", Don't fragment" : ''}${flags & 1 ? ', More fragments' : ''}`)
  r.record(F_IP['flags.rb'], (flags & 4) !== 0, off + 6, 1)
  r.record(F_IP['flags.df'], (flags & 2) !== 0, off + 6, 1)
  r.record(F_IP['flags.mf'], (flags & 1) !== 0, off + 6, 1)
  const units = h.flagsFrag & 0x1fff
  r.record(F_IP.frag_offset, units, off + 6, 2, () => `Fragment offset: ${units} (${units * 8} bytes)`)
  r.record(F_IP.ttl, d[off + 8], off + 8, 1)
  r.record(F_IP.proto, d[off + 9], off + 9, 1)
  const sum = (d[off + 10] << 8) | d[off + 11]
  r.record(F_IP.checksum, sum, off + 10, 2, () => `Header checksum: 0x${sum.toString(16).padStart(4, '0')} [not verified]`)
  r.record(F_IP.src, h.src, off + 12, 4)
  r.record(F_IP.dst, h.dst, off + 16, 4)
  r.pos = off + ihl
  r.close()
}

interface PendingDatagram {
  parts: { offset: number; bytes: Uint8Array }[]
  total: number // -1 until the last fragment is seen
  frames: number[]
  /** Bytes of all frames that carried a fragment (for conversation byte counts). */
  frameBytes: number
}

export interface Reassembled {
  payload: Uint8Array
  frames: number[]
  frameBytes: number
}

/**
 * Reassembles fragmented IP datagrams. Fragments may arrive in any order and overlap (the first copy of a
 * byte wins). Memory is bounded: at most `maxPending` datagrams are held; the oldest is dropped (and
 * reported) beyond that, and no datagram may exceed 65535 bytes of payload.
 */
export class IpDefragmenter {
  private pending = new Map<string, PendingDatagram>()
  dropped = 0

  constructor(private readonly maxPending = 1024) {}

  /** Adds a fragment; returns the whole payload once every byte is present, else null. */
  add(packet: IpPacket, frame: number, frameLength: number): Reassembled | { error: string } | null {
    const f = packet.fragment!
    if (f.offset + packet.payload.length > 65535) return { error: `IP fragment at offset ${f.offset} exceeds 65535 bytes` }
    let p = this.pending.get(f.key)
    if (!p) {
      if (this.pending.size >= this.maxPending) {
        const oldest = this.pending.keys().next().value!
        this.pending.delete(oldest)
        this.dropped++
      }
      p = { parts: [], total: -1, frames: [], frameBytes: 0 }
      this.pending.set(f.key, p)
    }
    if (p.parts.length >= 8192) {
      // More pieces than a 64 KiB datagram of 8-byte fragments can have: hostile or broken.
      this.pending.delete(f.key)
      return { error: 'more than 8192 fragments for one IP datagram; dropped' }
    }
    p.parts.push({ offset: f.offset, bytes: packet.payload })
    if (!p.frames.includes(frame)) {
      p.frames.push(frame)
      p.frameBytes += frameLength
    }
    if (!f.more) p.total = f.offset + packet.payload.length
    if (p.total < 0) return null
    // Check coverage of [0, total).
    const sorted = [...p.parts].sort((a, b) => a.offset - b.offset)
    let covered = 0
    for (const part of sorted) {
      if (part.offset > covered) return null
      covered = Math.max(covered, part.offset + part.bytes.length)
    }
    if (covered < p.total) return null
    const out = new Uint8Array(p.total)
    // Write later arrivals first so the first-received copy of overlapping bytes wins.
    for (let i = p.parts.length - 1; i >= 0; i--) {
      const part = p.parts[i]
      const n = Math.max(0, Math.min(part.bytes.length, p.total - part.offset))
      out.set(part.bytes.subarray(0, n), part.offset)
    }
    this.pending.delete(f.key)
    return { payload: out, frames: p.frames.sort((a, b) => a - b), frameBytes: p.frameBytes }
  }

  /** Datagrams still incomplete at the end of the capture. */
  incomplete(): { key: string; frames: number[] }[] {
    return [...this.pending.entries()].map(([key, p]) => ({ key, frames: p.frames }))
  }
}
