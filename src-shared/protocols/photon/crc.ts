// Photon's datagram CRC (docs/photon.md, UDP layout: CRC): reflected CRC-32 with poly 0xEDB88320 and init 0xFFFFFFFF but NO
// final xor, i.e. the bitwise NOT of the usual zlib CRC-32. It covers the whole datagram with its 4-byte CRC
// field (offset 12 of the header) taken as zero; the bytes are never copied to zero that field.
// The register update is the shared CRC-32 one (bytes/crc32.ts).

import { crc32Update, withPreset } from '../../bytes/crc32'

const ZEROS = new Uint8Array(4)

/**
 * The CRC of bytes[start, end) with the 4 bytes at `crcAt` (absolute index) read as zero. A `crcAt` outside
 * the range (or negative) zeroes only what overlaps. Returns an unsigned 32-bit value.
 */
export function photonCrcRange(bytes: Uint8Array, start: number, end: number, crcAt: number): number {
  return withPreset(0xffffffff, bytes, start, end, crcAt, ZEROS, crc32Update) >>> 0
}

/** Photon's CRC of a whole datagram, its CRC field at `crcOffset` taken as zero. */
export function photonCrc(bytes: Uint8Array, crcOffset = 12): number {
  return photonCrcRange(bytes, 0, bytes.length, crcOffset)
}
