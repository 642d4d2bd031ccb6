// Client and server from the best evidence (README, Conversations and roles): a handshake, message
// semantics, a well-known server port, only then the first packet; revised when better evidence comes, with
// every message already decoded coming out with the final roles. Captures are built with the protocols'
// test encoders and start mid-session, as real captures often do.
import { beforeEach, describe, expect, it } from 'vitest'
import { resetFrames, tcpFrame, udpFrame, ACK, PSH, SYN } from '../helpers/frames'
import { runEngine } from '../helpers/decode'
import type { CaptureFrame } from '../../../src-shared/capture/types'
import type { DecodedMessage } from '../../../src-shared/model/types'
import { cmd, command, datagram, T, tcpFrame as photonTcpFrame } from '../protocols/photon/udp-encoder'
import { eventBody, requestBody, responseBody, pv } from '../protocols/photon/gp-encoder'
import { ack, connect, datagram as enetDatagram, envelope, ping, reliable as enetReliable, verifyConnect } from '../protocols/enet/encoder'
import { HOLD_INPUTS } from '../../../src-shared/engine/conversation'

const C = '10.0.0.1'
const S = '10.0.0.2'
const CP = 50123

const msg = (type: number, body: Uint8Array) => Uint8Array.from([0xf3, type, ...body])
const reliable = (seq: number, m: Uint8Array) => command({ type: T.SEND_RELIABLE, channel: 0, seq, body: m })
const dg = (...commands: Uint8Array[]) => datagram({ peerId: 7, commands, sentTime: 1000, challenge: 0x1234 }).bytes
const event = (n: number) => msg(4, eventBody(18, 22, [[245, pv.int(n)]]))
const request = () => msg(2, requestBody(18, 253, [[244, pv.byte(22)]]))
const response = () => msg(3, responseBody(18, 253, 0, pv.null(), []))

/** Every message's direction and name, and the conversation's roles, at both decoding depths (they must agree). */
function decode(frames: () => CaptureFrame[]) {
  resetFrames()
  const full = runEngine(frames(), undefined, true)
  resetFrames()
  const rows = runEngine(frames(), undefined, false)
  const seen = (ms: DecodedMessage[]) => ms.map((m) => `${m.direction} ${m.name}`)
  expect(seen(rows.messages)).toEqual(seen(full.messages))
  expect(rows.conversations).toEqual(full.conversations)
  return { ...full, seen: seen(full.messages) }
}

beforeEach(() => resetFrames())

describe('Photon over UDP joined mid-session', () => {
  const SP = 5056
  const c2s = (b: Uint8Array) => udpFrame(C, CP, S, SP, b)
  const s2c = (b: Uint8Array) => udpFrame(S, SP, C, CP, b)

  it('takes the game-server port as the server when nothing else tells, even though the server spoke first', () => {
    const { conversations, seen } = decode(() => [s2c(dg(cmd.ack(0, 4, 900))), c2s(dg(cmd.ack(0, 9, 901))), s2c(dg(cmd.ack(0, 5, 902)))])
    expect(conversations[0]).toMatchObject({ client: `${C}:${CP}`, server: `${S}:${SP}`, roleFrom: 'port' })
    expect(seen).toEqual(['s2c ACK', 'c2s ACK', 's2c ACK'])
  })

  it('then lets an event (only a server sends one) decide, agreeing with the port', () => {
    const { conversations, seen } = decode(() => [s2c(dg(cmd.ack(0, 4, 900))), c2s(dg(cmd.ack(0, 9, 901))), s2c(dg(reliable(5, event(1))))])
    expect(conversations[0]).toMatchObject({ client: `${C}:${CP}`, server: `${S}:${SP}`, roleFrom: 'semantics' })
    expect(seen).toEqual(['s2c ACK', 'c2s ACK', 's2c Event 22'])
  })

  it('lets semantics overrule the port: a client OperationRequest from the 5056 side swaps the roles', () => {
    // A client bound to 5056 talking to a server on an ordinary port: the port's guess is wrong.
    const { conversations, seen, messages } = decode(() => [s2c(dg(cmd.ack(0, 4, 900))), c2s(dg(reliable(6, response()))), s2c(dg(reliable(5, request())))])
    expect(conversations[0]).toMatchObject({ client: `${S}:${SP}`, server: `${C}:${CP}`, roleFrom: 'semantics' })
    expect(seen).toEqual(['c2s ACK', 's2c RaiseEvent response', 'c2s RaiseEvent'])
    expect(messages.map((m) => m.id)).toEqual([1, 2, 3])
  })
})

