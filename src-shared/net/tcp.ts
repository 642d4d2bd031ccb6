// TCP segment parsing and per-direction stream reassembly. Given a FieldReader over the frame (and where
// the header starts in it), the UDP and TCP header parsers also record their fields (net/layers.ts).

import type { FieldReader } from '../bytes/reader'
import { ByteStream } from './byte-stream'
import { F_TCP, F_UDP } from './layer-fields'

export interface TcpSegment {
  srcPort: number
  dstPort: number
  seq: number
  ack: number
  flags: number
  window: number
  payload: Uint8Array
}

export const TcpFlag = { FIN: 0x01, SYN: 0x02, RST: 0x04, PSH: 0x08, ACK: 0x10, URG: 0x20 } as const

export interface UdpDatagram {
  srcPort: number
  dstPort: number
  payload: Uint8Array
}

/** `d` starts at the UDP header; `at` is where that is in the frame `r` reads (for the recorded ranges). */
export function parseUdp(d: Uint8Array, r?: FieldReader, at = 0): UdpDatagram | { error: string } {
  if (d.length < 8) return { error: 'truncated UDP header' }
  const len = (d[4] << 8) | d[5]
  // Length 0 is legal for jumbograms over IPv6; otherwise trust it only within the bytes present.
  const end = len >= 8 ? Math.min(d.length, len) : d.length
  const srcPort = (d[0] << 8) | d[1]
  const dstPort = (d[2] << 8) | d[3]
  if (r) {
    r.pos = at
    r.open(F_UDP.udp, () => `User Datagram Protocol, Src Port: ${srcPort}, Dst Port: ${dstPort}`)
    r.record(F_UDP.srcport, srcPort, at, 2)
    r.record(F_UDP.dstport, dstPort, at + 2, 2)
    r.record(F_UDP.length, len, at + 4, 2)
    const sum = (d[6] << 8) | d[7]
    r.record(F_UDP.checksum, sum, at + 6, 2, () => `Checksum: 0x${sum.toString(16).padStart(4, '0')} [not verified]`)
    r.pos = at + 8
    r.close()
  }
  return { srcPort, dstPort, payload: d.subarray(8, end) }
}

/**
 * The relative sequence numbers' bases (Wireshark's tcp.seq/tcp.ack): per direction, the sequence number
 * that counts as 0 (the SYN's, or one before the first segment seen when the capture joined mid-stream).
 */
export interface TcpBases {
  seq: number
  ack?: number
}

/** `d` starts at the TCP header; `at` is where that is in the frame `r` reads. */
export function parseTcp(d: Uint8Array, r?: FieldReader, at = 0, bases?: TcpBases): TcpSegment | { error: string } {
  if (d.length < 20) return { error: 'truncated TCP header' }
  const dataOffset = (d[12] >> 4) * 4
  if (dataOffset < 20 || dataOffset > d.length) return { error: `bad TCP data offset ${dataOffset}` }
  const seg: TcpSegment = {
    srcPort: (d[0] << 8) | d[1],
    dstPort: (d[2] << 8) | d[3],
    seq: ((d[4] << 24) | (d[5] << 16) | (d[6] << 8) | d[7]) >>> 0,
    ack: ((d[8] << 24) | (d[9] << 16) | (d[10] << 8) | d[11]) >>> 0,
    flags: d[13] | ((d[12] & 1) << 8),
    window: (d[14] << 8) | d[15],
    payload: d.subarray(dataOffset)
  }
  if (r) recordTcp(r, d, at, dataOffset, seg, bases)
  return seg
}

const FLAG_NAMES: [number, string, keyof typeof F_TCP][] = [
  [TcpFlag.URG, 'URG', 'flags.urg'],
  [TcpFlag.ACK, 'ACK', 'flags.ack'],
  [TcpFlag.PSH, 'PSH', 'flags.push'],
  [TcpFlag.RST, 'RST', 'flags.reset'],
  [TcpFlag.SYN, 'SYN', 'flags.syn'],
  [TcpFlag.FIN, 'FIN', 'flags.fin']
]
const FLAG_BITS = FLAG_NAMES.reduce((bits, [bit]) => bits | bit, 0)

