// Hostile and broken LiteNetLib input at every layer: every truncation of every packet of a session, Merged
// sizes beyond the datagram, ReliableMerged corruption, fragment headers out of range, huge fragment totals
// against the memory cap, unknown properties, bad address sizes, random bytes. Nothing throws, every error
// names its byte offset, memory stays under the cap.
import { describe, it, expect } from 'vitest'
import { rng } from '../../helpers/rng'
import { bytesOf, channelId, concat, DELIVERY, netString, packets, property, socketAddress, splitParts, u16, type PacketName, type Version } from './encoder'
import { c2s, checkRanges, harness, s2c } from './harness'

const RO = channelId(0, DELIVERY.ReliableOrdered)
const RS = channelId(1, DELIVERY.ReliableSequenced)
const OFFSET = /offset \d+/

/** One of each packet, with the smallest size its type needs (independent of the decoder: from the spec). */
function samples(version: Version): { name: PacketName; bytes: Uint8Array; min: number }[] {
  const P = packets(version)
  const req = P.connectRequest({ connectionTime: 77n, peerId: 4, address: socketAddress('10.0.0.2', 9050), connectData: netString(version, 'key') })
  const reqHeader = version === '0.9' ? 14 : 18
  const list: { name: PacketName; bytes: Uint8Array; min: number }[] = [
    { name: 'ConnectRequest', bytes: req, min: reqHeader + 16 },
    { name: 'ConnectAccept', bytes: P.connectAccept({ connectionTime: 77n, connectionNumber: 1, peerId: 2 }), min: 11 },
    { name: 'Unreliable', bytes: P.unreliable(bytesOf(6, 1)), min: 1 },
    { name: 'Channeled', bytes: P.channeled(3, RO, bytesOf(9, 2)), min: 4 },
    { name: 'Channeled', bytes: P.fragment(4, RO, 9, 0, 2, bytesOf(12, 3)), min: 10 },
    { name: 'Ack', bytes: P.ackWindow(RO, 0, [0, 3]), min: 4 },
    { name: 'Ack', bytes: P.ackSequenced(RS, 5), min: 4 },
    { name: 'Ping', bytes: P.ping(2), min: 3 },
    { name: 'Pong', bytes: P.pong(2, 123456789n), min: 11 },
    { name: 'Disconnect', bytes: P.disconnect(77n, bytesOf(3, 4)), min: 9 },
    { name: 'MtuCheck', bytes: P.mtu('MtuCheck', 600), min: 9 },
    { name: 'Merged', bytes: P.merged([P.ping(1), P.channeled(0, RO, bytesOf(5, 5))]), min: 1 },
    { name: 'UnconnectedMessage', bytes: P.withPayload('UnconnectedMessage', bytesOf(4, 6)), min: 1 },
    { name: 'ShutdownOk', bytes: P.simple('ShutdownOk'), min: 1 }
  ]
  if (version === '2.x') list.push({ name: 'ReliableMerged', bytes: P.reliableMerged(7, RO, [bytesOf(3, 7), bytesOf(2, 8)]), min: 4 })
  return list
}

