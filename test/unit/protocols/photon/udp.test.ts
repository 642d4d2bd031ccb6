// Photon UDP transport: datagram header (plain, CRC, datagram-encrypted), every command type, field byte
// ranges, CRC against node:zlib, hostile lengths, and truncation/mutation at every byte (DecodeError only).
import { describe, it, expect } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { DecodeError, FieldReader } from '../../../../src-shared/bytes/reader'
import { TreeBuilder } from '../../../../src-shared/bytes/tree'
import type { FieldNode } from '../../../../src-shared/model/types'
import { photonCrc, photonCrcRange } from '../../../../src-shared/protocols/photon/crc'
import { readCommand, readDecryptedHeader, readHeader, type PhotonCommand, type PhotonHeader } from '../../../../src-shared/protocols/photon/udp'
import { lookupField } from '../../../../src-shared/bytes/fields'
import { rng } from '../../helpers/rng'
import { T, cmd, command, concat, datagram, encryptedDatagram, hex, message, referenceCrc, unhex } from './udp-encoder'

const VECTORS_DIR = join(__dirname, '../../../fixtures/vectors')

interface Parsed {
  header: PhotonHeader
  commands: PhotonCommand[]
  roots: FieldNode[]
  error?: DecodeError
  pos: number
}

/** What the glue does: the header, then commandCount commands, stopping at the first DecodeError. */
function parse(bytes: Uint8Array, recording = true): Parsed {
  const tree = new TreeBuilder(recording)
  const r = new FieldReader(bytes, tree, 0)
  const commands: PhotonCommand[] = []
  let header!: PhotonHeader
  let error: DecodeError | undefined
  try {
    header = readHeader(r)
    for (let i = 0; i < header.commandCount; i++) commands.push(readCommand(r))
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e
    error = e
  }
  return { header, commands, roots: tree.roots, error, pos: r.pos }
}

function leaf(nodes: FieldNode[], key: string): FieldNode {
  const n = nodes.find((x) => x.key === key)
  if (!n) throw new Error(`no field ${key} among ${nodes.map((x) => x.key).join(', ')}`)
  return n
}

// Each field's width in bytes as docs/photon.md (UDP transport: packet and command headers, command bodies) gives it;
// 0: a group or variable-length bytes. Written from the doc, not from udp-fields.ts.
const SPEC_WIDTH: Record<string, number> = {
  'photon.header': 0,
  'photon.peer_id': 2,
  'photon.flags': 1,
  'photon.command_count': 1,
  'photon.sent_time': 4,
  'photon.challenge': 4,
  'photon.crc': 4,
  'photon.cmd': 0,
  'photon.cmd.type': 1,
  'photon.channel': 1,
  'photon.cmd.flags': 1,
  'photon.cmd.reserved': 1,
  'photon.cmd.length': 4,
  'photon.cmd.seq': 4,
  'photon.cmd.payload': 0,
  'photon.ack.seq': 4,
  'photon.ack.sent_time': 4,
  'photon.unreliable_seq': 4,
  'photon.unsequenced_group': 4,
  'photon.frag.start_seq': 4,
  'photon.frag.count': 4,
  'photon.frag.number': 4,
  'photon.frag.total_length': 4,
  'photon.frag.offset': 4,
  'photon.frag.data': 0,
  'photon.connect.reserved': 2,
  'photon.connect.mtu': 2,
  'photon.connect.window_size': 4,
  'photon.connect.channel_count': 4,
  'photon.connect.incoming_bandwidth': 4,
  'photon.connect.outgoing_bandwidth': 4,
  'photon.connect.throttle_interval': 4,
  'photon.connect.throttle_acceleration': 4,
  'photon.connect.throttle_deceleration': 4,
  'photon.verify.peer_id': 2,
  'photon.verify.mtu': 2,
  'photon.verify.window_size': 4,
  'photon.verify.channel_count': 4,
  'photon.verify.rest': 0,
  'photon.disconnect.reason': 1
}
const TYPE_WIDTH: Record<string, number> = { u8: 1, i8: 1, u16: 2, i16: 2, u32: 4, i32: 4, bytes: 0, none: 0 }
const SIGNED = new Set([
  'photon.peer_id',
  'photon.cmd.length',
  'photon.cmd.seq',
  'photon.ack.seq',
  'photon.unreliable_seq',
  'photon.unsequenced_group',
  'photon.verify.peer_id'
])

