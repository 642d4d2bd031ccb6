// Whole LiteNetLib sessions for 0.9, 1.x and 2.x built by the test encoder and read back by the transport:
// connect, payloads on several channels and delivery methods, both kinds of Ack linked to what they
// acknowledge, Ping/Pong, fragments out of order with a duplicate and a missing part, Merged and (2.x)
// ReliableMerged packets, disconnect. Every field range is re-read against its value.
import { describe, it, expect } from 'vitest'
import { bytesOf, channelId, concat, DELIVERY, hex, netString, packets, socketAddress, splitParts, ticksAt, type Version } from './encoder'
import { c2s, checkRanges, findAll, harness, lit, s2c } from './harness'

const RO = channelId(0, DELIVERY.ReliableOrdered) // 2
const RU = channelId(1, DELIVERY.ReliableUnordered) // 4
const RO1 = channelId(1, DELIVERY.ReliableOrdered) // 6
const SQ = channelId(2, DELIVERY.Sequenced) // 9
const RS = channelId(3, DELIVERY.ReliableSequenced) // 15
const ms = (a: number, b: number) => Math.round((a - b) * 1e6) / 1e3

function session(version: Version, recording = true) {
  const P = packets(version)
  const h = harness({ recording })
  const connectionTime = ticksAt(1_700_000_000.5)
  const pay = (n: number, seed: number) => bytesOf(n, seed)
  const A = pay(20, 1),
    B = pay(7, 2),
    C = pay(12, 3),
    D = pay(5, 4),
    E = pay(9, 5),
    G = pay(30, 6),
    H = pay(11, 7),
    I = pay(13, 8)
  const U = pay(6, 9),
    BC = pay(4, 10)
  const F = pay(2500, 11)
  const parts = splitParts(F, 1000)

  const req = h.send(
    c2s,
    P.connectRequest({ connectionTime, peerId: 5, address: socketAddress('10.0.0.2', 9050), connectData: netString(version, 'fignet-key') })
  )
  const acc = h.send(s2c, P.connectAccept({ connectionTime, connectionNumber: 1, peerId: 3 }), 0.02)
  const fA = h.send(c2s, P.channeled(0, RO, A))
  const fB = h.send(c2s, P.channeled(0, RU, B))
  const fC = h.send(c2s, P.channeled(1, SQ, C))
  const fD = h.send(c2s, P.unreliable(D))
  const fE = h.send(s2c, P.channeled(1, RS, E))
  const ackA = h.send(s2c, P.ackWindow(RO, 0, [0]), 0.015)
  const ackE = h.send(c2s, P.ackSequenced(RS, 1), 0.004)
  const ping = h.send(c2s, P.ping(7))
  const pong = h.send(s2c, P.pong(7, ticksAt(1_700_000_100)), 0.03)
  // A payload in three parts (seqs 1..3 on RO, fragment id 0), sent 2, 0, 0 again, 1.
  const frag = (i: number) => P.fragment(1 + i, RO, 0, i, parts.length, parts[i])
  const p2 = h.send(c2s, frag(2))
  const p0 = h.send(c2s, frag(0))
  const p0again = h.send(c2s, frag(0))
  const p1 = h.send(c2s, frag(1))
  // Fragment id 1: part 2 of 3 never arrives.
  const lost = [h.send(c2s, P.fragment(4, RO, 1, 0, 3, pay(100, 12))), h.send(c2s, P.fragment(5, RO, 1, 1, 3, pay(100, 13)))]
  // One datagram: a payload on channel 1, an Ack for channel id 4, a Ping.
  const merged = h.send(s2c, P.merged([P.channeled(0, RO1, G), P.ackWindow(RU, 0, [0]), P.ping(9)]))
  const mergedEnd = h.send(s2c, P.merged([P.ping(10)], true))
  const rm = version === '2.x' ? h.send(c2s, P.reliableMerged(6, RO, [H, I])) : undefined
  const unconnected = h.send(c2s, P.withPayload('UnconnectedMessage', U))
  const broadcast = h.send(c2s, P.withPayload('Broadcast', BC))
  const disc = h.send(c2s, P.disconnect(connectionTime, Uint8Array.from([1, 2, 3])))
  const shut = h.send(s2c, P.simple('ShutdownOk'))
  h.finish()
  return {
    h,
    P,
    A,
    B,
    C,
    D,
    E,
    F,
    G,
    H,
    I,
    U,
    BC,
    req,
    acc,
    fA,
    fB,
    fC,
    fD,
    fE,
    ackA,
    ackE,
    ping,
    pong,
    p0,
    p1,
    p2,
    p0again,
    lost,
    merged,
    mergedEnd,
    rm,
    unconnected,
    broadcast,
    disc,
    shut,
    connectionTime
  }
}

