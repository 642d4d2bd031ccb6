// ENet's optional datagram checksums. Both are computed over the whole datagram with the checksum field
// preset to the connection's connectID (zeros for the CONNECT datagram, whose peer id is 0xFFF), and the
// result (the complemented register) is written big-endian:
// - vanilla ENet `enet_crc32`: the zlib CRC-32 (reflected 0xEDB88320, init and final xor all-ones);
// - ENet-CSharp `enet_crc64`: reflected CRC-64 with the Jones polynomial (table entry 128 =
//   0x95AC9329AC4BC9B5), init and final xor all-ones.
// The preset is what the C code stores into the field: the connectID's four bytes as they travel in
// CONNECT (ENet never byte-swaps connectID), widened to a uint64 in host order for ENet-CSharp.

import { crc32Update, withPreset } from '../../bytes/crc32'

const CRC64_POLY_HI = 0x95ac9329
const CRC64_POLY_LO = 0xac4bc9b5

/** The 64-bit table as high and low 32-bit halves (no BigInt in the per-byte loop). */
const CRC64_TABLE = (() => {
  const hi = new Uint32Array(256)
  const lo = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let h = 0
    let l = n
    for (let k = 0; k < 8; k++) {
      const carry = l & 1
      l = ((l >>> 1) | ((h & 1) << 31)) >>> 0
      h = h >>> 1
      if (carry) {
        h = (h ^ CRC64_POLY_HI) >>> 0
        l = (l ^ CRC64_POLY_LO) >>> 0
      }
    }
    hi[n] = h
    lo[n] = l
  }
  return { hi, lo }
})()

/** Vanilla ENet's checksum of bytes[start, end) with the 4-byte field at `at` preset; the value as read big-endian. */
export function enetCrc32(bytes: Uint8Array, start: number, end: number, at: number, preset: Uint8Array): number {
  return (withPreset(0xffffffff, bytes, start, end, at, preset, crc32Update) ^ 0xffffffff) >>> 0
}

/** The 64-bit register as its two 32-bit halves (no BigInt per byte). */
interface Crc64 {
  hi: number
  lo: number
}

function crc64Update(r: Crc64, b: Uint8Array, from: number, to: number): Crc64 {
  const { hi: TH, lo: TL } = CRC64_TABLE
  let { hi, lo } = r
  for (let k = from; k < to; k++) {
    const i = (lo ^ b[k]) & 0xff
    lo = (((lo >>> 8) | (hi << 24)) ^ TL[i]) >>> 0
    hi = ((hi >>> 8) ^ TH[i]) >>> 0
  }
  return { hi, lo }
}

/** ENet-CSharp's checksum of bytes[start, end) with the 8-byte field at `at` preset; the value as read big-endian. */
export function enetCrc64(bytes: Uint8Array, start: number, end: number, at: number, preset: Uint8Array): bigint {
  const { hi, lo } = withPreset({ hi: 0xffffffff, lo: 0xffffffff }, bytes, start, end, at, preset, crc64Update)
  return (BigInt((hi ^ 0xffffffff) >>> 0) << 32n) | BigInt((lo ^ 0xffffffff) >>> 0)
}

/**
 * The presets a checksum field may have held when it was computed: zeros without a connectID (the CONNECT
 * datagram), else the connectID's wire bytes; for the 8-byte field, widened on a little-endian host
 * (connectID then four zeros: x86 and ARM) or, less likely, a big-endian one.
 */
export function checksumPresets(size: 4 | 8, connectId: Uint8Array | null): readonly Uint8Array[] {
  // Made once per connectID (and size): every datagram of the connection asks. Read only.
  if (!connectId) return size === 4 ? ZERO_PRESETS_4 : ZERO_PRESETS_8
  let bySize = PRESETS.get(connectId)
  if (!bySize) PRESETS.set(connectId, (bySize = {}))
  return (bySize[size] ??= makePresets(size, connectId))
}

const ZERO_PRESETS_4: readonly Uint8Array[] = [new Uint8Array(4)]
const ZERO_PRESETS_8: readonly Uint8Array[] = [new Uint8Array(8)]
const PRESETS = new WeakMap<Uint8Array, Partial<Record<4 | 8, readonly Uint8Array[]>>>()

function makePresets(size: 4 | 8, connectId: Uint8Array): Uint8Array[] {
  if (size === 4) return [connectId.slice(0, 4)]
  const le = new Uint8Array(8)
  le.set(connectId.subarray(0, 4), 0)
  const be = new Uint8Array(8)
  be.set(connectId.subarray(0, 4), 4)
  return [le, be]
}
