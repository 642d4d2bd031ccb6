// The frame spill store: frames come back byte-identical with their metadata, whether still buffered or
// already in the file, one at a time or in ranges; conversation frame lists come back sorted.
import { afterAll, describe, expect, it } from 'vitest'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FrameStore } from '../../../src-main/host/frame-store'
import type { CaptureFrame } from '../../../src-shared/capture/types'
import { rng } from '../helpers/rng'

const tmp = mkdtempSync(join(tmpdir(), 'gamewire-store-test-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

function frames(n: number, seed: number): CaptureFrame[] {
  const rand = rng(seed)
  return Array.from({ length: n }, (_, i) => {
    // mostly small frames, some bigger than the 1 MiB write buffer
    const size = i % 97 === 5 ? (1 << 20) + 123 : Math.floor(rand() * 1600)
    const data = Uint8Array.from({ length: size }, (_, k) => (k * 31 + i) & 0xff)
    const f: CaptureFrame = { number: i + 1, interfaceId: i % 3, linkType: i % 2 ? 1 : 276, tsSec: 1_700_000_000 + i, tsNsec: (i * 7919) % 1e9, originalLength: size + (i % 5), data }
    if (i % 50 === 7) f.noTimestamp = true
    return f
  })
}

const same = (a: CaptureFrame, b: CaptureFrame) => {
  expect({ ...a, data: Buffer.from(a.data).toString('hex') }).toEqual({ ...b, data: Buffer.from(b.data).toString('hex'), ...(b.noTimestamp ? { tsSec: 0 } : {}) })
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

  it('refuses frames out of order and numbers outside the capture', () => {
    const store = new FrameStore(tmp)
    store.append(frames(1, 1)[0])
    expect(() => store.append({ ...frames(3, 1)[2] })).toThrow(/expected frame 2, got 3/)
    expect(() => store.get(0)).toThrow(RangeError)
    expect(() => store.get(2)).toThrow(RangeError)
    store.close()
  })

  it('lists a conversation\'s frames ascending without duplicates, even when reported out of order', () => {
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

  it('deletes its spill folder on close', () => {
    const dir = mkdtempSync(join(tmp, 'x-'))
    const store = new FrameStore(dir)
    store.append(frames(1, 9)[0])
    expect(readdirSync(dir)).toHaveLength(1)
    store.close()
    expect(readdirSync(dir)).toEqual([])
  })
})
