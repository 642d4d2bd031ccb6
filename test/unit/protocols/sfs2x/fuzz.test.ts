// Hostile SFS2X traffic: mutated, truncated and shuffled packets (plain, zlib, XOR, zstd, AES) must never
// make the decoder throw, must keep every range inside its source, and good packets after bad ones decode.
import { describe, it, expect, beforeEach } from 'vitest'
import { rng } from '../../helpers/rng'
import { tcpFrame, resetFrames, SYN, ACK, PSH } from '../../helpers/frames'
import type { CaptureFrame } from '../../../../src-shared/capture/types'
import type { DecodedMessage } from '../../../../src-shared/model/types'
import { concat, encode, envelope, ext, harness, hex, keyStore, loadVectors, packet, runEngine, t, unhex, ZSTD_BODY, ZSTD_HEX } from './helpers'
import { checkRanges } from '../../helpers/decode'

const KEY = unhex('000102030405060708090a0b0c0d0e0f')
const IV = unhex('f0e0d0c0b0a090807060504030201000')
const KEYS = `SFS2X_AES * ${hex(KEY)} ${hex(IV)}`

function samples(): Uint8Array[] {
  const big = ext('bulk', { s: t.str('abc'.repeat(700)), a: t.intArr([1, 2, 3]), o: t.obj({ l: t.long(-5n), b: t.bytes([1, 2]) }) })
  return [
    ...loadVectors()
      .filter((v) => v.kind === 'packet' && v.hex.length < 20000)
      .map((v) => unhex(v.hex)),
    packet(big, { zlib: true, xor: true, shard: 4 }),
    packet(big, { zlib: true, aes: { key: KEY, iv: IV } }),
    packet(envelope(0, 1000, { u: t.arr(t.int(1), t.str('x'), t.obj({ q: t.doubleArr([1.5]) })) }), { xor: true }),
    packet(encode(ZSTD_BODY), { zstd: unhex(ZSTD_HEX) })
  ]
}

beforeEach(() => resetFrames())

describe('fuzzed SFS2X', () => {
  it('mutated packets, one at a time, never throw and keep their ranges in bounds', () => {
    const rand = rng(9933)
    const base = samples()
    const keys = keyStore(KEYS)
    for (let i = 0; i < 1500; i++) {
      const p = base[i % base.length].slice()
      const kind = Math.floor(rand() * 4)
      if (kind === 0) for (let k = 0; k < 1 + rand() * 6; k++) p[Math.floor(rand() * p.length)] ^= 1 << Math.floor(rand() * 8)
      if (kind === 1) p[Math.floor(rand() * Math.min(p.length, 8))] = Math.floor(rand() * 256)
      const cut = kind === 2 ? p.subarray(0, Math.floor(rand() * p.length)) : p
      if (kind === 3) cut.fill(0xff, Math.floor(rand() * cut.length), Math.floor(rand() * cut.length) + 8)
      for (const recording of [true, false]) {
        const h = harness({ keys, recording })
        const { m, draft } = h.decode(cut)
        expect(typeof m.summary).toBe('string')
        if (recording) checkRanges({ tree: draft.tree.roots, sources: draft.sources } as DecodedMessage)
      }
    }
  })

  it('a stream of good and broken packets in random segments: every good packet still decodes', () => {
    const rand = rng(20261203)
    const good = samples().filter((p) => p[0] === 0x80 || p[0] === 0xa0 || p[0] === 0xa8) // plain and zlib: no keys needed
    for (let run = 0; run < 40; run++) {
      resetFrames()
      const parts: Uint8Array[] = []
      const expected: string[] = []
      for (let i = 0; i < 12; i++) {
        const p = good[Math.floor(rand() * good.length)]
        if (i > 0 && rand() < 0.25) {
          // garbage, or a packet with its header byte broken (which loses the framing up to the next packet)
          parts.push(Uint8Array.from({ length: 1 + Math.floor(rand() * 30) }, () => Math.floor(rand() * 128)))
        }
        parts.push(p)
        expected.push(hex(p))
      }
      const stream = concat(...parts)
      const frames: CaptureFrame[] = [tcpFrame('10.0.0.1', 40000, '10.0.0.2', 9933, 99, SYN)]
      let seq = 100
      for (let pos = 0; pos < stream.length; ) {
        const n = 1 + Math.floor(rand() * 700)
        frames.push(tcpFrame('10.0.0.1', 40000, '10.0.0.2', 9933, seq, ACK | PSH, stream.subarray(pos, pos + n)))
        seq += Math.min(n, stream.length - pos)
        pos += n
      }
      const { messages, conversations } = runEngine(frames, undefined, run % 2 === 0)
      expect(conversations[0].notes.filter((n) => n.startsWith('decoder failed'))).toEqual([])
      for (const m of messages) checkRanges(m)
      const decoded = messages.filter((m) => m.protocol === 'sfs2x' && m.error === null && m.name !== 'Skipped bytes')
      // Garbage may by chance look like a packet start and swallow a neighbour, but almost all survive.
      expect(decoded.length).toBeGreaterThanOrEqual(expected.length - 2)
      expect(messages.filter((m) => m.error !== null && !/offset \d+/.test(m.error)).map((m) => m.error)).toEqual([])
    }
  })
})