describe('Photon over UDP on a port with no meaning', () => {
  const SP = 7000
  const c2s = (b: Uint8Array) => udpFrame(C, CP, S, SP, b)
  const s2c = (b: Uint8Array) => udpFrame(S, SP, C, CP, b)

  it("is only the first packet's guess (a2b/b2a) while nothing tells", () => {
    const { conversations, seen } = decode(() => [s2c(dg(cmd.ack(0, 4, 900))), c2s(dg(cmd.ack(0, 9, 901)))])
    expect(conversations[0]).toMatchObject({ client: `${S}:${SP}`, server: `${C}:${CP}`, roleFrom: 'first-packet' })
    expect(seen).toEqual(['a2b ACK', 'b2a ACK'])
  })

  it("revises the first packet's guess when a client OperationRequest appears, for the messages before it too", () => {
    const { conversations, seen } = decode(() => [
      s2c(dg(cmd.ack(0, 4, 900))),
      s2c(dg(cmd.ack(0, 5, 901))),
      c2s(dg(cmd.ack(0, 9, 902), reliable(10, request()))),
      s2c(dg(cmd.ack(0, 10, 903), reliable(6, response()))),
      c2s(dg(cmd.ack(0, 6, 904)))
    ])
    expect(conversations[0]).toMatchObject({ client: `${C}:${CP}`, server: `${S}:${SP}`, roleFrom: 'semantics' })
    expect(seen).toEqual(['s2c ACK', 's2c ACK', 'c2s ACK', 'c2s RaiseEvent', 's2c ACK', 's2c RaiseEvent response', 'c2s ACK'])
  })

  it('keeps the roles the first packet gave once the hold limit passed', () => {
    const { conversations, seen } = decode(() => [
      ...Array.from({ length: HOLD_INPUTS }, (_, i) => s2c(dg(cmd.ack(0, i + 1, 900)))),
      c2s(dg(reliable(1, request())))
    ])
    expect(conversations[0]).toMatchObject({ client: `${S}:${SP}`, roleFrom: 'first-packet' })
    expect(seen.slice(-2)).toEqual(['a2b ACK', 'b2a RaiseEvent'])
  })

  it('comes out in the same order, ids and directions when only this conversation is replayed (the detail view)', () => {
    const other = () => udpFrame('10.9.9.9', 53, '10.9.9.8', 5353, 'not a game')
    const frames = () => [s2c(dg(cmd.ack(0, 4, 900))), other(), c2s(dg(reliable(10, request()))), other()]
    resetFrames()
    const all = runEngine(frames())
    resetFrames()
    const alone = runEngine(frames().filter((f) => f.number === 1 || f.number === 3))
    const photon = all.messages.filter((m) => m.protocol === 'photon')
    expect(photon.map((m) => `${m.direction} ${m.name}`)).toEqual(alone.messages.map((m) => `${m.direction} ${m.name}`))
    expect(photon.map((m) => m.direction)).toEqual(['s2c', 'c2s'])
    // The other conversation's datagram (frame 2) came out before the held ACK of frame 1.
    expect(all.messages.map((m) => m.frames[0])).toEqual([2, 1, 3, 4])
  })
})

