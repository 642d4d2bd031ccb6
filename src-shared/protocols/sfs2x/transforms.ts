// Body transforms, in the order a reader undoes them: AES-128-CBC (vanilla 0x40, key from the key file) or
// the Last War length-derived XOR, then zlib (0x20) or Zstandard (0x10 in Last War). Decompression is
// capped: a small body must not be able to allocate without bound.

import { Decompress as ZstdDecompress } from 'fzstd'
import { cbc } from '@noble/ciphers/aes.js'
import { concatBytes } from '../../bytes/concat'
import { inflateCapped } from '../../bytes/inflate'

export const DEFAULT_MAX_DECOMPRESSED = 64 * 1024 * 1024

// ---- Last War XOR --------------------------------------------------------------------------------------

/** The Last War keystream: the little-endian bytes of the on-wire length value, repeated. Returns a copy. */
export function xorWithLength(data: Uint8Array, length: number): Uint8Array {
  const k = [length & 0xff, (length >>> 8) & 0xff, (length >>> 16) & 0xff, (length >>> 24) & 0xff]
  const out = new Uint8Array(data.length)
  for (let i = 0; i < data.length; i++) out[i] = data[i] ^ k[i & 3]
  return out
}

/** The first bytes of `data` after the XOR, without copying all of it (for cheap checks). */
export function xorPrefix(data: Uint8Array, length: number, n: number): Uint8Array {
  return xorWithLength(data.subarray(0, Math.min(n, data.length)), length)
}

// ---- AES-128-CBC ---------------------------------------------------------------------------------------

export type AesResult = { ok: true; out: Uint8Array; padding: number } | { ok: false; error: string }

/** AES-128-CBC with the fixed key and IV (no IV prefix, state reset per packet), PKCS#7 padding checked here. */
export function aesCbcDecrypt(data: Uint8Array, key: Uint8Array, iv: Uint8Array): AesResult {
  if (key.length !== 16 || iv.length !== 16) return { ok: false, error: 'SFS2X_AES needs a 16-byte key and a 16-byte IV' }
  if (data.length === 0 || data.length % 16 !== 0) return { ok: false, error: `ciphertext length ${data.length} is not a positive multiple of 16` }
  let plain: Uint8Array
  try {
    plain = cbc(key, iv, { disablePadding: true }).decrypt(data)
  } catch (e) {
    return { ok: false, error: `AES-CBC failed: ${(e as Error).message}` }
  }
  const pad = plain[plain.length - 1]
  if (pad < 1 || pad > 16) return { ok: false, error: `bad PKCS#7 padding byte ${pad} (wrong key or IV?)` }
  for (let i = plain.length - pad; i < plain.length; i++) {
    if (plain[i] !== pad) return { ok: false, error: `bad PKCS#7 padding (wrong key or IV?)` }
  }
  return { ok: true, out: plain.subarray(0, plain.length - pad), padding: pad }
}

// ---- zlib ----------------------------------------------------------------------------------------------

export interface DecompressResult {
  /** What came out (a prefix of the output when `error` is set). */
  out: Uint8Array
  /** Set when decompression failed or hit the cap. */
  error: string | null
  capped: boolean
  warnings: string[]
}

/** A valid zlib stream header (CM 8, window ≤ 32 KiB, FCHECK) at `data[at]`. */
export function isZlibHeader(b0: number, b1: number): boolean {
  return (b0 & 0x0f) === 8 && b0 >> 4 <= 7 && ((b0 << 8) | b1) % 31 === 0
}

function adler32(data: Uint8Array): number {
  let a = 1
  let b = 0
  const NMAX = 5552
  for (let i = 0; i < data.length; ) {
    const end = Math.min(data.length, i + NMAX)
    for (; i < end; i++) {
      a += data[i]
      b += a
    }
    a %= 65521
    b %= 65521
  }
  return ((b << 16) | a) >>> 0
}

