// A real ENet peer pair (npm enet 0.2.9 = vanilla ENet 1.3.5) on 127.0.0.1 exchanges randomised payloads
// (seeded; the seed is printed, ENET_LIVE_SEED repeats a run) on four channels in both directions, while
// tshark captures on lo. The capture is then decoded and every payload the peers received must come out as a
// message with the right direction, channel, delivery, bytes and frames; control commands must decode cleanly
// and every ACK must find the command it acknowledges. A second run turns on ENet's range-coder compression:
// its datagrams must be flagged as compressed, never misread.
import { describe, it, expect } from 'vitest'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { rmSync } from 'node:fs'
import { rng } from '../../helpers/rng'
import { messageText } from '../../../../src-shared/export/json'
import type { MessageOut } from '../../../../src-shared/protocols/registry'
import { hex, readUdpDatagrams, runTransport, tsharkPayloads } from './harness'
import { freeUdpPort, loadEnet, sleep, startTshark } from './live-helpers'
import { envelope } from './encoder'
import { decodeFile } from '../../helpers/decode'
import { BitWriter, MpWriter, writeModel } from '../fignet/encoders'

interface FigNetSent {
  msgId: number
  callbackId: number
  codec: 'BitBuffer' | 'MemoryPack'
  /** Payload fields the full decoder must return (typed values, checked with toMatchObject). */
  fields: Record<string, unknown>
}

/**
 * A randomised FigNet message from the FigNet tests' own encoders: RegisterIdentity or Ping (BitBuffer), or a
 * RoomEvent / CreateRoom (MemoryPack). `dataSize` bytes of event data make it as big as the run needs.
 */
function figNetMessage(int: (n: number) => number, dataSize: number, repetitive: boolean, fromClient: boolean): { bytes: Uint8Array; sent: FigNetSent } {
  const callbackId = int(128)
  const word = () => Array.from({ length: 1 + int(12) }, () => String.fromCharCode(97 + int(26))).join('')
  const pick = dataSize > 200 ? 0 : int(4)
  if (pick === 1) {
    const [peerType, secret, app] = [int(3), word(), word()]
    const w = new BitWriter().byte(peerType).string(secret).string(app)
    return {
      bytes: envelope(60000, callbackId, w.toBytes()),
      sent: { msgId: 60000, callbackId, codec: 'BitBuffer', fields: { peerType: { value: peerType }, SecretKey: { value: secret }, AppName: { value: app } } }
    }
  }
  if (pick === 2) {
    const peerType = int(2)
    return {
      bytes: envelope(60002, callbackId, new BitWriter().byte(peerType).toBytes()),
      sent: { msgId: 60002, callbackId, codec: 'BitBuffer', fields: { peerType: { value: peerType } } }
    }
  }
  if (pick === 3 && fromClient) {
    // CreateRoomData is the request form: only the client sends it (the server answers with CreateRoomResponseData).
    const room = {
      RoomName: word(),
      MaxPlayers: int(65536),
      Password: word(),
      CellSize: int(65536),
      Width: int(65536),
      Height: int(65536),
      AoiActivationCount: int(256),
      LodLevel: int(256),
      ForcedRoomStateSyncInterval: int(65536) - 32768,
      PresenterInGroupCast: int(2) === 1,
      FetchCachedEventsDelay: int(65536)
    }
    return {
      bytes: envelope(60300, callbackId, writeModel(new MpWriter(), 'CreateRoomData', room).done()),
      sent: {
        msgId: 60300,
        callbackId,
        codec: 'MemoryPack',
        fields: { RoomName: { value: room.RoomName }, MaxPlayers: { value: room.MaxPlayers }, FetchCachedEventsDelay: { value: room.FetchCachedEventsDelay } }
      }
    }
  }
  const data = Array.from({ length: dataSize }, (_, j) => (repetitive ? (j >> 4) & 0xff : int(256)))
  const ev = { RoomId: int(2 ** 32), EventId: int(256), DeliveryMethod: int(4), Tag: int(256), IsCached: int(2) === 1, UniqueId: int(2 ** 32), Data: data }
  return {
    bytes: envelope(60406, callbackId, writeModel(new MpWriter(), 'RoomEventData', ev).done()),
    sent: {
      msgId: 60406,
      callbackId,
      codec: 'MemoryPack',
      fields: { EventId: { value: ev.EventId }, Tag: { value: ev.Tag }, IsCached: { value: ev.IsCached }, Data: { value: Buffer.from(data).toString('hex') } }
    }
  }
}

