// SFS2X through the Engine: raw TCP (split and coalesced packets, resync, gaps, end of capture), the
// WebSocket transport with permessage-deflate, and the fake HTTP upgrade preamble of the Last War client.
import { describe, it, expect, beforeEach } from 'vitest'
import zlib from 'node:zlib'
import { resetFrames } from '../../helpers/frames'
import type { Sfs2xValue } from '../../../../src-shared/protocols/sfs2x'
import { probeSfs2x } from '../../../../src-shared/protocols/sfs2x'
import { messageText } from '../../../../src-shared/export/json'
import {
  Conn,
  concat,
  encode,
  envelope,
  ext,
  find,
  loadVectors,
  packet,
  pmd,
  rangeBytes,
  runEngine,
  t,
  unhex,
  upgradeRequest,
  upgradeResponse,
  wsFrame
} from './helpers'

const C = '10.0.0.1'
const S = '10.0.0.2'
const CP = 40000
const SP = 9933

const vectors = loadVectors()
const vec = (name: string) => unhex(vectors.find((v) => v.name === name)!.hex)
const session = vectors.filter((v) => v.name.startsWith('session/'))
const val = (m: { value: unknown }) => m.value as Sfs2xValue

beforeEach(() => resetFrames())

describe('SFS2X over raw TCP', () => {
  it('decodes a session: several packets per segment and packets split across segments', () => {
    const conn = new Conn()
    const c2s = session.filter((v) => v.direction === 'c2s').map((v) => unhex(v.hex))
    const s2c = session.filter((v) => v.direction === 's2c').map((v) => unhex(v.hex))
    // client: handshake + half the login in one segment, the rest of the login with the next two packets
    const allC = concat(...c2s)
    const cut = c2s[0].length + 10
    conn
      .c(allC.subarray(0, cut))
      .s(concat(...s2c.slice(0, 2)))
      .c(allC.subarray(cut))
      .s(concat(...s2c.slice(2)))
    const { messages, conversations } = runEngine(conn.frames)
    expect(conversations).toMatchObject([{ protocol: 'sfs2x', stack: ['tcp', 'sfs2x'], client: `${C}:${CP}`, server: `${S}:${SP}` }])
    expect(messages.every((m) => m.protocol === 'sfs2x' && m.error === null)).toBe(true)
    // in the order the segments arrived
    expect(messages.map((m) => [m.direction, m.summary])).toEqual([
      ['c2s', 'Handshake api=1.8.6 cl=JavaScript'],
      ['s2c', 'HandshakeResponse tk=0f1e2d3c4b5a69788796a5b4c3d2e1f0 ct=1024 ms=500000'],
      ['s2c', 'LoginResponse zone=TestZone user=alice id=7'],
      ['c2s', 'Login zone=TestZone user=alice'],
      ['c2s', 'CallExtension move room=3'],
      ['c2s', 'CallExtension bulk room=-1'],
      ['c2s', 'PingPong'],
      ['c2s', 'Logout'],
      ['s2c', 'ExtensionResponse move'],
      ['s2c', 'ExtensionResponse bulk'],
      ['s2c', 'PingPongResponse'],
      ['s2c', 'LogoutResponse zn=TestZone']
    ])
    // the login was carried by two segments (frames 3 and 5), the handshake by one
    expect(messages[0].frames).toEqual([3])
    expect(messages[3].frames).toEqual([3, 5])
    expect(messages[3].stack).toEqual(['tcp', 'sfs2x'])
    expect(messages[3].sources.map((s) => s.name)).toEqual(['TCP payload'])
    const cmd = find(messages[4].tree, 'sfs2x.cmd')
    expect(Buffer.from(rangeBytes(messages[4].sources, cmd)).toString('latin1')).toBe('\x00\x04move')
  })

  it("exports the contract's JSON value (LONG as a decimal string, BYTE_ARRAY as hex)", () => {
    const body = ext('move', { id: t.long(-9007199254740993n), blob: t.bytes([0, 255]), f: t.float(0.5) })
    const conn = new Conn().c(packet(body, { xor: true, shard: 2 }))
    const { messages } = runEngine(conn.frames)
    const json = JSON.parse(messageText(messages[0]))
    expect(json).toMatchObject({ protocol: 'sfs2x', stack: ['tcp', 'sfs2x'], name: 'CallExtension', summary: 'CallExtension move room=-1', error: null })
    expect(json.value).toEqual({
      header: { byte: 0xc4, binary: true, encrypted: true, compressed: false, blueBoxed: false, bigSized: false, forward: true },
      length: encode(body).length,
      body: {
        type: 'SFS_OBJECT',
        value: {
          c: { type: 'BYTE', value: 1 },
          a: { type: 'SHORT', value: 13 },
          p: {
            type: 'SFS_OBJECT',
            value: {
              c: { type: 'UTF_STRING', value: 'move' },
              r: { type: 'INT', value: -1 },
              p: {
                type: 'SFS_OBJECT',
                value: { id: { type: 'LONG', value: '-9007199254740993' }, blob: { type: 'BYTE_ARRAY', value: '00ff' }, f: { type: 'FLOAT', value: 0.5 } }
              }
            }
          }
        }
      },
      controller: 'Extension',
      action: 'CallExtension',
      command: 'move',
      controllerId: 1,
      actionId: 13,
      shard: 2,
      lengthRule: 'short',
      transforms: ['xor'],
      variant: 'lastwar',
      room: -1
    })
    expect(json.sources.map((s: { name: string }) => s.name)).toEqual(['TCP payload', 'XOR-decoded body'])
    expect(
      json.tree[0].children
        .find((n: { key: string }) => n.key === 'sfs2x.object')
        .children.find((n: { key: string }) => n.key === 'sfs2x.p.p')
        .children.find((n: { key: string }) => n.key === 'sfs2x.p.p.p').children[0]
    ).toMatchObject({ key: 'sfs2x.p.p.p.id', value: '-9007199254740993', source: 1 })
  })

  it('reassembles a 70 KB bigSized packet from 51 segments', () => {
    const big = vec('packet/compressed_big_random')
    const conn = new Conn().c(concat(big, vec('packet/ping_pong')))
    const { messages } = runEngine(conn.frames)
    expect(messages.map((m) => [m.name, m.error, m.frames.length])).toEqual([
      ['CallExtension', null, 51],
      ['PingPong', null, 1]
    ])
    expect(val(messages[0])).toMatchObject({ length: 70078, lengthRule: 'sfs2x', uncompressedLength: 70000 })
  })

  it('detects SFS2X by content on any port, and the Handshake names the client when the SYN was not seen', () => {
    // joined mid-stream on port 7777: the server speaks first, then the client's Handshake
    const conn = new Conn(7777, false).s(vec('session/09_s2c_c0_a29')).c(vec('session/00_c2s_c0_a0')).s(vec('session/01_s2c_c0_a0'))
    const { messages, conversations } = runEngine(conn.frames)
    expect(conversations[0]).toMatchObject({ protocol: 'sfs2x', client: `${C}:${CP}`, server: `${S}:7777`, roleFrom: 'handshake' })
    // the server's PingPong came first, but it waited for the Handshake and leaves with the right direction
    // and, from the server, as the response it is
    expect(messages.map((m) => [m.direction, m.name])).toEqual([
      ['s2c', 'PingPongResponse'],
      ['c2s', 'Handshake'],
      ['s2c', 'HandshakeResponse']
    ])
  })

  it('skips garbage between packets with an error and its offset, and decodes what follows', () => {
    const a = packet(ext('one', {}))
    const b = packet(ext('two', {}))
    const conn = new Conn().c(concat(a, unhex('00112233445566778899'), b, packet(ext('three', {}))))
    const { messages } = runEngine(conn.frames)
    expect(messages.map((m) => [m.name, m.summary, m.error])).toEqual([
      ['CallExtension', 'CallExtension one room=-1', null],
      [
        'Skipped bytes',
        `10 bytes skipped (framing lost at stream offset ${a.length})`,
        `framing lost at stream offset ${a.length}: header byte 0x00 has no binary bit (0x80); 10 bytes skipped up to the next plausible packet header`
      ],
      ['CallExtension', 'CallExtension two room=-1', null],
      ['CallExtension', 'CallExtension three room=-1', null]
    ])
    expect(find(messages[1].tree, 'sfs2x.skipped')).toMatchObject({ start: 0, length: 10 })
  })

  it('an absurd length loses the framing; decoding resumes at the next plausible header', () => {
    const bad = Uint8Array.from([0x88, 0x7f, 0xff, 0xff, 0xff, 1, 2, 3])
    const first = packet(envelope(0, 29))
    const conn = new Conn().c(concat(first, bad, packet(ext('after', {}))))
    const { messages } = runEngine(conn.frames)
    expect(messages.map((m) => [m.name, m.error])).toEqual([
      ['PingPong', null],
      [
        'Skipped bytes',
        `framing lost at stream offset ${first.length}: length 2147483647 is absurd (above 67108864); 8 bytes skipped up to the next plausible packet header`
      ],
      ['CallExtension', null]
    ])
  })

  it('a length that is too long: the SFSObject ends early and the next packet starts there', () => {
    const first = packet(ext('first', { n: t.int(1) }))
    const body = encode(ext('first', { n: t.int(1) }))
    first[2] = body.length + 20 // lie: 20 bytes more than the body
    const conn = new Conn().c(concat(first, packet(ext('second', {})), packet(ext('third', {}))))
    const { messages } = runEngine(conn.frames)
    expect(messages.map((m) => [m.summary, m.error])).toEqual([
      [
        'CallExtension first room=-1',
        `wrong length at offset 1: it says ${body.length + 20} body bytes but the SFSObject ends after ${body.length}, where the next packet starts (offset ${body.length + 3})`
      ],
      ['CallExtension second room=-1', null],
      ['CallExtension third room=-1', null]
    ])
  })

  it('a length that is too short: error with the offset, then resync', () => {
    const first = packet(ext('first', { n: t.int(1) }))
    first[2] -= 6
    const conn = new Conn().c(concat(first, packet(ext('second', {}))))
    const { messages } = runEngine(conn.frames)
    expect(messages[0].error).toMatch(/^SFSObject claims 1 keys but only 2 bytes follow the count at offset \d+$/)
    expect(messages.map((m) => m.name)).toEqual(['CallExtension', 'Skipped bytes', 'CallExtension'])
    expect(messages[2].summary).toBe('CallExtension second room=-1')
  })

  it('a bad tag, a truncated body and a zlib stream that will not inflate each fail alone', () => {
    const badTag = packet(unhex('120002 0001 63 02 01 0001 61 3f 00'))
    const z = Uint8Array.from(zlib.deflateSync(Buffer.from(encode(envelope(0, 29)))))
    const badZ = packet(z.slice(0, z.length - 6), { header: 0xa0 })
    const conn = new Conn().c(concat(badTag, badZ, packet(ext('ok', {}))))
    const { messages } = runEngine(conn.frames)
    // biome-ignore lint/complexity/useOptionalChain: a null error stays null (`?.` would make it undefined)
    expect(messages.map((m) => [m.name, m.error && m.error.replace(/zlib: .*\(/, 'zlib: … (')])).toEqual([
      ['SFS2X packet', 'unknown type tag 63 (0x3f) at offset 14'],
      ['SFS2X packet', 'zlib: … (compressed data at offset 3)'],
      ['CallExtension', null]
    ])
  })

  it('a TCP gap inside a packet: the piece is shown with the error, then decoding resyncs', () => {
    const p1 = packet(ext('one', { s: t.str('x'.repeat(100)) }))
    const p2 = packet(ext('two', {}))
    const conn = new Conn()
      .c(p1.subarray(0, 50))
      .lose(p1.length - 50 + 5)
      .c(concat(p2.subarray(5), packet(ext('three', {}))))
    const { messages } = runEngine(conn.frames)
    expect(messages.map((m) => [m.name, m.error])).toEqual([
      ['CallExtension', `packet at stream offset 0 cut short by a TCP gap: ${p1.length - 50 + 5} bytes missing after its 50 bytes`],
      [
        'Skipped bytes',
        `resynchronising after a TCP gap of ${p1.length - 50 + 5} bytes; ${p2.length - 5} bytes skipped up to the next plausible packet header`
      ],
      ['CallExtension', null]
    ])
    expect(messages[2].summary).toBe('CallExtension three room=-1')
  })

  it('a packet cut off by the end of the capture is shown with what it holds', () => {
    const p = packet(ext('last', { s: t.str('y'.repeat(50)) }))
    const ping = packet(envelope(0, 29))
    const conn = new Conn().c(concat(ping, p.subarray(0, 34)))
    const { messages } = runEngine(conn.frames)
    expect(messages.map((m) => [m.name, m.error])).toEqual([
      ['PingPong', null],
      ['CallExtension', `packet at stream offset ${ping.length} cut short by the end of the capture: 34 of ${p.length} bytes`]
    ])
    expect(val(messages[1]).command).toBe('last')
    // a lone header byte at the very end
    resetFrames()
    const lone = runEngine(new Conn().c(concat(ping, Uint8Array.from([0x80]))).frames).messages
    expect(lone.map((m) => [m.name, m.error])).toEqual([
      ['PingPong', null],
      ['SFS2X packet', `incomplete packet header at stream offset ${ping.length}: the stream ends after 1 bytes`]
    ])
  })

  it('a capture that joins mid-packet: the tail is skipped with an error, the rest decodes', () => {
    const before = packet(ext('before', { s: t.str('x'.repeat(40)) }))
    const conn = new Conn(5555, false).c(concat(before.subarray(25), packet(ext('a', {})), packet(ext('b', {}))))
    const { messages, conversations } = runEngine(conn.frames)
    expect(conversations[0].protocol).toBe('sfs2x')
    expect(messages.map((m) => [m.name, m.error])).toEqual([
      [
        'Skipped bytes',
        `framing lost at stream offset 0: header byte 0x${before[25].toString(16)} has no binary bit (0x80); ${before.length - 25} bytes skipped up to the next plausible packet header`
      ],
      ['CallExtension', null],
      ['CallExtension', null]
    ])
  })

  it('leaves non-SFS2X TCP traffic alone', () => {
    const conn = new Conn(SP).c('GET / HTTP/1.0\r\n\r\n').s('HTTP/1.0 200 OK\r\n\r\nhello')
    const { conversations } = runEngine(conn.frames)
    expect(conversations[0].protocol).toBe('unknown')
  })
})

describe('SFS2X over WebSocket and after the fake upgrade preamble', () => {
  it('decodes binary messages at /BlueBox/websocket with permessage-deflate', () => {
    const conn = new Conn(8080)
      .c(upgradeRequest('/BlueBox/websocket', 'permessage-deflate; client_max_window_bits'))
      .s(upgradeResponse('permessage-deflate'))
      .c(wsFrame(pmd(vec('session/00_c2s_c0_a0')), { mask: true, rsv1: true }))
      .s(wsFrame(pmd(vec('session/01_s2c_c0_a0')), { rsv1: true }))
      .c(wsFrame(vec('session/06_c2s_c1_a13'), { mask: true }))
      .s(wsFrame(vec('session/07_s2c_c1_a13')))
    const { messages, conversations } = runEngine(conn.frames)
    expect(conversations[0]).toMatchObject({ protocol: 'sfs2x', stack: ['tcp', 'websocket', 'sfs2x'] })
    const sfs = messages.filter((m) => m.protocol === 'sfs2x')
    expect(sfs.map((m) => [m.direction, m.summary, m.error])).toEqual([
      ['c2s', 'Handshake api=1.8.6 cl=JavaScript', null],
      ['s2c', 'HandshakeResponse tk=0f1e2d3c4b5a69788796a5b4c3d2e1f0 ct=1024 ms=500000', null],
      ['c2s', 'CallExtension bulk room=-1', null],
      ['s2c', 'ExtensionResponse bulk', null]
    ])
    expect(sfs[0].stack).toEqual(['tcp', 'websocket', 'sfs2x'])
    // WebSocket sources first (frames, unmasked, inflated), then the SFS2X ones
    expect(sfs[0].sources.map((s) => s.name)).toEqual(['WebSocket frames', 'Unmasked payload', 'Inflated payload'])
    expect(find(sfs[0].tree, 'sfs2x.header')).toMatchObject({ source: 2, start: 0, length: 1 })
    expect(sfs[2].sources.map((s) => s.name)).toEqual(['WebSocket frames', 'Unmasked payload', 'Decompressed body (zlib)'])
    expect(find(sfs[2].tree, 'sfs2x.cmd').source).toBe(2)
  })

  it('decodes the raw framing after the one-shot fake HTTP upgrade (Last War: XOR, shard id, zlib)', () => {
    const req = ext('mail.read', { uid: t.str('abc'), _id: t.int(42) })
    const big = ext('world.tiles', { v: t.intArr(Array.from({ length: 500 }, (_, i) => i & 7)), _id: t.int(43) })
    const conn = new Conn(8443)
      .c(upgradeRequest('/websocket'))
      .s(upgradeResponse())
      .c(concat(packet(req, { xor: true, shard: 12 }), packet(big, { xor: true, shard: 12, zlib: true })))
      .s(packet(ext('mail.read', { ok: t.bool(true), _id: t.int(42) }, null)))
    const { messages, conversations } = runEngine(conn.frames)
    expect(conversations[0]).toMatchObject({ protocol: 'sfs2x', stack: ['tcp', 'http-preamble', 'sfs2x'] })
    expect(conversations[0].notes).toContain('SFS2X "Last War" variant: bodies XOR-obfuscated with their length')
    const sfs = messages.filter((m) => m.protocol === 'sfs2x')
    expect(sfs.map((m) => [m.direction, m.summary, m.error])).toEqual([
      ['c2s', 'CallExtension mail.read room=-1 _id=42', null],
      ['c2s', 'CallExtension world.tiles room=-1 _id=43', null],
      ['s2c', 'ExtensionResponse mail.read _id=42', null]
    ])
    expect(val(sfs[0])).toMatchObject({ shard: 12, variant: 'lastwar', header: { byte: 0xc4 } })
    expect(val(sfs[1])).toMatchObject({ transforms: ['xor', 'zlib'], header: { byte: 0xe4 } })
    expect(sfs[0].stack).toEqual(['tcp', 'http-preamble', 'sfs2x'])
  })
})

describe('probe', () => {
  const probe = (bytes: Uint8Array, o: Partial<Parameters<typeof probeSfs2x>[0]> = {}) =>
    probeSfs2x({ carrier: 'tcp', bytes, dir: 'a2b', aPort: 40000, bPort: 1234, ...o })

  it('is sure of a whole clean packet, fairly sure of a plausible start, and never throws', () => {
    expect(probe(vec('packet/handshake'))).toBe(95)
    expect(probe(packet(ext('x', {}), { xor: true, shard: 1 }))).toBe(95)
    expect(probe(vec('packet/body_1025_compressed'))).toBe(95)
    expect(probe(vec('packet/compressed_big_random').subarray(0, 256))).toBe(75)
    expect(probe(vec('packet/handshake').subarray(0, 6))).toBe(40)
    expect(probe(Buffer.from('GET / HTTP/1.1\r\n'))).toBe(0)
    expect(probe(unhex('80 0005 0102030405'))).toBe(0)
    expect(probe(unhex('16 0301 0005'))).toBe(0)
    expect(probe(new Uint8Array(0))).toBe(0)
    for (let i = 0; i < 2000; i++) probe(Uint8Array.from({ length: i % 40 }, (_, k) => (i * 7919 + k * 104729) & 0xff))
  })

  it('on WebSocket: one packet per message; the BlueBox path raises confidence', () => {
    expect(probe(vec('packet/handshake'), { carrier: 'websocket' })).toBe(95)
    expect(probe(vec('packet/handshake'), { carrier: 'websocket', wsPath: '/BlueBox/websocket' })).toBe(100)
    expect(probe(concat(vec('packet/handshake'), unhex('00')), { carrier: 'websocket' })).toBe(0)
    expect(probe(unhex('c0 0010' + '11'.repeat(16)), { carrier: 'websocket', wsPath: '/BlueBox/websocket' })).toBe(50)
  })
})

describe('server messages are named as a user reads them (docs/sfs2x.md)', () => {
  // Bodies written with the tests' own SFSObject encoder (helpers.ts), in the SDK's {c, a, p} envelope.
  const joinRoom = envelope(0, 4, { n: t.str('Lobby') })
  const joinRoomOk = envelope(0, 4, { r: t.arr(t.int(3), t.str('Lobby')) })
  const joinRoomError = envelope(0, 4, { ec: t.short(20), ep: t.strArr(['Lobby']) })
  const userEnterRoom = envelope(0, 1000, { r: t.int(3), u: t.arr(t.int(8), t.str('bob')) })
  const setUserVars = envelope(0, 12, { uv: t.arr() })
  const userVarsUpdate = envelope(0, 12, { u: t.int(8), uv: t.arr() })
  const publicMsg = envelope(0, 7, { t: t.byte(0), r: t.int(3), m: t.str('hi') })
  const publicMsgEvent = envelope(0, 7, { t: t.byte(0), r: t.int(3), u: t.int(8), m: t.str('hi') })
  const extReply = ext('mail.read', { ok: t.bool(true), _id: t.int(42) }, null)
  const traffic = (conn: Conn) =>
    conn
      .c(packet(joinRoom))
      .s(packet(joinRoomError))
      .c(packet(joinRoom))
      .s(packet(joinRoomOk))
      .s(packet(userEnterRoom))
      .c(packet(setUserVars))
      .s(packet(userVarsUpdate))
      .c(packet(publicMsg))
      .s(packet(publicMsgEvent))
      .s(packet(extReply))

  it('names a response, an error response, a push event and a message event from the server; requests keep their names', () => {
    for (const recording of [true, false]) {
      resetFrames()
      const { messages } = runEngine(traffic(new Conn()).frames, undefined, recording)
      expect(messages.map((m) => [m.direction, m.name, m.summary])).toEqual([
        ['c2s', 'JoinRoom', 'JoinRoom n=Lobby'],
        ['s2c', 'JoinRoomResponse', 'JoinRoomResponse ep=[1] ec=20'],
        ['c2s', 'JoinRoom', 'JoinRoom n=Lobby'],
        ['s2c', 'JoinRoomResponse', 'JoinRoomResponse r=[2]'],
        ['s2c', 'UserEnterRoom', 'UserEnterRoom r=3 u=[2]'],
        ['c2s', 'SetUserVariables', 'SetUserVariables uv=[0]'],
        ['s2c', 'UserVariablesUpdate', 'UserVariablesUpdate u=8 uv=[0]'],
        ['c2s', 'GenericMessage', 'GenericMessage public m=hi'],
        ['s2c', 'PublicMessage', 'PublicMessage m=hi'],
        ['s2c', 'ExtensionResponse', 'ExtensionResponse mail.read _id=42']
      ])
    }
  })

  it('keeps the index fields: sfs2x.action and sfs2x.cmd still name the action id and command', () => {
    const { messages } = runEngine(traffic(new Conn()).frames, undefined, true, 'sfs2x.action == 12 || sfs2x.cmd == "mail.read"')
    expect(messages.map((m) => m.name)).toEqual(['SetUserVariables', 'UserVariablesUpdate', 'ExtensionResponse'])
    expect(val(messages[2])).toMatchObject({ controller: 'Extension', action: 'CallExtension', command: 'mail.read' })
    expect(find(messages[2].tree, 'sfs2x.action')).toMatchObject({ value: 13, label: 'Action: 13 (CallExtension)' })
  })

  it('without the roles (joined mid-stream, no Handshake, no server port, no telling message) keeps the action names; server events are named anyway', () => {
    const quiet = (conn: Conn) => conn.c(packet(joinRoom)).s(packet(joinRoomOk)).s(packet(userEnterRoom)).s(packet(extReply))
    const { messages, conversations } = runEngine(quiet(new Conn(7777, false)).frames)
    expect(conversations[0].roleFrom).toBe('first-packet')
    expect(messages.map((m) => [m.direction, m.name])).toEqual([
      ['a2b', 'JoinRoom'],
      ['b2a', 'JoinRoom'],
      ['b2a', 'UserEnterRoom'],
      ['b2a', 'CallExtension']
    ])
    // the same bytes on SFS2X's port: the port names the server, and its messages are named as such
    resetFrames()
    const onPort = runEngine(quiet(new Conn(SP, false)).frames)
    expect(onPort.conversations[0].roleFrom).toBe('port')
    expect(onPort.messages.map((m) => [m.direction, m.name])).toEqual([
      ['c2s', 'JoinRoom'],
      ['s2c', 'JoinRoomResponse'],
      ['s2c', 'UserEnterRoom'],
      ['s2c', 'ExtensionResponse']
    ])
  })
})
