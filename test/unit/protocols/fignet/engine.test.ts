// FigNet through the whole engine: the shared ENet capture (npm enet, vanilla ENet 1.3.5) frame by frame,
// and FigNet over WebSocket to /FigNet built from the test's own encoders: the envelope and its prefixes,
// callback pairing, the security findings, secure-session payloads opened with FIGNET_KEY (sealed by
// node:crypto's ChaCha20-Poly1305, not ours) in each documented layout, and malformed envelopes.
import { describe, it, expect, beforeEach } from 'vitest'
import { createCipheriv, randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { checkRanges, decodeFile, find, keyStore, rangeBytes, runEngine } from '../../helpers/decode'
import { resetFrames, tcpFrame, udpFrame, SYN, ACK, PSH } from '../../helpers/frames'
import { channelId, DELIVERY, packets, socketAddress, splitParts, ticksAt, type Version } from '../litenetlib/encoder'
import { upgradeRequest, upgradeResponse, wsFrame } from '../../helpers/websocket'
import { messageText } from '../../../../src-shared/export/json'
import { BitWriter, MpWriter, writeModel } from './encoders'
import type { DecodedMessage } from '../../../../src-shared/model/types'

const CAPTURE = join(__dirname, '../../../fixtures/enet/enet-fignet-loopback.pcapng')

/** The FigNet envelope: optional prefix, u16 LE message id, flags (bit 7 encrypted, bits 0–6 callback id). */
function envelope(msgId: number, callbackId: number, payload: Uint8Array, o: { encrypted?: boolean; prefix?: number[] } = {}): Uint8Array {
  return Uint8Array.from([...(o.prefix ?? []), msgId & 0xff, msgId >> 8, (o.encrypted ? 0x80 : 0) | callbackId, ...payload])
}

/** RegisterIdentityModel in NetStack BitBuffer form (peer type byte, two ASCII strings). */
function registerIdentity(peerType: number, secret: string, app: string): Uint8Array {
  const w = new BitWriter()
  w.byte(peerType)
  w.string(secret)
  w.string(app)
  return w.toBytes()
}

const C = '10.0.0.1'
const S = '10.0.0.2'
const P = 8085

/** A WebSocket conversation to /FigNet (subprotocol FigNet) carrying the given messages; `times` per message. */
function wsSession(messages: { dir: 'c2s' | 's2c'; bytes: Uint8Array; time?: number }[], path = '/FigNet', protocol = 'FigNet') {
  const req = upgradeRequest(path, '', protocol)
  const res = upgradeResponse('', protocol)
  let cseq = 1001 + req.length
  let sseq = 5001 + res.length
  const frames = [
    tcpFrame(C, 40000, S, P, 1000, SYN),
    tcpFrame(S, P, C, 40000, 5000, SYN | ACK),
    tcpFrame(C, 40000, S, P, 1001, PSH | ACK, req),
    tcpFrame(S, P, C, 40000, 5001, PSH | ACK, res)
  ]
  for (const m of messages) {
    const f = wsFrame(m.bytes, { mask: m.dir === 'c2s' })
    const frame = m.dir === 'c2s' ? tcpFrame(C, 40000, S, P, cseq, PSH | ACK, f) : tcpFrame(S, P, C, 40000, sseq, PSH | ACK, f)
    if (m.time !== undefined) {
      frame.tsSec = 1_700_000_000 + Math.floor(m.time)
      frame.tsNsec = Math.round((m.time % 1) * 1e9)
    }
    frames.push(frame)
    if (m.dir === 'c2s') cseq += f.length
    else sseq += f.length
  }
  return frames
}

const fignet = (ms: DecodedMessage[]) => ms.filter((m) => m.protocol === 'fignet')

beforeEach(() => resetFrames())

describe('the shared ENet capture (npm enet, vanilla ENet 1.3.5)', () => {
  const { messages, conversations, frames } = decodeFile(CAPTURE)

  it('is one FigNet conversation over ENet with the client from the CONNECT, every frame accounted for', () => {
    expect(frames).toBe(35)
    expect(conversations).toHaveLength(1)
    expect(conversations[0]).toMatchObject({
      transport: 'udp',
      client: '127.0.0.1:50463',
      server: '127.0.0.1:17777',
      protocol: 'fignet',
      stack: ['udp', 'enet', 'fignet'],
      frames: 35
    })
    const covered = new Set(messages.flatMap((m) => m.frames))
    expect([...covered].sort((a, b) => a - b)).toEqual(Array.from({ length: 35 }, (_, i) => i + 1))
    for (const m of messages) checkRanges(m)
  })

  it('decodes RegisterIdentity to the contract form, flags the secret sent in clear, pairs the reply by callback id', () => {
    const reg = messages.find((m) => m.frames.includes(5) && m.name === 'RegisterIdentity')!
    expect(reg.direction).toBe('c2s')
    expect(reg.stack).toEqual(['udp', 'enet', 'fignet'])
    expect(reg.summary).toBe('RegisterIdentity #1 peerType=Client app="app"')
    const v = JSON.parse(messageText(reg)).value
    expect(v).toMatchObject({
      magic: null,
      msgId: 60000,
      msgName: 'RegisterIdentity',
      callbackId: 1,
      encrypted: false,
      codec: 'BitBuffer',
      channel: 0,
      delivery: 'Reliable',
      payload: {
        peerType: { type: 'byte', value: 1, name: 'Client' },
        SecretKey: { type: 'string', value: 'secret' },
        AppName: { type: 'string', value: 'app' }
      }
    })
    expect(Object.keys(v.payload)).toEqual(['peerType', 'SecretKey', 'AppName'])
    expect(reg.warnings.join('\n')).toMatch(/security: RegisterIdentity sends the app secret unencrypted over ENet/)
    expect([...rangeBytes(reg.sources, find(reg.tree, 'fignet.msg_id'))]).toEqual([0x60, 0xea])
    const reply = messages.find((m) => m.frames.includes(7) && m.name === 'RegisterIdentity response')!
    expect(reply.direction).toBe('s2c')
    expect(reply.value).toMatchObject({ callbackId: 1, responseTo: 5 })
    // the reply (the server echoes message id and callback id) is named as the response, as Photon's are
    expect(reply.summary).toMatch(/^RegisterIdentity response #1\b/)
    expect(reply.value).toMatchObject({ msgName: 'RegisterIdentity' })
  })

  it('reassembles the 3003-byte reliable message from frames 14–16 and the 2503-byte unreliable one from 26–27', () => {
    const big = messages.find((m) => (m.value as { msgId?: number }).msgId === 60300)!
    expect(big.frames).toEqual([14, 15, 16])
    expect(big.sources.find((s) => s.bytes.length === 3003)).toBeTruthy()
    expect(big.value).toMatchObject({ msgName: 'CreateRoom', channel: 0, callbackId: 2 })
    const unrel = messages.find((m) => (m.value as { msgId?: number }).msgId === 60400)!
    expect(unrel.frames).toEqual([26, 27])
    expect(unrel.sources.find((s) => s.bytes.length === 2503)).toBeTruthy()
    expect(unrel.value).toMatchObject({ channel: 3 })
  })

  it('links the three ACKs of frame 17 to the fragments they acknowledge', () => {
    const acks = messages.filter((m) => m.frames.length === 1 && m.frames[0] === 17)
    expect(
      acks.map((m) => (m.value as { enet?: { acknowledges?: number } }).enet?.acknowledges ?? (m.value as { acknowledges?: number }).acknowledges)
    ).toEqual([14, 15, 16])
  })
})

describe('FigNet over LiteNetLib, through the engine', () => {
  for (const version of ['0.9', '1.x', '2.x'] as const satisfies readonly Version[]) {
    it(`LiteNetLib ${version}: found by the ConnectRequest; channel and delivery from the channel id; fragments joined`, () => {
      const p = packets(version)
      const big = envelope(
        60406,
        0,
        writeModel(new MpWriter(), 'RoomEventData', {
          RoomId: 1,
          EventId: 9,
          DeliveryMethod: 1,
          Tag: 0,
          IsCached: false,
          UniqueId: 5,
          Data: Array.from({ length: 3000 }, (_, i) => i & 0xff)
        }).done()
      )
      const parts = splitParts(big, 1200)
      const c2s = (b: Uint8Array) => udpFrame(C, 50000, S, 9050, b)
      const s2c = (b: Uint8Array) => udpFrame(S, 9050, C, 50000, b)
      const t = ticksAt(1_700_000_000)
      const frames = [
        c2s(p.connectRequest({ connectionTime: t, address: socketAddress(S, 9050) })),
        s2c(p.connectAccept({ connectionTime: t, connectionNumber: 0 })),
        c2s(p.channeled(1, channelId(0, DELIVERY.ReliableOrdered), envelope(60000, 1, registerIdentity(1, 'k', 'a')))),
        s2c(p.channeled(1, channelId(0, DELIVERY.ReliableOrdered), envelope(60000, 1, registerIdentity(0, '', '')))),
        ...parts.map((d, i) => s2c(p.fragment(2 + i, channelId(2, DELIVERY.ReliableUnordered), 7, i, parts.length, d))).reverse(),
        c2s(p.unreliable(envelope(60002, 0, Uint8Array.from([1, 1]))))
      ]
      const { messages, conversations } = runEngine(frames)
      expect(conversations[0]).toMatchObject({ protocol: 'fignet', stack: ['udp', 'litenetlib', 'fignet'], client: `${C}:50000` })
      const fn = messages.filter((m) => (m.value as { msgId?: number }).msgId !== undefined)
      expect(fn.map((m) => `${m.direction} ${m.name}`)).toEqual(['c2s RegisterIdentity', 's2c RegisterIdentity response', 's2c RoomEvent', 'c2s Ping'])
      expect(fn[0].value).toMatchObject({ channel: 0, delivery: 'ReliableOrdered', callbackId: 1 })
      expect(fn[1].value).toMatchObject({ responseTo: fn[0].frames[0] })
      expect(fn[2].value).toMatchObject({ channel: 2, delivery: 'ReliableUnordered', codec: 'MemoryPack', payload: { EventId: { value: 9 } } })
      expect(fn[2].frames).toHaveLength(parts.length)
      expect(fn[3].value).toMatchObject({ channel: 0, delivery: 'Unreliable' })
      for (const m of messages) {
        expect(m.error, m.summary).toBeNull()
        checkRanges(m)
      }
    })
  }
})

describe('FigNet over WebSocket to /FigNet', () => {
  it('finds the conversation by path and subprotocol; the prefix-less envelope, callback pairing, fire-and-forget', () => {
    const frames = wsSession([
      { dir: 'c2s', bytes: envelope(60000, 3, registerIdentity(1, 's3cr3t', 'demo')) },
      { dir: 's2c', bytes: envelope(60000, 3, registerIdentity(0, '', '')) },
      { dir: 'c2s', bytes: envelope(60002, 0, Uint8Array.from([0x01, 0x01])) }
    ])
    const { messages, conversations } = runEngine(frames)
    expect(conversations[0].stack).toEqual(['tcp', 'websocket', 'fignet'])
    const fn = fignet(messages)
    expect(fn.map((m) => `${m.direction} ${m.name}`)).toEqual(['c2s RegisterIdentity', 's2c RegisterIdentity response', 'c2s Ping'])
    expect(fn[0].warnings.join('\n')).toMatch(/unencrypted over WebSocket/)
    expect(fn[1].value).toMatchObject({ callbackId: 3, responseTo: fn[0].frames[0] })
    expect(fn[2].value).toMatchObject({ msgId: 60002, callbackId: 0, payload: { peerType: { type: 'byte', value: 1, name: 'Client' } } })
    for (const m of fn) {
      expect(m.error).toBeNull()
      checkRanges(m)
    }
  })

  it('decodes an Entangle RoomEvent both ways: RoomId is the room on the request and the sender on the event', () => {
    const event = (roomId: number) =>
      writeModel(new MpWriter(), 'RoomEventData', {
        RoomId: roomId,
        EventId: 7,
        DeliveryMethod: 1,
        Tag: 2,
        IsCached: true,
        UniqueId: 99,
        Data: [1, 2, 3]
      }).done()
    const { messages } = runEngine(
      wsSession([
        { dir: 'c2s', bytes: envelope(60000, 1, registerIdentity(1, 'k', 'a')) },
        { dir: 'c2s', bytes: envelope(60406, 0, event(12)) },
        { dir: 's2c', bytes: envelope(60406, 0, event(3)) }
      ])
    )
    const [, req, ev] = fignet(messages)
    expect(req.value).toMatchObject({
      msgName: 'RoomEvent',
      codec: 'MemoryPack',
      payload: { RoomId: { type: 'uint', value: 12 }, EventId: { type: 'byte', value: 7 }, IsCached: { type: 'bool', value: true } }
    })
    expect(ev.summary).toBe('RoomEvent ev=7 cached tag=2 from player 3')
    expect(find(ev.tree, 'entangle.room_id').label).toMatch(/sender/)
    for (const m of [req, ev]) {
      expect(m.error).toBeNull()
      checkRanges(m)
    }
  })

  it('reads the 0xC0DE magic prefix (EnableCheckSum) and the 4-byte hash prefix of older builds', () => {
    const magic = runEngine(wsSession([{ dir: 'c2s', bytes: envelope(60002, 0, Uint8Array.from([1, 1]), { prefix: [0xde, 0xc0] }) }]))
    const m = fignet(magic.messages)[0]
    expect(m.value).toMatchObject({ magic: 0xc0de, msgId: 60002 })
    expect([...rangeBytes(m.sources, find(m.tree, 'fignet.magic'))]).toEqual([0xde, 0xc0])
    resetFrames()
    const hashed = runEngine(wsSession([{ dir: 'c2s', bytes: envelope(60002, 0, Uint8Array.from([1, 1]), { prefix: [0x11, 0x22, 0x33, 0x44] }) }]))
    const h = fignet(hashed.messages)[0]
    expect(h.value).toMatchObject({ magic: null, msgId: 60002 })
    expect(find(h.tree, 'fignet.hash').value).toBe(0x44332211)
    expect(h.warnings.join('\n')).toMatch(/4-byte prefix/)
  })

  it('notes a peer that registers more than 5 s after connecting, and one that never registers', () => {
    const late = runEngine(
      wsSession([
        { dir: 'c2s', bytes: envelope(60002, 0, Uint8Array.from([1, 1])), time: 1000 },
        { dir: 'c2s', bytes: envelope(60000, 1, registerIdentity(1, 'k', 'a')), time: 1006.5 }
      ])
    )
    expect(fignet(late.messages)[1].warnings.join('\n')).toMatch(/registered 6\.5 s after connecting/)
    expect(late.conversations[0].notes.join('\n')).toMatch(/within about 5 s/)
    resetFrames()
    const never = runEngine(wsSession([{ dir: 'c2s', bytes: envelope(60002, 0, Uint8Array.from([1, 1])) }]))
    expect(never.conversations[0].notes.join('\n')).toMatch(/no RegisterIdentity/)
  })

  it('gives malformed envelopes an error with the offset and keeps what was read', () => {
    const { messages } = runEngine(
      wsSession(
        [
          { dir: 'c2s', bytes: Uint8Array.from([0x60]) },
          { dir: 'c2s', bytes: Uint8Array.from([0x60, 0xea]) },
          { dir: 'c2s', bytes: envelope(60002, 0, Uint8Array.from([1, 1])) }
        ],
        '/FigNet'
      )
    )
    const fn = fignet(messages)
    expect(fn).toHaveLength(3)
    expect(fn[0].error).toMatch(/offset 0/)
    expect(fn[1].error).toMatch(/offset 2/)
    expect(find(fn[1].tree, 'fignet.msg_id').value).toBe(60000)
    expect(fn[2].error).toBeNull()
  })
})

describe('secure-session payloads with FIGNET_KEY', () => {
  const key = randomBytes(32)
  const plain = registerIdentity(1, 'topsecret', 'game')

  /** Seals `plain` with node:crypto in the given layout. */
  function seal(layout: 'nonce12-aad' | 'nonce12' | 'counter-aad' | 'counter', header: Uint8Array): Uint8Array {
    const counter = layout.startsWith('counter')
    const prefix = counter ? Uint8Array.from([7, 0, 0, 0, 0, 0, 0, 0]) : randomBytes(12)
    const nonce = counter ? Uint8Array.from([0, 0, 0, 0, ...prefix]) : prefix
    const c = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 })
    if (layout.endsWith('aad')) c.setAAD(header, { plaintextLength: plain.length })
    const body = Buffer.concat([c.update(plain), c.final()])
    return Uint8Array.from([...prefix, ...body, ...c.getAuthTag()])
  }

  for (const [layout, name] of [
    ['nonce12-aad', '12-byte nonce + ciphertext + tag, header as associated data'],
    ['nonce12', '12-byte nonce + ciphertext + tag, no associated data'],
    ['counter-aad', '8-byte LE counter nonce + ciphertext + tag, header as associated data'],
    ['counter', '8-byte LE counter nonce + ciphertext + tag, no associated data']
  ] as const) {
    it(`opens the layout "${name}" and says so; the plaintext is its own source`, () => {
      const header = Uint8Array.from([0x60, 0xea, 0x80 | 4])
      const msg = Uint8Array.from([...header, ...seal(layout, header)])
      const keys = keyStore(`FIGNET_KEY * c2s ${key.toString('hex')}\n`)
      const { messages } = runEngine(wsSession([{ dir: 'c2s', bytes: msg }]), keys)
      const m = fignet(messages)[0]
      expect(m.error).toBeNull()
      expect(m.value).toMatchObject({
        encrypted: true,
        callbackId: 4,
        codec: 'BitBuffer',
        payload: { SecretKey: { value: 'topsecret' }, AppName: { value: 'game' } }
      })
      expect(find(m.tree, 'fignet.crypto_layout').value).toBe(name)
      expect(m.sources.map((s) => s.name)).toContain('Decrypted payload')
      expect(find(m.tree, 'fignet.decrypted').length).toBe(plain.length)
      resetFrames()
      expect(runEngine(wsSession([{ dir: 'c2s', bytes: msg }]), keys, true, 'fignet.encrypted == true && !fignet.decrypted').messages).toHaveLength(0)
      // encrypted: the secret did not cross the wire in clear
      expect(m.warnings.join('\n')).not.toMatch(/security:/)
      checkRanges(m)
    })
  }

  it('without a key, or with the wrong key or direction, shows the payload as encrypted bytes', () => {
    const header = Uint8Array.from([0x60, 0xea, 0x80 | 4])
    const msg = Uint8Array.from([...header, ...seal('nonce12-aad', header)])
    for (const keys of [undefined, keyStore(`FIGNET_KEY * both ${randomBytes(32).toString('hex')}\n`), keyStore(`FIGNET_KEY * s2c ${key.toString('hex')}\n`)]) {
      resetFrames()
      const m = fignet(runEngine(wsSession([{ dir: 'c2s', bytes: msg }]), keys).messages)[0]
      expect(m.value).toMatchObject({ encrypted: true, codec: 'raw', payload: null })
      expect(find(m.tree, 'fignet.ciphertext').length).toBe(msg.length - 3)
      expect(m.summary).toMatch(/encrypted/)
      resetFrames()
      expect(runEngine(wsSession([{ dir: 'c2s', bytes: msg }]), keys, true, 'fignet.encrypted == true && !fignet.decrypted').messages).toHaveLength(1)
    }
  })
})
