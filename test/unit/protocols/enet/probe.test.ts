// probeEnet (the registry's "is this ENet?") on real and built ENet datagrams, on Photon datagrams and on
// random bytes; and the transport on the engine, registered as a module of a test registry (the FigNet
// module proper is registered elsewhere): detection, client side from CONNECT, stacks.
import { describe, it, expect } from 'vitest'
import { join } from 'node:path'
import { readFileSync } from 'node:fs'
import { probeEnet } from '../../../../src-shared/protocols/enet/variant'
import { probePhoton } from '../../../../src-shared/protocols/photon'
import { EnetTransport } from '../../../../src-shared/protocols/enet/decoder'
import { ProtocolRegistry, type ProtocolModule } from '../../../../src-shared/protocols/registry'
import { Engine } from '../../../../src-shared/engine/engine'
import { CaptureReader, type CaptureFrame } from '../../../../src-shared/capture'
import type { DecodedMessage } from '../../../../src-shared/model/types'
import { readUdpDatagrams, RecordingCarried } from './harness'
import { connect, datagram, ping, reliable, ack, envelope } from './encoder'
import { cmd, datagram as photonDatagram } from '../photon/udp-encoder'
import { rng } from '../../helpers/rng'

const FILE = join(__dirname, '../../../fixtures/enet/enet-fignet-loopback.pcapng')

describe('probeEnet', () => {
  it('claims every datagram of the shared capture, CONNECT near certainly', () => {
    const dgs = readUdpDatagrams(FILE)
    const scores = dgs.map((d) => probeEnet(d.payload))
    expect(scores[0]).toBe(95)
    for (const [i, s] of scores.entries()) expect(s, `frame ${dgs[i].frame}`).toBeGreaterThanOrEqual(55)
    // and Photon's probe claims none of them
    for (const d of dgs) expect(probePhoton({ carrier: 'udp', bytes: d.payload, dir: 'a2b', aPort: 50463, bPort: 17777 })).toBe(0)
  })

  it('is sure of a CONNECT whose CRC-64 verifies, and claims ENet-CSharp traffic', () => {
    expect(probeEnet(datagram({ variant: 'csharp', peerId: 0xfff, sentTime: 1, checksum: true }, [connect({ connectId: 3 })]))).toBe(100)
    expect(probeEnet(datagram({ variant: 'csharp', peerId: 0xfff, sentTime: 1 }, [connect({ connectId: 3 })]))).toBe(95)
    expect(probeEnet(datagram({ variant: 'csharp', peerId: 2, sentTime: 1 }, [reliable(0, 1, envelope(60000, 0)), ping(4)]))).toBe(70)
    expect(probeEnet(datagram({ variant: 'csharp', peerId: 2 }, [ack(0, 1, 1)]))).toBe(55)
  })

  it('refuses what an ENet sender would not produce', () => {
    // a reliable command without SENT_TIME
    expect(probeEnet(datagram({ variant: 'vanilla', peerId: 2 }, [reliable(0, 1, envelope(60000, 0))]))).toBe(0)
    // CONNECT from a peer that already has an id
    expect(probeEnet(datagram({ variant: 'vanilla', peerId: 1, sentTime: 1 }, [connect({ connectId: 3 })]))).toBe(0)
    // CONNECT with 0 channels
    expect(probeEnet(datagram({ variant: 'vanilla', peerId: 0xfff, sentTime: 1 }, [connect({ connectId: 3, channels: 0 })]))).toBe(0)
    // PING on a data channel
    const p = ping(2)
    p[1] = 0
    expect(probeEnet(datagram({ variant: 'vanilla', peerId: 1, sentTime: 1 }, [p]))).toBe(0)
  })

  it('does not claim Photon datagrams, and never throws on random bytes', () => {
    const photon = photonDatagram({ peerId: 7, commands: [cmd.connect(), cmd.ping(2)], sentTime: 1000, challenge: 0x1234 }).bytes
    expect(probeEnet(photon)).toBe(0)
    expect(probeEnet(photonDatagram({ peerId: 1, commands: [cmd.reliable(0, 1, Uint8Array.from([0xf3, 2, 0, 0, 0]))] }).bytes)).toBe(0)
    const r = rng(5)
    for (let i = 0; i < 3000; i++) {
      const b = Uint8Array.from({ length: Math.floor(r() * 64) }, () => Math.floor(r() * 256))
      const s = probeEnet(b)
      expect(s >= 0 && s <= 100).toBe(true)
    }
    expect(probeEnet(new Uint8Array(0))).toBe(0)
  })
})

describe('EnetTransport on the engine', () => {
  it('decodes the shared capture as one conversation with the client from CONNECT', () => {
    const module: ProtocolModule = {
      id: 'enet-test',
      name: 'ENet (test)',
      carriers: ['udp'],
      probe: (input) => probeEnet(input.bytes),
      create: (ctx) => new EnetTransport(ctx, new RecordingCarried())
    }
    const registry = new ProtocolRegistry()
    registry.register(module)
    const messages: DecodedMessage[] = []
    const engine = new Engine({ registry, recording: true, onMessage: (m) => messages.push(m) })
    const frames: CaptureFrame[] = []
    const reader = new CaptureReader({ onFrame: (f) => frames.push(f) })
    reader.push(new Uint8Array(readFileSync(FILE)))
    reader.end()
    for (const f of frames) engine.addFrame(f)
    engine.finish()
    const convs = engine.conversationList()
    expect(convs).toHaveLength(1)
    expect(convs[0].client).toBe('127.0.0.1:50463')
    expect(convs[0].server).toBe('127.0.0.1:17777')
    expect(convs[0].roleFrom).toBe('handshake')
    expect(messages).toHaveLength(38)
    const payloads = messages.filter((m) => (m.value as { delivery?: string }).delivery)
    expect(payloads.map((m) => m.direction)).toEqual(['c2s', 's2c', 'c2s', 'c2s', 'c2s', 'c2s', 'c2s'])
    for (const m of payloads) expect(m.stack).toEqual(['udp', 'enet', 'fignet'])
    expect(messages[0].direction).toBe('c2s')
    expect(messages[1].direction).toBe('s2c')
    for (const m of messages) expect(m.error).toBeNull()
  })
})
