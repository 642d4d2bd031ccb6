// A filter target with its message's frame layers (header fields such as ip.ttl parsed from the frames):
// targets made one after another share the last frame groups, and each still answers with its own frames'.
import { describe, expect, it } from 'vitest'
import { LayeredTarget, lastFrameGroups } from '../../../src-shared/net/layers'
import { TreeInterest } from '../../../src-shared/bytes/tree'
import { targetFromMessage } from '../../../src-shared/filter/target'
import type { CaptureFrame } from '../../../src-shared/capture/types'
import { resetFrames, udpFrame } from '../helpers/frames'

// Ethernet (14) + IPv4: the TTL is byte 8 of the IP header; the UDP length bytes 4-5 of the UDP header.
const ttlOf = (f: CaptureFrame): number => f.data[14 + 8]
const udpLengthOf = (f: CaptureFrame): number => (f.data[34 + 4] << 8) | f.data[34 + 5]

describe('LayeredTarget', () => {
  it("answers each message's own frames when consecutive targets share the last frame groups", () => {
    resetFrames()
    const frames = new Map<number, CaptureFrame>()
    for (let i = 0; i < 4; i++) {
      const f = udpFrame('10.0.0.1', 5055, '10.0.0.2', 40000 + i, 'x'.repeat(10 + 7 * i))
      f.data[14 + 8] = 30 + i // a TTL of its own
      frames.set(f.number, f)
    }
    const source = { get: (n: number) => frames.get(n) }
    const interest = new TreeInterest(['ip.ttl', 'udp.length'])
    const base = targetFromMessage({ tree: [], protocol: '', stack: [] }, undefined, interest.keys)
    const last = lastFrameGroups()
    const runs = [[1], [1], [2], [2, 3], [2, 3], [3], [3, 2], [1], [4], [4], [9], [1, 9]]
    for (const numbers of runs) {
      const shared = new LayeredTarget(base, numbers, source, interest, {}, last)
      const alone = new LayeredTarget(base, numbers, source, interest)
      const held = numbers.map((n) => frames.get(n)).filter((f) => f !== undefined)
      expect(shared.values('ip.ttl'), `frames ${numbers}`).toEqual(held.map(ttlOf))
      expect(shared.values('udp.length'), `frames ${numbers}`).toEqual(held.map(udpLengthOf))
      expect(alone.values('ip.ttl')).toEqual(held.map(ttlOf))
      expect(shared.has('ip.ttl')).toBe(held.length > 0)
    }
  })
})