describe('Photon over TCP seen without its SYN', () => {
  const SP = 7001
  const c2s = (seq: number, b: Uint8Array) => tcpFrame(C, CP, S, SP, seq, ACK | PSH, b)
  const s2c = (seq: number, b: Uint8Array) => tcpFrame(S, SP, C, CP, seq, ACK | PSH, b)
  // A server's ping reply is 9 bytes, a client's ping 5 (docs/photon.md): framing depends on the roles.
  const pingReply = Uint8Array.from([0xf0, 0, 0, 0x10, 0, 0, 0, 0x20, 0])
  const raw = photonTcpFrame(msg(9, Uint8Array.from([1, 2, 3])))

  it("frames the server's ping reply again with the right roles once the client's request shows them", () => {
    const first = new Uint8Array([...raw, ...pingReply])
    const { conversations, seen, messages } = decode(() => [
      s2c(5000, first),
      c2s(100, photonTcpFrame(request())),
      s2c(5000 + first.length, photonTcpFrame(response()))
    ])
    expect(conversations[0]).toMatchObject({ client: `${C}:${CP}`, server: `${S}:${SP}`, roleFrom: 'semantics' })
    expect(seen).toEqual(['s2c RawMessage', 's2c Ping reply', 'c2s RaiseEvent', 's2c RaiseEvent response'])
    expect(messages.every((m) => m.error === null)).toBe(true)
  })

  it('takes the SYN as the handshake over anything else', () => {
    const { conversations, seen } = decode(() => [
      tcpFrame(C, CP, S, SP, 99, SYN),
      tcpFrame(S, SP, C, CP, 4999, SYN | ACK),
      // the server's request-looking frame cannot overrule the handshake
      s2c(5000, photonTcpFrame(request()))
    ])
    expect(conversations[0]).toMatchObject({ client: `${C}:${CP}`, roleFrom: 'handshake' })
    expect(seen).toEqual(['s2c RaiseEvent'])
  })
})

describe('FigNet over ENet', () => {
  const SP = 7777
  const h = (peerId: number) => ({ variant: 'csharp' as const, peerId, sentTime: 100 })

  it("swaps the first packet's guess when the CONNECT appears (handshake)", () => {
    const c2s = (b: Uint8Array) => udpFrame(C, CP, S, SP, b)
    const s2c = (b: Uint8Array) => udpFrame(S, SP, C, CP, b)
    const { conversations, seen } = decode(() => [
      s2c(enetDatagram(h(3), [ping(4)])),
      c2s(enetDatagram(h(0xfff), [connect({ connectId: 77, mtu: 1280, channels: 2 })])),
      s2c(enetDatagram(h(0), [verifyConnect({ connectId: 77, mtu: 1280, channels: 2, outgoingPeerId: 3 })])),
      c2s(enetDatagram(h(3), [ack(0xff, 1, 100), enetReliable(0, 1, envelope(60002, 0, [9]))]))
    ])
    expect(conversations[0]).toMatchObject({ protocol: 'fignet', client: `${C}:${CP}`, server: `${S}:${SP}`, roleFrom: 'handshake' })
    expect(seen).toEqual(['s2c PING', 'c2s CONNECT', 's2c VERIFY_CONNECT', 'c2s ACKNOWLEDGE', 'c2s Ping'])
  })

  it("believes the CONNECT over a well-known server port on the client's side", () => {
    // The client happens to be bound to 5055 (Photon's master port): the handshake wins.
    const c2s = (b: Uint8Array) => udpFrame(C, 5055, S, SP, b)
    const s2c = (b: Uint8Array) => udpFrame(S, SP, C, 5055, b)
    const { conversations, seen } = decode(() => [
      c2s(enetDatagram(h(0xfff), [connect({ connectId: 78, mtu: 1280, channels: 2 })])),
      s2c(enetDatagram(h(0), [verifyConnect({ connectId: 78, mtu: 1280, channels: 2, outgoingPeerId: 3 })]))
    ])
    expect(conversations[0]).toMatchObject({ client: `${C}:5055`, server: `${S}:${SP}`, roleFrom: 'handshake' })
    expect(seen).toEqual(['c2s CONNECT', 's2c VERIFY_CONNECT'])
  })
})
