// ENet-CSharp and vanilla ENet traffic built by the test encoder (encoder.ts, written from the reference):
// variant and checksum detection, CRC-32 / CRC-64 verification, fragments in any order with duplicates and
// gaps, retransmissions and ACK round trips, the COMPRESSED flag, and the control commands.
import { describe, it, expect } from 'vitest'
import zlib from 'node:zlib'
import type { FieldNode } from '../../../../src-shared/model/types'
import type { MessageOut } from '../../../../src-shared/protocols/registry'
import { datagrams, hex, runTransport } from './harness'
import {
  ack,
  bandwidthLimit,
  connect,
  datagram,
  disconnect,
  envelope,
  fragment,
  ping,
  reliable,
  split,
  throttleConfigure,
  unreliable,
  unsequenced,
  verifyConnect,
  type HeaderSpec
} from './encoder'
import { rng } from '../../helpers/rng'
import { find } from '../../helpers/decode'

function findAll(nodes: FieldNode[], key: string, acc: FieldNode[] = []): FieldNode[] {
  for (const n of nodes) {
    if (n.key === key) acc.push(n)
    if (n.children) findAll(n.children, key, acc)
  }
  return acc
}
const field = (m: MessageOut, key: string) => {
  const n = findAll(m.draft.tree.roots, key)[0]
  if (!n) throw new Error(`no ${key} in ${m.summary}`)
  return n
}
type V = { channel: number; delivery?: string; msgId?: number; compressed?: boolean; enet: Record<string, unknown> & { command: string } }
const v = (m: MessageOut) => m.value as V

/** A short ENet session: CONNECT, VERIFY_CONNECT, then payloads of every delivery and their ACKs. */
function session(base: Omit<HeaderSpec, 'peerId' | 'sentTime' | 'connectId'>, connectId: number, times = [1, 1.01, 1.02, 1.05, 1.06]) {
  const h = (peerId: number, sentTime?: number): HeaderSpec => ({ ...base, peerId, sentTime, connectId: peerId === 0xfff ? undefined : connectId })
  return datagrams([
    { dir: 'c2s', time: times[0], bytes: datagram(h(0xfff, 100), [connect({ connectId, mtu: 1280, channels: 4, data: 7 })]) },
    { dir: 's2c', time: times[1], bytes: datagram(h(0, 110), [verifyConnect({ connectId, mtu: 1280, channels: 4, outgoingPeerId: 3 })]) },
    { dir: 'c2s', time: times[2], bytes: datagram(h(3, 120), [ack(0xff, 1, 110), reliable(0, 1, envelope(60000, 1, [1, 2, 3]))]) },
    { dir: 's2c', time: times[3], bytes: datagram(h(0), [ack(0, 1, 120)]) },
    { dir: 'c2s', time: times[4], bytes: datagram(h(3), [unreliable(2, 1, 1, envelope(60002, 0, [9])), unsequenced(1, 1, envelope(60003, 0))]) }
  ])
}

function expectSession(run: ReturnType<typeof runTransport>) {
  expect(run.messages.map((m) => `${m.dir} ${m.name}`)).toEqual([
    'a2b CONNECT',
    'b2a VERIFY_CONNECT',
    'a2b ACKNOWLEDGE',
    'a2b Msg 60000',
    'b2a ACKNOWLEDGE',
    'a2b Msg 60002',
    'a2b Msg 60003'
  ])
  for (const m of run.messages) {
    expect(m.draft.error, m.summary).toBeNull()
    expect(m.draft.warnings, m.summary).toEqual([])
  }
  expect(run.client).toBe('a2b')
  expect(run.messages.map((m) => [v(m).channel, v(m).delivery])).toEqual([
    [255, undefined],
    [255, undefined],
    [255, undefined],
    [0, 'Reliable'],
    [0, undefined],
    [2, 'Unreliable'],
    [1, 'Unsequenced']
  ])
  expect(run.messages[0].summary).toBe('CONNECT mtu=1280 channels=4')
  expect(run.messages[1].summary).toBe('VERIFY_CONNECT peer=3 mtu=1280 channels=4')
  // ACK of VERIFY_CONNECT (frame 2) and of the reliable payload (frame 3), with round trips from the frame times
  expect(run.messages[2].summary).toBe('ACK ch255 seq=1 → frame 2 (10 ms)')
  expect(run.messages[4].summary).toBe('ACK ch0 seq=1 → frame 3 (30 ms)')
  expect(v(run.messages[4]).enet).toMatchObject({ acknowledges: 3, rttMs: 30, ackedSeq: 1, ackedSentTime: 120 })
  expect(run.carried.delivered.slice(0, 3).map((d) => hex(d.bytes))).toEqual([
    hex(envelope(60000, 1, [1, 2, 3])),
    hex(envelope(60002, 0, [9])),
    hex(envelope(60003, 0))
  ])
  expect(v(run.messages[3]).enet).toMatchObject({ command: 'SEND_RELIABLE', reliableSeq: 1, peerId: 3, sentTime: 120 })
  expect(v(run.messages[5]).enet).toMatchObject({ command: 'SEND_UNRELIABLE', unreliableSeq: 1 })
  expect(v(run.messages[6]).enet).toMatchObject({ command: 'SEND_UNSEQUENCED', unsequencedGroup: 1 })
}

