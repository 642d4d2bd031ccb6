// ByteStream.own(): bytes that wait in a stream for the rest of a message must stop being views of the
// frames' slabs, keep their values when those slabs are reused, and be copied only once.
import { describe, expect, it } from 'vitest'
import { ByteStream } from '../../../src-shared/net/byte-stream'

describe('ByteStream.own', () => {
  it('copies the unconsumed bytes out of the buffers they came in, once, and reads on exactly', () => {
    const shared = new Uint8Array(64).map((_, i) => i)
    const s = new ByteStream()
    s.push(shared.subarray(0, 10), 1, 0.1)
    s.push(shared.subarray(10, 20), 2, 0.2)
    expect([...s.take(4).bytes]).toEqual([0, 1, 2, 3])
    s.own()
    s.push(shared.subarray(20, 30), 3, 0.3)
    shared.subarray(0, 20).fill(0xee)
    // The chunk pushed after own() is still a view until the next own().
    expect(s.peek(6, 16)[0]).toBe(20)
    s.own()
    shared.fill(0xdd)
    const rest = s.take(26)
    expect([...rest.bytes]).toEqual(Array.from({ length: 26 }, (_, i) => i + 4))
    expect(rest.frames).toEqual([1, 2, 3])
    expect(rest.offset).toBe(4)
    expect(s.available).toBe(0)
  })

  it('leaves nothing pinned: every unconsumed chunk has a buffer of its own size after own()', () => {
    const slab = new Uint8Array(8192)
    const s = new ByteStream()
    for (let i = 0; i < 100; i++) s.push(slab.subarray(i * 50, i * 50 + 50), i + 1, i)
    s.take(125)
    s.own()
    const chunks = (s as unknown as { chunks: { data: Uint8Array }[]; first: number }).chunks.slice((s as unknown as { first: number }).first)
    expect(chunks.length).toBe(98)
    for (const c of chunks) expect(c.data.buffer.byteLength).toBe(c.data.length)
    expect(s.available).toBe(5000 - 125)
  })
})
