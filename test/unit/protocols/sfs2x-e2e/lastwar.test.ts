// The "Last War" variant over raw TCP (test/fixtures/sfs2x/traffic-lastwar.mjs): a fake HTTP upgrade preamble,
// then raw framing with the length-keyed XOR (0x40), zlib (0x20), Zstandard (0x10), bigSized (0x08) and the
// forward bit with a 2-byte shard id (0x04), packets split across writes and several in one write. The truth
// file holds the official SDK's decode of every body and the header, length and transforms of every packet.

import { describe, it, expect } from 'vitest'
import { packetChecks, paired } from './packet-checks'
import { loadTruth, sfsValueOf, type Typed } from './helpers'

const NAME = 'lastwar-tcp'

describe('lastwar-tcp.pcapng (Last War variant over raw TCP)', () => {
  const truth = loadTruth(NAME)

  packetChecks(NAME)

  it('covers the cases it is meant to', () => {
    const bytes = truth.packets.map((p) => p.header.byte)
    for (const b of [0xc0, 0xe0, 0xd0, 0x90, 0xe8, 0xc4, 0x80]) expect(bytes).toContain(b)
    expect(truth.packets.find((p) => p.header.bigSized)!.length).toBeGreaterThan(65535)
    expect(truth.stack).toEqual(['tcp', 'http-preamble', 'sfs2x'])
  })

  it('gives the shard id of every packet with the forward bit', () => {
    const forwarded = paired(NAME).filter(([, p]) => p.header.forward)
    expect(forwarded.length).toBeGreaterThan(1)
    for (const [m, p] of forwarded) expect.soft(sfsValueOf(m).shard, `${p.direction} ${p.command}`).toBe(p.shardId)
  })

  it('puts the extension command, room and the injected _id in the summary', () => {
    for (const [m, p] of paired(NAME)) {
      if (!p.command) continue
      const params = ((p.body.value as Record<string, Typed>).p.value as Record<string, Typed>).p.value as Record<string, Typed>
      const name = p.direction === 'c2s' ? 'CallExtension' : 'ExtensionResponse'
      expect.soft(m.summary, p.command).toMatch(new RegExp(`^${name} ${p.command.replace(/\./g, '\\.')} room=${p.room}\\b`))
      if (params._id) expect.soft(m.summary, p.command).toContain(`_id=${params._id.value}`)
    }
  })
})