describe('ENet-CSharp (SENT_TIME at bit 14)', () => {
  it('is recognised from its CONNECT header 4F FF, without a checksum', () => {
    const dgs = session({ variant: 'csharp' }, 0x11223344)
    expect(hex(dgs[0].payload.subarray(0, 2))).toBe('4fff')
    const run = runTransport(dgs)
    expectSession(run)
    const variant = field(run.messages[0], 'enet.variant')
    expect(variant.value).toBe('ENet-CSharp (SENT_TIME at bit 14, seen in CONNECT (header 4F FF) in frame 1)')
    expect(variant.label).toMatch(/checksum: none \(frame 1 parses to its end without one and not with one\)/)
    // the sent time sits after the first word, flagged by bit 14
    const st = field(run.messages[3], 'enet.sent_time')
    expect([st.value, st.start, st.length]).toEqual([120, 2, 2])
    expect(field(run.messages[3], 'enet.sent_time_flag').label).toMatch(/0x4000.*set/)
    expect(findAll(run.messages[3].draft.tree.roots, 'enet.compressed')).toEqual([])
    for (const m of run.messages) expect(v(m).enet.variant).toBe('csharp')
  })

  it('with CRC-64: verified everywhere (zeros preset for CONNECT, connectID after), a damaged datagram flagged', () => {
    const dgs = session({ variant: 'csharp', checksum: true }, 0xa1b2c3d4)
    const bad = datagram({ variant: 'csharp', checksum: true, peerId: 3, connectId: 0xa1b2c3d4 }, [unreliable(2, 1, 2, envelope(60002, 0, [1]))])
    bad[bad.length - 1] ^= 0xff
    const beHost = datagram({ variant: 'csharp', checksum: true, peerId: 3, connectId: 0xa1b2c3d4, bigEndianHost: true }, [
      unreliable(2, 1, 3, envelope(60002, 0, [2]))
    ])
    dgs.push(
      ...datagrams([
        { dir: 'c2s', bytes: bad },
        { dir: 'c2s', bytes: beHost }
      ]).map((d, i) => ({ ...d, frame: 6 + i, time: 2 + i }))
    )
    const run = runTransport(dgs)
    const ok = run.messages.slice(0, 7)
    expectSession({ ...run, messages: ok })
    for (const m of ok) {
      const crc = field(m, 'enet.crc64')
      const frame = dgs.find((d) => d.frame === m.frames[0])!
      // the field holds what the encoder wrote, big-endian, right after the header
      expect([crc.start, crc.length]).toEqual([frame.payload[0] & 0x40 ? 4 : 2, 8])
      expect(crc.value).toBe(Buffer.from(frame.payload).readBigUInt64BE(crc.start!))
      expect(field(m, 'enet.checksum_status').value).toBe(1)
    }
    expect(field(run.messages[0], 'enet.variant').label).toMatch(/checksum: CRC-64 \(CRC-64 verified in frame 1\)/)
    const damaged = run.messages[7]
    expect(field(damaged, 'enet.checksum_status').value).toBe(0)
    expect(damaged.draft.warnings.join()).toMatch(/checksum mismatch: the datagram says 0x[0-9a-f]{16}, computed 0x[0-9a-f]{16}/)
    expect(field(run.messages[8], 'enet.checksum_status').value).toBe(1)
    // Without a tree each command takes the header (and its checksum verdict) from the datagram's scan
    // instead of reading it again: the same warnings, summaries and values.
    const shown = (r: typeof run) =>
      r.messages.map((m) => ({ name: m.name, summary: m.summary, warnings: m.draft.warnings, error: m.draft.error, value: m.value }))
    expect(shown(runTransport(dgs, { recording: false }))).toEqual(shown(run))
  })

  it('mid-stream (no CONNECT captured): bit 14 with reliable commands means ENet-CSharp; CRC-64 present, not verified', () => {
    const h: HeaderSpec = { variant: 'csharp', checksum: true, peerId: 5, sentTime: 900, connectId: 0x01020304 }
    const run = runTransport(
      datagrams([
        { dir: 'c2s', bytes: datagram(h, [reliable(1, 7, envelope(60010, 0, [1, 2])), ping(9)]) },
        { dir: 's2c', bytes: datagram({ ...h, sentTime: undefined }, [ack(1, 7, 900), ack(0xff, 9, 900)]) }
      ])
    )
    expect(run.messages.map((m) => m.name)).toEqual(['Msg 60010', 'PING', 'ACKNOWLEDGE', 'ACKNOWLEDGE'])
    expect(field(run.messages[0], 'enet.variant').value).toBe(
      'ENet-CSharp (bit 14 set in frame 1 and its commands parse after a sent time (SENT_TIME at bit 14))'
    )
    expect(field(run.messages[0], 'enet.checksum_status').value).toBe(2)
    expect(field(run.messages[0], 'enet.crc64').label).toMatch(/not verified: connectID not seen/)
    expect(v(run.messages[2]).enet.acknowledges).toBe(1)
    expect(v(run.messages[3]).enet.acknowledges).toBe(1)
    for (const m of run.messages) expect(m.draft.error).toBeNull()
  })

  it('a CONNECT headed 0F FF is ENet-CSharp too', () => {
    const c = datagram({ variant: 'csharp', peerId: 0xfff }, [connect({ connectId: 5 })])
    expect(hex(c.subarray(0, 2))).toBe('0fff')
    const run = runTransport(datagrams([{ dir: 'c2s', bytes: c }]))
    expect(field(run.messages[0], 'enet.variant').value).toBe('ENet-CSharp (CONNECT without bit 15 (header 0F FF) in frame 1)')
  })
})

