// Photon through the whole engine: Ethernet/IPv4/UDP|TCP frames built by the tests' own encoders
// (udp-encoder.ts, gp-encoder.ts, written from the reference), decoded, and checked message by message:
// names and summaries, typed values, ACK linking, fragments in any order, CRC, the InitEncryption exchange
// with keys made by node:crypto, TCP framing and WebSocket messages, and hostile input.
import { describe, it, expect, beforeEach } from 'vitest'
import { createCipheriv, createDiffieHellman, createHash, getDiffieHellman } from 'node:crypto'
import { resetFrames, udpFrame, tcpFrame, SYN, ACK, PSH } from '../../helpers/frames'
import { checkRanges, find, findAll, keyStore, rangeBytes, runEngine } from '../../helpers/decode'
import { upgradeRequest, upgradeResponse, wsFrame } from '../../helpers/websocket'
import { messageText } from '../../../../src-shared/export/json'
import { rng } from '../../helpers/rng'
import { cmd, command, datagram, initMessage, referenceCrc, splitMessage, T, tcpFrame as photonTcpFrame } from './udp-encoder'
import { eventBody, requestBody, responseBody, pv, type Params, type Version } from './gp-encoder'

const C = '10.0.0.1'
const S = '10.0.0.2'
const CP = 50123
const SP = 5056

const c2s = (b: Uint8Array) => udpFrame(C, CP, S, SP, b)
const s2c = (b: Uint8Array) => udpFrame(S, SP, C, CP, b)
const msg = (type: number, body: Uint8Array, encrypted = false) => Uint8Array.from([0xf3, type | (encrypted ? 0x80 : 0), ...body])
const reliable = (channel: number, seq: number, m: Uint8Array) => command({ type: T.SEND_RELIABLE, channel, seq, body: m })
const dg = (...commands: Uint8Array[]) => datagram({ peerId: 7, commands, sentTime: 1000, challenge: 0x1234 }).bytes

const init = (minor: 6 | 8, app?: string) => initMessage(minor, app)

beforeEach(() => resetFrames())

