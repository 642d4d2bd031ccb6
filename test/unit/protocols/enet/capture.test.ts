// The shared ENet capture (npm enet 0.2.9 = vanilla ENet 1.3.5 on loopback, FigNet envelopes inside), decoded
// datagram by datagram and checked against its frame-by-frame table in docs/fignet.md (Codecs and ENet on the
// wire: the ENet capture, frame by frame). The UDP payloads are cross-checked with tshark.
import { describe, it, expect, beforeAll } from 'vitest'
import { join } from 'node:path'
import type { FieldNode } from '../../../../src-shared/model/types'
import type { MessageOut } from '../../../../src-shared/protocols/registry'
import { hex, readUdpDatagrams, runTransport, tsharkPayloads, unhex, type Datagram, type Run } from './harness'

const FILE = join(__dirname, '../../../fixtures/enet/enet-fignet-loopback.pcapng')
const CLIENT = '127.0.0.1:50463'

/**
 * One line per message, from that table and the PING/ACK frames it summarises: frame, direction, and what
 * the command is. Payload lines give the envelope's message id (u16 LE of the payload's first two bytes).
 */
const EXPECTED: string[] = [
  '1 c2s CONNECT ch255 seq1',
  '2 s2c VERIFY_CONNECT ch255 seq1',
  '3 c2s ACK ch255 acks1 ->2',
  '3 c2s PING ch255 seq2',
  '4 s2c ACK ch255 acks2 ->3',
  '5 c2s payload Reliable ch0 seq1 msg60000 len14',
  '6 s2c ACK ch0 acks1 ->5',
  '7 s2c payload Reliable ch0 seq1 msg60000 len4',
  '8 c2s ACK ch0 acks1 ->7',
  '9 c2s payload Unreliable ch3 seq0 msg60002 len4',
  '10 c2s PING ch255 seq3',
  '11 s2c ACK ch255 acks3 ->10',
  '12 s2c PING ch255 seq2',
  '13 c2s ACK ch255 acks2 ->12',
  '14 c2s SEND_FRAGMENT ch0 seq2',
  '15 c2s SEND_FRAGMENT ch0 seq3',
  '16 c2s payload Reliable ch0 seq4 msg60300 len3003',
  '17 s2c ACK ch0 acks2 ->14',
  '17 s2c ACK ch0 acks3 ->15',
  '17 s2c ACK ch0 acks4 ->16',
  '18 c2s BANDWIDTH_LIMIT ch255 seq4',
  '19 s2c BANDWIDTH_LIMIT ch255 seq3',
  '20 s2c ACK ch255 acks4 ->18',
  '21 c2s ACK ch255 acks3 ->19',
  '22 c2s payload Unsequenced ch1 seq0 msg60002 len5',
  '23 c2s PING ch255 seq5',
  '24 s2c PING ch255 seq4',
  '25 s2c ACK ch255 acks5 ->23',
  '26 c2s SEND_UNRELIABLE_FRAGMENT ch3 seq0',
  '27 c2s payload Unreliable ch3 seq0 msg60400 len2503',
  '28 c2s ACK ch255 acks4 ->24',
  '29 c2s payload Unreliable ch3 seq0 msg60002 len4',
  '30 c2s PING ch255 seq6',
  '31 s2c ACK ch255 acks6 ->30',
  '32 s2c PING ch255 seq5',
  '33 c2s ACK ch255 acks5 ->32',
  '34 c2s DISCONNECT ch255 seq7',
  '35 s2c ACK ch255 acks7 ->34'
]

interface Enet {
  command: string
  channel: number
  reliableSeq: number
  ackedSeq?: number
  acknowledges?: number
  rttMs?: number
  connect?: Record<string, number>
  unreliableSeq?: number
  unsequencedGroup?: number
  fragment?: { startSeq: number; count: number; number: number; totalLength: number; offset: number }
  fragmentFrames?: number[]
  bandwidth?: { incoming: number; outgoing: number }
  disconnectData?: number
  sentTime?: number
  variant?: string
}
const enet = (m: MessageOut) => (m.value as { enet: Enet }).enet
const value = (m: MessageOut) => m.value as { channel: number; delivery?: string; msgId?: number; length?: number; enet: Enet }

