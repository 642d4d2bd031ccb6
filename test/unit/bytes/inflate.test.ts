// The shared capped inflate: output against node:zlib, the cap on a bomb, dictionaries, bad data.
import { describe, it, expect } from 'vitest'
import zlib from 'node:zlib'
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
