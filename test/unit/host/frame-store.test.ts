// The frame spill store: frames come back byte-identical with their metadata, whether still buffered or
// already in the file, one at a time or in ranges; conversation frame lists come back sorted.
import { afterAll, describe, expect, it } from 'vitest'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FrameStore } from '../../../src-main/host/frame-store'
import type { CaptureFrame } from '../../../src-shared/capture/types'
import { rng } from '../helpers/rng'
import { openFilesNamed } from '../helpers/open-files'

const tmp = mkdtempSync(join(tmpdir(), 'gamewire-store-test-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

function frames(n: number, seed: number): CaptureFrame[] {
  const rand = rng(seed)
  return Array.from({ length: n }, (_, i) => {
    // mostly small frames, some bigger than the 1 MiB write buffer
    const size = i % 97 === 5 ? (1 << 20) + 123 : Math.floor(rand() * 1600)
    const data = Uint8Array.from({ length: size }, (_, k) => (k * 31 + i) & 0xff)
    const f: CaptureFrame = {
      number: i + 1,
      interfaceId: i % 3,
      linkType: i % 2 ? 1 : 276,
      tsSec: 1_700_000_000 + i,
      tsNsec: (i * 7919) % 1e9,
      originalLength: size + (i % 5),
      data
    }
    if (i % 50 === 7) f.noTimestamp = true
    return f
  })
}

const same = (a: CaptureFrame, b: CaptureFrame) => {
  expect({ ...a, data: Buffer.from(a.data).toString('hex') }).toEqual({
    ...b,
    data: Buffer.from(b.data).toString('hex'),
    ...(b.noTimestamp ? { tsSec: 0 } : {})
  })
}

describe('FrameStore', () => {
  it('returns every frame as stored, by number and by range', () => {
    const store = new FrameStore(tmp)
    const input = frames(300, 3)
    for (const f of input) store.append(f)
    expect(store.count).toBe(300)
    for (const n of [1, 2, 6, 150, 299, 300]) same(store.get(n), input[n - 1])
    const all = [...store.range()]
    expect(all).toHaveLength(300)
    all.forEach((f, i) => same(f, input[i]))
    expect([...store.range(10, 12)].map((f) => f.number)).toEqual([10, 11, 12])
    expect([...store.range(1, 300, (n) => n % 100 === 0)].map((f) => f.number)).toEqual([100, 200, 300])
    store.close()
  })

  it('returns the same frames one by one while frames are still being appended (read-ahead window)', () => {
    const store = new FrameStore(tmp)
    const input = frames(600, 9)
    // Read each frame right after it is stored (the window then ends at the store's end), every frame again
    // ascending and backwards, then some after later appends have flushed the buffer the window came from.
    for (const f of input.slice(0, 200)) {
      store.append(f)
      same(store.get(f.number), f)
    }
    for (let n = 1; n <= 200; n++) same(store.get(n), input[n - 1])
    for (let n = 200; n >= 1; n -= 7) same(store.get(n), input[n - 1])
    for (const f of input.slice(200)) store.append(f)
    const kept: CaptureFrame[] = []
    for (let n = 1; n <= 600; n += 3) {
      kept.push(store.get(n))
      same(kept[kept.length - 1], input[n - 1])
    }
    // The window's buffer is reused from read to read: frames handed out before are unchanged.
    for (const f of kept) same(f, input[f.number - 1])
    // A frame's bytes are its own: changing them leaves the store's next answer as it was.
    store.get(10).data.fill(0)
    same(store.get(10), input[9])
    store.close()
  })

  it("gives each frame's captured and original lengths without reading it, while appending and after", () => {
    const store = new FrameStore(tmp)
    // Four frames in five cut by a snapshot length (originalLength = size + i % 5), sizes past the write buffer too.
    const input = frames(400, 4)
    const check = (upTo: number) => {
      for (let n = 1; n <= upTo; n++) {
        expect(store.capturedLength(n)).toBe(input[n - 1].data.length)
        expect(store.originalLength(n)).toBe(input[n - 1].originalLength)
      }
    }
    input.forEach((f, i) => {
      store.append(f)
      // The last frame is still in the write buffer: its end is the file's size.
      if (i % 37 === 0) check(i + 1)
    })
    check(400)
    expect(() => store.capturedLength(0)).toThrow(RangeError)
    expect(() => store.originalLength(401)).toThrow(RangeError)
    store.close()
  })

  it('refuses frames out of order and numbers outside the capture', () => {
    const store = new FrameStore(tmp)
    store.append(frames(1, 1)[0])
    expect(() => store.append({ ...frames(3, 1)[2] })).toThrow(/expected frame 2, got 3/)
    expect(() => store.get(0)).toThrow(RangeError)
    expect(() => store.get(2)).toThrow(RangeError)
    store.close()
  })

  it("lists a conversation's frames ascending without duplicates, even when reported out of order", () => {
    const store = new FrameStore(tmp)
    for (const f of frames(20, 2)) store.append(f)
    for (const n of [3, 9, 4, 5, 5, 12]) store.addToConversation(n, 2)
    store.addToConversation(7, 1)
    store.addToConversation(30, 1) // beyond the capture: ignored
    expect([...store.framesOf(2)]).toEqual([3, 4, 5, 9, 12])
    expect([...store.framesOf(1)]).toEqual([7])
    expect([...store.framesOf(5)]).toEqual([])
    store.close()
  })

  it('keeps the frames of many tiny interleaved conversations, and forgets them on clear', () => {
    const store = new FrameStore(tmp)
    const n = 30_000
    const tiny = { number: 0, interfaceId: 0, linkType: 1, tsSec: 0, tsNsec: 0, originalLength: 1, data: new Uint8Array(1) }
    for (let i = 1; i <= n; i++) store.append({ ...tiny, number: i })
    // Conversation c has frames c, c + 10000 and c + 20000, the last reported first (a reassembled datagram).
    const conversations = n / 3
    for (let c = 1; c <= conversations; c++) store.addToConversation(c + 2 * conversations, c)
    for (let c = 1; c <= conversations; c++) store.addToConversation(c, c)
    for (let c = 1; c <= conversations; c++) store.addToConversation(c + conversations, c)
    for (const c of [1, 2, 4999, conversations]) expect([...store.framesOf(c)]).toEqual([c, c + conversations, c + 2 * conversations])
    store.addToConversation(1, 2) // a frame already in a conversation stays there
    expect([...store.framesOf(2)]).toEqual([2, 2 + conversations, 2 + 2 * conversations])
    store.clearConversations()
    expect([...store.framesOf(1)]).toEqual([])
    store.addToConversation(5, 1)
    expect([...store.framesOf(1)]).toEqual([5])
    store.close()
  })

  it('leaves no spill file behind, even while open, and closes it', () => {
    const dir = mkdtempSync(join(tmp, 'x-'))
    const open = () => openFilesNamed(dir)
    const store = new FrameStore(dir)
    const input = frames(1, 9)[0]
    store.append(input)
    // removed from the folder at once where the system allows (Linux): a killed process leaves nothing
    expect(readdirSync(dir)).toEqual([])
    expect(open()).toBe(1)
    same(store.get(1), input)
    store.close()
    expect(readdirSync(dir)).toEqual([])
    expect(open()).toBe(0)
  })
})
