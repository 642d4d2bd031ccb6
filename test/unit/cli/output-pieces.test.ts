// The pieces long reports are written in: chunks for fewer writes, and JSON with one long array written an
// item at a time, the same bytes as JSON.stringify of the whole.
import { describe, expect, it } from 'vitest'
import { chunked, jsonPieces, jsonWithArray } from '../../../src-main/cli/output-pieces'

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

  it('writes a value with long arrays member by member, the same bytes as JSON.stringify, at any indent', () => {
    const long = (n: number, f: (k: number) => unknown) => Array.from({ length: n }, (_, k) => f(k))
    // a conversation pair of a report, long lists in it, and what JSON.stringify leaves out or writes as null
    const pair = {
      protocol: 'photon',
      a: { id: 1, client: '10.0.0.1:5055' },
      b: null,
      skipped: undefined,
      fn: () => 1,
      onlyA: long(70, (k) => ({ id: k, frames: [k, k + 1], name: `Op ${k}` })),
      onlyB: [],
      changed: long(200, (k) => ({
        a: { id: k },
        ...(k % 7 === 0 ? { reordered: true } : {}),
        fields: long(k % 3 === 0 ? 90 : 2, (f) => ({
          path: `p.${f}`,
          a: f % 5 === 0 ? -0 : f,
          b: f % 4 === 0 ? Number.NaN : 'x\n"y"',
          only: f % 9 ? undefined : 'a'
        }))
      })),
      holes: long(100, (k) => (k % 10 === 0 ? undefined : k % 11 === 0 ? () => 0 : k)),
      nested: long(80, (k) => long(k % 2 ? 70 : 3, (j) => j)),
      'key "quoted"\u2713': { deep: { list: long(65, (k) => ({ k })) } }
    }
    for (const v of [pair, pair.changed, [], {}, { only: long(65, (k) => k) }, 'text', 5, null]) {
      for (const indent of ['', '    ']) {
        const expected = JSON.stringify(v, null, 2).replaceAll('\n', `\n${indent}`)
        const pieces = [...jsonPieces(v, indent)]
        expect(pieces.join('')).toBe(expected)
        if (v === pair) expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(expected.length / 20)
      }
    }
  })
})