function line(m: MessageOut, dirOf: (m: MessageOut) => string): string {
  const e = enet(m)
  const v = value(m)
  const frame = m.frames[m.frames.length - 1]
  if (v.delivery) return `${frame} ${dirOf(m)} payload ${v.delivery} ch${v.channel} seq${e.reliableSeq} msg${v.msgId} len${v.length}`
  if (e.command === 'ACKNOWLEDGE') return `${frame} ${dirOf(m)} ACK ch${e.channel} acks${e.ackedSeq} ->${e.acknowledges}`
  return `${frame} ${dirOf(m)} ${e.command} ch${e.channel} seq${e.reliableSeq}`
}

function findAll(nodes: FieldNode[], key: string, acc: FieldNode[] = []): FieldNode[] {
  for (const n of nodes) {
    if (n.key === key) acc.push(n)
    if (n.children) findAll(n.children, key, acc)
  }
  return acc
}

describe('the shared ENet capture (vanilla ENet 1.3.5 via npm enet)', () => {
  let dgs: Datagram[]
  let run: Run
  let dirOf: (m: MessageOut) => string

  beforeAll(() => {
    dgs = readUdpDatagrams(FILE)
    run = runTransport(dgs)
    const clientIsA = dgs[0].src === CLIENT
    dirOf = (m) => ((m.dir === 'a2b') === clientIsA ? 'c2s' : 's2c')
  })

  it('reads the same 35 UDP payloads as tshark', () => {
    const ts = tsharkPayloads(FILE)
    expect(dgs.map((d) => d.frame)).toEqual(Array.from({ length: 35 }, (_, i) => i + 1))
    expect(ts.size).toBe(35)
    for (const d of dgs) expect(hex(d.payload)).toBe(ts.get(d.frame))
  })

  it('decodes every command as the §6 table says, accounting for every frame', () => {
    expect(run.messages.map((m) => line(m, dirOf))).toEqual(EXPECTED)
    const covered = new Set(run.messages.flatMap((m) => m.frames))
    expect([...covered].sort((a, b) => a - b)).toEqual(dgs.map((d) => d.frame))
    for (const m of run.messages) {
      expect(m.draft.error, `${m.frames} ${m.summary}`).toBeNull()
      expect(m.draft.warnings).toEqual([])
    }
    // CONNECT made the client side known: the sender of frame 1.
    expect(run.client).toBe(dgs[0].src === CLIENT ? 'a2b' : 'b2a')
  })

  it('says the variant is vanilla ENet, learnt from the CONNECT header, and that there is no checksum', () => {
    for (const m of run.messages) expect(enet(m).variant ?? 'vanilla').toBe('vanilla')
    const v = findAll(run.messages[0].draft.tree.roots, 'enet.variant')[0]
    expect(v.label).toMatch(/vanilla ENet 1\.3 \(SENT_TIME at bit 15, seen in CONNECT \(header 8F FF\) in frame 1\)/)
    expect(v.label).toMatch(/checksum: none/)
    expect([v.start, v.length]).toEqual([0, 2])
    expect(findAll(run.messages.at(-1)!.draft.tree.roots, 'enet.crc32')).toEqual([])
  })

  it('reads the CONNECT parameters (frame 1) and their byte ranges', () => {
    const m = run.messages[0]
    expect(m.name).toBe('CONNECT')
    expect(m.summary).toBe('CONNECT mtu=1400 channels=4')
    expect(m.stack).toEqual(['udp', 'enet'])
    expect(m.protocol).toBe('enet') // nothing above ENet decoded in it
    expect(enet(m).connect).toEqual({
      // a connecting peer leaves both session ids to the other side: 0xFF
      outgoingPeerId: 0,
      incomingSessionId: 0xff,
      outgoingSessionId: 0xff,
      mtu: 1400,
      windowSize: 65536,
      channelCount: 4,
      incomingBandwidth: 0,
      outgoingBandwidth: 0,
      throttleInterval: 5000,
      throttleAcceleration: 2,
      throttleDeceleration: 2,
      connectId: 0x616b9cac,
      data: 0x1234
    })
    const bytes = dgs[0].payload
    const at = (key: string) => findAll(m.draft.tree.roots, key)[0]
    // header 8fff b358, command 82 ff 0001, then the body: offsets from the table's hex
    expect([at('enet.peer_id').value, at('enet.peer_id').start, at('enet.peer_id').length]).toEqual([0xfff, 0, 2])
    expect([at('enet.sent_time').value, at('enet.sent_time').start]).toEqual([0xb358, 2])
    expect([at('enet.cmd.number').value, at('enet.cmd.number').start, at('enet.cmd.ack_flag').value]).toEqual([2, 4, true])
    expect([at('enet.channel').value, at('enet.channel').start]).toEqual([255, 5])
    expect(at('enet.connect.mtu').start).toBe(12)
    expect(hex(bytes.subarray(at('enet.connect.connect_id').start!, at('enet.connect.connect_id').start! + 4))).toBe('616b9cac')
    expect(at('enet.connect.data').start).toBe(48)
    expect(at('enet.cmd').length).toBe(48)
  })

  it('delivers the FigNet payloads with their bytes, channel and delivery', () => {
    const got = run.carried.delivered.map((d) => ({
      frame: d.payload.frame,
      channel: d.payload.channel,
      delivery: d.payload.delivery,
      head: hex(d.bytes.subarray(0, 3)),
      length: d.bytes.length
    }))
    expect(got).toEqual([
      { frame: 5, channel: 0, delivery: 'Reliable', head: '60ea01', length: 14 },
      { frame: 7, channel: 0, delivery: 'Reliable', head: '60ea01', length: 4 },
      { frame: 9, channel: 3, delivery: 'Unreliable', head: '62ea00', length: 4 },
      { frame: 16, channel: 0, delivery: 'Reliable', head: '8ceb02', length: 3003 },
      { frame: 22, channel: 1, delivery: 'Unsequenced', head: '62ea00', length: 5 },
      { frame: 27, channel: 3, delivery: 'Unreliable', head: 'f0eb00', length: 2503 },
      { frame: 29, channel: 3, delivery: 'Unreliable', head: '62ea00', length: 4 }
    ])
    // RegisterIdentityModel BitBuffer bytes (docs/fignet.md, Codecs and ENet on the wire) after the envelope of frame 5
    expect(hex(run.carried.delivered[0].bytes)).toBe('60ea010106f3f2585ea60f84e1f0')
    const m5 = run.messages.find((m) => m.frames[0] === 5)!
    expect(m5.stack).toEqual(['udp', 'enet', 'fignet'])
    expect(m5.name).toBe('Msg 60000')
    expect(value(m5)).toMatchObject({ msgId: 60000, channel: 0, delivery: 'Reliable', enet: { command: 'SEND_RELIABLE', reliableSeq: 1, sentTime: 0xb497 } })
    expect(enet(run.messages.find((m) => m.frames[0] === 9)!).unreliableSeq).toBe(1)
    expect(enet(run.messages.find((m) => m.frames[0] === 29)!).unreliableSeq).toBe(3)
    expect(enet(run.messages.find((m) => m.frames[0] === 22)!).unsequencedGroup).toBe(1)
  })

  it('reassembles the 3003-byte reliable message of frames 14-16 from the bytes tshark shows', () => {
    const ts = tsharkPayloads(FILE)
    const m = run.messages.find((x) => value(x).msgId === 60300)!
    expect(m.frames).toEqual([14, 15, 16])
    expect(m.draft.sources.map((s) => s.name)).toEqual(['UDP payload', 'Reassembled payload'])
    // Independent reassembly: each frame's data (after 4 header + 24 fragment bytes) placed at its offset.
    const expected = new Uint8Array(3003)
    const frag = [
      [14, 0, 1372],
      [15, 1372, 1372],
      [16, 2744, 259]
    ]
    for (const [f, off, len] of frag) {
      const p = unhex(ts.get(f)!)
      expect(p.length).toBe(4 + 24 + len)
      expected.set(p.subarray(28), off)
    }
    expect(hex(m.draft.sources[1].bytes)).toBe(hex(expected))
    expect(hex(run.carried.delivered[3].bytes)).toBe(hex(expected))
    expect(enet(m).fragment).toEqual({ startSeq: 2, count: 3, number: 2, totalLength: 3003, offset: 2744 })
    expect(enet(m).fragmentFrames).toEqual([14, 15, 16])
    const pending = run.messages.filter((x) => x.frames.length === 1 && (x.frames[0] === 14 || x.frames[0] === 15))
    expect(pending.map((x) => x.summary)).toEqual([
      'SEND_FRAGMENT 1/3 of startSeq 2 ch0 (1 of 3 received; the payload is decoded with its last fragment)',
      'SEND_FRAGMENT 2/3 of startSeq 2 ch0 (2 of 3 received; the payload is decoded with its last fragment)'
    ])
    // The carried decoder's fields point into the reassembled source.
    const id = findAll(m.draft.tree.roots, 'test.carried.msg_id')[0]
    expect([id.source, id.start, id.length]).toEqual([1, 0, 2])
  })

  it('reassembles the 2503-byte unreliable message of frames 26-27', () => {
    const ts = tsharkPayloads(FILE)
    const m = run.messages.find((x) => value(x).msgId === 60400)!
    expect(m.frames).toEqual([26, 27])
    // Unreliable datagrams carry no sent time here: a 2-byte header (bit 15 clear), then 24 fragment header bytes.
    const expected = new Uint8Array(2503)
    const [p26, p27] = [unhex(ts.get(26)!), unhex(ts.get(27)!)]
    expect([p26[0] & 0x80, p27[0] & 0x80]).toEqual([0, 0])
    expect([p26.length - 26, p27.length - 26]).toEqual([1372, 2503 - 1372])
    expected.set(p26.subarray(26), 0)
    expected.set(p27.subarray(26), 1372)
    expect(hex(m.draft.sources[1].bytes)).toBe(hex(expected))
    expect(value(m)).toMatchObject({ channel: 3, delivery: 'Unreliable' })
    expect(enet(m).fragment).toMatchObject({ startSeq: 2, count: 2, totalLength: 2503 })
  })

  it('links the three ACKs of frame 17 to frames 14, 15 and 16 with their round trips', () => {
    const acks = run.messages.filter((m) => m.frames[0] === 17)
    const t = new Map(dgs.map((d) => [d.frame, d.time]))
    expect(acks.map((m) => enet(m).acknowledges)).toEqual([14, 15, 16])
    acks.forEach((m, i) => {
      const rtt = (t.get(17)! - t.get(14 + i)!) * 1000
      expect(enet(m).rttMs).toBeCloseTo(rtt, 2)
      expect(m.summary).toMatch(new RegExp(`^ACK ch0 seq=${2 + i} → frame ${14 + i} \\(\\d+\\.\\d+ ms\\)$`))
      // the acknowledged sent time is the one frame 14-16's header carried (0xb6ee)
      expect((enet(m) as { ackedSentTime?: number }).ackedSentTime).toBe(0xb6ee)
    })
    // three messages for one datagram: each holds the datagram with its own command's range
    expect(acks.map((m) => findAll(m.draft.tree.roots, 'enet.cmd')[0].start)).toEqual([2, 10, 18])
  })

  it('the fast row pass (no trees) gives the same messages', () => {
    const rows = runTransport(dgs, { recording: false })
    const strip = (m: MessageOut) => ({
      dir: m.dir,
      frames: m.frames,
      name: m.name,
      summary: m.summary,
      protocol: m.protocol,
      stack: m.stack,
      value: m.value,
      error: m.draft.error
    })
    expect(rows.messages.map(strip)).toEqual(run.messages.map(strip))
    for (const m of rows.messages) expect(m.draft.tree.roots).toEqual([])
  })

  it('summarises control commands', () => {
    const s = (f: number) => run.messages.filter((m) => m.frames[0] === f).map((m) => m.summary)
    expect(s(2)).toEqual(['VERIFY_CONNECT peer=0 mtu=1400 channels=4'])
    expect(s(18)).toEqual(['BANDWIDTH_LIMIT in=0 out=0'])
    expect(s(34)).toEqual(['DISCONNECT data=0'])
    expect(s(10)).toEqual(['PING seq=3'])
  })
})
