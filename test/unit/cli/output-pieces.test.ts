// The pieces long reports are written in: chunks for fewer writes, and JSON with one long array written an
// item at a time, the same bytes as JSON.stringify of the whole.
import { describe, expect, it } from 'vitest'
import { chunked, jsonWithArray } from '../../../src-main/cli/output-pieces'

describe('output pieces', () => {
  it('chunks pieces into writes of about the asked size, losing nothing', () => {
    const pieces = Array.from({ length: 1000 }, (_, k) => `${k},`)
    const chunks = [...chunked(pieces, 100)]
    expect(chunks.join('')).toBe(pieces.join(''))
    expect(chunks.slice(0, -1).every((c) => c.length >= 100 && c.length < 104)).toBe(true)
    expect(chunks.length).toBeLessThan(pieces.length / 20)
  })

  it('writes JSON with its array an item at a time, the same bytes as JSON.stringify of the whole', () => {
    const head = { format: 'x/1', a: { file: 'a "b"\n.pcap', n: 2 } }
    const tail = { summary: [{ name: 'Join', n: 1 }], totals: { aligned: 3 } }
    const items = [{ id: 1, nested: { list: [1, 2], empty: [] as number[] } }, { id: 2, text: 'line\nbreak', none: null }, 7, 'text']
    const whole = (list: unknown[]) => `${JSON.stringify({ ...head, conversations: list, ...tail }, null, 2)}\n`
    expect([...jsonWithArray({ ...head, conversations: null, ...tail }, 'conversations', items)].join('')).toBe(whole(items))
    expect([...jsonWithArray({ ...head, conversations: null, ...tail }, 'conversations', [])].join('')).toBe(whole([]))
    // Read while written: an item is taken when the piece before it has been consumed.
    let taken = 0
    const counted = (function* () {
      for (const item of items) {
        taken++
        yield item
      }
    })()
    const pieces = jsonWithArray({ ...head, conversations: null, ...tail }, 'conversations', counted)
    pieces.next()
    expect(taken).toBe(0)
    pieces.next()
    expect(taken).toBe(1)
  })

  it('writes the members after the array from what `after` gives once the items are read (a report that counts as it goes)', () => {
    const head = { format: 'x/1', a: { file: 'a.pcap' } }
    const items = [{ id: 1 }, { id: 2, text: 'two' }]
    let read = 0
    const counting = (function* () {
      for (const item of items) {
        read++
        yield item
      }
    })()
    const after = () => ({ summary: [{ name: 'Join', read }], totals: { aligned: read } })
    const out = [...jsonWithArray(head, 'conversations', counting, after)].join('')
    expect(out).toBe(`${JSON.stringify({ ...head, conversations: items, summary: [{ name: 'Join', read: 2 }], totals: { aligned: 2 } }, null, 2)}\n`)
    expect([...jsonWithArray(head, 'conversations', [], () => ({ totals: {} }))].join('')).toBe(
      `${JSON.stringify({ ...head, conversations: [], totals: {} }, null, 2)}\n`
    )
  })
})
