// Photon fragment reassembly: messages split by the independent encoder, read back from datagrams with
// readCommand, and delivered in every order, with duplicates, gaps, interleaving, malformed headers and
// the memory cap.
import { describe, it, expect } from 'vitest'
import { FieldReader } from '../../../src-shared/bytes/reader'
import { TreeBuilder } from '../../../src-shared/bytes/tree'
import { readCommand, readHeader, type PhotonFragmentHeader } from '../../../src-shared/protocols/photon/udp'
import { FragmentAssembler, MISSING_LIST_CAP, type FragmentResult } from '../../../src-shared/net/fragments'
import { rng } from '../helpers/rng'
import { datagram, hex, message, splitMessage } from '../protocols/photon/udp-encoder'

interface Frag {
  channel: number
  frag: PhotonFragmentHeader
  data: Uint8Array
}

/** Splits `msg` with the encoder, sends each fragment in its own datagram and reads it back like the glue. */
function fragmentsOf(msg: Uint8Array, o: { channel?: number; startSeq: number; fragmentSize?: number; unsequenced?: boolean }): Frag[] {
  return splitMessage(msg, o).map((f, i) => {
    const d = datagram({ sentTime: i, commands: [f.command] })
    const r = new FieldReader(d.bytes, new TreeBuilder(false), 0)
    const h = readHeader(r)
    expect(h.commandCount).toBe(1)
    const c = readCommand(r)
    expect(c.type).toBe(o.unsequenced ? 15 : 8)
    expect(c.reliableSeq).toBe(o.startSeq + i)
    return { channel: c.channel, frag: c.fragment!, data: d.bytes.subarray(c.payloadStart, c.payloadEnd) }
  })
}

function permutations<T>(a: T[]): T[][] {
  if (a.length <= 1) return [a]
  const out: T[][] = []
  a.forEach((x, i) => {
    for (const rest of permutations([...a.slice(0, i), ...a.slice(i + 1)])) out.push([x, ...rest])
  })
  return out
}

function shuffle<T>(a: T[], rand: () => number): T[] {
  const b = a.slice()
  for (let i = b.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1))
    ;[b[i], b[j]] = [b[j], b[i]]
  }
  return b
}

function complete(r: FragmentResult) {
  if (r.kind !== 'complete') throw new Error(`expected complete, got ${JSON.stringify(r)}`)
  return r
}

/** Delivers fragments in the given order (frame = 1-based position + base); checks every result. */
function deliver(a: FragmentAssembler, order: Frag[], msg: Uint8Array, frameBase = 0) {
  let last: FragmentResult | undefined
  order.forEach((f, i) => {
    last = a.add(f.channel, f.frag, f.data, frameBase + i + 1, 1000 + (frameBase + i) * 0.01)
    if (i < order.length - 1) expect(last).toEqual({ kind: 'pending', received: i + 1, count: order.length })
  })
  const c = complete(last!)
  expect(c.bytes.length).toBe(msg.length)
  expect(hex(c.bytes)).toBe(hex(msg))
  expect(c.frames).toEqual(order.map((_, i) => frameBase + i + 1))
  expect(c.time).toBeCloseTo(1000 + (frameBase + order.length - 1) * 0.01, 9)
  // pieces: ascending offsets, covering the message exactly, with the frame and number that carried each.
  let at = 0
  for (const p of c.pieces) {
    expect(p.offset).toBe(at)
    const f = order.findIndex((x) => x.frag.number === p.number)
    expect(p.frame).toBe(frameBase + f + 1)
    expect(p.length).toBe(order[f].data.length)
    at += p.length
  }
  expect(at).toBe(msg.length)
  return c
}

