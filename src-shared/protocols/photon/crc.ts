// Photon's datagram CRC (docs/photon.md, UDP layout: CRC): reflected CRC-32 with poly 0xEDB88320 and init 0xFFFFFFFF but NO
// final xor, i.e. the bitwise NOT of the usual zlib CRC-32. It covers the whole datagram with its 4-byte CRC
// field (offset 12 of the header) taken as zero; the bytes are never copied to zero that field.
// Table-driven, slicing-by-8 (eight 256-entry tables) for the bulk of the datagram.

const TABLES = (() => {
  const t = new Uint32Array(256 * 8)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    t[n] = c >>> 0
  }
  for (let n = 0; n < 256; n++) {
    for (let k = 1; k < 8; k++) {
      const prev = t[(k - 1) * 256 + n]
      t[k * 256 + n] = (prev >>> 8) ^ t[prev & 0xff]
    }
  }
  return t
})()

/** Feeds bytes[from, to) into a running (un-inverted) CRC register. */
function update(crc: number, b: Uint8Array, from: number, to: number): number {
  const T = TABLES
  let i = from
  for (; i + 8 <= to; i += 8) {
    const a = crc ^ (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24))
    const c = b[i + 4] | (b[i + 5] << 8) | (b[i + 6] << 16) | (b[i + 7] << 24)
    crc =
      T[1792 + (a & 0xff)] ^
      T[1536 + ((a >>> 8) & 0xff)] ^
      T[1280 + ((a >>> 16) & 0xff)] ^
      T[1024 + (a >>> 24)] ^
      T[768 + (c & 0xff)] ^
      T[512 + ((c >>> 8) & 0xff)] ^
      T[256 + ((c >>> 16) & 0xff)] ^
      T[c >>> 24]
  }
  for (; i < to; i++) crc = T[(crc ^ b[i]) & 0xff] ^ (crc >>> 8)
  return crc
}

/**
 * The CRC of bytes[start, end) with the 4 bytes at `crcAt` (absolute index) read as zero. A `crcAt` outside
 * the range (or negative) zeroes only what overlaps. Returns an unsigned 32-bit value.
 */
export function photonCrcRange(bytes: Uint8Array, start: number, end: number, crcAt: number): number {
  const zeroFrom = Math.max(start, crcAt)
  const zeroTo = Math.min(end, crcAt + 4)
  let crc = 0xffffffff
  if (zeroFrom < zeroTo) {
    crc = update(crc, bytes, start, zeroFrom)
    for (let i = zeroFrom; i < zeroTo; i++) crc = TABLES[crc & 0xff] ^ (crc >>> 8)
    crc = update(crc, bytes, zeroTo, end)
  } else {
    crc = update(crc, bytes, start, end)
  }
  return crc >>> 0
}

/** Photon's CRC of a whole datagram, its CRC field at `crcOffset` taken as zero. */
export function photonCrc(bytes: Uint8Array, crcOffset = 12): number {
  return photonCrcRange(bytes, 0, bytes.length, crcOffset)
}
