import { describe, it, expect } from 'vitest'
import { MessageIndex } from '../../../src-shared/engine/message-index'
import type { DecodedMessage } from '../../../src-shared/model/types'
// Declares the photon.param family, whose parameters the index keeps (as the decoders do when loaded).
import '../../../src-shared/protocols/photon/codec-fields'

const m = (id: number, over: Partial<DecodedMessage> = {}): DecodedMessage => ({
  id,
  conversation: 1 + (id % 3),
  direction: id % 2 ? 'c2s' : 's2c',
  frames: [id, id + 2],
  time: 100 + id / 10,
  protocol: 'photon',
  stack: ['udp', 'photon'],
  name: `Op${id % 5}`,
  summary: `${id % 7} bytes`,
  value: null,
  tree: [],
  sources: [{ name: 'UDP payload', bytes: new Uint8Array(id) }],
  warnings: [],
  error: null,
  ...over
})

describe('MessageIndex', () => {
  it("reads frame.len and frame.cap_len of a row's frames from the frame lengths it is given", () => {
    const idx = new MessageIndex()
    idx.add(m(1, { frames: [4] }))
    idx.add(m(2, { frames: [5, 9] }))
    idx.add(m(3, { frames: [5, 6, 9] }))
    // a message of no frame (a decoder's internal error)
    idx.add(m(4, { frames: [] }))
    const asked: number[] = []
    const lengths = {
      originalLength: (f: number) => (asked.push(f), 1000 + f),
      capturedLength: (f: number) => (asked.push(f), 100 + f)
    }
    const t = idx.target(lengths)
    expect([0, 1, 2, 3].map((r) => t.at(r).values('frame.len'))).toEqual([[1004], [1005, 1009], [1005, 1006, 1009], []])
    expect([0, 1, 2, 3].map((r) => t.at(r).values('frame.cap_len'))).toEqual([[104], [105, 109], [105, 106, 109], []])
    expect(asked).not.toContain(0)
    expect(t.at(3).has('frame.len')).toBe(false)
    // nor a frame number, as its decoded message lists none
    expect(t.at(3).values('frame.number')).toEqual([])
    // without the lengths the target refuses them rather than answer that a message has none
    expect(() => idx.target().at(0).values('frame.len')).toThrow(/without the frames' lengths/)
  })

  it('gives back every row it was given, across growth', () => {
    const idx = new MessageIndex()
    for (let i = 1; i <= 3000; i++) idx.add(m(i, i === 2000 ? { error: 'boom', warnings: ['w'], direction: 'b2a' } : {}))
    expect(idx.count).toBe(3000)
    expect(idx.row(0)).toEqual({
      id: 1,
      conversation: 2,
      direction: 'c2s',
      firstFrame: 1,
      lastFrame: 3,
      time: 100.1,
      protocol: 'photon',
      name: 'Op1',
      summary: '1 bytes',
      length: 1,
      error: false,
      warning: false
    })
    expect(idx.row(1999)).toMatchObject({ id: 2000, direction: 'b2a', error: true, warning: true, name: 'Op0', length: 2000 })
    expect(() => idx.row(3000)).toThrow(RangeError)
  })

  it('keeps frame spans, conversations and lengths exactly as their columns widen', () => {
    const idx = new MessageIndex()
    const rows: { frames: number[]; conversation: number; length: number }[] = []
    for (let i = 1; i <= 5000; i++) {
      // Two-byte columns until row 3000 brings a conversation and a length that need four.
      const conversation = i === 3000 ? 70_000 : 1 + (i % 50)
      const length = i === 3000 ? 100_000 : i % 1000
      // Spans that fit two bytes, one that does not, one at the boundary, and frames given out of order.
      const frames = i === 10 ? [5, 70_005] : i === 11 ? [1, 0x10000] : i === 12 ? [9, 4] : i === 13 ? [7, 0xffff + 6] : [i, i + (i % 3)]
      rows.push({ frames, conversation, length })
      idx.add(m(i, { frames, conversation, sources: [{ name: 'UDP payload', bytes: new Uint8Array(length) }] }))
    }
    const check = () =>
      rows.forEach((r, i) => {
        const row = idx.row(i)
        expect([row.firstFrame, row.lastFrame, row.conversation, row.length], `row ${i}`).toEqual([
          r.frames[0],
          r.frames[r.frames.length - 1],
          r.conversation,
          r.length
        ])
        expect(idx.framesAt(i)).toEqual(r.frames[0] === r.frames[1] ? [r.frames[0]] : r.frames)
        expect(idx.conversationAt(i)).toBe(r.conversation)
        expect(idx.lengthAt(i)).toBe(r.length)
      })
    check()
    idx.trim()
    check()
    // Before any value needs four bytes, the columns take two.
    const small = new MessageIndex()
    for (let i = 1; i <= 1024; i++) small.add(m(i))
    expect(small.columnBytes()).toBe(1024 * (8 + 4 + 2 + 2 + 2 + 2 + 1 + 1 + 4 + 2))
  })

  it('answers a row that arrives after the filter target read it (a live capture)', () => {
    const idx = new MessageIndex()
    idx.add(m(1, { indexed: { keys: ['photon.key'], values: [5] } }))
    const t = idx.target()
    expect(t.at(0).values('photon.key')).toEqual([5])
    expect(t.at(1).values('photon.key')).toEqual([])
    idx.add(m(2, { indexed: { keys: ['photon.key'], values: [7] } }))
    expect(t.at(1).values('photon.key')).toEqual([7])
  })

  it("keeps a parameter's string as a presence once the string table is full, so that it is decoded again", () => {
    const idx = new MessageIndex()
    // 65,535 distinct short strings fill the table the columns share.
    for (let i = 1; i <= 0xffff; i++) idx.add(m(i, { indexed: { keys: ['photon.param.7'], values: [`s${i}`] } }))
    const fresh = 'not in the table'
    idx.add(m(0x10000, { indexed: { keys: ['photon.param.7', 'photon.param.8', 'photon.key'], values: [fresh, 's5', 'also new'] } }))
    const t = idx.target().at(0xffff)
    expect(t.values('photon.param.7')).toEqual([])
    expect(idx.fields.get('has:photon.param.7')?.has(0xffff)).toBe(true)
    expect(t.has('photon.param.7')).toBe(true)
    // A string the table holds stays a value, and so does any other field's (it costs that row alone).
    expect([t.values('photon.param.8'), t.values('photon.key')]).toEqual([['s5'], ['also new']])
    expect(idx.fields.get('has:photon.param.8')).toBeUndefined()
    expect(idx.target().at(4).values('photon.param.7')).toEqual(['s5'])
  })

  it('stays a few dozen bytes per message when summaries repeat, and caps long summaries', () => {
    const idx = new MessageIndex()
    for (let i = 1; i <= 10000; i++) idx.add(m(i))
    // Columns are 28 bytes a row here, and doubling growth has made room for 16,384 rows: 46 bytes a message.
    expect(idx.byteSize() / idx.count).toBeLessThan(50)
    idx.add(m(1, { summary: 'x'.repeat(500) }))
    expect(idx.row(10000).summary).toHaveLength(120)
  })
})

describe('MessageIndex name and protocol tables', () => {
  it("keeps a row's protocol after hundreds of distinct message names", () => {
    const idx = new MessageIndex()
    for (let i = 1; i <= 600; i++) idx.add(m(i, { name: `Name ${i}`, protocol: i % 2 ? 'sfs2x' : 'photon' }))
    for (const i of [1, 2, 299, 300, 301, 599, 600]) {
      expect(idx.row(i - 1)).toMatchObject({ name: `Name ${i}`, protocol: i % 2 ? 'sfs2x' : 'photon' })
    }
  })

  it('names the 65,536th distinct message name and later ones (other) without losing earlier ones', () => {
    const idx = new MessageIndex()
    const n = (1 << 16) + 10
    for (let i = 1; i <= n; i++) idx.add(m(i, { name: `N${i}` }))
    expect(idx.row(0).name).toBe('N1')
    expect(idx.row((1 << 16) - 2).name).toBe(`N${(1 << 16) - 1}`)
    expect(idx.row((1 << 16) - 1).name).toBe('(other)')
    expect(idx.row(n - 1).name).toBe('(other)')
    expect(idx.row(n - 1).protocol).toBe('photon')
  })
})

describe('MessageIndex text ranks', () => {
  // The reference: each row's text ranked among the texts present, by localeCompare.
  const ranksOf = (texts: string[]) => {
    const distinct = [...new Set(texts)].sort((a, b) => a.localeCompare(b))
    return texts.map((t) => distinct.indexOf(t))
  }
  // Ranks may skip numbers (a table can hold texts no row shows); only their order counts.
  const sameOrder = (got: Uint32Array, want: number[]) => {
    for (let i = 0; i < want.length; i++)
      for (let j = 0; j < want.length; j++) expect(Math.sign(got[i] - got[j]), `${i} ${j}`).toBe(Math.sign(want[i] - want[j]))
  }

  it('ranks summaries, names and protocols by text, and again after new texts arrive (a live capture)', () => {
    const idx = new MessageIndex()
    const rows: DecodedMessage[] = []
    const add = (over: Partial<DecodedMessage>) => {
      const msg = m(rows.length + 1, over)
      rows.push(msg)
      idx.add(msg)
    }
    for (const s of ['move 3', 'Ack', 'move 10', 'ack', 'Join']) add({ summary: s, name: s.split(' ')[0], protocol: s.length % 2 ? 'sfs2x' : 'photon' })
    for (const column of ['summary', 'name', 'protocol'] as const) sameOrder(idx.textRanks(column), ranksOf(rows.map((r) => r[column])))
    // Texts that sort before and between the ones ranked above: the kept ranks must not be reused.
    for (const s of ['aaa', 'Join 2', '0 first']) add({ summary: s, name: s.split(' ')[0], protocol: 'enet' })
    for (const column of ['summary', 'name', 'protocol'] as const) sameOrder(idx.textRanks(column), ranksOf(rows.map((r) => r[column])))
  })
})