describe('LiteNetLib malformed input', () => {
  for (const version of ['0.9', '1.x', '2.x'] as const) {
    it(`${version}: every truncation of every packet decodes without throwing; too short means an error with its offset`, () => {
      for (const recording of [true, false]) {
        const h = harness({ recording })
        h.send(c2s, packets(version).connectRequest({ connectionTime: 1n, address: socketAddress('10.0.0.2', 1) }))
        let errors = 0
        for (const s of samples(version)) {
          for (let n = 0; n < s.bytes.length; n++) {
            const f = h.send(s.name === 'Ack' || s.name === 'Pong' ? s2c : c2s, s.bytes.slice(0, n))
            const ms = h.of(f.frame)
            for (const m of ms) {
              if (m.draft.error !== null) {
                expect(m.draft.error, `${s.name} cut to ${n}`).toMatch(OFFSET)
                errors++
              }
              if (recording) checkRanges(m)
            }
            if (n < s.min)
              expect(
                ms.some((m) => m.draft.error !== null),
                `${s.name} cut to ${n} bytes (needs ${s.min})`
              ).toBe(true)
          }
        }
        expect(errors).toBeGreaterThan(50)
        expect(h.t.version.version).toBe(version)
      }
    })
  }

  it('a Merged item size beyond the datagram: the items before it decode, the rest is an error at the size', () => {
    const P = packets('1.x')
    const h = harness()
    h.send(c2s, P.connectRequest({ connectionTime: 1n, address: socketAddress('10.0.0.2', 1) }))
    const good = P.merged([P.ping(1), P.ping(2)])
    const f = h.send(c2s, concat(good, u16(500), [1, 2, 3]))
    const ms = h.of(f.frame)
    expect(ms.map((m) => m.name)).toEqual(['Ping', 'Ping', 'Malformed Merged item'])
    expect(ms[2].draft.error).toBe(`Merged packet: item 3 size 500 at offset ${good.length} runs past the datagram (3 bytes left)`)
    const odd = h.send(c2s, concat(good, [7]))
    expect(h.of(odd.frame)[2].draft.error).toBe(`Merged packet: 1 byte at offset ${good.length} where an item size (2 bytes) should start`)
    // An inner packet shorter than its type needs: that item fails alone.
    const inner = h.send(c2s, P.merged([P.pong(1, 1n).subarray(0, 5), P.ping(3)]))
    const im = h.of(inner.frame)
    expect(im[0].draft.error).toMatch(/^Pong sequence|^value|needs 8 bytes at offset 6/)
    expect(im[1]).toMatchObject({ name: 'Ping', summary: 'Ping seq=3' })
    // A Merged in a Merged.
    const nested = h.send(c2s, P.merged([P.merged([P.ping(1)])]))
    expect(h.of(nested.frame)[0].draft.error).toBe('a Merged packet inside a Merged packet (offset 3)')
    const empty = h.send(c2s, P.merged([], true))
    expect(h.of(empty.frame)[0]).toMatchObject({ name: 'Merged', summary: 'Merged packet without items' })
  })

  it('ReliableMerged with a zero or oversized item size: the good items decode, then an error at the size', () => {
    const P = packets('2.x')
    const h = harness()
    h.send(c2s, P.connectRequest({ connectionTime: 1n, address: socketAddress('10.0.0.2', 1) }))
    const good = P.reliableMerged(1, RO, [Uint8Array.from([0xaa])])
    const f = h.send(c2s, concat(good, u16(0)))
    const ms = h.of(f.frame)
    expect(ms.map((m) => m.name)).toEqual(['Payload', 'ReliableMerged (malformed)'])
    expect(ms[1].draft.error).toBe(`ReliableMerged packet: item 2 size 0 at offset ${good.length} is zero; the receiver drops the rest`)
    const big = h.send(c2s, concat(good, u16(9), [1]))
    expect(h.of(big.frame)[1].draft.error).toContain(`item 2 size 9 at offset ${good.length} runs past the packet (1 bytes left)`)
  })

  it('fragment part not below the total, a zero total, and parts that add up past the size limit are errors', () => {
    const P = packets('1.x')
    const h = harness({ fragmentLimits: { maxTotalLength: 2500 } })
    const a = h.send(c2s, P.fragment(1, RO, 3, 5, 5, bytesOf(10, 1)))
    expect(h.of(a.frame)[0].draft.error).toBe('fragment rejected: part #5 of 5 (message id 3, channel 2): part number 5 is outside 0..4 (offset 0)')
    const z = h.send(c2s, P.fragment(2, RO, 4, 0, 0, bytesOf(10, 2)))
    expect(h.of(z.frame)[0].draft.error).toContain('part count 0 is not positive')
    const parts = splitParts(bytesOf(3000, 3), 1000)
    h.send(c2s, P.fragment(3, RO, 5, 0, 3, parts[0]))
    h.send(c2s, P.fragment(4, RO, 5, 1, 3, parts[1]))
    const over = h.send(c2s, P.fragment(5, RO, 5, 2, 3, parts[2]))
    expect(h.of(over.frame)[0].draft.error).toContain('the parts add up to more than the limit of 2500 bytes')
    // A part whose total disagrees with the first part of its fragment id.
    h.send(c2s, P.fragment(6, RO, 6, 0, 3, parts[0]))
    const dis = h.send(c2s, P.fragment(7, RO, 6, 1, 4, parts[1]))
    expect(h.of(dis.frame)[0].draft.error).toContain('part count 4 disagrees with the first part of message id 6 (3)')
  })

  it('huge fragment totals (the u16 maximum, 65535 parts) on thousands of fragment ids stay under the memory cap', () => {
    // The total is a u16 on the wire, so 65535 is the largest a hostile sender can claim.
    const P = packets('1.x')
    const cap = 300_000
    const h = harness({ fragmentLimits: { maxPendingBytes: cap } })
    let evictions = 0
    for (let id = 0; id < 2000; id++) {
      const f = h.send(c2s, P.fragment(id % 32768, RO, id, 65534 - (id % 100), 65535, bytesOf(1000, id)), 0.0001)
      expect(h.t.pendingFragmentBytes).toBeLessThanOrEqual(cap)
      if (h.of(f.frame)[0].draft.warnings.some((w) => w.startsWith('gave up on fragment id'))) evictions++
    }
    expect(evictions).toBeGreaterThan(1500)
    const before = h.out.length
    h.finish()
    const inc = h.out.slice(before)
    expect(inc.length).toBeLessThanOrEqual(256 + 300) // kept evictions + what still fits under the cap
    expect(inc.every((m) => m.name === 'Incomplete fragmented payload' && /never completed: 65534 of 65535 parts missing/.test(m.draft.error!))).toBe(true)
  })

  it('unknown properties are errors at offset 0 in each table', () => {
    for (const [version, first] of [
      ['1.x', 18],
      ['2.x', 19]
    ] as const) {
      const h = harness()
      h.send(c2s, packets(version).connectRequest({ connectionTime: 1n, address: socketAddress('10.0.0.2', 1) }))
      for (let p = first; p < 32; p++) {
        const f = h.send(c2s, Uint8Array.from([p | 0x40, 1, 2, 3]))
        const [m] = h.of(f.frame)
        expect(m.name).toBe(`Unknown property ${p} (malformed)`)
        expect(m.draft.error).toBe(`unknown packet property ${p} (the ${version === '1.x' ? '0.9/1.x' : '2.x'} table has 0..${first - 1}) (offset 0)`)
      }
    }
  })

  it('a ConnectRequest with an address size LiteNetLib rejects, and an empty datagram', () => {
    const P = packets('1.x')
    const h = harness()
    const bad = P.connectRequest({ connectionTime: 1n, address: new Uint8Array(20) })
    const f = h.send(c2s, bad)
    expect(h.of(f.frame)[0].draft.error).toBe('ConnectRequest: address size 20 at offset 17 is neither 16 (IPv4) nor 28 (IPv6); LiteNetLib rejects the request')
    expect(h.clients).toEqual([]) // not a valid request: the client side is not decided by it
    const e = h.send(c2s, new Uint8Array(0))
    expect(h.of(e.frame)[0]).toMatchObject({ name: 'Empty datagram' })
    expect(h.of(e.frame)[0].draft.error).toMatch(OFFSET)
  })

  it('random datagrams never throw; every error names an offset; every range lies in its source', () => {
    const rand = rng(20240611)
    for (const version of ['0.9', '1.x', '2.x'] as const) {
      for (const recording of [true, false]) {
        const h = harness({ recording })
        h.send(c2s, packets(version).connectRequest({ connectionTime: 1n, address: socketAddress('10.0.0.2', 1) }))
        for (let i = 0; i < 1500; i++) {
          const len = Math.floor(rand() * 48)
          const b = new Uint8Array(len)
          for (let j = 0; j < len; j++) b[j] = Math.floor(rand() * 256)
          if (len && rand() < 0.7) b[0] = (b[0] & 0xe0) | Math.floor(rand() * 20)
          if (len > 2 && rand() < 0.3 && (b[0] & 0x1f) === property(version, 'Merged')) b.set(u16(Math.floor(rand() * 12)), 1)
          const f = h.send(rand() < 0.5 ? c2s : s2c, b)
          for (const m of h.of(f.frame)) {
            if (m.draft.error !== null) expect(m.draft.error).toMatch(OFFSET)
            if (recording) checkRanges(m)
          }
        }
        h.finish()
      }
    }
  })
})