/** Slices the node's range out of the datagram and decodes it independently; must equal node.value and `expected`. */
function checkField(bytes: Uint8Array, nodes: FieldNode[], key: string, start: number, length: number, expected: number | Uint8Array) {
  const n = leaf(nodes, key)
  expect([n.key, n.start, n.length]).toEqual([key, start, length])
  const slice = Buffer.from(bytes.subarray(start, start + length))
  if (expected instanceof Uint8Array) {
    expect(hex(n.value as Uint8Array)).toBe(hex(expected))
    expect(hex(slice)).toBe(hex(expected))
    return
  }
  let v: number
  if (key.startsWith('photon.frag.') || SIGNED.has(key)) v = length === 2 ? slice.readInt16BE() : length === 4 ? slice.readInt32BE() : slice.readInt8()
  else v = length === 2 ? slice.readUInt16BE() : length === 4 ? slice.readUInt32BE() : slice.readUInt8()
  expect(v).toBe(expected)
  expect(n.value).toBe(expected)
}

function checkCommonHeader(
  bytes: Uint8Array,
  g: FieldNode,
  at: number,
  e: { type: number; channel: number; flags: number; reserved: number; length: number; seq: number }
) {
  const c = g.children!
  checkField(bytes, c, 'photon.cmd.type', at, 1, e.type)
  checkField(bytes, c, 'photon.channel', at + 1, 1, e.channel)
  checkField(bytes, c, 'photon.cmd.flags', at + 2, 1, e.flags)
  checkField(bytes, c, e.type === T.DISCONNECT ? 'photon.disconnect.reason' : 'photon.cmd.reserved', at + 3, 1, e.reserved)
  checkField(bytes, c, 'photon.cmd.length', at + 4, 4, e.length)
  checkField(bytes, c, 'photon.cmd.seq', at + 8, 4, e.seq)
  expect([g.key, g.start, g.length]).toEqual(['photon.cmd', at, e.length])
}

/** Every node (group or leaf) with a range stays inside [0, end). */
function checkRanges(nodes: FieldNode[], end: number) {
  for (const n of nodes) {
    if (n.start !== undefined && !(n.start >= 0 && n.length! >= 0 && n.start + n.length! <= end)) {
      throw new Error(`${n.key} [${n.start}, +${n.length}) outside [0, ${end})`)
    }
    checkRanges(n.children ?? [], end)
  }
}

const MSG6 = message(48, 2, 6)
const MSG7 = message(20, 4, 7)
const MSG11 = message(9, 4, 11)
const MSG14 = message(33, 3, 14)
const BODY13 = unhex('0000000a f302 01')
const FRAG_DATA = message(100, 4, 8).subarray(0, 40)
const FRAG = { startSeq: 40, count: 3, number: 1, totalLength: 100, offset: 40 }

function everyCommand(): Uint8Array[] {
  return [
    cmd.ack(0, 41, 123456),
    cmd.connect({ mtu: 1200, channelCount: 2, seq: 1 }),
    cmd.verifyConnect(-3670),
    cmd.disconnect(2),
    cmd.ping(5),
    cmd.reliable(0, 42, MSG6),
    cmd.unreliable(0, 42, 7, MSG7),
    cmd.fragment(0, 41, FRAG, FRAG_DATA),
    cmd.unsequenced(1, 99, MSG11),
    cmd.serverTime(6),
    cmd.unreliableProcessed(0, BODY13),
    cmd.reliableUnsequenced(0, 43, MSG14),
    cmd.fragment(2, 77, { ...FRAG, startSeq: 76 }, FRAG_DATA, true),
    cmd.ack(255, 6, 0xfedcba98, true)
  ]
}

