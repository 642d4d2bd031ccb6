// The recent frames' lengths a streaming decode keeps for frame.len and frame.cap_len: a ring of the last
// frames, each answered only while its slot still holds it.
import { describe, expect, it } from 'vitest'
import { frameLengthValues, RecentFrameLengths } from '../../../src-shared/engine/frame-lengths'
import type { CaptureFrame } from '../../../src-shared/capture/types'

const frame = (number: number, captured: number, original = captured): CaptureFrame => ({
  number,
  interfaceId: 0,
  linkType: 1,
  tsSec: 0,
  tsNsec: 0,
  originalLength: original,
  data: new Uint8Array(captured)
})

describe('RecentFrameLengths', () => {
  it('answers the last frames taken, and no frame the ring has moved past', () => {
    const ring = new RecentFrameLengths(4)
    for (let n = 1; n <= 6; n++) ring.put(frame(n, 60 + n, n === 5 ? 1514 : 60 + n))
    // frames 1 and 2 shared slots with 5 and 6
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => ring.capturedLength(n))).toEqual([undefined, undefined, 63, 64, 65, 66, undefined])
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => ring.originalLength(n))).toEqual([undefined, undefined, 63, 64, 1514, 66, undefined])
    // no frame 0: a message made of no frame has no length
    expect([ring.capturedLength(0), ring.originalLength(0)]).toEqual([undefined, undefined])
  })

  it("gives a message's values frame by frame, leaving out frames not held", () => {
    const ring = new RecentFrameLengths(4)
    for (const f of [frame(7, 64, 122), frame(8, 1514), frame(9, 80)]) ring.put(f)
    expect(frameLengthValues('frame.len', [7, 8, 9], ring)).toEqual([122, 1514, 80])
    expect(frameLengthValues('frame.cap_len', [7, 8, 9], ring)).toEqual([64, 1514, 80])
    expect(frameLengthValues('frame.len', [3, 9], ring)).toEqual([80])
    expect(frameLengthValues('frame.len', [], ring)).toEqual([])
  })
})