describe('Photon over UDP', () => {
  function session(ver: Version) {
    const minor = ver === 18 ? 8 : 6
    const raise: Params = [
      [244, pv.byte(22)],
      [245, pv.hash([pv.byte(1), pv.str('x')])],
      [247, pv.byte(5)],
      [246, pv.byte(1)]
    ]
    return [
      c2s(dg(command({ type: T.CONNECT, channel: 255, seq: 1, body: new Uint8Array(32) }))),
      s2c(dg(cmd.ack(255, 1, 1000), command({ type: T.VERIFYCONNECT, channel: 255, seq: 1, body: Uint8Array.from([0, 7, ...new Uint8Array(30)]) }))),
      c2s(dg(cmd.ack(255, 1, 1000), reliable(0, 1, init(minor)))),
      s2c(dg(cmd.ack(0, 1, 1000), reliable(0, 1, Uint8Array.from([0xf3, 0x01, 0x00])))),
      c2s(dg(reliable(0, 2, msg(2, requestBody(ver, 253, raise))))),
      s2c(
        dg(
          cmd.ack(0, 2, 1000),
          reliable(0, 2, msg(3, responseBody(ver, 253, 0, pv.null(), []))),
          reliable(
            0,
            3,
            msg(
              4,
              eventBody(ver, 22, [
                [245, pv.int(9)],
                [254, pv.int(3)]
              ])
            )
          )
        )
      ),
      c2s(dg(cmd.ack(0, 2, 1000), cmd.ack(0, 3, 1000)))
    ]
  }

  for (const ver of [16, 18] as const) {
    it(`decodes a GpBinary ${ver} session: one message per command, names, summaries, ACKs linked`, () => {
      const { messages, conversations } = runEngine(session(ver))
      expect(conversations).toHaveLength(1)
      expect(conversations[0].protocol).toBe('photon')
      expect(conversations[0].stack).toEqual(['udp', 'photon'])
      expect(conversations[0].client).toBe(`${C}:${CP}`)
      const names = messages.map((m) => `${m.direction} ${m.name}`)
      expect(names).toEqual([
        'c2s CONNECT',
        's2c ACK',
        's2c VERIFYCONNECT',
        'c2s ACK',
        'c2s Init',
        's2c ACK',
        's2c InitResponse',
        'c2s RaiseEvent',
        's2c ACK',
        's2c RaiseEvent response',
        `s2c ${'Event 22'}`,
        'c2s ACK',
        'c2s ACK'
      ])
      const raise = messages[7]
      expect(raise.summary).toBe('RaiseEvent code=22 cache=AddToRoomCacheGlobal receivers=All')
      const v = JSON.parse(messageText(raise)).value
      expect(v).toMatchObject({
        signal: 243,
        msgType: 2,
        msgTypeName: 'OperationRequest',
        encrypted: false,
        protocol: `GpBinary${ver}`,
        protocolFrom: 'init',
        channel: 0,
        command: 'SEND_RELIABLE',
        code: 253,
        codeName: 'RaiseEvent'
      })
      // parameters in wire order (in the value and in the export text), typed
      expect([...(raise.value as { parameters: Map<string, unknown> }).parameters.keys()]).toEqual(['244', '245', '247', '246'])
      expect(messageText(raise)).toMatch(/"parameters":\{"244":.*"245":.*"247":.*"246":/)
      expect(v.parameters['245']).toEqual({ type: 'Hashtable', value: [{ key: { type: 'Byte', value: 1 }, value: { type: 'String', value: 'x' } }] })
      // the response is paired with its request, the ACK with the command it acknowledges
      expect(messages[9].value).toMatchObject({ responseTo: raise.frames[0], returnCode: 0, returnCodeName: 'Ok' })
      expect(messages[8].value).toMatchObject({ command: 'ACK', acknowledges: raise.frames[0] })
      expect(messages[8].summary).toMatch(/^ACK ch=0 seq=2 → frame 5 \(1000 ms\)$/)
      expect(messages[10].summary).toBe('Event 22 from actor 3 {245, 254}')
      for (const m of messages) {
        expect(m.error).toBeNull()
        checkRanges(m)
      }
      // field ranges point at the right bytes
      const op = find(raise.tree, 'photon.op.code')
      expect([...rangeBytes(raise.sources, op)]).toEqual([253])
      const p244 = find(raise.tree, 'photon.param.244')
      expect(p244.label).toMatch(/244/)
    })
  }

  it('filter fields select messages by command, message type, codes and parameter values', () => {
    const pick = (filter: string) => {
      resetFrames()
      return runEngine(session(18), undefined, true, filter).messages.map((m) => m.name)
    }
    expect(pick('photon.op.code == 253 && photon.param.244 == 22')).toEqual(['RaiseEvent'])
    expect(pick('photon.param.244 == 23')).toEqual([])
    expect(pick('photon.ev.code == 22')).toEqual(['Event 22'])
    expect(pick('photon.msg.type == 3')).toEqual(['RaiseEvent response'])
    expect(pick('photon.cmd.type == 1 && photon.channel == 255')).toEqual(['ACK', 'ACK'])
    expect(pick('photon.encrypted == true')).toEqual([])
  })

  it('decides the version by trial parse when no Init was captured, and says so', () => {
    const body = eventBody(18, 200, [
      [245, pv.objs(pv.int(-5), pv.long(-1n), pv.bool(true))],
      [254, pv.int(2)]
    ])
    const { messages } = runEngine([s2c(dg(reliable(0, 9, msg(4, body))))])
    expect(messages[0].value).toMatchObject({ protocol: 'GpBinary18', protocolFrom: 'trial', code: 200 })
    expect(find(messages[0].tree, 'photon.msg.version').label).toMatch(/trial parse/)
    expect(messages[0].error).toBeNull()
  })

  it('reassembles fragments delivered in any order, listing every frame', () => {
    const big = msg(4, eventBody(16, 7, [[245, pv.bytes(Array.from({ length: 5000 }, (_, i) => i & 0xff))]]))
    const frags = splitMessage(big, { startSeq: 10, channel: 0 })
    expect(frags.length).toBe(5)
    const rand = rng(7)
    for (let round = 0; round < 4; round++) {
      resetFrames()
      const order = frags.map((f) => f).sort(() => rand() - 0.5)
      const { messages } = runEngine([c2s(dg(reliable(0, 1, init(6)))), ...order.map((f) => s2c(dg(f.command)))])
      const done = messages.filter((m) => m.name === 'Event 7')
      expect(done).toHaveLength(1)
      expect(done[0].frames).toEqual([2, 3, 4, 5, 6])
      expect(done[0].sources.map((s) => s.name)).toContain('Reassembled message')
      const p = (done[0].value as { parameters: Map<string, { value: Uint8Array }> }).parameters.get('245')!
      expect(p.value.length).toBe(5000)
      expect(messages.filter((m) => m.name === 'SEND_FRAGMENT')).toHaveLength(4)
      checkRanges(done[0])
    }
  })

  it('reports a fragmented message that never completes, with its frames', () => {
    const frags = splitMessage(msg(4, eventBody(16, 7, [[245, pv.bytes(new Uint8Array(3000))]])), { startSeq: 4 })
    const { messages } = runEngine([s2c(dg(frags[0].command)), s2c(dg(frags[2].command))])
    const inc = messages.find((m) => m.name === 'Incomplete fragmented message')!
    expect(inc.frames).toEqual([1, 2])
    expect(inc.error).toMatch(/1 of 3 fragments missing \(1\)/)
  })

  it('checks the CRC of 0xCC datagrams: good and bad', () => {
    const m = reliable(0, 1, msg(4, eventBody(16, 1, [])))
    const good = datagram({ peerId: 1, commands: [m], crc: true }).bytes
    const bad = datagram({ peerId: 1, commands: [m], crc: true, crcValue: 0x12345678 }).bytes
    const { messages } = runEngine([s2c(good), s2c(bad)])
    expect(find(messages[0].tree, 'photon.crc_status').value).toBe(1)
    expect(messages[0].warnings.join()).not.toMatch(/CRC/)
    expect(messages[1].warnings.join()).toMatch(/CRC mismatch/)
  })

  it('checks the CRC once per datagram: every command of a good or bad 0xCC datagram says the same', () => {
    // The header is read again for each command's message; the CRC computed on the first read is reused.
    const ms = [1, 2, 3].map((seq) => reliable(0, seq, msg(4, eventBody(16, seq, []))))
    const good = datagram({ peerId: 1, commands: ms, crc: true }).bytes
    const bad = datagram({ peerId: 1, commands: ms, crc: true, crcValue: 0x12345678 }).bytes
    const want = referenceCrc(good).toString(16).padStart(8, '0')
    for (const recording of [true, false]) {
      const { messages } = runEngine([s2c(good), s2c(bad)], undefined, recording)
      expect(messages).toHaveLength(6)
      for (const m of messages.slice(0, 3)) expect(m.warnings.join()).not.toMatch(/CRC/)
      for (const m of messages.slice(3)) expect(m.warnings.join()).toContain(`CRC mismatch: datagram says 0x12345678, computed 0x${want}`)
      if (recording) {
        for (const m of messages.slice(0, 3)) expect(find(m.tree, 'photon.crc_status').value).toBe(1)
        for (const m of messages.slice(3)) {
          expect(find(m.tree, 'photon.crc_status').value).toBe(0)
          expect(find(m.tree, 'photon.crc').label).toContain(`should be 0x${want}`)
        }
      }
    }
  })

  it('gives each command of a datagram its own index values in the index pass (kept from the first read)', () => {
    const cmds = [
      reliable(0, 1, msg(4, eventBody(16, 1, [[245, pv.int(7)]]))),
      command({ type: T.PING, channel: 3, seq: 9 }),
      reliable(2, 2, msg(4, eventBody(16, 2, [[200, pv.int(1)]])))
    ]
    const d = datagram({ peerId: 1, commands: cmds }).bytes
    const want = [
      { type: T.SEND_RELIABLE, channel: 0 },
      { type: T.PING, channel: 3 },
      { type: T.SEND_RELIABLE, channel: 2 }
    ]
    const trees = runEngine([s2c(d)]).messages
    const rows = runEngine([s2c(d)], undefined, false).messages
    expect(rows).toHaveLength(3)
    const valuesOf = (m: (typeof rows)[number], key: string) => (m.indexed?.keys ?? []).flatMap((k, i) => (k === key ? [m.indexed!.values[i]] : []))
    rows.forEach((m, i) => {
      expect(valuesOf(m, 'photon.cmd.type')).toEqual([want[i].type])
      expect(valuesOf(m, 'photon.channel')).toEqual([want[i].channel])
      expect(find(trees[i].tree, 'photon.cmd.type').value).toBe(want[i].type)
    })
    expect(valuesOf(rows[0], 'photon.key')).toEqual([245])
    expect(valuesOf(rows[2], 'photon.key')).toEqual([200])
  })

  it('marks retransmissions of a reliable command', () => {
    const m = reliable(0, 5, msg(2, requestBody(16, 252, [])))
    const { messages } = runEngine([c2s(dg(reliable(0, 1, init(6)))), c2s(dg(m)), c2s(dg(m))])
    expect(messages[2].value).toMatchObject({ retransmissionOf: 2 })
    expect(messages[2].warnings.join()).toMatch(/retransmission/)
  })

  it('survives hostile datagrams: lengths beyond the datagram, fragment offsets outside the total, counts in the millions', () => {
    const frames = [
      c2s(dg(reliable(0, 1, init(6)))),
      s2c(dg(command({ type: T.SEND_RELIABLE, length: 5000, body: msg(4, eventBody(16, 1, [])) }))),
      s2c(dg(cmd.fragment(0, 1, { startSeq: 1, count: 2, number: 0, totalLength: 10, offset: 8 }, new Uint8Array(5)))),
      s2c(dg(cmd.fragment(0, 3, { startSeq: 3, count: 5_000_000, number: 0, totalLength: 100, offset: 0 }, new Uint8Array(5)))),
      s2c(dg(cmd.fragment(0, 4, { startSeq: 4, count: 2, number: 0, totalLength: 2 ** 31 - 1, offset: 0 }, new Uint8Array(5)))),
      s2c(dg(reliable(0, 9, Uint8Array.from([0xf3, 0x04, 0x01, 0x00, 0x01, 0x02, 0x99])))), // unknown type code
      s2c(Uint8Array.from([0, 1, 0, 200, 0, 0, 0, 0, 0, 0, 0, 0, 6]))
    ]
    const { messages } = runEngine(frames)
    expect(messages.length).toBeGreaterThanOrEqual(frames.length)
    expect(messages[0].name).toBe('Init')
    for (const m of messages.slice(1, 7)) {
      expect(m.error).toMatch(/offset|fragment|unknown/i)
      checkRanges(m)
    }
  })
})

describe('Photon payload encryption (InitEncryption, DH Oakley 768-bit, generator 22)', () => {
  const prime = getDiffieHellman('modp1').getPrime()
  /** `after`: the reliable sequence numbers already used (c2s, s2c) when this exchange follows another; it then has no Init. */
  function keysAndSession(ver: Version, after?: { c2s: number; s2c: number }) {
    const client = createDiffieHellman(prime, Buffer.from([22]))
    const server = createDiffieHellman(prime, Buffer.from([22]))
    client.generateKeys()
    server.generateKeys()
    const secret = client.computeSecret(server.getPublicKey())
    // Photon hashes the minimal big-endian bytes of the secret (node pads to 96).
    let i = 0
    while (i < secret.length - 1 && secret[i] === 0) i++
    const aesKey = createHash('sha256').update(secret.subarray(i)).digest()
    const enc = (body: Uint8Array) => {
      const c = createCipheriv('aes-256-cbc', aesKey, Buffer.alloc(16))
      return Uint8Array.from(Buffer.concat([c.update(body), c.final()]))
    }
    const auth = requestBody(ver, 230, [[221, pv.str('secret-token')]])
    const c = (after?.c2s ?? 0) - (after ? 1 : 0)
    const s = after?.s2c ?? 0
    const frames = [
      ...(after ? [] : [c2s(dg(reliable(0, 1, init(ver === 18 ? 8 : 6))))]),
      c2s(dg(reliable(0, c + 2, msg(6, requestBody(ver, 0, [[1, pv.bytes(client.getPublicKey())]]))))),
      s2c(dg(reliable(0, s + 1, msg(7, responseBody(ver, 0, 0, pv.null(), [[1, pv.bytes(server.getPublicKey())]]))))),
      c2s(dg(reliable(0, c + 3, msg(2, enc(auth), true)))),
      s2c(dg(reliable(0, s + 2, msg(3, responseBody(ver, 230, 0, pv.null(), []), true)))) // flagged but plain
    ]
    return { client, server, secret, aesKey, frames }
  }

  it('derives the key from PHOTON_DH_PRIVATE and the public keys seen; also from PHOTON_SECRET and PHOTON_AES_KEY', () => {
    const { client, server, secret, aesKey, frames } = keysAndSession(16)
    for (const line of [
      `PHOTON_DH_PRIVATE * ${client.getPrivateKey('hex')}`,
      `PHOTON_DH_PRIVATE * ${server.getPrivateKey('hex')}`,
      `PHOTON_SECRET * ${secret.toString('hex')}`,
      `PHOTON_AES_KEY ${C}:${CP}-${S}:${SP} ${aesKey.toString('hex')}`
    ]) {
      resetFrames()
      const { messages } = runEngine(
        frames.map((f) => ({ ...f })),
        keyStore(line)
      )
      const auth = messages.find((m) => m.name === 'Authenticate')!
      expect(auth, line).toBeDefined()
      expect(auth.error).toBeNull()
      expect(auth.value).toMatchObject({ encrypted: true, code: 230 })
      expect((auth.value as { decryptedWith: string }).decryptedWith).toMatch(line.split(' ')[0])
      expect(auth.sources.map((s) => s.name)).toContain('Decrypted body')
      const tok = find(auth.tree, 'photon.param.221')
      expect(Buffer.from(rangeBytes(auth.sources, tok)).toString('latin1')).toContain('secret-token')
      checkRanges(auth)
    }
  })

  it('a second key exchange in the same conversation (public keys of the same lengths) takes the new keys', () => {
    // Two exchanges on one 5-tuple: a client that runs InitEncryption again (or reconnects from the same port).
    // Keys of equal lengths on both: a key cache that compared only lengths would keep the first key.
    const sameLengths = (after?: { c2s: number; s2c: number }) => {
      for (;;) {
        const x = keysAndSession(16, after)
        if (x.client.getPublicKey().length === 96 && x.server.getPublicKey().length === 96) return x
      }
    }
    const first = sameLengths()
    const second = sameLengths({ c2s: 3, s2c: 2 })
    const { messages } = runEngine(
      [...first.frames, ...second.frames],
      keyStore(`PHOTON_DH_PRIVATE * ${first.client.getPrivateKey('hex')}\nPHOTON_DH_PRIVATE * ${second.client.getPrivateKey('hex')}`)
    )
    const auths = messages.filter((m) => m.name === 'Authenticate')
    expect(auths).toHaveLength(2)
    for (const auth of auths) {
      expect(auth.error).toBeNull()
      expect(auth.value).toMatchObject({ encrypted: true, code: 230 })
      expect(Buffer.from(rangeBytes(auth.sources, find(auth.tree, 'photon.param.221'))).toString('latin1')).toContain('secret-token')
    }
  })

  it('without a key shows the message as encrypted with its bytes; a flagged-but-plain body still decodes', () => {
    const { frames } = keysAndSession(18)
    const { messages } = runEngine(frames)
    const enc = messages[3]
    expect(enc.value).toMatchObject({ encrypted: true, msgType: 2 })
    expect((enc.value as { ciphertext: Uint8Array }).ciphertext.length % 16).toBe(0)
    expect(enc.summary).toMatch(/encrypted, \d+ bytes; no key/)
    const plain = messages[4]
    expect(plain.name).toBe('Authenticate response')
    expect(plain.warnings.join()).toMatch(/encrypted flag is set but the body is plain/)
  })
})

describe('Photon over TCP and WebSocket', () => {
  it('frames FB messages split across segments and several per segment, and F0 pings', () => {
    const fb = photonTcpFrame
    const a = fb(init(6))
    const b = fb(
      msg(
        2,
        requestBody(16, 226, [
          [255, pv.str('room-1')],
          [215, pv.byte(1)]
        ])
      )
    )
    const c = fb(msg(4, eventBody(16, 255, [[254, pv.int(1)]])), 1)
    const ping = Uint8Array.from([0xf0, 0, 0, 0, 9])
    const pong = Uint8Array.from([0xf0, 0, 0, 1, 0, 0, 0, 0, 9])
    const stream = Buffer.concat([a, b, ping])
    const P = 4530
    const frames = [
      tcpFrame(C, 40000, S, P, 1000, SYN),
      tcpFrame(S, P, C, 40000, 5000, SYN | ACK),
      tcpFrame(C, 40000, S, P, 1001, PSH | ACK, stream.subarray(0, 20)),
      tcpFrame(C, 40000, S, P, 1021, PSH | ACK, stream.subarray(20)),
      tcpFrame(S, P, C, 40000, 5001, PSH | ACK, Buffer.concat([c, pong]))
    ]
    const { messages, conversations } = runEngine(frames)
    expect(conversations[0].stack).toEqual(['tcp', 'photon'])
    expect(messages.map((m) => m.name)).toEqual(['Init', 'JoinGame', 'Ping', 'Join event', 'Ping reply'])
    expect(messages[0].frames).toEqual([3, 4])
    expect(messages[1].summary).toBe('JoinGame room="room-1" joinMode=CreateIfNotExists')
    expect(messages[3].value).toMatchObject({ channel: 1, reliable: true })
    for (const m of messages) {
      expect(m.error).toBeNull()
      checkRanges(m)
    }
  })

  it('decodes WebSocket binary messages carrying F3 messages', () => {
    const path = '/?libversion=4.1.6.25&sid=30&app=abcdefgh'
    const P = 9090
    const frames = [
      tcpFrame(C, 40001, S, P, 1000, SYN),
      tcpFrame(S, P, C, 40001, 5000, SYN | ACK),
      tcpFrame(C, 40001, S, P, 1001, PSH | ACK, upgradeRequest(path)),
      tcpFrame(S, P, C, 40001, 5001, PSH | ACK, upgradeResponse()),
      tcpFrame(C, 40001, S, P, 1001 + upgradeRequest(path).length, PSH | ACK, wsFrame(init(8), { mask: true })),
      tcpFrame(
        S,
        P,
        C,
        40001,
        5001 + upgradeResponse().length,
        PSH | ACK,
        wsFrame(
          msg(
            4,
            eventBody(18, 226, [
              [227, pv.int(5)],
              [228, pv.int(9)],
              [229, pv.int(1)]
            ])
          )
        )
      )
    ]
    const { messages, conversations } = runEngine(frames)
    expect(conversations[0].stack).toEqual(['tcp', 'websocket', 'photon'])
    const photon = messages.filter((m) => m.protocol === 'photon')
    expect(photon.map((m) => m.name)).toEqual(['Init', 'AppStats event'])
    expect(photon[1].value).toMatchObject({ protocol: 'GpBinary18', protocolFrom: 'init' })
    expect(findAll(photon[1].tree, 'photon.param.228')).toHaveLength(1)
    for (const m of photon) checkRanges(m)
  })
})
