// Photon points checked against the reference and the Rec Room field note (docs/photon.md): InitV3 (signal
// 0xF5) and the HTTP-style init decoded as Init and setting the protocol version; a reassembled message
// carrying its start sequence; the server time of the ACK of SERVERTIME and of the TCP ping reply. Every case
// is built with the tests' own encoders (udp-encoder.ts, gp-encoder.ts, init-encoder.ts).
import { describe, it, expect, beforeEach } from 'vitest'
import { resetFrames, udpFrame, tcpFrame, SYN, ACK, PSH } from '../../helpers/frames'
import { checkRanges, find, rangeBytes, runEngine } from '../../helpers/decode'
import { messageText } from '../../../../src-shared/export/json'
import { rng } from '../../helpers/rng'
import { cmd, command, datagram, splitMessage, T, tcpFrame as photonTcpFrame } from './udp-encoder'
import { eventBody, pv, valueBytes } from './gp-encoder'
import { httpInitMessage, initV3Message } from './init-encoder'

const C = '10.0.0.1'
const S = '10.0.0.2'
const CP = 50123
const SP = 5056

const c2s = (b: Uint8Array) => udpFrame(C, CP, S, SP, b)
const s2c = (b: Uint8Array) => udpFrame(S, SP, C, CP, b)
const msg = (type: number, body: Uint8Array) => Uint8Array.from([0xf3, type, ...body])
const reliable = (channel: number, seq: number, m: Uint8Array) => command({ type: T.SEND_RELIABLE, channel, seq, body: m })
const dg = (sentTime: number, ...commands: Uint8Array[]) => datagram({ peerId: 7, commands, sentTime, challenge: 0x1234 }).bytes

// A body that decodes under both protocol versions, so only the Init can decide (Int32 5 = 'i' in 1.6, 0x69 in 1.8 is unknown):
// event 22 with parameter 245 = byte array [1, 2] in 1.6 is 16 00 01 f5 78 00 00 00 02 01 02.
const eventBoth = (ver: 16 | 18) => msg(4, eventBody(ver, 22, [[245, pv.bytes([1, 2])]]))

beforeEach(() => resetFrames())

