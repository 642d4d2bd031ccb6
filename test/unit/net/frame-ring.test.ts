// The most recent frames, kept packed (a live capture's frames for Save…, a streaming decode's for their
// layers): a frame it gives back is the frame as it was pushed, every field and byte; it keeps the newest
// frames within its limits, and none beyond them.
import { describe, expect, it } from 'vitest'
import { FrameRing } from '../../../src-shared/net/frame-ring'
import type { CaptureFrame } from '../../../src-shared/capture/types'

/** What a kept frame counts against the byte limit beyond its bytes, as the ring documents it. */
const OVERHEAD = 48

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

function expectSame(got: CaptureFrame | undefined, want: CaptureFrame): void {
  expect(got, `frame ${want.number}`).toBeDefined()
  expect(Buffer.compare(got!.data, want.data), `frame ${want.number}'s bytes`).toBe(0)
  expect({ ...got, data: null }).toEqual({ ...want, data: null })
}

const smallSizes = (n: number): number => (n % 17 === 0 ? 1500 : 40 + ((n * 37) % 300))

/**
 * Pushes frames `numbers` (rising) into a ring with these limits and checks, now and then, every frame
 * pushed so far against the rule: the ring holds the longest run of the newest frames whose numbers are
 * all within `frames` of the newest and whose bytes, each with the overhead, fit in `bytes`.
 */
function check(numbers: number[], limits: { frames: number; bytes: number }, sizeOf = smallSizes): { held: number; missing: number } {
  const ring = new FrameRing(limits)
  let held = 0
  let missing = 0
  for (let i = 0; i < numbers.length; i++) {
    const pushed = frame(numbers[i], sizeOf(numbers[i]))
    ring.push(pushed)
    pushed.data.fill(0) // the ring keeps its own copy
    if (i % 499 !== 0 && i !== numbers.length - 1) continue
    let bytes = 0
    let inRun = true
    let count = 0
    for (let j = i; j >= 0; j--) {
      const n = numbers[j]
      bytes += sizeOf(n) + OVERHEAD
      inRun &&= n > numbers[i] - limits.frames && bytes <= limits.bytes
      const got = ring.get(n)
      if (inRun) {
        expectSame(got, frame(n, sizeOf(n)))
        held++
        count++
      } else {
        expect(got, `frame ${n} after ${numbers[i]}`).toBeUndefined()
        missing++
      }
      // numbers between the pushed ones were never pushed
      if (j > 0 && numbers[j - 1] < n - 1) expect(ring.get(n - 1)).toBeUndefined()
    }
    expect(ring.count).toBe(count)
    expect(ring.dropped).toBe(i + 1 - count)
    expect([...ring.frames()].map((f) => f.number)).toEqual(numbers.slice(i + 1 - count, i + 1))
  }
  return { held, missing }
}

