// The shared capped inflate: output against node:zlib, the cap on a bomb, dictionaries, bad data.
import { describe, it, expect } from 'vitest'
import zlib from 'node:zlib'
import { Inflate } from 'fflate'
import { inflateCapped } from '../../../src-shared/bytes/inflate'

describe('inflateCapped', () => {
  const text = Buffer.from('gamewire '.repeat(5000))

  it('inflates zlib and raw DEFLATE to what node:zlib compressed', () => {
    expect(Buffer.from(inflateCapped(zlib.deflateSync(text), 1 << 20, { format: 'zlib', final: true }).out)).toEqual(text)
    expect(Buffer.from(inflateCapped(zlib.deflateRawSync(text), 1 << 20, { format: 'raw', final: true }).out)).toEqual(text)
  })

  it('stops a bomb at the cap, keeping exactly cap bytes', () => {
    const bomb = zlib.deflateSync(Buffer.alloc(64 << 20))
    const r = inflateCapped(bomb, 100_000, { format: 'zlib', final: true })
    expect(r.capped).toBe(true)
    expect(r.error).toBeNull()
    expect(r.out.length).toBe(100_000)
  })

  it('uses a preset dictionary and a sync-flush tail (permessage-deflate)', () => {
    const dict = Buffer.from('hello world, hello gamewire')
    const sync = zlib.deflateRawSync(Buffer.from('hello gamewire'), { dictionary: dict, finishFlush: zlib.constants.Z_SYNC_FLUSH })
    const body = sync.subarray(0, sync.length - 4) // sender strips 00 00 ff ff
    const r = inflateCapped(body, 1000, { format: 'raw', dictionary: dict, tail: Uint8Array.of(0, 0, 0xff, 0xff), final: false })
    expect(r.error).toBeNull()
    expect(Buffer.from(r.out).toString()).toBe('hello gamewire')
  })

  it('gives each message its own output, however large, when inflating pieces one after another', () => {
    // Pieces inflate in one call into a buffer reused between calls: outputs must not share it, and an
    // output larger than that buffer must come out whole.
    const tail = Uint8Array.of(0, 0, 0xff, 0xff)
    const piece = (b: Buffer) => {
      const sync = zlib.deflateRawSync(b, { finishFlush: zlib.constants.Z_SYNC_FLUSH })
      return sync.subarray(0, sync.length - 4)
    }
    const small = Buffer.from('first message')
    const large = Buffer.from(Array.from({ length: 300_000 }, (_, i) => 'abcdefgh'.charCodeAt((i * 7) % 8) ^ (i >> 12)))
    const a = inflateCapped(piece(small), 1 << 30, { format: 'raw', tail, final: false })
    const b = inflateCapped(piece(large), 1 << 30, { format: 'raw', tail, final: false })
    const c = inflateCapped(piece(large), 1 << 30, { format: 'raw', tail, final: false })
    expect([a.error, b.error, c.error]).toEqual([null, null, null])
    expect(Buffer.from(a.out).toString()).toBe('first message')
    expect(Buffer.from(b.out).equals(large)).toBe(true)
    expect(Buffer.from(c.out).equals(large)).toBe(true)
  })

  it('gives what a streaming inflater gives for pieces cut anywhere or with a bit flipped', () => {
    // A piece is inflated in one call when that succeeds; a cut or damaged piece must still come out as
    // fflate's streaming inflater (given the piece, then the tail) leaves it: the same bytes, the same error.
    const tail = Uint8Array.of(0, 0, 0xff, 0xff)
    const dictionary = Buffer.from('w1 w2 w3 w10 w20 w30 '.repeat(20))
    const words = Buffer.from(Array.from({ length: 300 }, (_, i) => `w${(i * 2654435761) % 977}`).join(' '))
    let checked = 0
    let failed = 0
    for (const level of [1, 9]) {
      const sync = zlib.deflateRawSync(words, { level, dictionary, finishFlush: zlib.constants.Z_SYNC_FLUSH })
      const whole = sync.subarray(0, sync.length - 4)
      const pieces: Uint8Array[] = Array.from({ length: whole.length }, (_, cut) => whole.subarray(0, cut + 1))
      for (let k = 0; k < whole.length * 8; k += 3) {
        const damaged = Uint8Array.from(whole)
        damaged[k >> 3] ^= 1 << (k & 7)
        pieces.push(damaged)
      }
      for (const piece of pieces) {
        const parts: Uint8Array[] = []
        let error: string | null = null
        try {
          const inf = new Inflate({ dictionary }, (c) => parts.push(c))
          inf.push(piece, false)
          inf.push(tail, false)
        } catch (e) {
          error = (e as Error).message
        }
        const r = inflateCapped(piece, 1 << 20, { format: 'raw', dictionary, tail, final: false })
        expect({ out: Buffer.from(r.out).toString('hex'), error: r.error }).toEqual({ out: Buffer.concat(parts).toString('hex'), error })
        checked++
        if (error) failed++
      }
    }
    // The pieces cover both ways: many fail, many inflate.
    expect(failed).toBeGreaterThan(checked / 10)
    expect(checked - failed).toBeGreaterThan(checked / 10)
  })

  it('inflates a final raw stream with a preset dictionary in one piece', () => {
    const dict = Buffer.from('hello world, hello gamewire')
    const whole = zlib.deflateRawSync(Buffer.from('hello gamewire, hello world'), { dictionary: dict })
    const r = inflateCapped(whole, 1 << 20, { format: 'raw', dictionary: dict, final: true })
    expect(r.error).toBeNull()
    expect(Buffer.from(r.out).toString()).toBe('hello gamewire, hello world')
  })

  it('reports a stream cut off as an error, keeping only bytes of its start', () => {
    // Incompressible bytes come out in stored blocks, so whatever a cut stream gave is an exact prefix.
    const random = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 2654435761) >>> 24))
    const cut = zlib.deflateSync(random, { level: 0 }).subarray(0, 100_000)
    const r = inflateCapped(cut, 1 << 30, { format: 'zlib', final: true })
    expect(r.error).toMatch(/unexpected EOF/)
    expect(Buffer.from(r.out).equals(random.subarray(0, r.out.length))).toBe(true)
  })

  it('reports invalid data as an error, never throws', () => {
    const r = inflateCapped(Uint8Array.of(0x78, 0x9c, 0xff, 0xff, 0xff), 1000, { format: 'zlib', final: true })
    expect(r.error).toMatch(/./)
    expect(r.capped).toBe(false)
  })
})