function recordTcp(r: FieldReader, d: Uint8Array, at: number, hdr: number, seg: TcpSegment, bases?: TcpBases): void {
  const set = (): string[] => FLAG_NAMES.filter(([bit]) => seg.flags & bit).map(([, name]) => name)
  r.pos = at
  r.open(
    F_TCP.tcp,
    () =>
      `Transmission Control Protocol, Src Port: ${seg.srcPort}, Dst Port: ${seg.dstPort}, Len: ${seg.payload.length}${seg.flags & FLAG_BITS ? ` [${set().join(', ')}]` : ''}`
  )
  r.record(F_TCP.srcport, seg.srcPort, at, 2)
  r.record(F_TCP.dstport, seg.dstPort, at + 2, 2)
  r.record(F_TCP.len, seg.payload.length, at, 0)
  if (bases) r.record(F_TCP.seq, (seg.seq - bases.seq) >>> 0, at + 4, 4)
  r.record(F_TCP.seq_raw, seg.seq, at + 4, 4)
  // The acknowledgment number means something only with ACK set (Wireshark leaves it out otherwise).
  if (seg.flags & TcpFlag.ACK) {
    if (bases?.ack !== undefined) r.record(F_TCP.ack, (seg.ack - bases.ack) >>> 0, at + 8, 4)
    r.record(F_TCP.ack_raw, seg.ack, at + 8, 4)
  }
  r.record(F_TCP.hdr_len, hdr, at + 12, 1, () => `Header length: ${hdr} bytes (${hdr >> 2})`)
  r.pos = at + 12
  r.open(F_TCP.flags, () => `Flags: 0x${seg.flags.toString(16).padStart(3, '0')}${seg.flags & FLAG_BITS ? ` (${set().join(', ')})` : ''}`, seg.flags)
  for (const [bit, , key] of FLAG_NAMES) r.record(F_TCP[key], (seg.flags & bit) !== 0, at + 13, 1)
  r.pos = at + 14
  r.close()
  r.record(F_TCP.window_size_value, seg.window, at + 14, 2)
  const sum = (d[16] << 8) | d[17]
  r.record(F_TCP.checksum, sum, at + 16, 2, () => `Checksum: 0x${sum.toString(16).padStart(4, '0')} [not verified]`)
  r.record(F_TCP.urgent_pointer, (d[18] << 8) | d[19], at + 18, 2)
  if (hdr > 20) r.record(F_TCP.options, d.subarray(20, hdr), at + 20, hdr - 20)
  r.pos = at + hdr
  r.close()
}

export interface TcpGap {
  /** Stream offset where bytes are missing, and how many. */
  offset: number
  length: number
  /** Frame after which the gap was given up on. */
  frame: number
}

export interface ReassemblyStats {
  retransmissions: number
  outOfOrder: number
  overlaps: number
  gaps: TcpGap[]
}

interface PendingSegment {
  seq: number
  data: Uint8Array
  frame: number
  time: number
}

const SYN_SEEN = 1
const FIN_SEEN = 2
const RST_SEEN = 4

/** Who hears about a TCP gap, told which direction it is in (one listener serves both directions). */
export interface TcpGapListener {
  tcpGap(direction: TcpDirection, gap: TcpGap): void
}

/**
 * One direction of a TCP connection. In-order bytes go to `stream`; out-of-order segments wait until the
 * hole before them fills. Retransmitted bytes (already delivered) are dropped and counted; for
 * overlapping data the first copy received wins. If more than `maxBuffered` bytes wait behind a hole the
 * hole is declared a gap, reported, and skipped, so one lost segment cannot stall the stream forever.
 * Kept small (a capture may hold a million connections): counters are plain fields, and the list of
 * waiting segments and of gaps exist only once there is one.
 */
export class TcpDirection {
  readonly stream = new ByteStream()
  /** Absolute sequence number of the next byte expected, or -1 before the first segment. */
  private nextSeq = -1
  /** Bytes delivered to `stream` so far (stream offset of nextSeq). */
  private delivered = 0
  /** Out-of-order segments (absolute seq), in arrival order. */
  private pending: PendingSegment[] | undefined
  private pendingBytes = 0
  /** Sequence number just after the FIN, once one is seen. */
  private finSeq = -1
  private flags = 0
  /** The relative sequence numbers' base (TcpBases), -1 before the first segment. */
  base = -1
  retransmissions = 0
  outOfOrder = 0
  overlaps = 0
  private gapList: TcpGap[] | undefined
  /** Called when a hole is given up on, while `stream` still holds only the bytes before it. */
  onGap?: (gap: TcpGap) => void
  /** The same, for an owner of several directions (no closure per direction). */
  listener?: TcpGapListener

  constructor(private readonly maxBuffered = 4 * 1024 * 1024) {}

  get synSeen(): boolean {
    return (this.flags & SYN_SEEN) !== 0
  }

  get finSeen(): boolean {
    return (this.flags & FIN_SEEN) !== 0
  }

  get rstSeen(): boolean {
    return (this.flags & RST_SEEN) !== 0
  }

