// A message's protocol is the top-most protocol decoded in it, as Wireshark labels packets: `enet` or
// `litenetlib` for the transports' own messages (ACKs, pings, connects, fragments still waiting), `fignet`
// only when a FigNet envelope was decoded. The conversation stays `fignet` with the transport in its stack.
// "Decode as enet/litenetlib" runs the transport alone: every payload stays the transport's bytes.
import { beforeEach, describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { DecodeSession } from '../../../../src-shared/engine/session'
import type { DecodeAsRule } from '../../../../src-shared/engine/engine'
import type { CaptureFrame } from '../../../../src-shared/capture/types'
import type { ConversationInfo, DecodedMessage, FieldNode } from '../../../../src-shared/model/types'
import { checkRanges, findAll, rangeBytes } from '../../helpers/decode'
import { resetFrames, udpFrame } from '../../helpers/frames'
import { channelId, DELIVERY, packets, socketAddress, splitParts, ticksAt, type Version } from '../litenetlib/encoder'

const CAPTURE = join(__dirname, '../../../fixtures/enet/enet-fignet-loopback.pcapng')
/** Frames of the capture whose command completes a FigNet payload (docs/fignet.md's frame table). */
const FIGNET_FRAMES = [5, 7, 9, 16, 22, 27, 29]

interface Run {
  messages: DecodedMessage[]
  conversations: ConversationInfo[]
}

function decode(input: string | CaptureFrame[], o: { decodeAs?: DecodeAsRule[]; filter?: string; recording?: boolean } = {}): Run {
  const messages: DecodedMessage[] = []
  const s = new DecodeSession({ decodeAs: o.decodeAs, filter: o.filter, recording: o.recording ?? true, onMessage: (m) => messages.push(m) })
  if (typeof input === 'string') s.push(new Uint8Array(readFileSync(input)))
  else for (const f of input) s.addFrame(f)
  s.end()
  return { messages, conversations: s.engine.conversationList() }
}

const count = (ms: DecodedMessage[]) => {
  const out: Record<string, number> = {}
  for (const m of ms) out[m.protocol] = (out[m.protocol] ?? 0) + 1
  return out
}
const lastFrame = (m: DecodedMessage) => m.frames[m.frames.length - 1]
const keysOf = (nodes: FieldNode[], acc: string[] = []): string[] => {
  for (const n of nodes) {
    acc.push(n.key)
    keysOf(n.children ?? [], acc)
  }
  return acc
}

describe('the real ENet capture (npm enet, FigNet envelopes inside)', () => {
  const full = decode(CAPTURE)

  it('labels the 31 transport-only messages enet and the 7 FigNet payloads fignet', () => {
    expect(full.messages).toHaveLength(38)
    expect(count(full.messages)).toEqual({ enet: 31, fignet: 7 })
    expect(full.messages.filter((m) => m.protocol === 'fignet').map(lastFrame)).toEqual(FIGNET_FRAMES)
    for (const m of full.messages) {
      if (m.protocol === 'enet') {
        expect(m.stack, m.summary).toEqual(['udp', 'enet'])
        expect(findAll(m.tree, 'fignet.msg_id')).toEqual([])
      } else {
        expect(m.stack).toEqual(['udp', 'enet', 'fignet'])
        expect(findAll(m.tree, 'fignet.msg_id')).toHaveLength(1)
      }
    }
    // the ACKs, PINGs and the fragments still waiting are among the enet ones
    const enetNames = new Set(full.messages.filter((m) => m.protocol === 'enet').map((m) => m.name))
    expect([...enetNames].sort()).toEqual([
      'ACKNOWLEDGE',
      'BANDWIDTH_LIMIT',
      'CONNECT',
      'DISCONNECT',
      'PING',
      'SEND_FRAGMENT',
      'SEND_UNRELIABLE_FRAGMENT',
      'VERIFY_CONNECT'
    ])
  })

  it('keeps the conversation fignet over ENet', () => {
    expect(full.conversations).toHaveLength(1)
    expect(full.conversations[0]).toMatchObject({ protocol: 'fignet', stack: ['udp', 'enet', 'fignet'] })
  })

  it('gives the same protocols in the tree-less pass', () => {
    const rows = decode(CAPTURE, { recording: false })
    expect(rows.messages.map((m) => m.protocol)).toEqual(full.messages.map((m) => m.protocol))
  })

  it('filters by protocol as the column shows it', () => {
    expect(decode(CAPTURE, { filter: 'gamewire.protocol == enet' }).messages).toHaveLength(31)
    expect(decode(CAPTURE, { filter: 'gamewire.protocol == "fignet"' }).messages).toHaveLength(7)
    expect(decode(CAPTURE, { filter: 'fignet' }).messages.map(lastFrame)).toEqual(FIGNET_FRAMES)
    // every message has the ENet layer
    expect(decode(CAPTURE, { filter: 'enet' }).messages).toHaveLength(38)
    expect(decode(CAPTURE, { filter: 'enet && !fignet' }).messages).toHaveLength(31)
  })

  it('decodes as enet: the transport alone, each payload as ENet data', () => {
    const forced = decode(CAPTURE, { decodeAs: [{ match: '127.0.0.1:17777', protocol: 'enet' }] })
    expect(forced.conversations[0]).toMatchObject({ protocol: 'enet', stack: ['udp', 'enet'], client: '127.0.0.1:50463', notes: ['decoded as ENet (forced)'] })
    expect(forced.messages).toHaveLength(38)
    expect(count(forced.messages)).toEqual({ enet: 38 })
    for (const m of forced.messages) {
      expect(m.stack).toEqual(['udp', 'enet'])
      expect(keysOf(m.tree).filter((k) => /^(fignet|entangle)\./.test(k))).toEqual([])
      expect(m.error).toBeNull()
      checkRanges(m)
    }
    const payloads = forced.messages.filter((m) => (m.value as { delivery?: string }).delivery !== undefined)
    expect(payloads.map(lastFrame)).toEqual(FIGNET_FRAMES)
    // frame 5: RegisterIdentity's envelope starts with message id 60000 (60 ea), shown as the command's data
    const reg = payloads[0]
    expect(reg).toMatchObject({ name: 'SEND_RELIABLE', summary: 'SEND_RELIABLE ch0 seq=1: 14 bytes of data' })
    const data = findAll(reg.tree, 'enet.data')
    expect(data).toHaveLength(1)
    expect([...rangeBytes(reg.sources, data[0]).subarray(0, 3)]).toEqual([0x60, 0xea, 0x01])
    // frames 14–16: the 3003-byte payload reassembled, still ENet's
    const big = payloads.find((m) => lastFrame(m) === 16)!
    expect(big.frames).toEqual([14, 15, 16])
    expect(big.summary).toBe('SEND_FRAGMENT ch0 seq=4: 3003 bytes of data, reassembled from frames 14, 15, 16')
    expect(big.sources.some((s) => s.name === 'Reassembled payload' && s.bytes.length === 3003)).toBe(true)
  })
})

describe('LiteNetLib built with the test encoders', () => {
  const C = '10.0.0.1'
  const S = '10.0.0.2'
  const envelope = (msgId: number, callbackId: number, payload: number[]) => Uint8Array.from([msgId & 0xff, msgId >> 8, callbackId, ...payload])
  beforeEach(() => resetFrames())

  function session(version: Version): CaptureFrame[] {
    const p = packets(version)
    const c2s = (b: Uint8Array) => udpFrame(C, 50000, S, 9050, b)
    const s2c = (b: Uint8Array) => udpFrame(S, 9050, C, 50000, b)
    const t = ticksAt(1_700_000_000)
    const ro = channelId(0, DELIVERY.ReliableOrdered)
    const big = envelope(
      60002,
      0,
      Array.from({ length: 1500 }, (_, i) => i & 0xff)
    )
    const parts = splitParts(big, 1000)
    return [
      c2s(p.connectRequest({ connectionTime: t, address: socketAddress(S, 9050) })), // litenetlib
      s2c(p.connectAccept({ connectionTime: t, connectionNumber: 0 })), // litenetlib
      c2s(p.channeled(1, ro, envelope(60002, 0, [1, 1]))), // fignet
      s2c(p.ackWindow(ro, 0, [1])), // litenetlib
      c2s(p.ping(1)), // litenetlib
      s2c(p.pong(1, t)), // litenetlib
      c2s(p.mtu('MtuCheck', 576)), // litenetlib
      c2s(p.fragment(2, ro, 7, 0, 2, parts[0])), // litenetlib: waiting for part 2
      c2s(p.fragment(3, ro, 7, 1, 2, parts[1])), // fignet: completes the envelope
      c2s(p.unreliable(envelope(60002, 0, [1, 1]))), // fignet
      c2s(p.fragment(4, ro, 8, 0, 2, parts[0])), // litenetlib, and at the end an incomplete payload (litenetlib)
      c2s(p.disconnect(t)) // litenetlib
    ]
  }

  for (const version of ['0.9', '1.x', '2.x'] as const) {
    it(`LiteNetLib ${version}: transport packets are litenetlib, payloads with a FigNet envelope fignet`, () => {
      const run = decode(session(version))
      expect(run.conversations).toHaveLength(1)
      expect(run.conversations[0]).toMatchObject({ protocol: 'fignet', stack: ['udp', 'litenetlib', 'fignet'], client: `${C}:50000` })
      expect(count(run.messages)).toEqual({ litenetlib: 10, fignet: 3 })
      expect(run.messages.filter((m) => m.protocol === 'fignet').map(lastFrame)).toEqual([3, 9, 10])
      const names = run.messages.filter((m) => m.protocol === 'litenetlib').map((m) => m.name)
      expect(names).toEqual([
        'ConnectRequest',
        'ConnectAccept',
        'Ack',
        'Ping',
        'Pong',
        'MtuCheck',
        'Fragment',
        'Fragment',
        'Disconnect',
        'Incomplete fragmented payload'
      ])
      for (const m of run.messages) {
        expect(m.stack).toEqual(m.protocol === 'fignet' ? ['udp', 'litenetlib', 'fignet'] : ['udp', 'litenetlib'])
        expect(m.error === null).toBe(m.name !== 'Incomplete fragmented payload')
      }
      expect(decode(session(version), { filter: 'gamewire.protocol == litenetlib' }).messages).toHaveLength(10)
    })

    it(`LiteNetLib ${version}: decode as litenetlib keeps every payload as LiteNetLib bytes`, () => {
      const frames = session(version)
      const run = decode(frames, { decodeAs: [{ match: `${S}:9050`, protocol: 'litenetlib' }] })
      expect(run.conversations[0]).toMatchObject({ protocol: 'litenetlib', stack: ['udp', 'litenetlib'], notes: ['decoded as LiteNetLib (forced)'] })
      expect(count(run.messages)).toEqual({ litenetlib: 13 })
      for (const m of run.messages) {
        expect(keysOf(m.tree).filter((k) => k.startsWith('fignet.'))).toEqual([])
        checkRanges(m)
      }
      const at = (f: number) => run.messages.find((m) => lastFrame(m) === f)!
      const ch = at(3)
      expect(ch).toMatchObject({ name: 'Channeled', summary: 'Channeled ch=0 ReliableOrdered seq=1: 5-byte payload', error: null })
      expect([...rangeBytes(ch.sources, findAll(ch.tree, 'litenetlib.payload')[0])]).toEqual([0x62, 0xea, 0, 1, 1])
      const joined = at(9)
      expect(joined.name).toBe('Fragment')
      expect(joined.frames).toEqual([8, 9])
      expect(joined.sources.find((s) => s.name === 'Reassembled payload')!.bytes.length).toBe(1503)
      expect(at(10)).toMatchObject({ name: 'Unreliable', summary: 'Unreliable ch=0 Unreliable: 5-byte payload' })
    })
  }
})
