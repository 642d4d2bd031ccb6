// The index's summaries live in a TextPool as bytes: every text must come back exactly as it went in (any
// UTF-16 string, lone surrogates too), equal texts must share one id, and distinct texts must never do,
// across blocks and hash-table growth.
import { describe, expect, it } from 'vitest'
import { TEXT_POOL_MAX, TextPool } from '../../../src-shared/engine/text-pool'
import { rng } from '../helpers/rng'

describe('TextPool', () => {
  it('gives every distinct text one id and returns it exactly, for random UTF-16 strings over many blocks', () => {
    const rand = rng(5)
    // Code units from each encoded width (1, 2 and 3 bytes), surrogates and their boundaries included.
    const units = [0, 0x41, 0x7f, 0x80, 0x7ff, 0x800, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xfffd, 0xffff, 0x2192]
    const make = (): string => {
      const n = Math.floor(rand() * 90)
      let s = ''
      for (let i = 0; i < n; i++) s += String.fromCharCode(rand() < 0.7 ? 0x20 + Math.floor(rand() * 90) : units[Math.floor(rand() * units.length)])
      return s
    }
    const pool = new TextPool()
    const ids = new Map<string, number>()
    for (let k = 0; k < 60000; k++) {
      // Repeat earlier texts often, as summaries do.
      const text = rand() < 0.3 && ids.size ? [...ids.keys()][Math.floor(rand() * Math.min(ids.size, 50))] : make()
      const id = pool.id(text)
      const known = ids.get(text)
      if (known === undefined) {
        expect(id).toBe(ids.size)
        ids.set(text, id)
      } else expect(id).toBe(known)
    }
    expect(pool.count).toBe(ids.size)
    // Over a MiB of text: several blocks, and the hash table grew several times.
    expect(pool.byteSize()).toBeGreaterThan(2 << 20)
    for (const [text, id] of ids) expect(pool.text(id)).toBe(text)
    expect(pool.all()).toEqual([...ids.keys()])
  })

  it('tells apart texts with equal hashes and equal lengths', () => {
    // FNV-1a collisions are rare; force the comparison with texts that differ only in their width.
    const pool = new TextPool()
    const texts = ['\u0080', '\u0100', '\u07ff', '\u0800', '\u0101', '\ud800', '\udc00', '', ' ']
    const ids = texts.map((t) => pool.id(t))
    expect(new Set(ids).size).toBe(texts.length)
    texts.forEach((t, k) => expect(pool.text(ids[k])).toBe(t))
  })

  it('keeps a text of the longest length, refuses a longer one and an unknown id', () => {
    const pool = new TextPool()
    const longest = '\uffff'.repeat(TEXT_POOL_MAX)
    expect(pool.text(pool.id(longest))).toBe(longest)
    expect(() => pool.id('x'.repeat(TEXT_POOL_MAX + 1))).toThrow(RangeError)
    expect(() => pool.text(1)).toThrow(RangeError)
  })
})
