// Choosing the LiteNetLib version: from the ConnectRequest's protocol id and property number when there is
// one, else from packets whose size or structure only one property table explains; the tree says which
// table was used and why.
import { describe, it, expect } from 'vitest'
import { bytesOf, channelId, DELIVERY, packets, socketAddress, ticksAt } from './encoder'
import { c2s, findAll, harness, lit, s2c } from './harness'

const RO = channelId(0, DELIVERY.ReliableOrdered)

describe('LiteNetLib version without a ConnectRequest', () => {
  it('2.x: assumes 1.x until a packet only 2.x explains, then decodes with the 2.x table and locks', () => {
    const P = packets('2.x')
    const h = harness()
    const first = h.send(c2s, P.channeled(0, RO, bytesOf(8, 1))) // property 1 is Channeled in both tables
    expect(h.t.version).toMatchObject({ version: '1.x', certain: false })
    expect(h.t.version.reason).toContain('no ConnectRequest and no packet only one table explains yet')
    expect(h.of(first.frame)[0].name).toBe('Payload')

    const ping = h.send(c2s, P.ping(3)) // property 4, 3 bytes: a Ping in 2.x, a (too short) Pong in 1.x
    expect(h.t.version).toMatchObject({ version: '2.x', certain: false })
    expect(h.of(ping.frame)[0].name).toBe('Ping')
    const tree = h.of(ping.frame)[0].draft.tree.roots
    expect(findAll(tree, 'litenetlib.version')[0].label).toContain(
      'LiteNetLib 2.x (2.x table): no ConnectRequest seen; packet sizes so far favour the 2.x table'
    )
    expect(findAll(tree, 'litenetlib.version')[0].label).toContain(
      `frame ${ping.frame}: a 3-byte datagram with property 4 fits as Ping in the 2.x table, not as Pong in the 0.9/1.x table`
    )

    const ack = h.send(s2c, P.ackWindow(RO, 0, [0])) // property 3, 13 bytes: an Ack in 2.x, a Ping in 1.x
    expect(h.t.version.reason).toContain('packet sizes fit only the 2.x table')
    expect(lit(h.of(ack.frame)[0]).acknowledges).toEqual([{ seq: 0, frame: first.frame, rttMs: expect.any(Number) }])
    const pong = h.send(s2c, P.pong(3, ticksAt(1e9))) // property 5, 11 bytes
    expect(h.of(pong.frame)[0]).toMatchObject({ name: 'Pong' })
    expect(lit(h.of(pong.frame)[0]).pongTo).toBe(ping.frame)

    // Locked: an odd packet that fits 1.x better does not flip the table back.
    h.send(c2s, packets('1.x').ping(1))
    h.send(c2s, packets('1.x').ping(2))
    expect(h.t.version.version).toBe('2.x')
  })

  it('1.x: a 15-byte ConnectAccept, an 11-byte Pong and a 13-byte Ack as property 2 point to 1.x', () => {
    const P = packets('1.x')
    const h = harness()
    h.send(s2c, P.connectAccept({ connectionTime: 5n, connectionNumber: 0, peerId: 1 }))
    expect(h.t.version).toMatchObject({ version: '1.x', certain: false })
    expect(h.t.version.reason).toContain('1.x from a 15-byte ConnectAccept (with peer id) in frame 1')
    h.send(s2c, P.pong(1, 1n))
    const ack = h.send(s2c, P.ackWindow(RO, 0, [0, 1]))
    expect(h.t.version.reason).toContain('packet sizes fit only the 0.9/1.x table')
    expect(h.of(ack.frame)[0]).toMatchObject({ name: 'Ack' })
    expect(lit(h.of(ack.frame)[0]).ack).toMatchObject({ acked: [0, 1] })
  })

  it('0.9: an 11-byte ConnectAccept (no peer id) points to 0.9', () => {
    const P = packets('0.9')
    const h = harness()
    const acc = h.send(s2c, P.connectAccept({ connectionTime: 5n, connectionNumber: 2, reused: true }))
    expect(h.t.version).toMatchObject({ version: '0.9', certain: false })
    expect(lit(h.of(acc.frame)[0]).accept).toEqual({ connectionTime: 5n, connectionNumber: 2, flag: 1 })
    expect(h.of(acc.frame)[0].summary).toBe('ConnectAccept connection #2 (reused peer)')
  })

  it('a 2.x Merged datagram (property 13, ShutdownOk in 1.x) and a 2.x Empty (property 18) point to 2.x', () => {
    const P = packets('2.x')
    const h = harness()
    const m = h.send(s2c, P.merged([P.ping(1), P.channeled(0, RO, bytesOf(3, 2))]))
    expect(h.t.version.version).toBe('2.x')
    expect(h.of(m.frame).map((x) => x.name)).toEqual(['Ping', 'Payload'])
    const h2 = harness()
    const e = h2.send(s2c, P.simple('Empty'))
    expect(h2.t.version.version).toBe('2.x')
    expect(h2.of(e.frame)[0].name).toBe('Empty')
  })

  it('a ConnectRequest later replaces the guess and is certain', () => {
    const h = harness()
    h.send(s2c, packets('1.x').pong(1, 1n))
    expect(h.t.version.version).toBe('1.x')
    const P = packets('2.x')
    const req = h.send(c2s, P.connectRequest({ connectionTime: 1n, peerId: 2, address: socketAddress('10.1.2.3', 7777) }))
    expect(h.t.version).toMatchObject({ version: '2.x', certain: true, reason: `ConnectRequest in frame ${req.frame}: protocol id 13 as property 6` })
    expect(h.of(req.frame)[0].name).toBe('ConnectRequest')
    expect(h.clients).toEqual(['a2b'])
  })

  it('the same bytes decode differently under the two tables, as the version says', () => {
    // A 13-byte property-2 packet: an Ack in 1.x, a ReliableMerged in 2.x.
    const bytes = packets('1.x').ackWindow(RO, 0, [0])
    const a = harness()
    a.send(c2s, packets('1.x').connectRequest({ connectionTime: 1n, address: socketAddress('1.1.1.1', 1) }))
    const f1 = a.send(s2c, bytes)
    expect(a.of(f1.frame)[0].name).toBe('Ack')
    const b = harness()
    b.send(c2s, packets('2.x').connectRequest({ connectionTime: 1n, address: socketAddress('1.1.1.1', 1) }))
    const f2 = b.send(s2c, bytes)
    // 2.x ReliableMerged: bytes 4-5 (the first two bitfield bytes, 01 00) are an item size of 1.
    const names = b.of(f2.frame).map((m) => m.name)
    expect(names[0]).toBe('Payload')
    expect(lit(b.of(f2.frame)[0]).type).toBe('ReliableMerged')
  })
})
