// ENet's checksums against independent references: CRC-32 against node:zlib, CRC-64 against a bit-by-bit
// implementation from the polynomial, itself anchored to ENet-CSharp's published crcTable and to the
// CRC-64/REDIS check value (same polynomial, init and xorout 0).
import { describe, it, expect } from 'vitest'
import zlib from 'node:zlib'
import { checksumPresets, enetCrc32, enetCrc64 } from '../../../../src-shared/protocols/enet/checksum'
import { crc64Bitwise, crc64TableEntry } from './encoder'
import { rng } from '../../helpers/rng'

const patch = (b: Uint8Array, at: number, p: Uint8Array) => {
  const c = Uint8Array.from(b)
  c.set(p, at)
  return c
}

describe('ENet checksums', () => {
  it('the CRC-64 reference matches ENet-CSharp crcTable entries and the CRC-64/REDIS check value', () => {
    expect(crc64TableEntry(1)).toBe(0x7ad870c830358979n)
    expect(crc64TableEntry(128)).toBe(0x95ac9329ac4bc9b5n)
    expect(crc64TableEntry(255)).toBe(0x29b7d047efec8728n)
    expect(crc64Bitwise(new TextEncoder().encode('123456789'), 0n, 0n)).toBe(0xe9c6d914c4b8d9can)
  })

  it('CRC-32 and CRC-64 over random datagrams with a preset field equal the references', () => {
    const r = rng(42)
    for (let i = 0; i < 200; i++) {
      const n = 10 + Math.floor(r() * 1500)
      const b = Uint8Array.from({ length: n }, () => Math.floor(r() * 256))
      const at = Math.floor(r() * 3) * 2
      const p4 = Uint8Array.from({ length: 4 }, () => Math.floor(r() * 256))
      const p8 = Uint8Array.from({ length: 8 }, () => Math.floor(r() * 256))
      expect(enetCrc32(b, 0, n, at, p4)).toBe(zlib.crc32(patch(b, at, p4)))
      expect(enetCrc64(b, 0, n, at, p8)).toBe(crc64Bitwise(patch(b, at, p8)))
    }
    // a window inside a larger buffer
    const big = Uint8Array.from({ length: 100 }, (_, i) => i)
    expect(enetCrc32(big, 10, 60, 12, new Uint8Array(4))).toBe(zlib.crc32(patch(big.slice(10, 60), 2, new Uint8Array(4))))
  })

  it('presets: zeros before a connectID, its wire bytes after (CRC-64: widened on a little- or big-endian host)', () => {
    const id = Uint8Array.from([0x61, 0x6b, 0x9c, 0xac])
    expect(checksumPresets(4, null)).toEqual([new Uint8Array(4)])
    expect(checksumPresets(8, null)).toEqual([new Uint8Array(8)])
    expect(checksumPresets(4, id)).toEqual([id])
    expect(checksumPresets(8, id)).toEqual([Uint8Array.from([0x61, 0x6b, 0x9c, 0xac, 0, 0, 0, 0]), Uint8Array.from([0, 0, 0, 0, 0x61, 0x6b, 0x9c, 0xac])])
  })
})
