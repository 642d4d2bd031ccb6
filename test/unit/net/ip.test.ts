import { describe, it, expect } from 'vitest'
import { IpDefragmenter, parseIpv4, parseIpv6, ipv6ToString } from '../../../src-shared/net/ip'

function ipv4(opts: { id?: number; offset?: number; more?: boolean; payload: number[]; total?: number }): Uint8Array {
  const p = new Uint8Array(20 + opts.payload.length)
  const total = opts.total ?? p.length
  p.set([0x45, 0, total >> 8, total & 0xff, 0, opts.id ?? 1])
  const ff = ((opts.offset ?? 0) / 8) | (opts.more ? 0x2000 : 0)
  p[6] = ff >> 8
  p[7] = ff & 0xff
  p[8] = 64
  p[9] = 17
  p.set([10, 0, 0, 1], 12)
  p.set([10, 0, 0, 2], 16)
  p.set(opts.payload, 20)
  return p
}

describe('IPv4', () => {
  it('reads addresses and protocol, and drops bytes past the total length (Ethernet padding)', () => {
    const p = new Uint8Array([...ipv4({ payload: [1, 2, 3] }), 0, 0, 0])
    const r = parseIpv4(p, 0)
    expect(r.ok && r.packet).toMatchObject({ version: 4, src: '10.0.0.1', dst: '10.0.0.2', protocol: 17 })
    expect(r.ok && [...r.packet.payload]).toEqual([1, 2, 3])
  })

  it('rejects truncated and inconsistent headers', () => {
    expect(parseIpv4(new Uint8Array(10), 0).ok).toBe(false)
    expect(parseIpv4(ipv4({ payload: [], total: 10 }), 0).ok).toBe(false)
  })
})

describe('IPv6', () => {
  it('formats addresses per RFC 5952', () => {
    const b = new Uint8Array(16)
    b[15] = 1
    expect(ipv6ToString(b, 0)).toBe('::1')
    const c = new Uint8Array([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1])
    expect(ipv6ToString(c, 0)).toBe('2001:db8::1:0:0:1')
  })

  it('walks extension headers to the fragment header', () => {
    const p = new Uint8Array(40 + 8 + 8 + 4)
    p[0] = 0x60
    p[5] = 20
    p[6] = 0 // hop-by-hop
    p[40] = 44 // next: fragment
    p[41] = 0
    p[48] = 17 // fragment's next header: UDP
    p[50] = 0x00
    p[51] = 0x01 // offset 0, more
    p[55] = 9 // ident
    p.set([1, 2, 3, 4], 56)
    const r = parseIpv6(p, 0)
    expect(r.ok && r.packet.protocol).toBe(17)
    expect(r.ok && r.packet.fragment).toMatchObject({ offset: 0, more: true })
    expect(r.ok && [...r.packet.payload]).toEqual([1, 2, 3, 4])
  })
})

describe('IpDefragmenter', () => {
  const frag = (offset: number, more: boolean, payload: number[]) => {
    const r = parseIpv4(ipv4({ offset, more, payload }), 0)
    if (!r.ok) throw new Error(r.reason)
    return r.packet
  }
  const bytes = (n: number, seed: number) => Array.from({ length: n }, (_, i) => (i + seed) & 0xff)

  it('reassembles fragments arriving in any order and lists every frame', () => {
    const d = new IpDefragmenter()
    const a = bytes(16, 0)
    const b = bytes(16, 16)
    const c = bytes(5, 32)
    expect(d.add(frag(32, false, c), 7, 60)).toBeNull()
    expect(d.add(frag(0, true, a), 5, 60)).toBeNull()
    const r = d.add(frag(16, true, b), 6, 60)
    expect(r && 'payload' in r && [...r.payload]).toEqual([...a, ...b, ...c])
    expect(r && 'frames' in r && r.frames).toEqual([5, 6, 7])
    expect(d.incomplete()).toEqual([])
  })

  it('lets the first copy of overlapping bytes win', () => {
    const d = new IpDefragmenter()
    d.add(frag(0, true, Array(16).fill(1)), 1, 0)
    d.add(frag(8, true, Array(16).fill(2)), 2, 0)
    const r = d.add(frag(24, false, [3]), 3, 0)
    expect(r && 'payload' in r && [...r.payload]).toEqual([...Array(16).fill(1), ...Array(8).fill(2), 3])
  })

  it('refuses fragments beyond 65535 bytes and bounds the number of pending datagrams', () => {
    const d = new IpDefragmenter(2)
    expect(d.add(frag(65528, false, bytes(16, 0)), 1, 0)).toHaveProperty('error')
    for (let id = 0; id < 5; id++) {
      const r = parseIpv4(ipv4({ id, offset: 0, more: true, payload: [1] }), 0)
      if (r.ok) d.add(r.packet, id, 0)
    }
    expect(d.incomplete()).toHaveLength(2)
    expect(d.dropped).toBe(3)
  })
})