describe('Photon InitV3 (signal 0xF5)', () => {
  const data18 = pv.dict('Byte', 'Object', [pv.byte(0), pv.str('custom ✓')])

  it('decodes it as an Init with its fields, and takes the protocol version from it', () => {
    const token = Uint8Array.from([0xde, 0xad, 0xbe, 0xef])
    const init = initV3Message({ flags: 2 | 4, protocol: 18, library: [5, 0, 3, 1], sdkByte: 0x1f, appId: 'app-été', token, data: data18 })
    const { messages, conversations } = runEngine([
      c2s(dg(1000, cmd.connect())),
      s2c(dg(2000, cmd.ack(255, 1, 1000), cmd.verifyConnect(7))),
      c2s(dg(1010, reliable(0, 1, init))),
      s2c(dg(2010, reliable(0, 1, eventBoth(18))))
    ])
    expect(conversations[0].client).toBe(`${C}:${CP}`)
    const m = messages.find((x) => x.name === 'Init')!
    expect(m.error).toBeNull()
    expect(m.summary).toBe('Init (V3) protocol 1.8 lib 5.0.3.1 app="app-été"')
    const v = JSON.parse(messageText(m)).value
    expect(v).toMatchObject({
      signal: 0xf5,
      msgType: 0,
      msgTypeName: 'Init',
      protocol: 'GpBinary18',
      command: 'SEND_RELIABLE',
      reliableSeq: 1,
      init: {
        form: 'InitV3',
        protocolVersion: '1.8',
        libraryVersion: '5.0.3.1',
        clientSdkId: 15,
        appId: 'app-été',
        ipv6: true,
        encryption: false,
        flags: 6,
        token: 'deadbeef'
      }
    })
    expect(v.init.data).toEqual({
      type: 'Dictionary',
      keyType: 'Byte',
      valueType: 'Object',
      value: [{ key: { type: 'Byte', value: 0 }, value: { type: 'String', value: 'custom ✓' } }]
    })
    checkRanges(m)
    // Field ranges: the app id's bytes, the token, the flags.
    const app = find(m.tree, 'photon.init.app_id')
    expect(Buffer.from(rangeBytes(m.sources, app)).toString('utf8')).toBe('app-été')
    expect([...rangeBytes(m.sources, find(m.tree, 'photon.init.token'))]).toEqual([...token])
    expect(find(m.tree, 'photon.init.flags').label).toBe('InitV3 flags: 0x0006 (IPv6, release SDK)')
    expect([...rangeBytes(m.sources, find(m.tree, 'photon.init.data'))]).toEqual([...valueBytes(18, data18)])
    // What follows is read as Protocol18 because the Init said so, not by trial.
    const ev = messages[messages.length - 1]
    expect(ev.value).toMatchObject({ protocol: 'GpBinary18', protocolFrom: 'init', code: 22 })
    expect(ev.error).toBeNull()
  })

  it('an InitV3 for Protocol16 sets 1.6 (an empty Dictionary), and filters find it', () => {
    const init = initV3Message({ protocol: 16, appId: 'Master', data: pv.dict('Byte', 'Object') })
    const frames = [c2s(dg(1000, reliable(0, 1, init))), s2c(dg(2000, reliable(0, 1, eventBoth(16))))]
    const { messages } = runEngine(frames)
    expect(messages.map((m) => m.name)).toEqual(['Init', 'Event 22'])
    expect(messages[0].summary).toBe('Init (V3) protocol 1.6 lib 4.1.6.25 app="Master"')
    expect(messages[0].value).toMatchObject({ protocol: 'GpBinary16', init: { flags: 0, ipv6: false, token: new Uint8Array(0) } })
    expect(messages[1].value).toMatchObject({ protocol: 'GpBinary16', protocolFrom: 'init' })
    resetFrames()
    expect(runEngine(frames, undefined, true, 'photon.msg.type == 0 && photon.init.app_id == "Master"').messages.map((m) => m.name)).toEqual(['Init'])
    // The tree-less pass reads the same Init and version.
    resetFrames()
    const fast = runEngine(frames, undefined, false).messages
    expect(messageText(fast[0])).toBe(messageText({ ...messages[0], tree: fast[0].tree }))
    expect(fast[1].value).toMatchObject({ protocol: 'GpBinary16', protocolFrom: 'init' })
  })

  it('a cut-short or unknown-protocol InitV3 keeps what was read and says why', () => {
    const init = initV3Message({ protocol: 18, appId: 'abc', token: new Uint8Array(10), data: data18 })
    const cut = init.subarray(0, 18) // inside the token
    const a = runEngine([c2s(dg(1000, reliable(0, 1, cut)))]).messages[0]
    expect(a.name).toBe('Init')
    // The token starts at byte 16 of the message (F5, flags 2, protocol, library 4, SDK, 0, length, 'abc', token
    // length 2), which is 24 bytes into the datagram (12-byte header, 12-byte command header).
    expect(a.error).toBe(`token: needs 10 bytes at offset ${24 + 16}, only 2 present`)
    expect(find(a.tree, 'photon.init.app_id').value).toBe('abc')
    resetFrames()
    const odd = Uint8Array.from(init)
    odd[3] = 17
    const b = runEngine([c2s(dg(1000, reliable(0, 1, odd)))]).messages[0]
    expect(b.error).toMatch(/^InitV3 protocol byte 17 is neither 16 nor 18/)
    expect(b.value).toMatchObject({ msgType: 0, protocol: null, init: { appId: 'abc', protocolVersion: '17' } })
    expect(b.summary).toBe('Init (V3) protocol 17 lib 4.1.6.25 app="abc"')
  })
})

