// The recent frames a streaming decode keeps for their layers: a frame it answers is the frame as it was
// put, every field; it answers the most recent ones within its limits, and none beyond them.
import { describe, expect, it } from 'vitest'
import { FrameKeep } from '../../../src-shared/net/frame-keep'
import type { CaptureFrame } from '../../../src-shared/capture/types'

/** A frame whose bytes and fields all derive from its number and size (a pseudo-random fill). */
function frame(number: number, size: number): CaptureFrame {
  const data = new Uint8Array(size)
  let x = number * 2654435761
  for (let i = 0; i < size; i++) data[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24
  const f: CaptureFrame = {
    number,
    interfaceId: number % 3,
    linkType: number % 2 ? 1 : 113,
    tsSec: 1_700_000_000 + number,
    tsNsec: (number * 7919) % 1e9,
    originalLength: size + (number % 5 === 0 ? 1000 : 0)
  } as CaptureFrame
  f.data = data
  if (number % 11 === 0) f.comments = [`comment ${number}`]
  if (number % 13 === 0) f.noTimestamp = true
  return f
}

const smallSizes = (n: number): number => (n % 17 === 0 ? 1500 : 40 + ((n * 37) % 300))

/**
 * Puts frames `numbers` (increasing) into a keep with these limits and checks every frame against the rule:
 * held while it is among the last `maxFrames` numbers and its bytes with all later frames' fit in
 * `maxBytes` less one frame (a frame that would run past the ring's end starts again at its beginning);
 * missing once later frames' bytes alone pass `maxBytes`, or it is `maxFrames` numbers back.
 */
function check(numbers: number[], maxBytes: number, maxFrames: number, sizeOf = smallSizes): { held: number; missing: number } {
  const keep = new FrameKeep(maxBytes, maxFrames)
  const largest = Math.max(...numbers.map(sizeOf))
  let held = 0
  let missing = 0
  for (let i = 0; i < numbers.length; i++) {
    keep.put(frame(numbers[i], sizeOf(numbers[i])))
    if (i % 499 !== 0 && i !== numbers.length - 1) continue
    let after = 0 // bytes of the frames put after frame j
    for (let j = i; j >= 0; j--) {
      const n = numbers[j]
      const got = keep.get(n)
      const within = n > numbers[i] - maxFrames
      if (got) {
        const want = frame(n, sizeOf(n))
        expect(Buffer.from(want.data).equals(got.data), `frame ${n}'s bytes`).toBe(true)
        expect({ ...got, data: null }).toEqual({ ...want, data: null })
        held++
      } else missing++
      if (within && after + sizeOf(n) + largest <= maxBytes) expect(got, `frame ${n} after ${numbers[i]}`).toBeDefined()
      if (!within || after > maxBytes) expect(got, `frame ${n} after ${numbers[i]}`).toBeUndefined()
      after += sizeOf(n)
    }
  }
  return { held, missing }
}

describe('FrameKeep', () => {
  it('keeps the most recent frames within a byte limit, each as it was put', () => {
    const numbers = Array.from({ length: 3000 }, (_, i) => i + 1)
    const r = check(numbers, 64 << 10, 1 << 20)
    // the byte limit, not the frame limit, let frames go
    expect(r.missing).toBeGreaterThan(r.held)
  })

  it('keeps no more than the last frames by number', () => {
    const numbers = Array.from({ length: 3000 }, (_, i) => i + 1)
    const r = check(numbers, 64 << 20, 500)
    expect(r.missing).toBeGreaterThan(0)
    expect(new FrameKeep(64 << 20, 500).get(0)).toBeUndefined()
  })

  it("keeps a shard's frames: sparse numbers, beginning far into the capture", () => {
    const numbers: number[] = []
    for (let n = 40_000; numbers.length < 2000; n += 1 + ((n * 13) % 7)) numbers.push(n)
    check(numbers, 96 << 10, 1 << 12)
  })

  it('grows both rings as frames come, keeping what they held', () => {
    // past the first 4,096 slots and the first MiB of bytes, then wrapping both
    const numbers = Array.from({ length: 9000 }, (_, i) => i + 1)
    const r = check(numbers, 6 << 20, 8192, (n) => 300 + ((n * 131) % 1200))
    expect(r.missing).toBeGreaterThan(0)
  })

  it('answers a frame put twice, none larger than its byte limit, and none after clear()', () => {
    const keep = new FrameKeep(4096, 64)
    keep.put(frame(1, 100))
    keep.put(frame(1, 100))
    keep.put(frame(2, 5000))
    keep.put(frame(3, 3000))
    expect(keep.get(1)).toEqual(frame(1, 100))
    expect(keep.get(2)).toBeUndefined()
    expect(keep.get(3)).toEqual(frame(3, 3000))
    keep.clear()
    expect([keep.get(1), keep.get(3)]).toEqual([undefined, undefined])
    keep.put(frame(4, 200))
    expect(keep.get(4)).toEqual(frame(4, 200))
  })
})
