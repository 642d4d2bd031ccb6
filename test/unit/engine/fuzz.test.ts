// Hostile input: mutated and truncated captures must never throw anything but CaptureFormatError,
// must terminate, and every field range must stay inside its data source.
import { describe, it, expect } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { DecodeSession } from '../../../src-shared/engine/session'
import { CaptureFormatError } from '../../../src-shared/capture/types'
import type { DecodedMessage, FieldNode } from '../../../src-shared/model/types'
import { rng } from '../helpers/rng'
import { checkRanges } from '../helpers/decode'

const FIXTURES = [
  join(__dirname, '../../fixtures/net/loopback.pcapng'),
  join(__dirname, '../../fixtures/net/tcp-reordered.pcapng'),
  join(__dirname, '../../fixtures/net/link-sll2.pcap'),
  join(__dirname, '../../fixtures/net/link-null.pcap'),
  join(__dirname, '../../fixtures/shared/enet-fignet-loopback.pcapng')
]


function mutate(input: Uint8Array, rand: () => number): Uint8Array {
  const b = new Uint8Array(input)
  const kind = Math.floor(rand() * 4)
  const flips = 1 + Math.floor(rand() * 40)
  // Keep the first 64 bytes (file header) mostly intact so the reader gets to the records.
  const at = () => 64 + Math.floor(rand() * (b.length - 64))
  if (kind === 0) for (let i = 0; i < flips; i++) b[at()] ^= 1 << Math.floor(rand() * 8)
  if (kind === 1) for (let i = 0; i < flips; i++) b[at()] = Math.floor(rand() * 256)
  if (kind === 2) return b.subarray(0, at())
  if (kind === 3) {
    // Overwrite a run with 0xff: absurd lengths everywhere in it.
    const s = at()
    b.fill(0xff, s, Math.min(b.length, s + 1 + Math.floor(rand() * 64)))
  }
  return b
}


describe('fuzzed captures', () => {
  it('never throw past the engine, always finish, and keep ranges inside their sources', () => {
    const rand = rng(20261202)
    let runs = 0
    let messages = 0
    for (const file of FIXTURES) {
      const original = new Uint8Array(readFileSync(file))
      for (let i = 0; i < 60; i++) {
        const data = mutate(original, rand)
        const s = new DecodeSession({
          onMessage: (m) => {
            messages++
            checkRanges(m)
          }
        })
        try {
          let pos = 0
          while (pos < data.length) {
            const n = 1 + Math.floor(rand() * 3000)
            s.push(data.subarray(pos, pos + n))
            pos += n
          }
          s.end()
        } catch (e) {
          expect(e).toBeInstanceOf(CaptureFormatError)
        }
        runs++
      }
    }
    expect(runs).toBe(FIXTURES.length * 60)
    expect(messages).toBeGreaterThan(1000)
  })

  it('survives random garbage after a valid header', () => {
    const rand = rng(7)
    const header = new Uint8Array(readFileSync(FIXTURES[0])).subarray(0, 200)
    for (let i = 0; i < 50; i++) {
      const junk = Uint8Array.from({ length: 5000 }, () => Math.floor(rand() * 256))
      const s = new DecodeSession({ onMessage: checkRanges })
      try {
        s.push(header)
        s.push(junk)
        s.end()
      } catch (e) {
        expect(e).toBeInstanceOf(CaptureFormatError)
      }
    }
  })
})
