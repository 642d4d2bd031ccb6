// The shared CRC-32 register (src-shared/bytes/crc32.ts) against zlib's CRC-32 as Node ships it: every
// length up to 80 from every start offset of a window, so the slicing-by-8 steps and the byte tail meet.
import { describe, expect, it } from 'vitest'
import { crc32 } from 'node:zlib'
import { crc32Update, withPreset } from '../../../src-shared/bytes/crc32'
import { rng } from '../helpers/rng'

describe('crc32Update', () => {
  it("gives zlib's CRC-32 with zlib's initial value and final xor, for every length and offset", () => {
    const rand = rng(32)
    const bytes = Uint8Array.from({ length: 200 }, () => Math.floor(rand() * 256))
    for (let from = 0; from < 9; from++) {
      for (let n = 0; n <= 80; n++) {
        const ours = (crc32Update(0xffffffff, bytes, from, from + n) ^ 0xffffffff) >>> 0
        expect(ours).toBe(crc32(bytes.subarray(from, from + n)))
      }
    }
  })

  it('runs on from where it stopped: two pieces give the CRC of the whole', () => {
    const bytes = new TextEncoder().encode('123456789 and some more bytes than eight')
    const whole = crc32Update(0xffffffff, bytes, 0, bytes.length)
    for (const cut of [0, 1, 7, 8, 9, 20, bytes.length]) {
      expect(crc32Update(crc32Update(0xffffffff, bytes, 0, cut), bytes, cut, bytes.length)).toBe(whole)
    }
    // the standard check value of CRC-32 over "123456789"
    expect((crc32Update(0xffffffff, bytes, 0, 9) ^ 0xffffffff) >>> 0).toBe(0xcbf43926)
  })

  it('with a preset field: the CRC of a copy whose field holds the preset, for fields inside, across and outside the range', () => {
    const rand = rng(7)
    const bytes = Uint8Array.from({ length: 64 }, () => Math.floor(rand() * 256))
    const preset = Uint8Array.from([0xa1, 0xb2, 0xc3, 0xd4])
    for (const [start, end] of [
      [0, 64],
      [5, 40]
    ]) {
      for (let at = -6; at <= 70; at++) {
        const copy = bytes.slice()
        for (let p = 0; p < preset.length; p++) if (at + p >= 0 && at + p < copy.length) copy[at + p] = preset[p]
        const expected = crc32(copy.subarray(start, end))
        expect((withPreset(0xffffffff, bytes, start, end, at, preset, crc32Update) ^ 0xffffffff) >>> 0).toBe(expected)
      }
    }
  })
})
