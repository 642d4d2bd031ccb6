// probeLiteNetLib: a ConnectRequest with a known protocol id and a valid address size is near certain,
// exact-shape packets are hints, payload packets say little, and nothing throws.
import { describe, it, expect } from 'vitest'
import { probeLiteNetLib } from '../../../../src-shared/protocols/litenetlib/decoder'
import { rng } from '../../helpers/rng'
import { bytesOf, channelId, concat, DELIVERY, i32, netString, packets, socketAddress } from './encoder'

describe('probeLiteNetLib', () => {
  it('is near certain for a ConnectRequest of 0.9, 1.x and 2.x (IPv4 and IPv6)', () => {
    for (const v of ['0.9', '1.x', '2.x'] as const) {
      const P = packets(v)
      expect(
        probeLiteNetLib(P.connectRequest({ connectionTime: 5n, peerId: 1, address: socketAddress('10.0.0.2', 9050), connectData: netString(v, 'key') }))
      ).toBeGreaterThanOrEqual(95)
      expect(probeLiteNetLib(P.connectRequest({ connectionTime: 5n, address: socketAddress('::1', 9050) }))).toBeGreaterThanOrEqual(95)
    }
  })

  it('is not sure of a ConnectRequest with an unknown protocol id or a bad address size', () => {
    const P = packets('1.x')
    expect(probeLiteNetLib(P.connectRequest({ protocolId: 12, connectionTime: 5n, address: socketAddress('10.0.0.2', 1) }))).toBeLessThan(50)
    expect(probeLiteNetLib(P.connectRequest({ connectionTime: 5n, address: new Uint8Array(20) }))).toBeLessThan(50)
    // The address size promises more bytes than the datagram has.
    const cut = P.connectRequest({ connectionTime: 5n, address: socketAddress('10.0.0.2', 1) }).subarray(0, 30)
    expect(probeLiteNetLib(cut)).toBeLessThan(50)
  })

  it('ranks exact shapes above payload packets', () => {
    const P = packets('1.x')
    const mtu = probeLiteNetLib(P.mtu('MtuCheck', 1024))
    const merged = probeLiteNetLib(P.merged([P.ping(1), P.channeled(0, 2, bytesOf(4, 1))]))
    const ack = probeLiteNetLib(P.ackWindow(channelId(0, DELIVERY.ReliableOrdered), 0, [0]))
    const channeled = probeLiteNetLib(P.channeled(1, 2, bytesOf(10, 2)))
    const unreliable = probeLiteNetLib(P.unreliable(bytesOf(10, 3)))
    expect(mtu).toBeGreaterThan(merged)
    expect(merged).toBeGreaterThan(ack)
    expect(ack).toBeGreaterThan(channeled)
    expect(channeled).toBeGreaterThan(unreliable)
    expect(unreliable).toBeGreaterThan(0)
    expect(channeled).toBeLessThanOrEqual(30)
    // A MtuCheck whose sizes disagree is no longer an exact shape.
    expect(probeLiteNetLib(concat(P.mtu('MtuCheck', 600).subarray(0, 596), i32(601)))).toBeLessThan(mtu)
  })

  it('says 0 for nothing and never throws on random bytes', () => {
    expect(probeLiteNetLib(new Uint8Array(0))).toBe(0)
    const rand = rng(99)
    for (let i = 0; i < 20000; i++) {
      const b = new Uint8Array(Math.floor(rand() * 64))
      for (let j = 0; j < b.length; j++) b[j] = Math.floor(rand() * 256)
      const c = probeLiteNetLib(b)
      expect(c >= 0 && c <= 100).toBe(true)
    }
  })
})
