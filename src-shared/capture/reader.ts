// Push parser for pcap and pcapng capture files. The host pushes chunks of any size; the reader parses
// every complete record straight out of the chunk and copies only the incomplete tail (at most one
// record) into its own buffer, so memory stays bounded by the largest record, not the file. Each frame's
// bytes are copied out of the chunk (the caller may reuse it) into a shared slab (bytes/slab.ts).
//
// Error policy: until the file header is accepted (pcap global header / first pcapng SHB), bad input
// throws CaptureFormatError — it is not a capture file. After that, damage is reported through
// sink.onWarning and reading stops, keeping every frame delivered before it: a corrupt tail must not
// cost the user the good part of the capture. No length read from the file is used before it has been
// checked against the record that contains it and against MAX_RECORD.
//
// Behaviour follows Wireshark 4.0's wiretap where the spec leaves room (tshark is the test oracle):
// timestamps finer than 1 ns or in binary units are truncated, not rounded; if_tsoffset is applied.

import { copyBytes } from '../bytes/slab'
import { CaptureFormatError, type CaptureFormat, type CaptureFrame, type CaptureInterface, type CaptureSink } from './types'

/** Largest record (pcap record or pcapng block) accepted; anything claiming more is damage. */
export const MAX_RECORD = 256 * 1024 * 1024

import {
  BT_EPB,
  BT_IDB,
  BT_PB,
  BT_SPB,
  IF_DESCRIPTION,
  IF_FCSLEN,
  IF_NAME,
  IF_TSOFFSET,
  IF_TSRESOL,
  OPT_COMMENT,
  OPT_ENDOFOPT,
  PCAPNG_BOM,
  PCAPNG_SHB
} from './pcapng-format'

const PCAP_HEADER = 24
const PCAP_RECORD_HEADER = 16

// Smallest legal size of each block we interpret (header + fixed fields + trailer).
const MIN_BLOCK: Record<number, number> = { [PCAPNG_SHB]: 28, [BT_IDB]: 20, [BT_PB]: 32, [BT_SPB]: 16, [BT_EPB]: 32 }

const utf8 = new TextDecoder('utf-8', { fatal: false })

function u16(b: Uint8Array, o: number, le: boolean): number {
  return le ? b[o] | (b[o + 1] << 8) : (b[o] << 8) | b[o + 1]
}

function u32(b: Uint8Array, o: number, le: boolean): number {
  return le ? (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24)) >>> 0 : ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0
}

/** Signed 64-bit as a number (exact up to 2^53, which covers any sane if_tsoffset). */
function i64(b: Uint8Array, o: number, le: boolean): number {
  const hi = le ? u32(b, o + 4, le) | 0 : u32(b, o, le) | 0
  const lo = le ? u32(b, o, le) : u32(b, o + 4, le)
  return hi * 0x1_0000_0000 + lo
}

function hex32(v: number): string {
  return '0x' + (v >>> 0).toString(16).padStart(8, '0')
}

/** pcapng strings are not NUL-terminated, but some writers add NULs anyway; Wireshark drops them. */
function optString(b: Uint8Array, start: number, len: number): string {
  let end = start + len
  while (end > start && b[end - 1] === 0) end--
  return utf8.decode(b.subarray(start, end))
}

/** Per-interface state for timestamp conversion, beside the public description. */
interface IfaceState {
  info: CaptureInterface
  /** 10^decimalExp units per second when 0..9 (fast exact path), else -1 (BigInt path). */
  decimalExp: number
  units: bigint
}

const ONE_E9 = 1_000_000_000n

/**
 * Splits a 64-bit timestamp in `st` units into seconds and nanoseconds, truncating sub-ns parts like
 * Wireshark. Common resolutions (10^0..10^9) use exact number arithmetic; the rest use BigInt.
 */