describe('vanilla ENet', () => {
  it('with CRC-32 (zlib): verified with the connectID preset, learnt from CONNECT', () => {
    const run = runTransport(session({ variant: 'vanilla', checksum: true }, 0x0badf00d))
    expectSession(run)
    expect(field(run.messages[0], 'enet.variant').value).toBe('vanilla ENet 1.3 (SENT_TIME at bit 15, seen in CONNECT (header 8F FF) in frame 1)')
    for (const m of run.messages) {
      expect(field(m, 'enet.checksum_status').value).toBe(1)
      expect(field(m, 'enet.crc32').length).toBe(4)
    }
  })

  it('CRC-32 is zlib CRC-32 over the datagram with the field preset: the encoder and the tree agree byte for byte', () => {
    const d = datagram({ variant: 'vanilla', checksum: true, peerId: 1, sentTime: 5, connectId: 0xcafebabe }, [ping(2)])
    const preset = Buffer.from(d)
    preset.writeUInt32BE(0xcafebabe, 4)
    expect(Buffer.from(d).readUInt32BE(4)).toBe(zlib.crc32(preset))
  })

  it('flags COMPRESSED datagrams (bit 14) and shows their bytes, without reading them as commands', () => {
    const c = datagram({ variant: 'vanilla', peerId: 0xfff, sentTime: 1 }, [connect({ connectId: 9 })])
    const squeezed = datagram({ variant: 'vanilla', peerId: 2, sentTime: 3, compressed: true }, [Uint8Array.from([0x86, 0, 0, 1, 0, 40, 1, 2])])
    expect(hex(squeezed.subarray(0, 2))).toBe('c002')
    const run = runTransport(
      datagrams([
        { dir: 'c2s', bytes: c },
        { dir: 'c2s', bytes: squeezed }
      ])
    )
    const m = run.messages[1]
    expect(m.name).toBe('Compressed datagram')
    expect(m.summary).toBe('Compressed datagram peer=2, 8 bytes of compressed commands')
    expect(m.draft.warnings.join()).toMatch(/COMPRESSED flag \(bit 14\).*cannot be decoded/)
    expect(m.draft.error).toBeNull()
    expect(v(m).compressed).toBe(true)
    const data = field(m, 'enet.compressed_data')
    expect([data.start, data.length]).toEqual([4, 8])
    expect(field(m, 'enet.compressed').value).toBe(true)
    expect(run.carried.delivered).toEqual([])
  })

  it('bit 14 alone on bytes that do not parse as ENet-CSharp reads as a compressed vanilla datagram', () => {
    const run = runTransport(datagrams([{ dir: 'c2s', bytes: Uint8Array.from([0x40, 0x01, 0xff, 0xee, 0xdd, 0x01]) }]))
    expect(run.messages[0].name).toBe('Compressed datagram')
    expect(field(run.messages[0], 'enet.variant').value).toMatch(/^vanilla ENet 1\.3\? \(bit 14 set and the datagram does not parse as ENet-CSharp/)
  })

  it('summarises and values the other control commands', () => {
    const h = (peerId: number): HeaderSpec => ({ variant: 'vanilla', peerId, sentTime: 1 })
    const run = runTransport(
      datagrams([
        { dir: 'c2s', bytes: datagram(h(0xfff), [connect({ connectId: 1 })]) },
        { dir: 'c2s', bytes: datagram(h(0), [bandwidthLimit(2, 1000, 2000), throttleConfigure(3, 5000, 4, 6), disconnect(4, 0xabcd)]) }
      ])
    )
    expect(run.messages.slice(1).map((m) => m.summary)).toEqual([
      'BANDWIDTH_LIMIT in=1000 out=2000',
      'THROTTLE_CONFIGURE interval=5000 acceleration=4 deceleration=6',
      'DISCONNECT data=43981'
    ])
    expect(v(run.messages[1]).enet.bandwidth).toEqual({ incoming: 1000, outgoing: 2000 })
    expect(v(run.messages[2]).enet.throttle).toEqual({ interval: 5000, acceleration: 4, deceleration: 6 })
    expect(v(run.messages[3]).enet.disconnectData).toBe(0xabcd)
    expect(run.messages[1].stack).toEqual(['udp', 'enet'])
    expect(run.messages[1].protocol).toBe('enet')
    expect(find(run.messages[1].draft.tree.roots, 'datagram.index')).toMatchObject({ value: 1, label: 'Command 1 of 3 in this datagram' })
    expect(run.messages[1].draft.warnings).toEqual([])
  })
})

describe('fragments, retransmissions and ACKs', () => {
  const H: HeaderSpec = { variant: 'csharp', peerId: 1, sentTime: 50 }
  const payload = (n: number, seed: number) => {
    const r = rng(seed)
    return envelope(
      60300,
      2,
      Array.from({ length: n }, () => Math.floor(r() * 256))
    )
  }

  it('reassembles fragments arriving out of order with a duplicate, listing each frame once', () => {
    const p = payload(5000, 1)
    const frags = split(p, { reliable: true, channel: 2, seq: 10, fragmentSize: 1244 })
    expect(frags.length).toBe(5)
    const order = [3, 0, 4, 0, 2, 1]
    const run = runTransport(datagrams(order.map((i) => ({ dir: 'c2s' as const, bytes: datagram(H, [fragment(frags[i])]) }))))
    expect(run.messages.map((m) => m.summary)).toEqual([
      'SEND_FRAGMENT 4/5 of startSeq 10 ch2 (1 of 5 received; the payload is decoded with its last fragment)',
      'SEND_FRAGMENT 1/5 of startSeq 10 ch2 (2 of 5 received; the payload is decoded with its last fragment)',
      'SEND_FRAGMENT 5/5 of startSeq 10 ch2 (3 of 5 received; the payload is decoded with its last fragment)',
      'SEND_FRAGMENT 1/5 of startSeq 10 ch2 (duplicate) (retransmission of frame 2)',
      'SEND_FRAGMENT 3/5 of startSeq 10 ch2 (4 of 5 received; the payload is decoded with its last fragment)',
      'Msg 60300 (5003 bytes)'
    ])
    expect(run.messages[3].draft.warnings).toContain('duplicate fragment (already received)')
    const done = run.messages[5]
    expect(done.frames).toEqual([1, 2, 3, 5, 6])
    expect(hex(run.carried.delivered[0].bytes)).toBe(hex(p))
    expect(v(done)).toMatchObject({ channel: 2, delivery: 'Reliable' })
    const node = field(done, 'enet.reassembled')
    expect(node.label).toBe('Reassembled from 5 fragments in frames 1, 2, 3, 5, 6: 5003 bytes')
    expect([node.source, node.start, node.length]).toEqual([1, 0, 5003])
  })

  it('reports a fragmented payload that never completed, with its frames and the missing numbers', () => {
    const frags = split(payload(3000, 2), { reliable: false, channel: 1, seq: 4, startSeq: 7, fragmentSize: 1244 })
    const run = runTransport(datagrams([frags[0], frags[2]].map((f) => ({ dir: 's2c' as const, bytes: datagram(H, [fragment(f)]) }))))
    const inc = run.messages.at(-1)!
    expect(inc.name).toBe('Incomplete fragmented payload')
    expect(inc.frames).toEqual([1, 2])
    expect(inc.draft.error).toBe('fragmented message startSeq 7 (after reliable seq 4) on channel 1 never completed: 1 of 3 fragments missing (1)')
    expect(inc.summary).toBe('SEND_UNRELIABLE_FRAGMENT startSeq 7 ch1: 2 of 3 fragments (3003 bytes)')
    expect(inc.stack).toEqual(['udp', 'enet'])
  })

  it('keeps unreliable fragments apart when the unreliable seq restarts after a reliable send', () => {
    const a = payload(2000, 3)
    const b = payload(2000, 4)
    const fa = split(a, { reliable: false, channel: 0, seq: 1, startSeq: 1, fragmentSize: 1244 })
    const fb = split(b, { reliable: false, channel: 0, seq: 2, startSeq: 1, fragmentSize: 1244 })
    const run = runTransport(datagrams([...fa, ...fb].map((f) => ({ dir: 'c2s' as const, bytes: datagram(H, [fragment(f)]) }))))
    expect(run.carried.delivered.map((d) => hex(d.bytes))).toEqual([hex(a), hex(b)])
    expect(run.carried.delivered.map((d) => d.payload.delivery)).toEqual(['Unreliable', 'Unreliable'])
  })

  it('marks retransmissions and times the ACK from the first transmission', () => {
    const cmd = reliable(3, 22, envelope(60001, 5))
    const run = runTransport(
      datagrams([
        { dir: 'c2s', time: 10, bytes: datagram({ ...H, sentTime: 1 }, [cmd]) },
        { dir: 'c2s', time: 10.5, bytes: datagram({ ...H, sentTime: 501 }, [cmd, ping(3)]) },
        { dir: 's2c', time: 10.6, bytes: datagram({ ...H, sentTime: undefined }, [ack(3, 22, 501)]) },
        { dir: 'c2s', time: 11, bytes: datagram({ ...H, sentTime: 1001 }, [ping(3)]) }
      ])
    )
    const [first, again, pingMsg, ackMsg, pingAgain] = run.messages
    expect(v(first).enet.retransmissionOf).toBeUndefined()
    expect(v(again).enet.retransmissionOf).toBe(1)
    expect(again.draft.warnings).toContain('retransmission (transmission 2) of reliable seq 22 on channel 3, first sent in frame 1')
    expect(again.draft.warnings).toContain('the payload was delivered before, in frame 1')
    expect(pingMsg.summary).toBe('PING seq=3')
    expect(ackMsg.summary).toBe('ACK ch3 seq=22 → frame 1 (600 ms)')
    expect(field(ackMsg, 'enet.ack_frame').label).toBe('Acknowledges the command in frame 1, round trip 600 ms')
    expect(pingAgain.summary).toBe('PING seq=3 (retransmission of frame 2)')
  })
})
