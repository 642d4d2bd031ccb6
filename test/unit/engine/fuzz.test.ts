// Hostile input: mutated and truncated captures must never throw anything but CaptureFormatError,
// must terminate, and every field range must stay inside its data source. The decoding runs in a worker
// stopped after LIMIT_S (fuzz-jobs.ts; helpers/time-limit.ts): a decoder that loops fails the test.
import { describe, it, expect } from 'vitest'
import { join } from 'node:path'
import { withinTimeLimit } from '../helpers/time-limit'
import type { FuzzReport, PrefixCase } from './fuzz-jobs'

const JOBS = join(__dirname, 'fuzz-jobs.ts')
const LIMIT_S = 120

const FIXTURES = [
  join(__dirname, '../../fixtures/net/loopback.pcapng'),
  join(__dirname, '../../fixtures/net/tcp-reordered.pcapng'),
  join(__dirname, '../../fixtures/net/link-sll2.pcap'),
  join(__dirname, '../../fixtures/net/link-null.pcap'),
  join(__dirname, '../../fixtures/shared/enet-fignet-loopback.pcapng')
]

describe('fuzzed captures', () => {
  it(
    'never throw past the engine, always finish, and keep ranges inside their sources',
    async () => {
      const r = await withinTimeLimit<FuzzReport>(JOBS, 'fuzzCaptures', [FIXTURES, 20261202, 60], LIMIT_S)
      expect(r.thrown).toEqual([])
      expect(r.ranges).toEqual([])
      expect(r.runs).toBe(FIXTURES.length * 60)
      expect(r.messages).toBeGreaterThan(1000)
    },
    LIMIT_S * 1000 + 60_000
  )

  it(
    'survives random garbage after a valid header',
    async () => {
      const r = await withinTimeLimit<FuzzReport>(JOBS, 'fuzzGarbage', [FIXTURES[0], 7, 50], LIMIT_S)
      expect(r.thrown).toEqual([])
      expect(r.ranges).toEqual([])
      expect(r.runs).toBe(50)
    },
    LIMIT_S * 1000 + 60_000
  )
})

// ---- record-level mutations: the engine's input past the capture reader ----

/** Captures whose payloads every decoder family sees: Photon UDP, SFS2X over TCP (zlib) and WebSocket (deflate), FigNet over ENet. */
const PROTOCOL_FIXTURES = [
  join(__dirname, '../../fixtures/ui/photon-session.pcapng'),
  join(__dirname, '../../fixtures/sfs2x/lastwar-tcp.pcapng'),
  join(__dirname, '../../fixtures/sfs2x/sdk-ws-deflate.pcapng'),
  join(__dirname, '../../fixtures/sfs2x/vanilla-tcp.pcapng'),
  join(__dirname, '../../fixtures/enet/enet-fignet-loopback.pcapng'),
  join(__dirname, '../../fixtures/net/tcp-reordered.pcapng')
]

describe('fuzzed frames', () => {
  it(
    'decode the unmutated prefix exactly as before, and never throw, whatever follows',
    async () => {
      const r = await withinTimeLimit<{ originals: number[]; cases: PrefixCase[]; thrown: string[]; ranges: string[] }>(
        JOBS,
        'fuzzFrames',
        [PROTOCOL_FIXTURES, 20261203, 12],
        LIMIT_S
      )
      expect(r.thrown).toEqual([])
      expect(r.ranges).toEqual([])
      r.originals.forEach((n, i) => expect(n, PROTOCOL_FIXTURES[i]).toBeGreaterThan(0))
      expect(r.cases).toHaveLength(PROTOCOL_FIXTURES.length * 12)
      let checked = 0
      for (const c of r.cases) {
        expect(c.got, c.what).toEqual(c.expected)
        checked += c.expected.length
      }
      expect(checked).toBeGreaterThan(300)
    },
    LIMIT_S * 1000 + 60_000
  )
})