for (const version of ['0.9', '1.x', '2.x'] as const) {
  describe(`LiteNetLib ${version} session`, () => {
    const s = session(version)
    const { h } = s

    it('picks the version from the ConnectRequest and marks the client', () => {
      expect(h.t.version.version).toBe(version)
      expect(h.t.version.certain).toBe(true)
      expect(h.t.version.reason).toContain(`protocol id ${version === '0.9' ? 11 : 13} as property ${version === '2.x' ? 6 : 5}`)
      expect(h.clients).toEqual(['a2b'])
      const [m] = h.of(s.req.frame)
      expect(findAll(m.draft.tree.roots, 'litenetlib.version')[0].value).toBe(version)
    })

    it('gives one message per packet with the expected names, stacks and protocols', () => {
      const names = h.out.map((m) => `${m.dir} ${m.name}`)
      const expectedNames = [
        'a2b ConnectRequest',
        'b2a ConnectAccept',
        'a2b Payload',
        'a2b Payload',
        'a2b Payload',
        'a2b Payload',
        'b2a Payload',
        'b2a Ack',
        'a2b Ack',
        'a2b Ping',
        'b2a Pong',
        'a2b Fragment',
        'a2b Fragment',
        'a2b Fragment',
        'a2b Payload',
        'a2b Fragment',
        'a2b Fragment',
        'b2a Payload',
        'b2a Ack',
        'b2a Ping',
        'b2a Ping',
        ...(version === '2.x' ? ['a2b Payload', 'a2b Payload'] : []),
        'a2b Payload',
        'a2b Payload',
        'a2b Disconnect',
        'b2a ShutdownOk',
        'a2b Incomplete fragmented payload'
      ]
      expect(names).toEqual(expectedNames)
      for (const m of h.out) {
        if (m.name === 'Payload') {
          expect(m.protocol).toBe('fignet')
          expect(m.stack).toEqual(['udp', 'litenetlib', 'fignet'])
        } else {
          expect(m.protocol).toBe('litenetlib') // the transport's own packets carry no FigNet message
          expect(m.stack).toEqual(['udp', 'litenetlib'])
        }
        expect(m.draft.error === null).toBe(m.name !== 'Incomplete fragmented payload')
      }
    })

    it('hands every payload to the carried decoder with its channel number and delivery', () => {
      const got = h.carried.seen.map((x) => [x.hex, x.payload.dir, x.payload.channel, x.payload.delivery])
      const want: [Uint8Array, string, number, string][] = [
        [s.A, 'a2b', 0, 'ReliableOrdered'],
        [s.B, 'a2b', 1, 'ReliableUnordered'],
        [s.C, 'a2b', 2, 'Sequenced'],
        [s.D, 'a2b', 0, 'Unreliable'],
        [s.E, 'b2a', 3, 'ReliableSequenced'],
        [s.F, 'a2b', 0, 'ReliableOrdered'],
        [s.G, 'b2a', 1, 'ReliableOrdered'],
        ...(version === '2.x'
          ? ([
              [s.H, 'a2b', 0, 'ReliableOrdered'],
              [s.I, 'a2b', 0, 'ReliableOrdered']
            ] as [Uint8Array, string, number, string][])
          : []),
        [s.U, 'a2b', 0, 'Unconnected'],
        [s.BC, 'a2b', 0, 'Broadcast']
      ]
      expect(got).toEqual(want.map(([b, d, c, del]) => [hex(b), d, c, del]))
      for (const m of h.out.filter((x) => x.name === 'Payload')) {
        const v = m.value as { channel: number; delivery: string; bytes: string }
        const seen = h.carried.seen.find((x) => x.hex === v.bytes)!
        expect(v.channel).toBe(seen.payload.channel)
        expect(v.delivery).toBe(seen.payload.delivery)
        // The range the carried decoder read is the payload in the message's own source.
        expect(hex(m.draft.sources[seen.source].bytes.subarray(seen.start, seen.end))).toBe(v.bytes)
      }
    })

    it('links the window Ack and the ReliableSequenced Ack to the packets they acknowledge, with round trips', () => {
      const [a] = h.of(s.ackA.frame)
      expect(lit(a).acknowledges).toEqual([{ seq: 0, frame: s.fA.frame, rttMs: ms(s.ackA.time, s.fA.time) }])
      expect(lit(a).ack).toEqual({ windowStart: 0, windowSize: 64, acked: [0], ackedCount: 1 })
      expect(a.value).toMatchObject({ channel: 0, delivery: 'ReliableOrdered' })
      expect(a.summary).toContain(`→ frame ${s.fA.frame}`)
      const [e] = h.of(s.ackE.frame)
      expect(lit(e).ack).toEqual({ sequence: 1 })
      expect(lit(e).acknowledges).toEqual([{ seq: 1, frame: s.fE.frame, rttMs: ms(s.ackE.time, s.fE.time) }])
      // The Ack inside the Merged datagram acknowledges the ReliableUnordered packet on channel id 4.
      const mergedAck = h.of(s.merged.frame).find((m) => m.name === 'Ack')!
      expect(lit(mergedAck).acknowledges).toEqual([{ seq: 0, frame: s.fB.frame, rttMs: ms(s.merged.time, s.fB.time) }])
      expect(findAll(a.draft.tree.roots, 'litenetlib.acked_frame').map((n) => n.value)).toEqual([s.fA.frame])
    })

    it('links the Pong to its Ping and the ConnectAccept to its request', () => {
      const [p] = h.of(s.pong.frame)
      expect(lit(p)).toMatchObject({ pongTo: s.ping.frame, rttMs: ms(s.pong.time, s.ping.time) })
      expect(lit(p).pong).toEqual({ sequence: 7, time: ticksAt(1_700_000_100) })
      const [a] = h.of(s.acc.frame)
      expect(lit(a)).toMatchObject({ acceptsFrame: s.req.frame, rttMs: ms(s.acc.time, s.req.time) })
      expect(lit(a).accept).toEqual({ connectionTime: s.connectionTime, connectionNumber: 1, flag: 0, ...(version === '0.9' ? {} : { peerId: 3 }) })
    })

    it('decodes the ConnectRequest: protocol id, time, peer id, .NET address, key', () => {
      const [m] = h.of(s.req.frame)
      expect(lit(m).connect).toEqual({
        protocolId: version === '0.9' ? 11 : 13,
        connectionTime: s.connectionTime,
        ...(version === '0.9' ? {} : { peerId: 5 }),
        address: '10.0.0.2:9050',
        addressFamily: 2,
        key: 'fignet-key'
      })
      expect(m.summary).toContain('key="fignet-key"')
      expect(findAll(m.draft.tree.roots, 'litenetlib.address')[0].label).toBe('Target address: 10.0.0.2:9050')
    })

    it('reassembles the fragments in part order, reports the duplicate, lists every frame', () => {
      const done = h.of(s.p1.frame)
      expect(done).toHaveLength(1)
      expect(done[0].name).toBe('Payload')
      expect(done[0].frames).toEqual([s.p2.frame, s.p0.frame, s.p1.frame])
      const seen = h.carried.seen.find((x) => x.hex === hex(s.F))!
      expect(seen.payload.frame).toBe(s.p1.frame)
      expect(done[0].draft.sources[seen.source].name).toBe('Reassembled payload')
      expect(lit(done[0]).reassembled).toEqual({ parts: 3, bytes: 2500, frames: [s.p2.frame, s.p0.frame, s.p1.frame] })
      const [dup] = h.of(s.p0again.frame)
      expect(dup.draft.warnings).toContain('duplicate fragment part (already received)')
      expect(dup.summary).toContain('(duplicate)')
      expect(h.of(s.p2.frame)[0].summary).toContain('part 3/3')
    })

    it('marks the retransmitted fragment part as a retransmission of its first frame', () => {
      const [dup] = h.of(s.p0again.frame)
      expect(lit(dup).retransmissionOf).toBe(s.p0.frame)
    })

    it('reports the fragmented payload that never completed, with the missing part', () => {
      const inc = h.out[h.out.length - 1]
      expect(inc.frames).toEqual(s.lost.map((x) => x.frame))
      expect(inc.draft.error).toBe('fragmented payload (fragment id 1, channel id 2) never completed: 1 of 3 parts missing (2)')
      expect(inc.value).toMatchObject({ channel: 0, delivery: 'ReliableOrdered', litenetlib: { fragment: { id: 1, total: 3, received: 2, missing: [2] } } })
    })

    it('splits Merged packets into one message per inner packet, each with its range', () => {
      const ms3 = h.of(s.merged.frame)
      expect(ms3.map((m) => m.name)).toEqual(['Payload', 'Ack', 'Ping'])
      ms3.forEach((m, i) => {
        expect(lit(m).merged).toEqual({ index: i, count: 3 })
        const group = findAll(m.draft.tree.roots, 'litenetlib.merged')[0]
        const size = findAll(group.children!, 'litenetlib.merged_size')[0]
        const packet = findAll(group.children!, 'litenetlib.packet')[0]
        expect(packet.start).toBe(size.start! + 2)
        expect(packet.length).toBe(size.value)
        expect(group.start! + group.length!).toBe(packet.start! + packet.length!)
      })
      expect(findAll(ms3[0].draft.tree.roots, 'datagram.index')[0]).toMatchObject({ value: 1, label: 'Packet 1 of 3 in this datagram', length: 0 })
      expect(ms3[0].draft.warnings.join()).not.toMatch(/in this datagram/)
      const [end] = h.of(s.mergedEnd.frame)
      expect(end.name).toBe('Ping')
      expect(end.draft.warnings.some((w) => w.startsWith('Merged packet ends with a zero size'))).toBe(true)
    })

    if (version === '2.x') {
      it('gives each ReliableMerged payload its own message with the shared header', () => {
        const two = h.of(s.rm!.frame)
        expect(two.map((m) => (m.value as { bytes: string }).bytes)).toEqual([hex(s.H), hex(s.I)])
        two.forEach((m, i) => {
          expect(lit(m)).toMatchObject({ type: 'ReliableMerged', sequence: 6, channelId: RO, reliableMerged: { index: i, count: 2 } })
          expect(findAll(m.draft.tree.roots, 'litenetlib.merged_size')[0].value).toBe(i === 0 ? s.H.length : s.I.length)
        })
      })
    }

    it('decodes Disconnect with its data and the connection time', () => {
      const [d] = h.of(s.disc.frame)
      expect(lit(d).disconnect).toEqual({ connectionTime: s.connectionTime, dataLength: 3 })
      expect(findAll(d.draft.tree.roots, 'litenetlib.disconnect_data')[0].value).toEqual(Uint8Array.from([1, 2, 3]))
    })

    it('every field range re-reads to its value', () => {
      let n = 0
      for (const m of h.out) n += checkRanges(m)
      expect(n).toBeGreaterThan(150)
    })

    it('the row pass (no tree) gives the same messages', () => {
      const fast = session(version, false)
      const strip = (m: (typeof h.out)[number]) => ({
        dir: m.dir,
        frames: m.frames,
        time: m.time,
        protocol: m.protocol,
        stack: m.stack,
        name: m.name,
        summary: m.summary,
        value: m.value,
        error: m.draft.error,
        warnings: m.draft.warnings
      })
      expect(fast.h.out.map(strip)).toEqual(h.out.map(strip))
      for (const m of fast.h.out) expect(m.draft.tree.roots).toEqual([])
    })
  })
}