function convertTs(high: number, low: number, st: IfaceState): { sec: number; nsec: number } {
  const e = st.decimalExp
  if (e >= 0) {
    // Long division of high:low by d = 10^e (≤ 1e9 < 2^30) in 16-bit limbs: every step stays < 2^46.
    const d = 10 ** e
    const q1 = Math.floor(high / d)
    let r = high % d
    if (q1 < 2 ** 21) {
      let x = r * 65536 + (low >>> 16)
      const q2 = Math.floor(x / d)
      r = x % d
      x = r * 65536 + (low & 0xffff)
      const q3 = Math.floor(x / d)
      r = x % d
      return { sec: q1 * 0x1_0000_0000 + q2 * 65536 + q3, nsec: r * 10 ** (9 - e) }
    }
  }
  const ts = (BigInt(high) << 32n) | BigInt(low)
  const sec = ts / st.units
  const nsec = ((ts % st.units) * ONE_E9) / st.units
  return { sec: Number(sec), nsec: Number(nsec) }
}

type Stage = 'magic' | 'pcap-header' | 'pcap-record' | 'pcapng-block' | 'stopped'

export class CaptureReader {
  private readonly sink: CaptureSink
  private stage: Stage = 'magic'
  private fmt: CaptureFormat | undefined
  private le = true
  /** pcap: nanosecond timestamps (magic a1b23c4d). */
  private nanos = false
  /** File header accepted: from here on, damage is a warning, not a CaptureFormatError. */
  private accepted = false
  private ended = false

  /** Incomplete tail of the input: the start of the next record, never more than one record. */
  private pending = new Uint8Array(0)
  private pendingLen = 0
  /** File offset of the first byte not yet consumed (start of `pending` when it is non-empty). */
  private offset = 0
  private total = 0

  private frameCount = 0
  private readonly ifaces: CaptureInterface[] = []
  private sectionIfaces: IfaceState[] = []
  private section = -1

  constructor(sink: CaptureSink) {
    this.sink = sink
  }

  /** Known once the first 4 bytes have been pushed. */
  get format(): CaptureFormat | undefined {
    return this.fmt
  }

  /** Every interface seen so far, indexed by global id (across pcapng sections). */
  get interfaces(): CaptureInterface[] {
    return this.ifaces
  }

  /** Total bytes pushed so far (including any ignored after reading stopped). */
  get bytesRead(): number {
    return this.total
  }

  /** Frames delivered so far. */
  get frames(): number {
    return this.frameCount
  }

  push(chunk: Uint8Array): void {
    if (this.ended) throw new Error('CaptureReader: push() after end()')
    this.total += chunk.length
    if (this.isStopped() || chunk.length === 0) return
    let pos = 0
    if (this.pendingLen > 0) {
      pos = this.fillPending(chunk)
      if (this.pendingLen > 0 || this.isStopped()) return
    }
    pos = this.parse(chunk, pos, chunk.length)
    if (!this.isStopped() && pos < chunk.length) this.stash(chunk, pos)
  }

