// Writes pcapng as byte chunks: header() gives a little-endian Section Header Block followed by one
// Interface Description Block per interface, frame() an Enhanced Packet Block. The caller concatenates
// them (to a file, a stream, a Blob). Calling header() again starts a new section with its own
// interfaces, which pcapng readers (and CaptureReader) accept.

import { concatBytes } from '../bytes/concat'
import { BT_EPB, BT_IDB, IF_NAME, IF_TSRESOL, OPT_COMMENT, PCAPNG_BOM, PCAPNG_SHB, SHB_USERAPPL } from './pcapng-format'

const DEFAULT_SNAPLEN = 262144

export interface PcapngWriterInterface {
  linkType: number
  /** 0 means "no limit"; default 262144. */
  snapLen?: number
  name?: string
  /** Timestamp units: 1e6 (µs, pcapng default) or 1e9 (ns, written as if_tsresol 9). Default 1e6. */
  tsUnitsPerSecond?: 1e6 | 1e9
}

export interface PcapngWriterOptions {
  /** Section comment (shb_comment). */
  comment?: string
  /** Writing application (shb_userappl). */
  application?: string
}

export interface PcapngWriterFrame {
  /** Index into the interfaces of the last header() call. */
  interfaceId: number
  tsSec: number
  tsNsec: number
  data: Uint8Array
  /** Length on the wire; defaults to data.length. */
  originalLength?: number
  comments?: string[]
}

const utf8 = new TextEncoder()

type Option = [code: number, value: Uint8Array]

function pad4(n: number): number {
  return (n + 3) & ~3
}

function optionsSize(opts: Option[]): number {
  if (opts.length === 0) return 0
  let n = 4 // opt_endofopt
  for (const [, v] of opts) n += 4 + pad4(v.length)
  return n
}

function stringOption(code: number, text: string, what: string): Option {
  const v = utf8.encode(text)
  if (v.length > 0xffff) throw new RangeError(`${what} is longer than 65535 bytes of UTF-8`)
  return [code, v]
}

/** Lays out a block: type, total length, fixed body (written by `fill`), options, trailing length. */
function block(type: number, fixedLen: number, opts: Option[], fill: (view: DataView, bytes: Uint8Array) => void): Uint8Array {
  const total = 8 + pad4(fixedLen) + optionsSize(opts) + 4
  const bytes = new Uint8Array(total) // zero-filled, so padding is already 0
  const view = new DataView(bytes.buffer)
  view.setUint32(0, type, true)
  view.setUint32(4, total, true)
  fill(new DataView(bytes.buffer, 8, fixedLen), bytes.subarray(8, 8 + fixedLen))
  let p = 8 + pad4(fixedLen)
  if (opts.length > 0) {
    for (const [code, v] of opts) {
      view.setUint16(p, code, true)
      view.setUint16(p + 2, v.length, true)
      bytes.set(v, p + 4)
      p += 4 + pad4(v.length)
    }
    p += 4 // opt_endofopt: already zero
  }
  view.setUint32(p, total, true)
  return bytes
}

function checkUint32(v: number, what: string): void {
  if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new RangeError(`${what} must be an integer in 0..2^32-1, got ${v}`)
}

export class PcapngWriter {
  private units: (1e6 | 1e9)[] = []

  header(interfaces: PcapngWriterInterface[], opts: PcapngWriterOptions = {}): Uint8Array {
    const shbOpts: Option[] = []
    if (opts.comment !== undefined) shbOpts.push(stringOption(OPT_COMMENT, opts.comment, 'section comment'))
    if (opts.application !== undefined) shbOpts.push(stringOption(SHB_USERAPPL, opts.application, 'application'))
    const parts: Uint8Array[] = [
      block(PCAPNG_SHB, 16, shbOpts, (v) => {
        v.setUint32(0, PCAPNG_BOM, true)
        v.setUint16(4, 1, true) // version 1.0
        v.setUint16(6, 0, true)
        v.setBigInt64(8, -1n, true) // section length not specified: we stream
      })
    ]
    const units: (1e6 | 1e9)[] = []
    for (const [i, iface] of interfaces.entries()) {
      const snapLen = iface.snapLen ?? DEFAULT_SNAPLEN
      if (!Number.isInteger(iface.linkType) || iface.linkType < 0 || iface.linkType > 0xffff) {
        throw new RangeError(`interface ${i}: link type must be 0..65535, got ${iface.linkType}`)
      }
      checkUint32(snapLen, `interface ${i}: snapLen`)
      const tsUnits = iface.tsUnitsPerSecond ?? 1e6
      if (tsUnits !== 1e6 && tsUnits !== 1e9) throw new RangeError(`interface ${i}: tsUnitsPerSecond must be 1e6 or 1e9`)
      const idbOpts: Option[] = []
      if (iface.name !== undefined) idbOpts.push(stringOption(IF_NAME, iface.name, `interface ${i} name`))
      if (tsUnits === 1e9) idbOpts.push([IF_TSRESOL, Uint8Array.of(9)]) // 10^-9 s
      parts.push(
        block(BT_IDB, 8, idbOpts, (v) => {
          v.setUint16(0, iface.linkType, true)
          v.setUint32(4, snapLen, true)
        })
      )
      units.push(tsUnits)
    }
    this.units = units
    return concatBytes(parts)
  }

  frame(f: PcapngWriterFrame): Uint8Array {
    const units = this.units[f.interfaceId]
    if (units === undefined) throw new RangeError(`frame: interface ${f.interfaceId} was not declared in header()`)
    if (!Number.isSafeInteger(f.tsSec) || f.tsSec < 0) throw new RangeError(`frame: tsSec must be a non-negative integer, got ${f.tsSec}`)
    if (!Number.isInteger(f.tsNsec) || f.tsNsec < 0 || f.tsNsec > 999_999_999) {
      throw new RangeError(`frame: tsNsec must be an integer in 0..999999999, got ${f.tsNsec}`)
    }
    const orig = f.originalLength ?? f.data.length
    checkUint32(orig, 'frame: originalLength')
    if (orig < f.data.length) throw new RangeError(`frame: originalLength ${orig} is less than the ${f.data.length} captured bytes`)
    // BigInt: seconds × 1e9 passes 2^53 for any current date. Sub-µs digits are dropped on µs interfaces.
    const ts = units === 1e9 ? BigInt(f.tsSec) * 1_000_000_000n + BigInt(f.tsNsec) : BigInt(f.tsSec) * 1_000_000n + BigInt(Math.floor(f.tsNsec / 1000))
    if (ts > 0xffff_ffff_ffff_ffffn) throw new RangeError('frame: timestamp does not fit in 64 bits')
    const opts = (f.comments ?? []).map((c) => stringOption(OPT_COMMENT, c, 'frame comment'))
    return block(BT_EPB, 20 + f.data.length, opts, (v, bytes) => {
      v.setUint32(0, f.interfaceId, true)
      v.setUint32(4, Number(ts >> 32n), true)
      v.setUint32(8, Number(ts & 0xffff_ffffn), true)
      v.setUint32(12, f.data.length, true)
      v.setUint32(16, orig, true)
      bytes.set(f.data, 20)
    })
  }
}