describe('Photon UDP header', () => {
  it('reads a plain 12-byte header with every field at its range', () => {
    const d = datagram({ peerId: -3670, sentTime: 0xdeadbeef, challenge: 0x01020304, commands: [cmd.ping(1), cmd.ping(2)] })
    const p = parse(d.bytes)
    expect(p.error).toBeUndefined()
    expect(p.header).toMatchObject({
      peerId: -3670,
      flags: 0,
      crcPresent: false,
      datagramEncrypted: false,
      commandCount: 2,
      sentTime: 0xdeadbeef,
      challenge: 0x01020304,
      headerLength: 12
    })
    expect(p.header.crc).toBeUndefined()
    const g = p.roots[0]
    expect([g.key, g.start, g.length]).toEqual(['photon.header', 0, 12])
    checkField(d.bytes, g.children!, 'photon.peer_id', 0, 2, -3670)
    checkField(d.bytes, g.children!, 'photon.flags', 2, 1, 0)
    checkField(d.bytes, g.children!, 'photon.command_count', 3, 1, 2)
    checkField(d.bytes, g.children!, 'photon.sent_time', 4, 4, 0xdeadbeef)
    checkField(d.bytes, g.children!, 'photon.challenge', 8, 4, 0x01020304)
    expect(leaf(g.children!, 'photon.peer_id').label).toContain('0xf1aa')
    expect(g.label).toContain('2 commands')
    expect(p.pos).toBe(d.bytes.length)
  })

  it('names the unassigned peer id', () => {
    const p = parse(datagram({ peerId: -1, commands: [cmd.connect()] }).bytes)
    expect(p.header.peerId).toBe(-1)
    expect(leaf(p.roots[0].children!, 'photon.peer_id').label).toContain('unassigned')
  })

  it('accepts the photon-public-vectors UDP packets (albiondata reliable command; spectator synthetic 0x01 header)', () => {
    const vectors: any[] = JSON.parse(readFileSync(join(VECTORS_DIR, 'photon-public-vectors.json'), 'utf8'))
    const albion = vectors.find((v) => v.source.startsWith('ao-data/albiondata-client') && v.expect?.command)
    const bytes = unhex(albion.hex)
    const p = parse(bytes)
    expect(p.error).toBeUndefined()
    expect(p.header.peerId).toBe(albion.expect.packet.peerId)
    expect(p.header.commandCount).toBe(albion.expect.packet.commandCount)
    expect(p.commands[0].type).toBe(albion.expect.command.type)
    expect(p.commands[0].length).toBe(albion.expect.command.length)
    expect([p.commands[0].payloadStart, p.commands[0].payloadEnd]).toEqual([24, bytes.length])

    // photon_spectator's synthetic test uses header byte 0x01, which real SDKs use for datagram encryption:
    // read as such it is too short for the 32-byte HMAC, so it must fail with a DecodeError, not crash.
    const spectator = vectors.find((v) => v.protocol === 'udp')
    const q = parse(unhex(spectator.hex))
    expect(q.error).toBeInstanceOf(DecodeError)
    expect(q.header).toBeUndefined()
  })

  it('CRC datagrams: good CRC matches NOT(zlib crc32) and bad CRC is flagged with the right value', () => {
    const d = datagram({ peerId: 7, crc: true, sentTime: 1000, challenge: 0xcafebabe, commands: [cmd.reliable(0, 1, MSG6), cmd.ack(0, 3, 999)] })
    const expected = referenceCrc(d.bytes)
    const p = parse(d.bytes)
    expect(p.error).toBeUndefined()
    expect(p.header).toMatchObject({ flags: 0xcc, crcPresent: true, headerLength: 16, commandCount: 2 })
    expect(p.header.crc).toEqual({ value: expected, computed: expected, ok: true })
    const g = p.roots[0]
    expect([g.start, g.length]).toEqual([0, 16])
    checkField(d.bytes, g.children!, 'photon.crc', 12, 4, expected)
    expect(leaf(g.children!, 'photon.crc_status')).toMatchObject({ value: 1, start: 12, length: 4 })
    expect(leaf(g.children!, 'photon.crc').label).toContain('correct')
    expect(p.commands.map((c) => c.start)).toEqual(d.offsets)

    // A wrong stored CRC.
    const bad = datagram({
      peerId: 7,
      crc: true,
      crcValue: (expected ^ 0x10) >>> 0,
      sentTime: 1000,
      challenge: 0xcafebabe,
      commands: [cmd.reliable(0, 1, MSG6), cmd.ack(0, 3, 999)]
    })
    const q = parse(bad.bytes)
    expect(q.header.crc).toEqual({ value: (expected ^ 0x10) >>> 0, computed: expected, ok: false })
    expect(leaf(q.roots[0].children!, 'photon.crc_status').value).toBe(0)
    expect(leaf(q.roots[0].children!, 'photon.crc').label).toContain('incorrect')
    expect(q.commands.length).toBe(2) // commands still read

    // A byte of a command corrupted after the CRC was computed.
    const corrupt = d.bytes.slice()
    corrupt[d.bytes.length - 1] ^= 0x5a
    const c = parse(corrupt)
    expect(c.header.crc!.ok).toBe(false)
    expect(c.header.crc!.value).toBe(expected)
    expect(c.header.crc!.computed).toBe(referenceCrc(corrupt))
  })

  it('photonCrc equals NOT(zlib crc32) over buffers of many lengths, without touching the input', () => {
    const rand = rng(5055)
    for (let len = 16; len < 600; len += 1 + Math.floor(rand() * 13)) {
      const b = Uint8Array.from({ length: len }, () => Math.floor(rand() * 256))
      const before = hex(b)
      expect(photonCrc(b)).toBe(referenceCrc(b))
      if (len >= 24) expect(photonCrc(b, 20)).toBe(referenceCrc(b, 20))
      expect(hex(b)).toBe(before)
      // A window inside a larger buffer.
      const big = concat([randomBytes(5), b, randomBytes(3)])
      expect(photonCrcRange(big, 5, 5 + len, 5 + 12)).toBe(referenceCrc(b))
    }
    // The CRC field is ignored: any value there gives the same CRC.
    const b = randomBytes(64)
    const a = photonCrc(b)
    b.fill(0xff, 12, 16)
    expect(photonCrc(b)).toBe(a)
  })

  it('datagram-encrypted layout: blob and HMAC ranges, no commands read', () => {
    const key = randomBytes(32)
    const hmacKey = randomBytes(32)
    const e = encryptedDatagram({ peerId: 0x1234, challenge: 0x0badf00d, sentTime: 77, commands: [cmd.reliable(0, 1, MSG6)], key, hmacKey })
    const p = parse(e.bytes)
    expect(p.error).toBeUndefined()
    const n = e.bytes.length
    expect(p.header).toMatchObject({
      peerId: 0x1234,
      flags: 1,
      datagramEncrypted: true,
      crcPresent: false,
      commandCount: 0,
      challenge: 0x0badf00d,
      headerLength: 7
    })
    expect(p.header.encrypted).toEqual({ blobStart: 7, blobEnd: n - 32, hmacStart: n - 32, hmacEnd: n })
    expect(p.header.warning).toBeUndefined()
    const g = p.roots[0].children!
    checkField(e.bytes, g, 'photon.peer_id', 0, 2, 0x1234)
    checkField(e.bytes, g, 'photon.flags', 2, 1, 1)
    checkField(e.bytes, g, 'photon.challenge', 3, 4, 0x0badf00d)
    checkField(e.bytes, g, 'photon.encrypted_datagram', 7, n - 39, e.blob)
    checkField(e.bytes, g, 'photon.hmac', n - 32, 32, e.hmac)
    expect(p.pos).toBe(n)
    expect(p.roots[0].length).toBe(n)

    // A blob that is not IV + whole blocks is read, with a warning.
    const odd = concat([e.bytes.subarray(0, 7), randomBytes(21), randomBytes(32)])
    const q = parse(odd)
    expect(q.error).toBeUndefined()
    expect(q.header.warning).toMatch(/not a 16-byte IV/)

    // Shorter than the HMAC: DecodeError.
    const short = e.bytes.subarray(0, 7 + 31)
    const s = parse(short)
    expect(s.error).toBeInstanceOf(DecodeError)
    expect(s.error!.offset).toBe(7)
  })

  it('reads the inner header of a decrypted datagram', () => {
    const plain = concat([unhex('02 0000abcd'), cmd.ping(3), cmd.ack(255, 2, 5)])
    const tree = new TreeBuilder()
    const r = new FieldReader(plain, tree, 0)
    expect(readDecryptedHeader(r)).toEqual({ commandCount: 2, sentTime: 0xabcd, headerLength: 5 })
    expect(readCommand(r).type).toBe(T.PING)
    expect(readCommand(r).ack).toEqual({ seq: 2, sentTime: 5 })
    expect(tree.roots.map((n) => n.key)).toEqual(['photon.command_count', 'photon.sent_time', 'photon.cmd', 'photon.cmd'])
  })

  it('an unknown flags value is read as a plain header with a warning', () => {
    const p = parse(datagram({ flags: 0x42, commands: [cmd.ping(1)] }).bytes)
    expect(p.error).toBeUndefined()
    expect(p.header.headerLength).toBe(12)
    expect(p.header.warning).toMatch(/0x42/)
    expect(p.commands[0].type).toBe(T.PING)
  })
})

