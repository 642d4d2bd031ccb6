// Vanilla SFS2X over raw TCP port 9933 (test/fixtures/sfs2x/traffic-vanilla-tcp.mjs): no preamble, no
// WebSocket, so only content detection over TCP finds it. Packets written by the official SDK's codec,
// split across TCP writes and several in one write; the truth file holds the SDK's decode of each.

import { describe, it, expect } from 'vitest'
import { packetChecks } from './packet-checks'
import { loadTruth } from './helpers'

describe('vanilla-tcp.pcapng (vanilla SFS2X over raw TCP)', () => {
  it('was made as described', () => {
    const truth = loadTruth('vanilla-tcp')
    expect(truth.stack).toEqual(['tcp', 'sfs2x'])
    expect(truth.server.endsWith(':9933')).toBe(true)
    expect(truth.packets.map((p) => p.header.byte)).toContain(0xa0)
  })

  packetChecks('vanilla-tcp')
})