describe('hostile Init bytes', () => {
  it('every truncation and many mutations of both forms decode to a message, never a throw', () => {
    const samples = [
      initV3Message({
        flags: 2,
        protocol: 18,
        appId: 'app',
        token: Uint8Array.from([1, 2, 3]),
        data: pv.dict('Byte', 'Object', [pv.byte(0), pv.hash([pv.str('k'), pv.ints([1, 2])])])
      }),
      httpInitMessage({ appId: 'app', protocol: 16, token: pv.str('token') }).bytes
    ]
    const rand = rng(19)
    for (const base of samples) {
      const cases: Uint8Array[] = []
      for (let n = 1; n < base.length; n++) cases.push(base.subarray(0, n))
      for (let i = 0; i < 300; i++) {
        const m = Uint8Array.from(base)
        for (let k = 0; k < 3; k++) m[1 + Math.floor(rand() * (m.length - 1))] = Math.floor(rand() * 256)
        cases.push(m)
      }
      for (const c of cases) {
        resetFrames()
        // A CONNECT first, so the conversation is Photon whatever the mutated datagram looks like.
        const { messages } = runEngine([c2s(dg(999, cmd.connect())), c2s(dg(1000, reliable(0, 1, c)))])
        expect(messages).toHaveLength(2)
        const init = c[0] === 0xf5 || Buffer.from(c.subarray(0, 7)).toString('latin1') === 'POST /?'
        if (init) expect(messages[1].name).toBe('Init')
        checkRanges(messages[1])
      }
    }
  })
})

describe('Photon HTTP-style init (POST /?init=&app=…)', () => {
  it('is recognised as an Init over TCP, its query read, the token decoded, the version taken', () => {
    const { bytes, head } = httpInitMessage({ appId: 'my-app', protocol: 18, clientVersion: '4.1.8.3', sdkByte: 30, ipv6: true, token: pv.bytes([9, 8, 7]) })
    const P = 4530
    const stream = Buffer.concat([photonTcpFrame(bytes), photonTcpFrame(eventBoth(18))])
    const { messages, conversations } = runEngine([
      tcpFrame(C, 40000, S, P, 1000, SYN),
      tcpFrame(S, P, C, 40000, 5000, SYN | ACK),
      tcpFrame(C, 40000, S, P, 1001, PSH | ACK, stream)
    ])
    expect(conversations[0].stack).toEqual(['tcp', 'photon'])
    const [init, ev] = messages
    expect(init.name).toBe('Init')
    expect(init.error).toBeNull()
    expect(init.summary).toBe('Init (HTTP) protocol 1.8 lib 4.1.8.3 app="my-app"')
    expect(JSON.parse(messageText(init)).value).toMatchObject({
      msgType: 0,
      protocol: 'GpBinary18',
      init: { form: 'HTTP', appId: 'my-app', libraryVersion: '4.1.8.3', clientSdkId: 15, ipv6: true, token: { type: 'ByteArray', value: '090807' } }
    })
    const app = find(init.tree, 'photon.init.app_id')
    expect(Buffer.from(rangeBytes(init.sources, app)).toString('latin1')).toBe('my-app')
    expect(find(init.tree, 'photon.init.http_request').value).toBe(head)
    checkRanges(init)
    expect(ev.value).toMatchObject({ protocol: 'GpBinary18', protocolFrom: 'init' })
  })

  it('over UDP too (the datagram probe accepts it), and a Content-Length that does not match is an error', () => {
    const { bytes } = httpInitMessage({ appId: 'x', protocol: 16 })
    const ok = runEngine([c2s(dg(1000, reliable(0, 1, bytes)))])
    expect(ok.conversations[0].protocol).toBe('photon')
    expect(ok.messages[0]).toMatchObject({ name: 'Init', summary: 'Init (HTTP) protocol 1.6 lib 4.1.6.25 app="x"', error: null })
    resetFrames()
    const { bytes: withToken } = httpInitMessage({ appId: 'x', protocol: 16, token: pv.str('tok') })
    const bad = runEngine([c2s(dg(1000, reliable(0, 1, withToken.subarray(0, withToken.length - 1))))]).messages[0]
    expect(bad.name).toBe('Init')
    expect(bad.error).toMatch(/^HTTP-style init: Content-Length 6 but 5 bytes follow the headers/)
  })
})

