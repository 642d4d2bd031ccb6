// IPv4 and IPv6 headers, and reassembly of fragmented datagrams (both versions share one reassembler).

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

export function ipv4ToString(b: Uint8Array, at: number): string {
  return `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`
}

/** RFC 5952 text form: lowercase, longest zero run (≥2 groups) as '::'. */
export function ipv6ToString(b: Uint8Array, at: number): string {
  const g: number[] = []
  for (let i = 0; i < 8; i++) g.push((b[at + 2 * i] << 8) | b[at + 2 * i + 1])
  let bestStart = -1
  let bestLen = 1
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) { i++; continue }
    let j = i
    while (j < 8 && g[j] === 0) j++
    if (j - i > bestLen) { bestStart = i; bestLen = j - i }
    i = j
  }
  const hex = g.map((x) => x.toString(16))
  if (bestStart < 0) return hex.join(':')
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`
}

export function parseIpv4(d: Uint8Array, off: number): IpResult {
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
  const packet: IpPacket = { version: 4, src, dst, protocol, payload: d.subarray(off + ihl, end), ttl: d[off + 8] }
  if (more || fragOffset > 0) packet.fragment = { key: `4|${src}|${dst}|${protocol}|${id}`, offset: fragOffset, more }
  return { ok: true, packet }
}

const IPV6_EXT = new Set([0, 43, 60]) // hop-by-hop, routing, destination options: skipped over
const IPV6_FRAGMENT = 44

export function parseIpv6(d: Uint8Array, off: number): IpResult {
  if (d.length - off < 40) return { ok: false, reason: 'truncated IPv6 header' }
  if (d[off] >> 4 !== 6) return { ok: false, reason: 'bad IPv6 header' }
  const payloadLen = (d[off + 4] << 8) | d[off + 5]
  const end = Math.min(d.length, off + 40 + payloadLen)
  let next = d[off + 6]
  let p = off + 40
  const src = ipv6ToString(d, off + 8)
  const dst = ipv6ToString(d, off + 24)
  let fragment: IpPacket['fragment']
  for (let hops = 0; hops < 16; hops++) {
    if (IPV6_EXT.has(next)) {
      if (end - p < 8) return { ok: false, reason: 'truncated IPv6 extension header' }
      const len = (d[p + 1] + 1) * 8
      if (end - p < len) return { ok: false, reason: 'truncated IPv6 extension header' }
      next = d[p]
      p += len
    } else if (next === IPV6_FRAGMENT) {
      if (end - p < 8) return { ok: false, reason: 'truncated IPv6 fragment header' }
      const offFlags = (d[p + 2] << 8) | d[p + 3]
      const ident = ((d[p + 4] << 24) | (d[p + 5] << 16) | (d[p + 6] << 8) | d[p + 7]) >>> 0
      const fragNext = d[p]
      fragment = { key: `6|${src}|${dst}|${fragNext}|${ident}`, offset: offFlags & 0xfff8, more: (offFlags & 1) === 1 }
      next = fragNext
      p += 8
      // An atomic fragment (offset 0, no more) is a whole datagram.
      if (fragment.offset === 0 && !fragment.more) fragment = undefined
      break
    } else break
  }
  return { ok: true, packet: { version: 6, src, dst, protocol: next, payload: d.subarray(p, end), ttl: d[off + 7], fragment } }
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