describe('LiteNetLib details', () => {
  it('decodes an IPv6 target address and an empty key', () => {
    const P = packets('1.x')
    const h = harness()
    const f = h.send(c2s, P.connectRequest({ connectionTime: 1n, peerId: 1, address: socketAddress('fe80::1:2', 9050, 3), connectData: netString('1.x', '') }))
    const [m] = h.of(f.frame)
    expect(lit(m).connect).toMatchObject({ address: '[fe80::1:2]:9050', addressFamily: 23, key: '' })
    expect(findAll(m.draft.tree.roots, 'litenetlib.address_scope')[0].value).toBe(3)
    checkRanges(m)
  })

  it('reads window acks across the sequence wrap and with a non-default window', () => {
    const P = packets('1.x')
    const h = harness()
    const acked = [32760, 32767, 0, 5]
    const a = h.send(s2c, P.ackWindow(RO, 32760, acked))
    expect(lit(h.of(a.frame)[0]).ack).toEqual({ windowStart: 32760, windowSize: 64, acked, ackedCount: 4 })
    const w = h.send(s2c, P.ackWindow(RO, 100, [100, 150, 227], 128))
    expect(lit(h.of(w.frame)[0]).ack).toEqual({ windowStart: 100, windowSize: 128, acked: [100, 150, 227], ackedCount: 3 })
  })

  it('marks retransmissions and links the Ack to the first transmission', () => {
    const P = packets('1.x')
    const h = harness()
    const first = h.send(c2s, P.channeled(42, RO, Uint8Array.from([1])))
    const second = h.send(c2s, P.channeled(42, RO, Uint8Array.from([1])), 0.1)
    const ack = h.send(s2c, P.ackWindow(RO, 42, [42]), 0.02)
    expect(lit(h.of(second.frame)[0]).retransmissionOf).toBe(first.frame)
    expect(lit(h.of(ack.frame)[0]).acknowledges).toEqual([{ seq: 42, frame: first.frame, rttMs: ms(ack.time, first.time) }])
    // The same Ack again: acknowledged before, no new link.
    const again = h.send(s2c, P.ackWindow(RO, 42, [42]))
    expect(lit(h.of(again.frame)[0])).toMatchObject({ acknowledges: [], newlyAcked: 0, ackedBefore: 1 })
  })

  it('decodes MtuCheck/MtuOk with their sizes, NetworkChanged, InvalidProtocol, NatMessage and Empty', () => {
    for (const version of ['1.x', '2.x'] as const) {
      const P = packets(version)
      const h = harness()
      h.send(c2s, P.connectRequest({ connectionTime: 9n, address: socketAddress('1.2.3.4', 5) }))
      const chk = h.send(c2s, P.mtu('MtuCheck', 1024))
      const ok = h.send(s2c, P.mtu('MtuOk', 1024))
      const nc = h.send(s2c, P.networkChanged({ connectionTime: 9n, connectionNumber: 2, peerId: 8 }))
      const ip = h.send(s2c, P.simple('InvalidProtocol'))
      const nat = h.send(s2c, P.withPayload('NatMessage', Uint8Array.from([4, 5])))
      const em = h.send(s2c, P.simple('Empty'))
      expect(h.of(chk.frame)[0]).toMatchObject({ name: 'MtuCheck', summary: 'MtuCheck mtu=1024' })
      expect(lit(h.of(ok.frame)[0]).mtu).toEqual({ value: 1024, end: 1024, ok: true })
      expect(h.of(nc.frame)[0].name).toBe('PeerNotFound (network changed)')
      expect(lit(h.of(nc.frame)[0]).accept).toEqual({ connectionTime: 9n, connectionNumber: 2, flag: 1, peerId: 8 })
      expect(h.of(ip.frame)[0].name).toBe('InvalidProtocol')
      expect(h.of(nat.frame)[0].name).toBe('NatMessage')
      expect(h.of(em.frame)[0].name).toBe('Empty')
      for (const m of h.out) {
        expect(m.draft.error).toBeNull()
        checkRanges(m)
      }
      // A broken MTU packet: the sizes disagree.
      const bad = P.mtu('MtuCheck', 600)
      bad.set([0, 0, 0, 0], 596)
      const b = h.send(c2s, bad)
      expect(h.of(b.frame)[0].draft.warnings.some((w) => w.startsWith('broken MtuCheck: MTU 600, end check 0'))).toBe(true)
    }
  })

  it('passes the carried decoder error through with its offset', () => {
    const P = packets('1.x')
    const h = harness()
    h.carried.failOn = 0xee
    const f = h.send(c2s, P.channeled(0, RO, Uint8Array.from([0xee, 1, 2])))
    expect(h.of(f.frame)[0].draft.error).toBe('test failure (offset 5)')
    expect(h.of(f.frame)[0].name).toBe('Bad')
  })

  it('reads a 0.9 key written as a 1.x string and says so', () => {
    const P = packets('0.9')
    const h = harness()
    const f = h.send(c2s, P.connectRequest({ connectionTime: 2n, address: socketAddress('10.0.0.2', 1), connectData: concat(netString('1.x', 'k1')) }))
    const [m] = h.of(f.frame)
    expect(lit(m).connect).toMatchObject({ key: 'k1' })
    expect(m.draft.warnings).toContain('connect key written as a 1.x NetDataWriter string (u16 length + 1) in a 0.9 ConnectRequest')
  })
})