/** Inflates a zlib stream (RFC 1950), stopping at `cap`, and checks its Adler-32. */
export function inflateZlib(data: Uint8Array, cap: number): DecompressResult {
  const warnings: string[] = []
  const r = inflateCapped(data, cap, { format: 'zlib', final: true })
  if (r.capped) return { out: r.out, error: `decompression capped at ${cap} bytes`, capped: true, warnings }
  if (r.error !== null) return { out: r.out, error: `zlib: ${r.error}`, capped: false, warnings }
  if (data.length >= 4) {
    const want = ((data[data.length - 4] << 24) | (data[data.length - 3] << 16) | (data[data.length - 2] << 8) | data[data.length - 1]) >>> 0
    if (adler32(r.out) !== want) warnings.push('zlib Adler-32 checksum does not match the inflated data')
  }
  return { out: r.out, error: null, capped: false, warnings }
}

// ---- Zstandard -----------------------------------------------------------------------------------------

export const ZSTD_MAGIC = 0xfd2fb528 // 28 b5 2f fd on the wire (little-endian)

export function isZstdMagic(d: Uint8Array, at = 0): boolean {
  return d.length >= at + 4 && d[at] === 0x28 && d[at + 1] === 0xb5 && d[at + 2] === 0x2f && d[at + 3] === 0xfd
}

export interface ZstdFrameInfo {
  /** Offset just after the frame (including its checksum). */
  end: number
  windowSize: number
  /** Frame_Content_Size when the header gives it. */
  contentSize: number | null
}

export type ZstdWalk = { ok: true; frames: ZstdFrameInfo[]; end: number } | { ok: false; error: string; needMore: boolean }

/**
 * Walks the frame structure (frame headers and block headers) from `at` without decompressing: where the
 * frames end, and each frame's window and content size, so they can be checked against the cap before
 * fzstd allocates a window. Skippable frames are skipped. With `oneFrame`, stops after the first frame.
 */
export function walkZstd(d: Uint8Array, at = 0, oneFrame = false): ZstdWalk {
  const frames: ZstdFrameInfo[] = []
  let p = at
  const short = (what: string): ZstdWalk => ({ ok: false, error: `Zstandard ${what} truncated at offset ${p}`, needMore: true })
  while (p < d.length) {
    if (d.length < p + 4) return short('frame magic')
    const magic = (d[p] | (d[p + 1] << 8) | (d[p + 2] << 16) | (d[p + 3] << 24)) >>> 0
    if ((magic & 0xfffffff0) >>> 0 === 0x184d2a50) {
      if (d.length < p + 8) return short('skippable frame')
      const n = (d[p + 4] | (d[p + 5] << 8) | (d[p + 6] << 16) | (d[p + 7] << 24)) >>> 0
      if (d.length < p + 8 + n) return short('skippable frame')
      p += 8 + n
      continue
    }
    if (magic !== ZSTD_MAGIC) return { ok: false, error: `no Zstandard frame magic at offset ${p}`, needMore: false }
    if (d.length < p + 5) return short('frame header')
    const fhd = d[p + 4]
    const fcsFlag = fhd >> 6
    const single = (fhd >> 5) & 1
    const checksum = (fhd >> 2) & 1
    const dictFlag = fhd & 3
    if (fhd & 8) return { ok: false, error: `Zstandard reserved header bit set at offset ${p + 4}`, needMore: false }
    let q = p + 5
    let windowSize = 0
    if (!single) {
      if (d.length < q + 1) return short('frame header')
      const wd = d[q++]
      const base = 2 ** (10 + (wd >> 3))
      windowSize = base + (base / 8) * (wd & 7)
    }
    q += dictFlag === 3 ? 4 : dictFlag
    const fcsBytes = fcsFlag === 0 ? single : 1 << fcsFlag
    if (d.length < q + fcsBytes) return short('frame header')
    let contentSize: number | null = null
    if (fcsBytes) {
      let v = 0
      for (let i = fcsBytes - 1; i >= 0; i--) v = v * 256 + d[q + i]
      if (fcsBytes === 2) v += 256
      contentSize = v
    }
    q += fcsBytes
    if (single) windowSize = contentSize ?? 0
    for (;;) {
      if (d.length < q + 3) {
        p = q
        return short('block header')
      }
      const bh = d[q] | (d[q + 1] << 8) | (d[q + 2] << 16)
      const last = bh & 1
      const type = (bh >> 1) & 3
      const size = bh >>> 3
      if (type === 3) return { ok: false, error: `reserved Zstandard block type at offset ${q}`, needMore: false }
      const body = type === 1 ? 1 : size
      if (d.length < q + 3 + body) {
        return { ok: false, error: `Zstandard block at offset ${q} needs ${body} bytes after its header, only ${d.length - q - 3} present`, needMore: true }
      }
      q += 3 + body
      if (last) break
    }
    if (checksum) q += 4
    if (d.length < q) {
      p = q
      return short('checksum')
    }
    frames.push({ end: q, windowSize, contentSize })
    p = q
    if (oneFrame) break
  }
  if (!frames.length) return { ok: false, error: `no Zstandard frame at offset ${at}`, needMore: false }
  return { ok: true, frames, end: p }
}