  /** Declares end of input. Throws CaptureFormatError if the input never showed a capture magic. */
  end(): void {
    if (this.ended) return
    this.ended = true
    if (this.isStopped()) return
    if (this.fmt === undefined) {
      throw new CaptureFormatError(this.total === 0 ? 'empty file: not a pcap or pcapng file' : `not a pcap or pcapng file (only ${this.total} bytes)`)
    }
    if (this.pendingLen > 0) {
      this.warn(`capture truncated: last record cut off at byte ${this.total}`)
      this.pendingLen = 0
      this.pending = new Uint8Array(0)
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Buffering

  /** Completes the pending record from `chunk`; returns how many bytes of the chunk it took. */
  private fillPending(chunk: Uint8Array): number {
    let pos = 0
    while (this.pendingLen > 0 && pos < chunk.length) {
      const need = this.unitSize(this.pending, 0, this.pendingLen)
      if (need < 0) return pos // stopped
      const take = Math.min(need - this.pendingLen, chunk.length - pos)
      this.reserve(this.pendingLen + take)
      this.pending.set(chunk.subarray(pos, pos + take), this.pendingLen)
      this.pendingLen += take
      pos += take
      if (this.pendingLen < need) break
      // Have the bytes asked for; the unit may now turn out larger (its header was all we had).
      const size = this.unitSize(this.pending, 0, this.pendingLen)
      if (size < 0) return pos
      if (size === this.pendingLen) {
        this.pendingLen = 0
        this.consume(this.pending, 0, size)
        // A big record's buffer is not worth keeping around.
        if (this.pending.length > 1 << 20) this.pending = new Uint8Array(0)
      }
    }
    return pos
  }

  /** Copies an incomplete tail into `pending` (only ever the start of a single record). */
  private stash(chunk: Uint8Array, pos: number): void {
    const n = chunk.length - pos
    this.reserve(n)
    this.pending.set(chunk.subarray(pos), 0)
    this.pendingLen = n
  }

  /** Grows `pending` to hold n bytes: sized by bytes actually received, never by a declared length. */
  private reserve(n: number): void {
    if (n <= this.pending.length) return
    const next = new Uint8Array(Math.max(n, Math.min(this.pending.length * 2, MAX_RECORD), 256))
    next.set(this.pending.subarray(0, this.pendingLen))
    this.pending = next
  }

  private parse(b: Uint8Array, pos: number, end: number): number {
    while (!this.isStopped()) {
      const size = this.unitSize(b, pos, end - pos)
      if (size < 0 || size > end - pos) break
      this.consume(b, pos, size)
      pos += size
    }
    return pos
  }

  private consume(b: Uint8Array, pos: number, size: number): void {
    this.processUnit(b, pos, size)
    this.offset += size
  }

  /**
   * Size of the next unit (header, record or block) starting at b[pos], given `avail` bytes there.
   * Returns a value > avail when more bytes are needed (a header size if even the length is not known
   * yet), or -1 when reading stopped. Never returns less than it asked for on an earlier call with
   * fewer bytes, which is what lets fillPending() grow the pending buffer step by step.
   */
  private unitSize(b: Uint8Array, pos: number, avail: number): number {
    switch (this.stage) {
      case 'magic':
        if (avail < 4) return 4
        this.detect(b, pos)
        return this.unitSize(b, pos, avail)
      case 'pcap-header':
        return PCAP_HEADER
      case 'pcap-record': {
        if (avail < PCAP_RECORD_HEADER) return PCAP_RECORD_HEADER
        const incl = u32(b, pos + 8, this.le)
        if (incl > MAX_RECORD) {
          return this.stop(`pcap record at byte ${this.offset}: captured length ${incl} is larger than the ${MAX_RECORD}-byte limit`)
        }
        return PCAP_RECORD_HEADER + incl
      }
      case 'pcapng-block': {
        if (avail < 8) return 8
        let le = this.le
        const type = u32(b, pos, le) // SHB type is a palindrome: readable before the byte order is known
        if (type === PCAPNG_SHB) {
          if (avail < 12) return 12
          const bom = u32(b, pos + 8, true)
          if (bom === PCAPNG_BOM) le = true
          else if (bom === 0x4d3c2b1a) le = false
          else return this.bad(`pcapng section header at byte ${this.offset}: bad byte-order magic ${hex32(bom)}`)
        }
        const len = u32(b, pos + 4, le)
        const min = MIN_BLOCK[type] ?? 12
        if (len >= min && len % 4 === 0 && len <= MAX_RECORD) return len
        // Messages are built only here: this runs once per block.
        const what = `pcapng block (type ${hex32(type)}) at byte ${this.offset}`
        if (len < 12 || len % 4 !== 0) return this.bad(`${what}: total length ${len} is invalid (must be a multiple of 4, at least 12)`)
        if (len > MAX_RECORD) return this.bad(`${what}: total length ${len} is larger than the ${MAX_RECORD}-byte limit`)
        return this.bad(`${what}: total length ${len} is too small (needs ${min})`)
      }
      case 'stopped':
        return -1
    }
  }

  private processUnit(b: Uint8Array, pos: number, size: number): void {
    switch (this.stage) {
      case 'pcap-header':
        return this.pcapHeader(b, pos)
      case 'pcap-record':
        return this.pcapRecord(b, pos, size)
      case 'pcapng-block':
        return this.pcapngBlock(b, pos, size)
      default:
        return
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Errors

  // A method, not an inline comparison: stage changes inside calls that TypeScript's narrowing cannot see.
  private isStopped(): boolean {
    return this.stage === 'stopped'
  }

  private warn(text: string): void {
    this.sink.onWarning?.(text)
  }

  /** Stops reading after a warning; returns -1 for unitSize(). */
  private stop(text: string): -1 {
    this.warn(text)
    this.stage = 'stopped'
    this.pendingLen = 0
    this.pending = new Uint8Array(0)
    return -1
  }

  /** Damage: before the header is accepted the input is not a capture file; after, a warning + stop. */
  private bad(text: string): -1 {
    if (!this.accepted) {
      this.stage = 'stopped'
      throw new CaptureFormatError(text)
    }
    return this.stop(text)
  }

  // ---------------------------------------------------------------------------------------------
  // Format detection

  private detect(b: Uint8Array, pos: number): void {
    const magic = u32(b, pos, false) // as the bytes appear in the file
    switch (magic) {
      case 0xd4c3b2a1: // a1b2c3d4 written little-endian
      case 0xa1b2c3d4:
      case 0x4d3cb2a1: // a1b23c4d (ns) written little-endian
      case 0xa1b23c4d:
        this.fmt = 'pcap'
        this.le = magic === 0xd4c3b2a1 || magic === 0x4d3cb2a1
        this.nanos = magic === 0x4d3cb2a1 || magic === 0xa1b23c4d
        this.stage = 'pcap-header'
        return
      case PCAPNG_SHB:
        this.fmt = 'pcapng'
        this.stage = 'pcapng-block'
        return
      case 0x34cdb2a1:
      case 0xa1b2cd34:
        this.stage = 'stopped'
        throw new CaptureFormatError(`modified (Kuznetzov/Nokia) pcap is not supported (magic ${hex32(magic)})`)
      default:
        this.stage = 'stopped'
        // The file's bytes are not repeated: the message reaches API clients, and the file may be anything.
        throw new CaptureFormatError('not a pcap or pcapng file (it does not start with a capture file magic number)')
    }
  }

  // ---------------------------------------------------------------------------------------------
  // pcap

  private pcapHeader(b: Uint8Array, pos: number): void {
    const le = this.le
    const major = u16(b, pos + 4, le)
    const minor = u16(b, pos + 6, le)
    if (major !== 2) {
      this.stage = 'stopped'
      throw new CaptureFormatError(`unsupported pcap version ${major}.${minor}`)
    }
    const snapLen = u32(b, pos + 16, le)
    const network = u32(b, pos + 20, le)
    // libpcap's LT_LINKTYPE: the upper bits carry FCS presence (bit 26) and length in 16-bit words.
    const linkType = network & 0x03ffffff
    const info: CaptureInterface = {
      id: 0,
      section: 0,
      linkType,
      snapLen,
      tsUnitsPerSecond: this.nanos ? 1e9 : 1e6,
      tsOffset: 0
    }
    if (network & 0x04000000) info.fcsLength = ((network >>> 28) & 0xf) * 2
    this.accepted = true
    this.stage = 'pcap-record'
    this.section = 0
    this.addInterface(info, this.nanos ? 9 : 6)
  }

  private pcapRecord(b: Uint8Array, pos: number, size: number): void {
    const le = this.le
    let sec = u32(b, pos, le)
    let frac = u32(b, pos + 4, le)
    const orig = u32(b, pos + 12, le)
    // Keep tsNsec in range even for writers that overflow the fraction field.
    const perSec = this.nanos ? 1e9 : 1e6
    if (frac >= perSec) {
      sec += Math.floor(frac / perSec)
      frac %= perSec
    }
    const iface = this.ifaces[0]
    this.emit({
      number: 0,
      interfaceId: 0,
      linkType: iface.linkType,
      tsSec: sec,
      tsNsec: this.nanos ? frac : frac * 1000,
      originalLength: orig,
      data: copyBytes(b, pos + PCAP_RECORD_HEADER, pos + size)
    })
  }

  // ---------------------------------------------------------------------------------------------
  // pcapng

  private pcapngBlock(b: Uint8Array, pos: number, size: number): void {
    let le = this.le
    const type = u32(b, pos, le)
    if (type === PCAPNG_SHB) le = u32(b, pos + 8, true) === PCAPNG_BOM
    if (u32(b, pos + size - 4, le) !== size) {
      this.bad(`pcapng block (type ${hex32(type)}) at byte ${this.offset}: trailing length ${u32(b, pos + size - 4, le)} does not match ${size}`)
      return
    }
    // Body: between the 8-byte header and the 4-byte trailer.
    const start = pos + 8
    const end = pos + size - 4
    switch (type) {
      case PCAPNG_SHB:
        return this.shb(b, start, le)
      case BT_IDB:
        return this.idb(b, start, end)
      case BT_EPB:
        return this.epb(b, start, end)
      case BT_SPB:
        return this.spb(b, start, end)
      case BT_PB:
        return this.pb(b, start, end)
      default:
        return // NRB, ISB, DSB, custom and unknown blocks carry no frames we use
    }
  }

  private shb(b: Uint8Array, start: number, le: boolean): void {
    const major = u16(b, start + 4, le)
    const minor = u16(b, start + 6, le)
    if (major !== 1) {
      this.bad(`pcapng section header at byte ${this.offset}: unsupported version ${major}.${minor}`)
      return
    }
    // Section options (comment, hardware, OS, application) are not surfaced.
    this.le = le
    this.accepted = true
    this.section++
    this.sectionIfaces = []
  }

  private idb(b: Uint8Array, start: number, end: number): void {
    const le = this.le
    const info: CaptureInterface = {
      id: this.ifaces.length,
      section: this.section,
      linkType: u16(b, start, le),
      snapLen: u32(b, start + 4, le),
      tsUnitsPerSecond: 1e6,
      tsOffset: 0
    }
    let decimalExp = 6
    let units = 1_000_000n
    this.options(b, start + 8, end, 'interface description', (code, o, len) => {
      switch (code) {
        case IF_NAME:
          info.name = optString(b, o, len)
          break
        case IF_DESCRIPTION:
          info.description = optString(b, o, len)
          break
        case IF_TSRESOL:
          if (len >= 1) {
            // Bit 7 clear: 10^-v s units; set: 2^-(v & 0x7f).
            const v = b[o]
            const exp = v & 0x7f
            units = v & 0x80 ? 1n << BigInt(exp) : 10n ** BigInt(exp)
            decimalExp = v & 0x80 ? -1 : exp <= 9 ? exp : -1
            info.tsUnitsPerSecond = Number(units)
          }
          break
        case IF_FCSLEN:
          if (len >= 1) info.fcsLength = b[o]
          break
        case IF_TSOFFSET:
          if (len >= 8) info.tsOffset = i64(b, o, le)
          break
      }
    })
    this.addInterface(info, decimalExp, units)
  }

  private addInterface(info: CaptureInterface, decimalExp: number, units = BigInt(info.tsUnitsPerSecond)): void {
    this.ifaces.push(info)
    this.sectionIfaces.push({ info, decimalExp, units })
    this.sink.onInterface?.(info)
  }

  private epb(b: Uint8Array, start: number, end: number): void {
    const le = this.le
    const ifId = u32(b, start, le)
    const capLen = u32(b, start + 12, le)
    const orig = u32(b, start + 16, le)
    this.packet(b, start + 20, end, ifId, u32(b, start + 4, le), u32(b, start + 8, le), capLen, orig, 'enhanced packet')
  }

  /** Obsolete Packet Block: like an EPB with a 16-bit interface id and a drops counter. */
  private pb(b: Uint8Array, start: number, end: number): void {
    const le = this.le
    const ifId = u16(b, start, le)
    const capLen = u32(b, start + 12, le)
    const orig = u32(b, start + 16, le)
    this.packet(b, start + 20, end, ifId, u32(b, start + 4, le), u32(b, start + 8, le), capLen, orig, 'packet')
  }

  private packet(b: Uint8Array, dataStart: number, end: number, ifId: number, tsHigh: number, tsLow: number, capLen: number, orig: number, kind: string): void {
    const st = this.sectionIfaces[ifId]
    if (st === undefined) {
      this.stop(`pcapng ${kind} block at byte ${this.offset}: interface ${ifId} is not defined in this section (${this.sectionIfaces.length} defined)`)
      return
    }
    if (capLen > end - dataStart) {
      this.stop(`pcapng ${kind} block at byte ${this.offset}: captured length ${capLen} does not fit in the block`)
      return
    }
    let comments: string[] | undefined
    const optStart = dataStart + ((capLen + 3) & ~3)
    if (optStart < end) {
      this.options(b, optStart, end, kind, (code, o, len) => {
        if (code === OPT_COMMENT) (comments ??= []).push(optString(b, o, len))
      })
    }
    const { sec, nsec } = convertTs(tsHigh, tsLow, st)
    const frame: CaptureFrame = {
      number: 0,
      interfaceId: st.info.id,
      linkType: st.info.linkType,
      tsSec: sec + st.info.tsOffset,
      tsNsec: nsec,
      originalLength: orig,
      data: copyBytes(b, dataStart, dataStart + capLen)
    }
    if (comments !== undefined) frame.comments = comments
    this.emit(frame)
  }

  /** Simple Packet Block: interface 0 of the section, no timestamp, captured = min(len, snaplen, room). */
  private spb(b: Uint8Array, start: number, end: number): void {
    const st = this.sectionIfaces[0]
    if (st === undefined) {
      this.stop(`pcapng simple packet block at byte ${this.offset}: no interface defined in this section`)
      return
    }
    const orig = u32(b, start, this.le)
    let capLen = Math.min(orig, end - start - 4)
    if (st.info.snapLen !== 0) capLen = Math.min(capLen, st.info.snapLen)
    this.emit({
      number: 0,
      interfaceId: st.info.id,
      linkType: st.info.linkType,
      tsSec: 0,
      tsNsec: 0,
      noTimestamp: true,
      originalLength: orig,
      data: copyBytes(b, start + 4, start + 4 + capLen)
    })
  }

  /**
   * Walks an option list, calling `each` for every option but end-of-options. A malformed list (an
   * option running past the block) is reported and the rest of it ignored; the block itself is kept.
   */
  private options(b: Uint8Array, pos: number, end: number, kind: string, each: (code: number, valueStart: number, len: number) => void): void {
    const le = this.le
    while (end - pos >= 4) {
      const code = u16(b, pos, le)
      const len = u16(b, pos + 2, le)
      if (code === OPT_ENDOFOPT) return
      if (len > end - pos - 4) {
        this.warn(`pcapng ${kind} block at byte ${this.offset}: option ${code} runs past the end of the block; rest of its options ignored`)
        return
      }
      each(code, pos + 4, len)
      pos += 4 + ((len + 3) & ~3)
    }
  }

  private emit(frame: CaptureFrame): void {
    frame.number = ++this.frameCount
    this.sink.onFrame(frame)
  }
}