/** ENet 1.3.5's default MTU is 1400: fragments carry 1400 - 4 (header) - 24 (SEND_FRAGMENT) bytes. */
const FRAGMENT_SIZE = 1400 - 4 - 24

interface Sent {
  from: 'client' | 'server'
  channel: number
  kind: string
  flags: number
  bytes: Buffer
  fignet: FigNetSent
  /** What ENet's enet_peer_send makes of it (docs/fignet.md, Codecs and ENet on the wire). */
  delivery: 'Reliable' | 'Unreliable' | 'Unsequenced'
  fragments: number
}

interface Session {
  file: string
  sent: Sent[]
  received: { to: 'client' | 'server'; channel: number; bytes: Buffer }[]
  clientPort: number
}

async function liveSession(seed: number, opts: { compression?: boolean; count: number }): Promise<Session> {
  const enet = loadEnet()
  const F = enet.PACKET_FLAG
  const rand = rng(seed)
  const int = (n: number) => Math.floor(rand() * n)
  const port = await freeUdpPort()
  const file = join(tmpdir(), `gamewire-enet-live-${process.pid}-${port}.pcapng`)
  const stop = await startTshark(`udp port ${port}`, file)
  const received: Session['received'] = []
  const sent: Sent[] = []
  let server: any
  let client: any
  try {
    server = await new Promise((resolve, reject) =>
      enet.createServer({ address: { address: '127.0.0.1', port }, peers: 4, channels: 4, down: 0, up: 0 }, (err, host) => (err ? reject(err) : resolve(host)))
    )
    if (opts.compression) server.enableCompression()
    let serverPeer: any
    server.on('connect', (peer: any) => {
      serverPeer = peer
      peer.on('message', (packet: any, channel: number) => received.push({ to: 'server', channel, bytes: Buffer.from(packet.data()) }))
    })
    server.start(2)
    client = await new Promise((resolve, reject) =>
      enet.createClient({ peers: 1, channels: 4, down: 0, up: 0 }, (err, host) => (err ? reject(err) : resolve(host)))
    )
    if (opts.compression) client.enableCompression()
    const clientPeer: any = await new Promise((resolve, reject) =>
      client.connect({ address: '127.0.0.1', port }, 4, 0x1234, (err: Error | undefined, peer: any) => (err ? reject(err) : resolve(peer)))
    )
    clientPeer.on('message', (packet: any, channel: number) => received.push({ to: 'client', channel, bytes: Buffer.from(packet.data()) }))
    client.start(2)
    for (let i = 0; i < 200 && !serverPeer; i++) await sleep(10)
    if (!serverPeer) throw new Error('the server never saw the connection')

    const kinds = [
      { kind: 'small reliable', flags: F.RELIABLE, large: false },
      { kind: 'small unreliable', flags: 0, large: false },
      { kind: 'small unsequenced', flags: F.UNSEQUENCED, large: false },
      { kind: 'large reliable', flags: F.RELIABLE, large: true },
      { kind: 'large unreliable fragment', flags: F.UNRELIABLE_FRAGMENT, large: true },
      // ENet sends a large unreliable packet without UNRELIABLE_FRAGMENT as reliable fragments
      { kind: 'large unreliable', flags: 0, large: true }
    ]
    for (let i = 0; i < opts.count; i++) {
      const k = kinds[i < kinds.length ? i : int(kinds.length)]
      const from = rand() < 0.6 ? 'client' : 'server'
      const size = k.large ? FRAGMENT_SIZE + 1 + int(5000) : int(200)
      // A randomised FigNet message; its event data repetitive when compressing.
      // Payloads are matched by their bytes: draw again until this one is new.
      let msg = figNetMessage(int, size, !!opts.compression, from === 'client')
      while (sent.some((x) => x.bytes.equals(Buffer.from(msg.bytes)))) msg = figNetMessage(int, size, !!opts.compression, from === 'client')
      const bytes = Buffer.from(msg.bytes)
      const channel = int(4)
      const fragments = bytes.length > FRAGMENT_SIZE ? Math.ceil(bytes.length / FRAGMENT_SIZE) : 1
      const delivery =
        fragments > 1
          ? k.flags === F.UNRELIABLE_FRAGMENT
            ? 'Unreliable'
            : 'Reliable'
          : k.flags & F.RELIABLE
            ? 'Reliable'
            : k.flags & F.UNSEQUENCED
              ? 'Unsequenced'
              : 'Unreliable'
      sent.push({ from, channel, kind: k.kind, flags: k.flags, bytes, fignet: msg.sent, delivery, fragments })
      ;(from === 'client' ? clientPeer : serverPeer).send(channel, new enet.Packet(bytes, k.flags))
      await sleep(4)
    }
    for (let i = 0; i < 500 && received.length < sent.length; i++) await sleep(10)
    clientPeer.disconnect(0)
    await sleep(300)
    return { file, sent, received, clientPort: client._socket?.address?.().port ?? 0 }
  } finally {
    await stop()
    try {
      client?.destroy()
      server?.destroy()
    } catch {
      /* already closed */
    }
  }
}

