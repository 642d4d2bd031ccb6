// Hostile input: seeded random mutations and truncations of every fixture. Whatever the bytes, the
// reader must terminate, throw nothing but CaptureFormatError, keep its output invariants, and give
// the same result however the input is chunked.

import { describe, it, expect } from 'vitest'
import { MAX_RECORD } from '../../../src-shared/capture'
import { fixture, manifest, readCapture, rng, type ReadResult } from './helpers'

// CAPTURE_FUZZ_ROUNDS=5000 for a longer local run.
const ROUNDS = Number(process.env.CAPTURE_FUZZ_ROUNDS ?? 120)

const EXTREMES = [0, 1, 3, 4, 11, 12, 13, 16, 28, 0x7fffffff, 0x80000000, 0xfffffffc, 0xffffffff, MAX_RECORD, MAX_RECORD + 4]

function mutate(src: Uint8Array, random: () => number): Uint8Array {
  const pick = (n: number) => Math.floor(random() * n)
  let b = src.slice()
  const steps = 1 + pick(4)
  for (let s = 0; s < steps && b.length > 0; s++) {
    switch (pick(6)) {
      case 0: // flip a few bytes
        for (let k = 0, n = 1 + pick(8); k < n; k++) b[pick(b.length)] ^= 1 + pick(255)
        break
      case 1: // truncate
        b = b.slice(0, pick(b.length + 1))
        break
      case 2: {
        // overwrite an aligned 32-bit word (length fields are aligned) with an extreme value
        const at = pick(Math.max(1, b.length >> 2)) << 2
        if (at + 4 <= b.length) new DataView(b.buffer).setUint32(at, EXTREMES[pick(EXTREMES.length)], random() < 0.5)
        break
      }
      case 3: {
        // duplicate a slice somewhere else (repeated blocks, shifted alignment)
        const from = pick(b.length)
        const piece = b.slice(from, from + 1 + pick(64))
        const at = pick(b.length + 1)
        b = Uint8Array.from([...b.subarray(0, at), ...piece, ...b.subarray(at)])
        break
      }
      case 4: {
        // delete a slice
        const at = pick(b.length)
        b = Uint8Array.from([...b.subarray(0, at), ...b.subarray(at + 1 + pick(32))])
        break
      }
      default: {
        // insert random bytes
        const at = pick(b.length + 1)
        const junk = Array.from({ length: 1 + pick(16) }, () => pick(256))
        b = Uint8Array.from([...b.subarray(0, at), ...junk, ...b.subarray(at)])
      }
    }
  }
  return b
}

function checkInvariants(r: ReadResult, inputLength: number): void {
  if (r.error === undefined) expect(r.bytesRead).toBe(inputLength)
  r.frames.forEach((f, i) => {
    expect(f.number).toBe(i + 1)
    expect(Number.isInteger(f.tsNsec) && f.tsNsec >= 0 && f.tsNsec < 1e9).toBe(true)
    expect(Number.isFinite(f.tsSec)).toBe(true)
    expect(f.data.length).toBeLessThanOrEqual(Math.min(MAX_RECORD, inputLength))
    expect(f.interfaceId).toBeLessThan(r.interfaces.length)
    expect(f.linkType).toBe(r.interfaces[f.interfaceId].linkType)
  })
}

describe('CaptureReader on mutated captures', () => {
  for (const [n, entry] of manifest().entries()) {
    it(`survives ${ROUNDS} mutations of ${entry.file}`, () => {
      const src = fixture(entry.file)
      const random = rng(0x9e3779b9 ^ (n * 7919))
      for (let round = 0; round < ROUNDS; round++) {
        const input = mutate(src, random)
        const whole = readCapture(input) // throws (failing the test) on anything but CaptureFormatError
        checkInvariants(whole, input.length)
        const size = 1 + Math.floor(random() * 23)
        const chunked = readCapture(input, size)
        if (whole.error === undefined) expect(chunked, `round ${round}, chunk ${size}`).toEqual(whole)
        else {
          // A CaptureFormatError comes from the same bytes however they arrive; only bytesRead differs.
          expect(chunked.error).toBe(whole.error)
          expect(chunked.frames).toEqual(whole.frames)
        }
      }
    })
  }
})