/**
 * Decompresses Zstandard data with fzstd, capped. fzstd allocates each frame's window up front, so every
 * frame's window and declared content size are checked against the cap first (refused above it); the
 * output is then streamed block by block (at most 128 KiB each) and stopped at the cap.
 */
export function decompressZstd(data: Uint8Array, cap: number): DecompressResult {
  const warnings: string[] = []
  const walk = walkZstd(data)
  if (!walk.ok) return { out: new Uint8Array(0), error: walk.error, capped: false, warnings }
  for (const f of walk.frames) {
    if (f.windowSize > cap)
      return {
        out: new Uint8Array(0),
        error: `Zstandard window of ${f.windowSize} bytes is above the decompression cap (${cap} bytes): refused`,
        capped: true,
        warnings
      }
    if (f.contentSize !== null && f.contentSize > cap) {
      return {
        out: new Uint8Array(0),
        error: `Zstandard frame declares ${f.contentSize} bytes, above the decompression cap (${cap} bytes): refused`,
        capped: true,
        warnings
      }
    }
  }
  if (walk.end < data.length) warnings.push(`${data.length - walk.end} bytes after the Zstandard frame${walk.frames.length > 1 ? 's' : ''}`)
  const parts: Uint8Array[] = []
  let total = 0
  const CAP = {}
  const z = new ZstdDecompress((chunk) => {
    if (total + chunk.length > cap) {
      parts.push(chunk.slice(0, cap - total))
      total = cap
      throw CAP
    }
    total += chunk.length
    // fzstd reuses nothing it hands out, but copy defensively: blocks may be views of its window.
    parts.push(chunk.slice())
  })
  const out = () => concatBytes(parts.length ? parts : [new Uint8Array(0)])
  try {
    z.push(data.subarray(0, walk.end), true)
  } catch (e) {
    if (e === CAP) return { out: out(), error: `decompression capped at ${cap} bytes`, capped: true, warnings }
    return { out: out(), error: `Zstandard: ${(e as Error)?.message ?? String(e)}`, capped: false, warnings }
  }
  const result = out()
  let declared = 0
  let allDeclared = true
  for (const f of walk.frames) {
    if (f.contentSize === null) allDeclared = false
    else declared += f.contentSize
  }
  if (allDeclared && declared !== result.length) warnings.push(`Zstandard frame declares ${declared} bytes but ${result.length} came out`)
  return { out: result, error: null, capped: false, warnings }
}

/** The first 16-byte block decrypted (CBC: AES⁻¹(C0) XOR IV), to judge a packet start; null on failure. */
export function aesFirstBlock(block: Uint8Array, key: Uint8Array, iv: Uint8Array): Uint8Array | null {
  if (block.length < 16 || key.length !== 16 || iv.length !== 16) return null
  try {
    return cbc(key, iv, { disablePadding: true }).decrypt(block.subarray(0, 16))
  } catch {
    return null
  }
}