  get stats(): ReassemblyStats {
    return { retransmissions: this.retransmissions, outOfOrder: this.outOfOrder, overlaps: this.overlaps, gaps: this.gapList ?? [] }
  }

  /** A FIN was seen and every byte before it has been delivered: this direction will carry nothing more. */
  get ended(): boolean {
    if (!this.finSeen || this.pending?.length) return false
    return this.nextSeq < 0 || this.rel(this.finSeq) <= 0
  }

  /** Relative position of `seq` to nextSeq in modular 32-bit space (negative = before). */
  private rel(seq: number): number {
    return (seq - this.nextSeq) | 0
  }

  /** Adds a segment; returns true when new in-order bytes were delivered to `stream`. */
  segment(seg: TcpSegment, frame: number, time: number): boolean {
    if (seg.flags & TcpFlag.RST) this.flags |= RST_SEEN
    // As Wireshark: the SYN is relative 0; joining mid-stream, the first segment seen is relative 1.
    if (this.base < 0 || (seg.flags & TcpFlag.SYN && !this.synSeen)) this.base = seg.flags & TcpFlag.SYN ? seg.seq : (seg.seq - 1) >>> 0
    let seq = seg.seq
    if (seg.flags & TcpFlag.SYN) {
      this.flags |= SYN_SEEN
      seq = (seq + 1) >>> 0 // the SYN occupies one sequence number
      if (this.nextSeq < 0 || this.delivered === 0) this.nextSeq = seq
    }
    const data = seg.payload
    if (seg.flags & TcpFlag.FIN && !this.finSeen) {
      this.flags |= FIN_SEEN
      this.finSeq = (seq + data.length) >>> 0
    }
    if (data.length === 0) return false
    if (this.nextSeq < 0) this.nextSeq = seq // joined mid-stream: start where we are
    return this.place(seq, data, frame, time)
  }

  private place(seq: number, data: Uint8Array, frame: number, time: number): boolean {
    const r = this.rel(seq)
    if (r + data.length <= 0) {
      this.retransmissions++
      return false
    }
    if (r < 0) {
      // Starts before what we have: keep only the new tail.
      this.overlaps++
      data = data.subarray(-r)
      seq = this.nextSeq
    } else if (r > 0) {
      this.outOfOrder++
      // Kept until the hole before it fills: a copy, not a view of the frame's slab (bytes/slab.ts).
      ;(this.pending ??= []).push({ seq, data: data.slice(), frame, time })
      this.pendingBytes += data.length
      if (this.pendingBytes > this.maxBuffered) return this.skipGap(frame)
      return false
    }
    this.deliver(data, frame, time)
    this.drain()
    return true
  }

  private deliver(data: Uint8Array, frame: number, time: number): void {
    this.stream.push(data, frame, time)
    this.delivered += data.length
    this.nextSeq = (this.nextSeq + data.length) >>> 0
  }

  /** Moves waiting segments that have become in-order into the stream. */
  private drain(): void {
    const pending = this.pending
    if (!pending) return
    let progressed = true
    while (progressed && pending.length) {
      progressed = false
      for (let i = 0; i < pending.length; i++) {
        const p = pending[i]
        const r = this.rel(p.seq)
        if (r > 0) continue
        pending.splice(i, 1)
        this.pendingBytes -= p.data.length
        if (r + p.data.length <= 0) {
          this.retransmissions++
        } else {
          if (r < 0) this.overlaps++
          this.deliver(p.data.subarray(-r), p.frame, p.time)
        }
        progressed = true
        break
      }
    }
    if (!pending.length) this.pending = undefined
  }

  /** Gives up on the hole before the earliest waiting segment: reports it and continues from there. */
  private skipGap(frame: number): boolean {
    const pending = this.pending
    if (!pending?.length) return false
    let earliest = pending[0]
    for (const p of pending) if (this.rel(p.seq) < this.rel(earliest.seq)) earliest = p
    const missing = this.rel(earliest.seq)
    const gap = { offset: this.delivered, length: missing, frame }
    ;(this.gapList ??= []).push(gap)
    this.onGap?.(gap)
    this.listener?.tcpGap(this, gap)
    this.delivered += missing
    this.nextSeq = earliest.seq
    this.drain()
    return true
  }

  /** At the end of the capture: skip remaining holes so buffered bytes are still decoded. Returns true if bytes were delivered. */
  flush(frame: number): boolean {
    let any = false
    while (this.pending?.length) any = this.skipGap(frame) || any
    return any
  }

  /** Stream offset of the next in-order byte. */
  get offset(): number {
    return this.delivered
  }
}