describe('Photon fragments and server time', () => {
  it('a reassembled message reports the start sequence, its fragments their own', () => {
    const big = msg(4, eventBody(16, 7, [[245, pv.bytes(new Uint8Array(3000).fill(5))]]))
    const frags = splitMessage(big, { startSeq: 5, channel: 0 })
    expect(frags.map((f) => f.seq)).toEqual([5, 6, 7])
    const { messages } = runEngine(frags.map((f) => s2c(dg(2000, f.command))))
    expect(messages.map((m) => [m.name, (m.value as { reliableSeq: number }).reliableSeq])).toEqual([
      ['SEND_FRAGMENT', 5],
      ['SEND_FRAGMENT', 6],
      ['Event 7', 5]
    ])
    expect(messages[2].value).toMatchObject({ fragment: { startSeq: 5, number: 2, count: 3 } })
  })

  it("the ACK of the client's SERVERTIME carries the server clock from its datagram's sent time", () => {
    const { messages } = runEngine([c2s(dg(1000, cmd.serverTime(3), cmd.ping(4))), s2c(dg(987654, cmd.ack(255, 3, 1000), cmd.ack(255, 4, 1000)))])
    expect(messages.map((m) => m.name)).toEqual(['SERVERTIME', 'PING', 'ACK', 'ACK'])
    const [, , st, ping] = messages
    expect(st.value).toMatchObject({ command: 'ACK', ackedSeq: 3, serverTime: 987654, acknowledges: 1 })
    expect(st.summary).toBe('ACK ch=255 seq=3 → frame 1 (1000 ms) server time 987654')
    const node = find(st.tree, 'photon.server_time')
    expect(node.value).toBe(987654)
    expect([...rangeBytes(st.sources, node)]).toEqual([0x00, 0x0f, 0x12, 0x06])
    checkRanges(st)
    // The ACK of the PING in the same datagram is not a server time.
    expect((ping.value as { serverTime?: number }).serverTime).toBeUndefined()
    expect(ping.summary).not.toMatch(/server time/)
  })

  it('an ACK from the client, or of a seq on another channel, is not a server time', () => {
    const { messages } = runEngine([c2s(dg(1000, cmd.serverTime(3))), c2s(dg(1001, cmd.ack(255, 3, 5))), s2c(dg(987654, cmd.ack(0, 3, 1000)))])
    for (const m of messages.slice(1)) expect((m.value as { serverTime?: number }).serverTime).toBeUndefined()
  })

  it("the TCP ping reply's server time is in its value and summary", () => {
    const P = 4530
    const ping = Uint8Array.from([0xf0, 0, 0, 0, 9])
    const pong = Uint8Array.from([0xf0, 0x00, 0x0f, 0x12, 0x06, 0, 0, 0, 9])
    const { messages } = runEngine([
      tcpFrame(C, 40000, S, P, 1000, SYN),
      tcpFrame(S, P, C, 40000, 5000, SYN | ACK),
      tcpFrame(
        C,
        40000,
        S,
        P,
        1001,
        PSH | ACK,
        Buffer.concat([photonTcpFrame(initV3Message({ protocol: 16, appId: 'a', data: pv.dict('Byte', 'Object') })), ping])
      ),
      tcpFrame(S, P, C, 40000, 5001, PSH | ACK, pong)
    ])
    expect(messages.map((m) => m.name)).toEqual(['Init', 'Ping', 'Ping reply'])
    expect(messages[1].value).toEqual({ command: 'PING', clientTime: 9 })
    expect(messages[2].value).toEqual({ command: 'PING', serverTime: 987654, clientTime: 9 })
    expect(messages[2].summary).toBe('Ping reply server time 987654 (TCP F0, 9 bytes)')
  })
})
