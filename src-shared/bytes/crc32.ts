// The reflected CRC-32 register (polynomial 0xEDB88320, the one zlib, Ethernet and PNG use), table-driven
// and slicing-by-8 (eight 256-entry tables, eight bytes a step) for the bulk of the bytes. Shared by
// Photon's datagram CRC (protocols/photon/crc.ts) and ENet's checksums (protocols/enet/checksum.ts), which
// differ only in their initial value, final xor and what their own field is taken to hold (withPreset).

/** Eight 256-entry tables: the byte-at-a-time table first, then the ones slicing-by-8 needs. */
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

/**
 * Feeds bytes[from, to) into a running CRC-32 register (not inverted: callers choose the initial value and
 * the final xor; zlib's CRC-32 starts at 0xFFFFFFFF and inverts at the end, Photon's does not invert).
 */
export function crc32Update(crc: number, b: Uint8Array, from: number, to: number): number {
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
 * Runs a checksum's `update` over bytes[start, end) as the checksum sees them: its own field,
 * bytes[at, at + preset.length), replaced by `preset` (zeros, a connection id), in three runs (before the
 * field, the preset, after it) rather than a test per byte. Only the part of the field inside the range counts.
 */
export function withPreset<S>(
  s: S,
  bytes: Uint8Array,
  start: number,
  end: number,
  at: number,
  preset: Uint8Array,
  update: (s: S, b: Uint8Array, from: number, to: number) => S
): S {
  const presetStart = Math.min(Math.max(at, start), end)
  const presetEnd = Math.min(Math.max(at + preset.length, start), end)
  s = update(s, bytes, start, presetStart)
  s = update(s, preset, presetStart - at, presetEnd - at)
  return update(s, bytes, presetEnd, end)
}