const payloadOf = (m: MessageOut) =>
  m.value as { channel: number; delivery?: string; enet: { retransmissionOf?: number; acknowledges?: number; command: string; ackedSeq?: number } }

describe('live: npm enet (ENet 1.3.5) peers on loopback, captured by tshark', () => {
  it('every payload sent on every channel comes out with its delivery, bytes and frames', async () => {
    const seed = Number(process.env.ENET_LIVE_SEED ?? Date.now() % 1_000_000_007)
    console.log(`ENet live test seed: ${seed} (ENET_LIVE_SEED=${seed} repeats it)`)
    const s = await liveSession(seed, { count: 60 })
    try {
      // What the peers received is what was sent (loopback loses nothing); the decoder must see all of it.
      expect(s.received.length, `received ${s.received.length} of ${s.sent.length}`).toBe(s.sent.length)
      const dgs = readUdpDatagrams(s.file)
      const ts = tsharkPayloads(s.file)
      for (const d of dgs) expect(hex(d.payload)).toBe(ts.get(d.frame))
      const run = runTransport(dgs)
      // Side a is the client: it sent the first datagram (CONNECT), and CONNECT told the transport so.
      expect(run.messages[0].name).toBe('CONNECT')
      expect(run.client).toBe('a2b')
      for (const m of run.messages) {
        expect(m.draft.error, `${m.frames} ${m.summary}`).toBeNull()
        expect(
          m.draft.warnings.filter((w) => !/^retransmission|delivered before/.test(w)),
          m.summary
        ).toEqual([])
      }
      const payloads = run.messages.filter((m) => payloadOf(m).delivery)
      expect(payloads.length).toBe(run.carried.delivered.length)
      const byHex = new Map<string, { m: MessageOut; bytes: Uint8Array }[]>()
      payloads.forEach((m, i) => {
        const b = run.carried.delivered[i].bytes
        const list = byHex.get(hex(b)) ?? []
        list.push({ m, bytes: b })
        byHex.set(hex(b), list)
      })
      for (const x of s.sent) {
        const what = `${x.kind} ${x.bytes.length} bytes ch${x.channel} from ${x.from}`
        const found = byHex.get(x.bytes.toString('hex'))?.filter((f) => payloadOf(f.m).enet.retransmissionOf === undefined)
        expect(found?.length, what).toBe(1)
        const m = found![0].m
        expect(m.dir, what).toBe(x.from === 'client' ? 'a2b' : 'b2a')
        expect(payloadOf(m).channel, what).toBe(x.channel)
        expect(payloadOf(m).delivery, what).toBe(x.delivery)
        expect(m.stack).toEqual(['udp', 'enet', 'fignet'])
        expect(m.frames.length, what).toBe(x.fragments)
        // Independently of the decoder: each piece of the payload travels in one of the listed frames.
        const framesHex = m.frames.map((f) => ts.get(f)!)
        for (let off = 0; off < x.bytes.length; off += FRAGMENT_SIZE) {
          const piece = x.bytes.subarray(off, off + FRAGMENT_SIZE).toString('hex')
          expect(framesHex.filter((h) => h.includes(piece)).length, `${what}: piece at ${off}`).toBeGreaterThanOrEqual(1)
        }
      }
      // Every ACK finds the reliable command it acknowledges (the capture starts before CONNECT).
      const acks = run.messages.filter((m) => payloadOf(m).enet?.command === 'ACKNOWLEDGE')
      expect(acks.length).toBeGreaterThan(0)
      for (const a of acks) expect(payloadOf(a).enet.acknowledges, a.summary).toBeDefined()
      expect(run.messages.some((m) => m.name === 'DISCONNECT')).toBe(true)
      expect(run.messages.filter((m) => m.name === 'Incomplete fragmented payload')).toEqual([])

      // Through the whole engine with the real FigNet decoder: every message decodes to what was encoded.
      const full = decodeFile(s.file)
      expect(full.conversations).toHaveLength(1)
      expect(full.conversations[0].stack).toEqual(['udp', 'enet', 'fignet'])
      for (const x of s.sent) {
        const what = `${x.kind} msg ${x.fignet.msgId} ch${x.channel} from ${x.from}`
        const m = full.messages.find(
          (d) =>
            d.sources.some((src) => hex(src.bytes).includes(x.bytes.toString('hex'))) &&
            (d.value as { msgId?: number }).msgId === x.fignet.msgId &&
            !(d.value as { enet?: { retransmissionOf?: number } }).enet?.retransmissionOf
        )
        expect(m, what).toBeDefined()
        expect(m!.error, what).toBeNull()
        expect(m!.direction, what).toBe(x.from === 'client' ? 'c2s' : 's2c')
        const v = JSON.parse(messageText(m!)).value
        expect(v, what).toMatchObject({
          msgId: x.fignet.msgId,
          callbackId: x.fignet.callbackId,
          codec: x.fignet.codec,
          channel: x.channel,
          delivery: x.delivery,
          payload: x.fignet.fields
        })
      }
    } finally {
      rmSync(s.file, { force: true })
    }
  })

  it('with range-coder compression on, compressed datagrams are flagged and nothing is misread', async () => {
    const s = await liveSession(7, { count: 12, compression: true })
    try {
      expect(s.received.length).toBe(s.sent.length)
      const run = runTransport(readUdpDatagrams(s.file))
      const compressed = run.messages.filter((m) => m.name === 'Compressed datagram')
      expect(compressed.length).toBeGreaterThan(0)
      for (const m of compressed) {
        expect(m.draft.warnings.join()).toMatch(/COMPRESSED flag \(bit 14\).*cannot be decoded/)
        expect(m.draft.error).toBeNull()
      }
      for (const m of run.messages) expect(m.draft.error, m.summary).toBeNull()
      // What was not compressed still decodes: every payload seen is one that was sent.
      const sentHex = new Set(s.sent.map((x) => x.bytes.toString('hex')))
      for (const d of run.carried.delivered) expect(sentHex.has(hex(d.bytes))).toBe(true)
    } finally {
      rmSync(s.file, { force: true })
    }
  })
})