describe('Photon fragment reassembly', () => {
  it('reassembles a 5-fragment message delivered in every one of the 120 orders', () => {
    const msg = message(5000, 4, 3)
    const frags = fragmentsOf(msg, { startSeq: 42 })
    expect(frags.map((f) => f.data.length)).toEqual([1152, 1152, 1152, 1152, 392])
    expect(frags.map((f) => f.frag.offset)).toEqual([0, 1152, 2304, 3456, 4608])
    const orders = permutations(frags)
    expect(orders.length).toBe(120)
    for (const order of orders) {
      const a = new FragmentAssembler()
      deliver(a, order, msg)
      expect(a.incomplete()).toEqual([])
      expect(a.pendingBytes).toBe(0)
    }
  })

  it('reassembles large messages in seeded random orders, with duplicates and retransmissions', () => {
    const rand = rng(1152)
    for (let run = 0; run < 12; run++) {
      const size = 1 + Math.floor(rand() * 60000)
      const msg = message(size, 4, run)
      const unsequenced = run % 3 === 0
      const frags = fragmentsOf(msg, { channel: run % 4, startSeq: 1000 * run + 1, unsequenced })
      const order = shuffle(frags, rand)
      const a = new FragmentAssembler()
      const seen = new Set<number>()
      let result: FragmentResult | undefined
      let frame = 0
      for (const f of order) {
        // Sometimes retransmit an already delivered fragment first.
        if (seen.size && rand() < 0.3) {
          const again = frags[[...seen][Math.floor(rand() * seen.size)]]
          expect(a.add(again.channel, again.frag, again.data, ++frame, frame)).toEqual({ kind: 'duplicate' })
        }
        result = a.add(f.channel, f.frag, f.data, ++frame, frame)
        seen.add(f.frag.number)
        if (seen.size < frags.length) expect(result).toEqual({ kind: 'pending', received: seen.size, count: frags.length })
      }
      const c = complete(result!)
      expect(hex(c.bytes)).toBe(hex(msg))
      expect(c.time).toBe(frame)
      // A late retransmission after completion is a duplicate, not a new reassembly.
      expect(a.add(frags[0].channel, frags[0].frag, frags[0].data, ++frame, frame)).toEqual({ kind: 'duplicate' })
      expect(a.incomplete()).toEqual([])
    }
  })

  it('frames are unique and ascending when several fragments share a frame', () => {
    const msg = message(4000)
    const frags = fragmentsOf(msg, { startSeq: 7 })
    const a = new FragmentAssembler()
    const frames = [9, 3, 9, 3]
    let r: FragmentResult | undefined
    frags.forEach((f, i) => (r = a.add(0, f.frag, f.data, frames[i], i)))
    expect(complete(r!).frames).toEqual([3, 9])
  })

  it('a duplicate with different data does not corrupt the message', () => {
    const msg = message(3000)
    const frags = fragmentsOf(msg, { startSeq: 5 })
    const a = new FragmentAssembler()
    expect(a.add(0, frags[1].frag, frags[1].data, 1, 1).kind).toBe('pending')
    const garbage = frags[1].data.slice().fill(0xee)
    expect(a.add(0, frags[1].frag, garbage, 2, 2)).toEqual({ kind: 'duplicate' })
    a.add(0, frags[0].frag, frags[0].data, 3, 3)
    const c = complete(a.add(0, frags[2].frag, frags[2].data, 4, 4))
    expect(hex(c.bytes)).toBe(hex(msg))
    expect(c.frames).toEqual([1, 3, 4])
  })

  it('the input buffers may be reused after add (data is copied)', () => {
    const msg = message(2500)
    const frags = fragmentsOf(msg, { startSeq: 5 })
    const a = new FragmentAssembler()
    const scratch = new Uint8Array(2000)
    let r: FragmentResult | undefined
    for (const [i, f] of frags.entries()) {
      scratch.set(f.data)
      r = a.add(0, f.frag, scratch.subarray(0, f.data.length), i + 1, i)
      scratch.fill(0)
    }
    expect(hex(complete(r!).bytes)).toBe(hex(msg))
  })

  it('a missing fragment is reported by incomplete()', () => {
    const msg = message(5000)
    const frags = fragmentsOf(msg, { channel: 1, startSeq: 300 })
    const a = new FragmentAssembler()
    ;[4, 0, 2, 1].forEach((n, i) => expect(a.add(1, frags[n].frag, frags[n].data, 10 + i * 2, i).kind).toBe('pending'))
    expect(a.incomplete()).toEqual([
      {
        channel: 1,
        startSeq: 300,
        count: 5,
        totalLength: 5000,
        received: 4,
        missing: [3],
        missingCount: 1,
        frames: [10, 12, 14, 16],
        firstTime: 0,
        lastTime: 3,
        state: 'pending'
      }
    ])
    expect(a.pendingCount).toBe(1)
    // The missing list is capped; the count is not.
    const b = new FragmentAssembler()
    b.add(0, { startSeq: 1, count: 200, number: 5, totalLength: 2000, offset: 50 }, new Uint8Array(10), 1, 0)
    const [inc] = b.incomplete()
    expect(inc.missing.length).toBe(MISSING_LIST_CAP)
    expect(inc.missing.slice(0, 6)).toEqual([0, 1, 2, 3, 4, 6])
    expect(inc.missingCount).toBe(199)
  })

  it('interleaves reassemblies on different channels with the same startSeq, and on one channel with different startSeqs', () => {
    const m0 = message(4000, 4, 1)
    const m1 = message(3500, 2, 2)
    const m2 = message(6000, 3, 3)
    const f0 = fragmentsOf(m0, { channel: 0, startSeq: 10 })
    const f1 = fragmentsOf(m1, { channel: 1, startSeq: 10 })
    const f2 = fragmentsOf(m2, { channel: 0, startSeq: 14 }) // same channel as f0
    const rand = rng(77)
    const all = shuffle([...f0, ...f1, ...f2], rand)
    const a = new FragmentAssembler()
    const done = new Map<string, Uint8Array>()
    all.forEach((f, i) => {
      const r = a.add(f.channel, f.frag, f.data, i + 1, i)
      expect(r.kind === 'pending' || r.kind === 'complete').toBe(true)
      if (r.kind === 'complete') done.set(`${f.channel}:${f.frag.startSeq}`, r.bytes)
    })
    expect(hex(done.get('0:10')!)).toBe(hex(m0))
    expect(hex(done.get('1:10')!)).toBe(hex(m1))
    expect(hex(done.get('0:14')!)).toBe(hex(m2))
    expect(a.incomplete()).toEqual([])
  })

  it('malformed fragments are errors that never corrupt a reassembly in progress', () => {
    const msg = message(3000)
    const frags = fragmentsOf(msg, { startSeq: 50 })
    const a = new FragmentAssembler({ maxTotalLength: 1 << 20 })
    expect(a.add(0, frags[0].frag, frags[0].data, 1, 1).kind).toBe('pending')
    const f = frags[1].frag
    const d = frags[1].data
    const bad: [string, PhotonFragmentHeader, Uint8Array, RegExp][] = [
      ['offset + length beyond totalLength', { ...f, offset: 2990 }, d, /outside the total length/],
      ['negative offset', { ...f, offset: -1 }, d, /outside the total length/],
      ['count differs from the first fragment', { ...f, count: 4 }, d, /disagree with the first fragment/],
      ['totalLength differs from the first fragment', { ...f, totalLength: 3001 }, d, /disagree with the first fragment/],
      ['count 0', { ...f, count: 0 }, d, /not positive/],
      ['negative count', { ...f, count: -3 }, d, /not positive/],
      ['count in the millions', { ...f, count: 5_000_000, totalLength: 50_000_000 }, d, /over the limit of 65536/],
      ['number >= count', { ...f, number: 3 }, d, /outside 0\.\.2/],
      ['negative number', { ...f, number: -1 }, d, /outside 0\.\.2/],
      ['totalLength of 2 GiB', { ...f, totalLength: 0x7fffffff }, d, /over the limit/],
      ['totalLength over the configured cap', { ...f, totalLength: (1 << 20) + 1 }, d, /over the limit/],
      ['totalLength 0', { ...f, totalLength: 0, offset: 0 }, new Uint8Array(0), /not positive/],
      ['negative totalLength', { ...f, totalLength: -100 }, d, /not positive/],
      ['more fragments than bytes', { ...f, count: 10, totalLength: 5, offset: 0 }, new Uint8Array(1), /10 fragments for only 5 bytes/],
      ['non-integer values', { ...f, offset: 1.5 }, d, /outside the total length/]
    ]
    for (const [name, frag, data, re] of bad) {
      const r = a.add(0, frag, data, 99, 99)
      expect(r.kind, name).toBe('error')
      if (r.kind === 'error') expect(r.message, name).toMatch(re)
    }
    expect(a.incomplete()[0]).toMatchObject({ startSeq: 50, received: 1, missing: [1, 2], frames: [1] })
    expect(a.add(0, frags[1].frag, frags[1].data, 2, 2).kind).toBe('pending')
    const c = complete(a.add(0, frags[2].frag, frags[2].data, 3, 3))
    expect(hex(c.bytes)).toBe(hex(msg))
    expect(c.frames).toEqual([1, 2, 3])
  })

  it('all fragments present but leaving a gap is an error', () => {
    const a = new FragmentAssembler()
    expect(a.add(0, { startSeq: 1, count: 2, number: 0, totalLength: 100, offset: 0 }, new Uint8Array(40), 1, 1).kind).toBe('pending')
    const r = a.add(0, { startSeq: 1, count: 2, number: 1, totalLength: 100, offset: 60 }, new Uint8Array(40), 2, 2)
    expect(r.kind).toBe('error')
    if (r.kind === 'error') expect(r.message).toMatch(/bytes 40\.\.59 of 100 are missing/)
    const b = new FragmentAssembler()
    b.add(0, { startSeq: 1, count: 2, number: 0, totalLength: 100, offset: 0 }, new Uint8Array(40), 1, 1)
    const s = b.add(0, { startSeq: 1, count: 2, number: 1, totalLength: 100, offset: 10 }, new Uint8Array(40), 2, 2)
    expect(s.kind).toBe('error')
    if (s.kind === 'error') expect(s.message).toMatch(/bytes 50\.\.99 are missing/)
    expect(a.incomplete()).toEqual([])
    expect(a.pendingBytes).toBe(0)
  })

  it('a huge declared totalLength allocates nothing until the data arrives', () => {
    const a = new FragmentAssembler()
    for (let s = 0; s < 200; s++) {
      expect(a.add(0, { startSeq: s, count: 1000, number: 3, totalLength: 16 * 1024 * 1024, offset: 0 }, new Uint8Array(100), s, s).kind).toBe('pending')
    }
    expect(a.pendingBytes).toBeLessThan(200 * 1000)
  })

  it('evicts the oldest reassembly when over the memory cap, and reports it', () => {
    const cap = 10_000
    const a = new FragmentAssembler({ maxPendingBytes: cap })
    const msgs = [message(5000, 4, 1), message(5000, 4, 2), message(5000, 4, 3)]
    const frags = msgs.map((m, i) => fragmentsOf(m, { startSeq: 100 * (i + 1) }))
    const evicted: number[] = []
    let frame = 0
    for (const n of [0, 1, 2]) {
      for (const f of frags) {
        const r = a.add(0, f[n].frag, f[n].data, ++frame, frame)
        expect(r.kind).toBe('pending')
        for (const e of r.evicted ?? []) evicted.push(e.startSeq)
        expect(a.pendingBytes).toBeLessThanOrEqual(cap)
      }
    }
    expect(evicted[0]).toBe(100) // the oldest goes first
    const inc = a.incomplete()
    const ev = inc.filter((x) => x.state === 'evicted')
    expect(ev.map((x) => x.startSeq)).toEqual(evicted)
    expect(ev[0].frames.length).toBeGreaterThan(0)
    expect(ev[0].missing.length).toBeGreaterThan(0)
    // The newest reassembly is still intact and completes.
    let r: FragmentResult | undefined
    for (const n of [3, 4]) r = a.add(0, frags[2][n].frag, frags[2][n].data, ++frame, frame)
    expect(hex(complete(r!).bytes)).toBe(hex(msgs[2]))
  })

  it('a reassembly that alone exceeds the cap is dropped with an error', () => {
    const a = new FragmentAssembler({ maxPendingBytes: 2000 })
    const frags = fragmentsOf(message(5000), { startSeq: 1 })
    expect(a.add(0, frags[0].frag, frags[0].data, 1, 1).kind).toBe('pending')
    const r = a.add(0, frags[1].frag, frags[1].data, 2, 2)
    expect(r.kind).toBe('error')
    if (r.kind === 'error') expect(r.message).toMatch(/memory cap/)
    expect(r.evicted?.map((e) => e.startSeq)).toEqual([1])
    expect(a.pendingBytes).toBe(0)
    expect(a.incomplete()).toMatchObject([{ startSeq: 1, state: 'evicted', received: 1 }])
  })

  it('floods of hostile start sequences stay under the cap and the evicted list stays bounded', () => {
    const a = new FragmentAssembler({ maxPendingBytes: 100_000, maxEvictedKept: 50 })
    for (let s = 0; s < 5000; s++) {
      a.add(s & 3, { startSeq: s, count: 3, number: 0, totalLength: 3000, offset: 0 }, new Uint8Array(1000), s, s)
      expect(a.pendingBytes).toBeLessThanOrEqual(100_000)
    }
    const inc = a.incomplete()
    expect(inc.filter((x) => x.state === 'evicted').length).toBe(50)
    expect(a.evictedDropped).toBeGreaterThan(4000)
    a.clear()
    expect(a.incomplete()).toEqual([])
    expect(a.pendingBytes).toBe(0)
  })

  it('a start sequence reused long after completion starts a new reassembly', () => {
    const msg = message(2000)
    const frags = fragmentsOf(msg, { startSeq: 3 })
    const a = new FragmentAssembler({ duplicateWindow: 60 })
    a.add(0, frags[0].frag, frags[0].data, 1, 0)
    complete(a.add(0, frags[1].frag, frags[1].data, 2, 1))
    expect(a.add(0, frags[0].frag, frags[0].data, 3, 30)).toEqual({ kind: 'duplicate' })
    expect(a.add(0, frags[0].frag, frags[0].data, 4, 500)).toEqual({ kind: 'pending', received: 1, count: 2 })
    expect(hex(complete(a.add(0, frags[1].frag, frags[1].data, 5, 501)).bytes)).toBe(hex(msg))
    // Another message with a different shape at the same start sequence is new at once.
    const other = fragmentsOf(message(4000, 2), { startSeq: 3 })
    expect(a.add(0, other[0].frag, other[0].data, 6, 502).kind).toBe('pending')
  })
})
