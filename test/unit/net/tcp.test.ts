import { describe, it, expect } from 'vitest'
import { TcpDirection, TcpFlag, parseTcp, parseUdp, type TcpSegment } from '../../../src-shared/net/tcp'

const seg = (seq: number, data: string, flags: number = TcpFlag.ACK): TcpSegment => ({
  srcPort: 1,
  dstPort: 2,
  seq: seq >>> 0,
  ack: 0,
  flags,
  window: 0,
  payload: new TextEncoder().encode(data)
})
const text = (d: TcpDirection) => new TextDecoder().decode(d.stream.takeAll().bytes)

describe('TcpDirection reassembly', () => {
  it('delivers in-order data after the SYN, which takes one sequence number', () => {
    const d = new TcpDirection()
    d.segment(seg(999, '', TcpFlag.SYN), 1, 0)
    expect(d.segment(seg(1000, 'abc'), 2, 0)).toBe(true)
    expect(d.segment(seg(1003, 'def'), 3, 0)).toBe(true)
    const t = d.stream.takeAll()
    expect(new TextDecoder().decode(t.bytes)).toBe('abcdef')
    expect(t.frames).toEqual([2, 3])
  })

  it('holds out-of-order segments until the hole fills, then delivers in sequence order', () => {
    const d = new TcpDirection()
    d.segment(seg(99, '', TcpFlag.SYN), 1, 0)
    expect(d.segment(seg(106, 'ghi'), 2, 0)).toBe(false)
    expect(d.segment(seg(103, 'def'), 3, 0)).toBe(false)
    expect(d.stream.available).toBe(0)
    expect(d.segment(seg(100, 'abc'), 4, 0)).toBe(true)
    const t = d.stream.takeAll()
    expect(new TextDecoder().decode(t.bytes)).toBe('abcdefghi')
    expect(t.frames).toEqual([2, 3, 4])
    expect(d.stats.outOfOrder).toBe(2)
  })

  it('drops retransmissions of delivered bytes and keeps only the new tail of an overlap', () => {
    const d = new TcpDirection()
    d.segment(seg(0, 'abcd'), 1, 0)
    d.segment(seg(0, 'abcd'), 2, 0) // full retransmission
    d.segment(seg(2, 'XXef'), 3, 0) // overlaps 2 delivered bytes: first copy wins
    expect(text(d)).toBe('abcdef')
    expect(d.stats.retransmissions).toBe(1)
    expect(d.stats.overlaps).toBe(1)
  })

  it('handles sequence numbers wrapping past 2^32', () => {
    const d = new TcpDirection()
    d.segment(seg(0xfffffffe, 'ab'), 1, 0)
    d.segment(seg(0x00000002, 'ef'), 2, 0) // out of order across the wrap
    d.segment(seg(0x00000000, 'cd'), 3, 0)
    expect(text(d)).toBe('abcdef')
  })

  it('reports a gap and continues when too much waits behind a hole', () => {
    const d = new TcpDirection(8)
    const gaps: number[] = []
    d.onGap = (g) => {
      gaps.push(g.length)
      // The stream holds only the bytes before the hole when the gap is reported.
      expect(new TextDecoder().decode(d.stream.peek(d.stream.available))).toBe('abc')
    }
    d.segment(seg(0, 'abc'), 1, 0)
    d.segment(seg(10, 'klmno'), 2, 0)
    d.segment(seg(15, 'pqrst'), 3, 0) // 10 bytes buffered > 8
    expect(gaps).toEqual([7])
    expect(text(d)).toBe('abcklmnopqrst')
    expect(d.stats.gaps[0]).toMatchObject({ offset: 3, length: 7, frame: 3 })
  })

  it('flush() skips remaining holes at the end of the capture', () => {
    const d = new TcpDirection()
    d.segment(seg(0, 'ab'), 1, 0)
    d.segment(seg(5, 'fg'), 2, 0)
    expect(d.flush(2)).toBe(true)
    expect(text(d)).toBe('abfg')
    expect(d.stats.gaps).toHaveLength(1)
  })

  it('tracks FIN and RST', () => {
    const d = new TcpDirection()
    d.segment(seg(0, 'a', TcpFlag.ACK | TcpFlag.FIN), 1, 0)
    d.segment(seg(2, '', TcpFlag.RST), 2, 0)
    expect(d.finSeen).toBe(true)
    expect(d.rstSeen).toBe(true)
  })
})

describe('TCP and UDP headers', () => {
  it('parses a TCP header with options and refuses a data offset past the bytes', () => {
    const h = new Uint8Array(24 + 2)
    h.set([0x1f, 0x90, 0x00, 0x50, 0, 0, 0, 7, 0, 0, 0, 9, 0x60, 0x18, 0xff, 0xff])
    h[24] = 0x41
    h[25] = 0x42
    const s = parseTcp(h)
    expect(s).toMatchObject({ srcPort: 8080, dstPort: 80, seq: 7, ack: 9, flags: 0x18 })
    expect('payload' in s && [...s.payload]).toEqual([0x41, 0x42])
    h[12] = 0xf0 // 60-byte header in a 26-byte segment
    expect(parseTcp(h)).toHaveProperty('error')
    expect(parseTcp(h.subarray(0, 10))).toHaveProperty('error')
  })

  it('trims a UDP payload to the UDP length (Ethernet padding) and never beyond the bytes', () => {
    const u = new Uint8Array([0, 1, 0, 2, 0, 10, 0, 0, 0xaa, 0xbb, 0, 0, 0])
    const r = parseUdp(u)
    expect('payload' in r && [...r.payload]).toEqual([0xaa, 0xbb])
    const long = new Uint8Array([0, 1, 0, 2, 0xff, 0xff, 0, 0, 0xaa])
    const r2 = parseUdp(long)
    expect('payload' in r2 && [...r2.payload]).toEqual([0xaa])
  })
})