describe('Photon UDP commands', () => {
  it('every command type in one datagram: values, payload windows and field ranges', () => {
    const cmds = everyCommand()
    const d = datagram({ peerId: 0, sentTime: 5, challenge: 9, commands: cmds })
    for (const recording of [true, false]) {
      const p = parse(d.bytes, recording)
      expect(p.error).toBeUndefined()
      expect(p.commands.length).toBe(cmds.length)
      expect(p.pos).toBe(d.bytes.length)
      const o = d.offsets
      const c = p.commands
      expect(c.map((x) => x.start)).toEqual(o)
      expect(c.map((x) => x.end)).toEqual(o.map((at, i) => at + cmds[i].length))
      expect(c.map((x) => x.typeName)).toEqual([
        'ACK',
        'CONNECT',
        'VERIFYCONNECT',
        'DISCONNECT',
        'PING',
        'SEND_RELIABLE',
        'SEND_UNRELIABLE',
        'SEND_FRAGMENT',
        'SEND_UNSEQUENCED',
        'SERVERTIME',
        'SEND_UNRELIABLE_PROCESSED',
        'SEND_RELIABLE_UNSEQUENCED',
        'SEND_FRAGMENT_UNSEQUENCED',
        'ACK_UNSEQUENCED'
      ])
      const payload = (x: PhotonCommand) => hex(d.bytes.subarray(x.payloadStart, x.payloadEnd))
      expect(c[0]).toMatchObject({ type: 1, channel: 0, flags: 0, reserved: 4, length: 20, reliableSeq: 0, ack: { seq: 41, sentTime: 123456 } })
      expect(c[1]).toMatchObject({
        type: 2,
        channel: 255,
        flags: 1,
        length: 44,
        reliableSeq: 1,
        connect: {
          reserved: 0,
          mtu: 1200,
          windowSize: 0x8000,
          channelCount: 2,
          incomingBandwidth: 0,
          outgoingBandwidth: 0,
          throttleInterval: 5000,
          throttleAcceleration: 2,
          throttleDeceleration: 2
        }
      })
      expect(c[2]).toMatchObject({ type: 3, channel: 255, length: 44, verifyPeerId: -3670, verify: { mtu: 1200, windowSize: 0x8000, channelCount: 2 } })
      expect(c[3]).toMatchObject({ type: 4, flags: 2, reserved: 2, disconnectReason: 2, length: 12 })
      expect(c[4]).toMatchObject({ type: 5, channel: 255, flags: 1, reliableSeq: 5, length: 12 })
      expect(c[5]).toMatchObject({ type: 6, reliableSeq: 42, length: 12 + MSG6.length })
      expect(payload(c[5])).toBe(hex(MSG6))
      expect(c[6]).toMatchObject({ type: 7, flags: 0, reliableSeq: 42, unreliableSeq: 7 })
      expect(payload(c[6])).toBe(hex(MSG7))
      expect(c[7]).toMatchObject({ type: 8, reliableSeq: 41, fragment: FRAG })
      expect(payload(c[7])).toBe(hex(FRAG_DATA))
      expect(c[8]).toMatchObject({ type: 11, channel: 1, flags: 2, unsequencedGroup: 99 })
      expect(payload(c[8])).toBe(hex(MSG11))
      expect(c[9]).toMatchObject({ type: 12, channel: 255, reliableSeq: 6, length: 12 })
      expect(c[10]).toMatchObject({ type: 13, length: 12 + BODY13.length })
      expect(c[10].payloadStart).toBe(c[10].payloadEnd) // unconfirmed layout: no message
      expect(c[11]).toMatchObject({ type: 14, flags: 3, reliableSeq: 43 })
      expect(payload(c[11])).toBe(hex(MSG14))
      expect(c[12]).toMatchObject({ type: 15, channel: 2, flags: 3, reliableSeq: 77, fragment: { ...FRAG, startSeq: 76 } })
      expect(payload(c[12])).toBe(hex(FRAG_DATA))
      expect(c[13]).toMatchObject({ type: 16, channel: 255, ack: { seq: 6, sentTime: 0xfedcba98 } })
      for (const x of c) {
        if (x.type !== 6 && x.type !== 7 && x.type !== 8 && x.type !== 11 && x.type !== 14 && x.type !== 15) expect(x.payloadStart).toBe(x.payloadEnd)
        expect(x.extraBytes).toBeUndefined()
      }
      if (!recording) {
        expect(p.roots).toEqual([])
        continue
      }

      // Field ranges: the header group, then one photon.cmd group per command.
      expect(p.roots.map((n) => n.key)).toEqual(['photon.header', ...cmds.map(() => 'photon.cmd')])
      const g = p.roots.slice(1)
      const hdr = (i: number, type: number, channel: number, flags: number, reserved: number, seq: number) =>
        checkCommonHeader(d.bytes, g[i], o[i], { type, channel, flags, reserved, length: cmds[i].length, seq })
      hdr(0, 1, 0, 0, 4, 0)
      checkField(d.bytes, g[0].children!, 'photon.ack.seq', o[0] + 12, 4, 41)
      checkField(d.bytes, g[0].children!, 'photon.ack.sent_time', o[0] + 16, 4, 123456)
      hdr(1, 2, 255, 1, 4, 1)
      const cc = g[1].children!
      checkField(d.bytes, cc, 'photon.connect.reserved', o[1] + 12, 2, 0)
      checkField(d.bytes, cc, 'photon.connect.mtu', o[1] + 14, 2, 1200)
      checkField(d.bytes, cc, 'photon.connect.window_size', o[1] + 16, 4, 0x8000)
      checkField(d.bytes, cc, 'photon.connect.channel_count', o[1] + 20, 4, 2)
      checkField(d.bytes, cc, 'photon.connect.incoming_bandwidth', o[1] + 24, 4, 0)
      checkField(d.bytes, cc, 'photon.connect.outgoing_bandwidth', o[1] + 28, 4, 0)
      checkField(d.bytes, cc, 'photon.connect.throttle_interval', o[1] + 32, 4, 5000)
      checkField(d.bytes, cc, 'photon.connect.throttle_acceleration', o[1] + 36, 4, 2)
      checkField(d.bytes, cc, 'photon.connect.throttle_deceleration', o[1] + 40, 4, 2)
      hdr(2, 3, 255, 1, 4, 1)
      checkField(d.bytes, g[2].children!, 'photon.verify.peer_id', o[2] + 12, 2, -3670)
      checkField(d.bytes, g[2].children!, 'photon.verify.mtu', o[2] + 14, 2, 1200)
      checkField(d.bytes, g[2].children!, 'photon.verify.window_size', o[2] + 16, 4, 0x8000)
      checkField(d.bytes, g[2].children!, 'photon.verify.channel_count', o[2] + 20, 4, 2)
      checkField(d.bytes, g[2].children!, 'photon.verify.rest', o[2] + 24, 20, new Uint8Array(20))
      hdr(3, 4, 255, 2, 2, 0)
      expect(leaf(g[3].children!, 'photon.disconnect.reason').label).toContain('timeout')
      hdr(4, 5, 255, 1, 4, 5)
      hdr(5, 6, 0, 1, 4, 42)
      checkField(d.bytes, g[5].children!, 'photon.cmd.payload', o[5] + 12, MSG6.length, MSG6)
      hdr(6, 7, 0, 0, 4, 42)
      checkField(d.bytes, g[6].children!, 'photon.unreliable_seq', o[6] + 12, 4, 7)
      checkField(d.bytes, g[6].children!, 'photon.cmd.payload', o[6] + 16, MSG7.length, MSG7)
      for (const [i, startSeq] of [
        [7, 40],
        [12, 76]
      ]) {
        hdr(i, i === 7 ? 8 : 15, i === 7 ? 0 : 2, i === 7 ? 1 : 3, 4, i === 7 ? 41 : 77)
        const f = g[i].children!
        checkField(d.bytes, f, 'photon.frag.start_seq', o[i] + 12, 4, startSeq)
        checkField(d.bytes, f, 'photon.frag.count', o[i] + 16, 4, 3)
        checkField(d.bytes, f, 'photon.frag.number', o[i] + 20, 4, 1)
        checkField(d.bytes, f, 'photon.frag.total_length', o[i] + 24, 4, 100)
        checkField(d.bytes, f, 'photon.frag.offset', o[i] + 28, 4, 40)
        checkField(d.bytes, f, 'photon.frag.data', o[i] + 32, FRAG_DATA.length, FRAG_DATA)
      }
      hdr(8, 11, 1, 2, 4, 0)
      checkField(d.bytes, g[8].children!, 'photon.unsequenced_group', o[8] + 12, 4, 99)
      checkField(d.bytes, g[8].children!, 'photon.cmd.payload', o[8] + 16, MSG11.length, MSG11)
      hdr(9, 12, 255, 1, 4, 6)
      hdr(10, 13, 0, 0, 4, 0)
      checkField(d.bytes, g[10].children!, 'photon.cmd.payload', o[10] + 12, BODY13.length, BODY13)
      hdr(11, 14, 0, 3, 4, 43)
      checkField(d.bytes, g[11].children!, 'photon.cmd.payload', o[11] + 12, MSG14.length, MSG14)
      hdr(13, 16, 255, 0, 4, 0)
      checkField(d.bytes, g[13].children!, 'photon.ack.seq', o[13] + 12, 4, 6)
      checkField(d.bytes, g[13].children!, 'photon.ack.sent_time', o[13] + 16, 4, 0xfedcba98)
      checkRanges(p.roots, d.bytes.length)
      // Every recorded key is a registered field.
      const keys = new Set<string>()
      const walk = (ns: FieldNode[]) => ns.forEach((n) => (keys.add(n.key), walk(n.children ?? [])))
      walk(p.roots)
      for (const k of keys) {
        expect(k in SPEC_WIDTH, `${k} is in docs/photon.md, UDP layout`).toBe(true)
        const def = lookupField(k)!
        expect([k, TYPE_WIDTH[def?.type]], k).toEqual([k, SPEC_WIDTH[k]])
        if (SIGNED.has(k) || (k.startsWith('photon.frag.') && SPEC_WIDTH[k] > 0)) expect(def.type, k).toMatch(/^i/)
      }
    }
  })

  it('labels are informative', () => {
    const cmds = [
      cmd.reliable(0, 42, message(48)),
      cmd.ack(0, 41, 99),
      cmd.disconnect(3),
      cmd.unreliable(1, 3, 8, message(4)),
      cmd.fragment(0, 44, { startSeq: 42, count: 10, number: 2, totalLength: 11000, offset: 2304 }, message(1152))
    ]
    const p = parse(datagram({ commands: cmds }).bytes)
    const labels = p.roots.slice(1).map((n) => n.label)
    expect(labels[0]).toBe('Command: SEND_RELIABLE ch=0 seq=42 len=60')
    expect(labels[1]).toBe('Command: ACK ch=0 acks seq=41 sent=99')
    expect(labels[2]).toBe('Command: DISCONNECT ch=255 reason=3 (user limit)')
    expect(labels[3]).toBe('Command: SEND_UNRELIABLE ch=1 seq=3 useq=8 len=20')
    expect(labels[4]).toContain('fragment #2 of 10 from seq 42')
    expect(leaf(p.roots[1].children!, 'photon.cmd.type').label).toBe('Command type: 6 (SEND_RELIABLE)')
  })

  it('unknown command types and extra bytes in fixed-size commands are kept as bytes', () => {
    const unknown = command({ type: 9, channel: 3, seq: 4, body: unhex('aabbcc') })
    const longAck = command({ type: T.ACK, body: unhex('00000005 00000006 eeff') })
    const longVerify = command({ type: T.VERIFYCONNECT, channel: 255, seq: 1, body: concat([unhex('0005'), new Uint8Array(30), unhex('99')]) })
    const shortVerify = command({ type: T.VERIFYCONNECT, channel: 255, seq: 1, body: unhex('0005 1122') })
    const d = datagram({ commands: [unknown, longAck, longVerify, shortVerify] })
    const p = parse(d.bytes)
    expect(p.error).toBeUndefined()
    expect(p.commands[0]).toMatchObject({ type: 9, typeName: 'UNKNOWN(9)', length: 15 })
    expect(p.commands[0].payloadStart).toBe(p.commands[0].payloadEnd)
    checkField(d.bytes, p.roots[1].children!, 'photon.cmd.payload', d.offsets[0] + 12, 3, unhex('aabbcc'))
    expect(p.commands[1]).toMatchObject({ ack: { seq: 5, sentTime: 6 }, extraBytes: 2 })
    checkField(d.bytes, p.roots[2].children!, 'photon.cmd.extra', d.offsets[1] + 20, 2, unhex('eeff'))
    expect(p.commands[2]).toMatchObject({ verifyPeerId: 5, extraBytes: 1 })
    checkField(d.bytes, p.roots[3].children!, 'photon.cmd.extra', d.offsets[2] + 44, 1, unhex('99'))
    expect(p.commands[3]).toMatchObject({ verifyPeerId: 5 })
    expect(p.commands[3].verify).toBeUndefined()
    checkField(d.bytes, p.roots[4].children!, 'photon.verify.rest', d.offsets[3] + 14, 2, unhex('1122'))
  })

  it('hostile lengths become DecodeErrors at the length field, keeping the fields read', () => {
    const cases: [string, Uint8Array, RegExp][] = [
      ['length below the command header', command({ type: T.SEND_RELIABLE, length: 11 }), /less than the 12-byte/],
      ['negative length', command({ type: T.SEND_RELIABLE, length: -5 }), /less than the 12-byte/],
      ['zero length', command({ type: T.PING, length: 0 }), /less than the 12-byte/],
      ['ACK without its body', command({ type: T.ACK, length: 12 }), /less than the 20 bytes/],
      ['ACK_UNSEQUENCED short', command({ type: T.ACK_UNSEQUENCED, body: new Uint8Array(4) }), /less than the 20 bytes/],
      ['CONNECT short', command({ type: T.CONNECT, body: new Uint8Array(28) }), /less than the 44 bytes/],
      ['VERIFYCONNECT without a peer id', command({ type: T.VERIFYCONNECT, body: new Uint8Array(1) }), /less than the 14 bytes/],
      ['SEND_UNRELIABLE without its sequence', command({ type: T.SEND_UNRELIABLE, body: new Uint8Array(3) }), /less than the 16 bytes/],
      ['SEND_UNSEQUENCED without its group', command({ type: T.SEND_UNSEQUENCED, length: 12 }), /less than the 16 bytes/],
      ['SEND_FRAGMENT with a short fragment header', command({ type: T.SEND_FRAGMENT, body: new Uint8Array(16) }), /less than the 32 bytes/],
      ['SEND_FRAGMENT_UNSEQUENCED short', command({ type: T.SEND_FRAGMENT_UNSEQUENCED, body: new Uint8Array(19) }), /less than the 32 bytes/],
      ['length past the datagram', command({ type: T.SEND_RELIABLE, body: new Uint8Array(10), length: 23 }), /runs past the datagram/],
      ['2 GiB length', command({ type: T.SEND_RELIABLE, length: 0x7fffffff }), /runs past the datagram/]
    ]
    for (const [name, c, re] of cases) {
      const d = datagram({ commands: [cmd.ping(1), c] })
      const p = parse(d.bytes)
      expect(p.error, name).toBeInstanceOf(DecodeError)
      expect(p.error!.message, name).toMatch(re)
      expect(p.error!.offset, name).toBe(d.offsets[1] + 4)
      expect(p.commands.length, name).toBe(1)
      const g = p.roots[2]
      expect(g.key).toBe('photon.cmd')
      expect(g.children!.map((n) => n.key)).toContain('photon.cmd.seq')
      checkRanges(p.roots, d.bytes.length)
    }
  })

  it('a command count bigger than what fits stops with a DecodeError at the end of data', () => {
    const d = datagram({ commandCount: 200, commands: [cmd.ping(1), cmd.reliable(0, 2, MSG6)] })
    const p = parse(d.bytes)
    expect(p.commands.length).toBe(2)
    expect(p.error).toBeInstanceOf(DecodeError)
    expect(p.error!.offset).toBe(d.bytes.length)
    expect(p.roots[p.roots.length - 1].label).toBe('Command (truncated)')
  })

  it('every truncation of every sample only ever throws DecodeError, with ranges inside the cut', () => {
    const key = randomBytes(32)
    const samples = [
      datagram({ peerId: -1, sentTime: 1, challenge: 2, commands: everyCommand() }).bytes,
      datagram({ peerId: 3, crc: true, commands: everyCommand().slice(4, 9) }).bytes,
      encryptedDatagram({ peerId: 3, challenge: 1, sentTime: 2, commands: [cmd.ping(1)], key, hmacKey: key }).bytes
    ]
    let errors = 0
    for (const s of samples) {
      for (let cut = 0; cut <= s.length; cut++) {
        const bytes = s.slice(0, cut)
        for (const recording of [true, false]) {
          const p = parse(bytes, recording) // throws anything but DecodeError
          if (p.error) errors++
          if (recording) checkRanges(p.roots, cut)
          if (cut < s.length && !(s === samples[2] && cut >= 39)) expect(p.error, `cut ${cut}`).toBeInstanceOf(DecodeError)
        }
      }
    }
    expect(errors).toBeGreaterThan(0)
  })

  it('mutated and random datagrams only ever throw DecodeError', () => {
    const rand = rng(20260915)
    const base = [datagram({ commands: everyCommand() }).bytes, datagram({ crc: true, commands: everyCommand().slice(0, 6) }).bytes]
    for (let i = 0; i < 4000; i++) {
      let b: Uint8Array
      if (i % 5 === 4) {
        b = Uint8Array.from({ length: Math.floor(rand() * 120) }, () => Math.floor(rand() * 256))
      } else {
        b = base[i % 2].slice()
        const k = 1 + Math.floor(rand() * 6)
        for (let j = 0; j < k; j++) {
          const at = Math.floor(rand() * b.length)
          if (rand() < 0.5) b[at] = Math.floor(rand() * 256)
          else b.fill(rand() < 0.5 ? 0xff : 0x00, at, at + 4)
        }
        if (rand() < 0.3) b = b.subarray(0, Math.floor(rand() * b.length))
      }
      const p = parse(b, (i & 1) === 0)
      checkRanges(p.roots, b.length)
      for (const c of p.commands) {
        expect(c.end).toBeLessThanOrEqual(b.length)
        expect(c.payloadStart).toBeLessThanOrEqual(c.payloadEnd)
      }
    }
  })
})