describe('FrameRing', () => {
  it('keeps the newest frames within the frame limit and counts the rest', () => {
    const ring = new FrameRing({ frames: 100 })
    for (let i = 1; i <= 10_000; i++) ring.push(frame(i, 10))
    expect(ring.count).toBe(100)
    expect(ring.dropped).toBe(9_900)
    expect([...ring.frames()].map((f) => f.number)).toEqual(Array.from({ length: 100 }, (_, i) => 9_901 + i))
    expect(ring.get(9_900)).toBeUndefined()
    expectSame(ring.get(9_901), frame(9_901, 10))
    expect(ring.get(10_001)).toBeUndefined()
  })

  it('keeps within the byte limit (data plus a fixed overhead per frame)', () => {
    const ring = new FrameRing({ bytes: 10_000 })
    for (let i = 1; i <= 50; i++) ring.push(frame(i, 1000))
    expect(ring.bytes).toBeLessThanOrEqual(10_000)
    expect(ring.count).toBe(9) // 9 × (1000 + 48) fits, 10 do not
    expect([...ring.frames()][0].number).toBe(42)
    ring.push(frame(51, 20_000)) // bigger than the whole limit: not kept, nothing evicted for it
    expect(ring.count).toBe(9)
    expect(ring.dropped).toBe(42)
    expect(ring.get(51)).toBeUndefined()
    expect(() => new FrameRing({ frames: 0 })).toThrow(RangeError)
    expect(() => new FrameRing({ bytes: 0 })).toThrow(RangeError)
  })

  it('keeps the most recent frames within a byte limit, each as it was pushed', () => {
    const numbers = Array.from({ length: 3000 }, (_, i) => i + 1)
    const r = check(numbers, { bytes: 64 << 10, frames: 1 << 20 })
    // the byte limit, not the frame limit, let frames go
    expect(r.missing).toBeGreaterThan(r.held)
  })

  it('keeps no frame more than the frame limit of numbers back', () => {
    const numbers = Array.from({ length: 3000 }, (_, i) => i + 1)
    const r = check(numbers, { bytes: 64 << 20, frames: 500 })
    expect(r.missing).toBeGreaterThan(0)
    expect(new FrameRing({ frames: 500 }).get(1)).toBeUndefined()
  })

  it("keeps a shard's frames: sparse numbers, beginning far into the capture, by the span of their numbers", () => {
    const numbers: number[] = []
    for (let n = 40_000; numbers.length < 3000; n += 1 + ((n * 13) % 7)) numbers.push(n)
    const bySpan = check(numbers, { bytes: 64 << 20, frames: 1 << 11 })
    expect(bySpan.missing).toBeGreaterThan(0)
    check(numbers, { bytes: 96 << 10, frames: 1 << 12 })
  })

  it('grows its columns and chunks as frames come, keeping what they held, and wraps', () => {
    // past the first 1,024 slots and several chunks of bytes, then wrapping the queue
    const numbers = Array.from({ length: 9000 }, (_, i) => i + 1)
    const r = check(numbers, { bytes: 6 << 20, frames: 8192 }, (n) => 300 + ((n * 131) % 1200))
    expect(r.missing).toBeGreaterThan(0)
  })

  it('holds little while it holds a few frames: chunks from 64 KiB, doubling up to an eighth of the byte limit', () => {
    const ring = new FrameRing({ bytes: 64 << 20 })
    ring.push(frame(1, 100))
    // (an engine's ring is copied into every checkpoint of a message detail's replay)
    expect(ring.chunkBytes).toBe(64 << 10)
    let n = 2
    const sizes = () => {
      const before = ring.chunkBytes
      while (ring.chunkBytes === before) ring.push(frame(n++, 1000))
      return ring.chunkBytes - before
    }
    expect([sizes(), sizes(), sizes(), sizes(), sizes(), sizes(), sizes()]).toEqual([128, 256, 512, 1024, 2048, 4096, 4096].map((k) => k << 10))
    // a frame larger than the chunk gets one of its own
    const before = ring.chunkBytes
    ring.push(frame(n, 5 << 20))
    expect(ring.chunkBytes - before).toBe(5 << 20)
    expectSame(ring.get(n), frame(n, 5 << 20))
  })

  it('ignores a frame pushed again, and keeps none after clear()', () => {
    const ring = new FrameRing({ bytes: 8192, frames: 64 })
    ring.push(frame(1, 100))
    ring.push(frame(1, 200))
    ring.push(frame(2, 9000))
    ring.push(frame(3, 3000))
    expectSame(ring.get(1), frame(1, 100))
    expect(ring.get(2)).toBeUndefined()
    expectSame(ring.get(3), frame(3, 3000))
    expect(ring.count).toBe(2)
    ring.clear()
    expect([ring.get(1), ring.get(3), ring.count, ring.bytes, ring.chunkBytes]).toEqual([undefined, undefined, 0, 0, 0])
    ring.push(frame(4, 200))
    expectSame(ring.get(4), frame(4, 200))
  })

  it('gives back every kept frame byte for byte, across chunks and wraps, and frees the chunks of frames it dropped', () => {
    // Sizes from a fixed pseudo-random sequence: small datagrams, full segments, and now and then a
    // frame of cap's largest snapshot (65535 bytes). The first 2,000 are large, so the byte limit
    // drops frames (the queue wraps) before the columns have grown to the frame limit.
    let seed = 7
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31)
    const sizeOf = (n: number) => (n <= 2_000 ? 20_000 + (next() % 45_536) : next() % 50 === 0 ? 65_535 : next() % 3 === 0 ? 1514 : next() % 200)
    const limits = { frames: 3_000, bytes: 8 << 20 }
    const ring = new FrameRing(limits)
    const pushed: CaptureFrame[] = []
    for (let n = 1; n <= 20_000; n++) {
      const f = frame(n, sizeOf(n))
      pushed.push(f)
      ring.push(f)
      if (n % 5_000 === 0 || n === 1_500) {
        // What a ring with these limits keeps: the newest frames that fit both limits.
        let bytes = 0
        let from = pushed.length
        while (from > 0 && pushed.length - from < limits.frames && bytes + pushed[from - 1].data.length + OVERHEAD <= limits.bytes) {
          bytes += pushed[from - 1].data.length + OVERHEAD
          from--
        }
        const kept = [...ring.frames()]
        expect(kept.map((k) => k.number)).toEqual(pushed.slice(from).map((p) => p.number))
        for (const k of kept) expectSame(k, pushed[k.number - 1])
        expect(ring.count).toBe(kept.length)
        expect(ring.bytes).toBe(bytes)
        expect(ring.dropped).toBe(from)
        // Dropped frames' chunks are gone: what is allocated is the kept bytes, the ends of chunks a
        // frame did not fit in (under 65535 bytes each of 1 MiB, an eighth of the limit), and two chunks.
        expect(ring.chunkBytes).toBeLessThanOrEqual(bytes * (16 / 15) + 2 * (1 << 20))
      }
    }
  })
})
