// NetStack BitBuffer: the vectors of docs/fignet.md (Codecs and ENet on the wire), the RegisterIdentity
// payload of the ENet capture test/fixtures/enet/enet-fignet-loopback.pcapng, random field sequences from
// the test's own BitWriter (values and bit-exact byte ranges), the sentinel checks, and every truncation.
//
// Which expectations are independent: none of the bytes come from NetStack itself (C#, not runnable here;
// its repository has no tests). Those vectors and the capture's RegisterIdentity payload were made by our
// encoder written from BitBuffer.cs's rules (LSB-first chunks written little-endian, sentinel bit, 7-bit
// varint groups in 8-bit fields, 8-bit string length + 7-bit chars) and sent through real ENet; the bit
// offsets asserted below are worked out by hand from those rules, not by the encoder.
import { describe, it, expect } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { DecodeError, FieldReader } from '../../../../src-shared/bytes/reader'
import { TreeBuilder } from '../../../../src-shared/bytes/tree'
import { CaptureReader, type CaptureFrame } from '../../../../src-shared/capture'
import { BitBufferReader } from '../../../../src-shared/protocols/fignet/bitbuffer'
import { dynamicDef } from '../../../../src-shared/protocols/fignet/payload-fields'
import { rng } from '../../helpers/rng'
import { BitWriter, hex, unhex } from './encoders'
import { checkNesting, decode, find, plain, walk } from './helpers'

const CAPTURE = join(__dirname, '../../../fixtures/enet/enet-fignet-loopback.pcapng')
const REGISTER = '01 06 f3 f2 58 5e a6 0f 84 e1 f0'

describe('BitBuffer vectors (docs/fignet.md, Codecs and ENet on the wire)', () => {
  it('the writer reproduces every vector exactly', () => {
    expect(hex(new BitWriter().byte(1).string('secret').string('app').toBytes())).toBe(hex(unhex(REGISTER)))
    expect(hex(new BitWriter().toBytes())).toBe('01')
    expect(hex(new BitWriter().ushort(300).toBytes())).toBe('ac0201')
    expect(hex(new BitWriter().byte(1).toBytes())).toBe('0101')
  })

  it('RegisterIdentityModel {1, "secret", "app"} decodes with bit-exact ranges', () => {
    const { res, roots, buf } = decode(unhex(REGISTER), 60000, 'c2s')
    expect(res.codec).toBe('BitBuffer')
    expect(res.model).toBe('RegisterIdentityModel')
    expect(res.error).toBeUndefined()
    expect(res.warnings).toEqual([])
    expect(plain(res.payload)).toEqual({
      peerType: { type: 'byte', value: 1, name: 'Client' },
      SecretKey: { type: 'string', value: 'secret' },
      AppName: { type: 'string', value: 'app' }
    })
    expect(res.summary).toBe('peerType=Client app="app"')
    // 8 bits peerType at bit 0; "secret" = 8 + 6×7 = 50 bits from bit 8; "app" = 8 + 3×7 = 29 bits from bit 58; sentinel at bit 87.
    const p = 3 // decode() puts 3 filler bytes before the payload
    const peer = find(roots, 'fignet.peer_type')
    expect([peer.start, peer.length, peer.value]).toEqual([p + 0, 1, 1])
    expect(peer.label).toBe('peerType: 1 (Client) (bits 0–7, 8 bits)')
    const secret = find(roots, 'fignet.secret_key')
    expect([secret.start, secret.length, secret.value]).toEqual([p + 1, 7, 'secret']) // bits 8..57 → bytes 1..7
    const app = find(roots, 'fignet.app_name')
    expect([app.start, app.length, app.value]).toEqual([p + 7, 4, 'app']) // bits 58..86 → bytes 7..10
    const sentinel = find(roots, 'fignet.bitbuffer.sentinel')
    expect([sentinel.start, sentinel.length, sentinel.value]).toEqual([p + 10, 1, 87])
    expect(sentinel.label).toBe('Sentinel bit: bit 7 of byte 13 (bit 87)')
    expect(find(roots, 'fignet.payload').label).toBe('Payload (BitBuffer: RegisterIdentityModel): peerType=Client app="app"')
    expect(find(roots, 'fignet.payload.codec').value).toBe('BitBuffer')
    expect(find(roots, 'fignet.payload.model').value).toBe('RegisterIdentityModel')
    checkNesting(roots, buf)
  })

  it('the capture frame carrying RegisterIdentity holds exactly these payload bytes', () => {
    const frames: CaptureFrame[] = []
    const reader = new CaptureReader({ onFrame: (f) => frames.push(f) })
    reader.push(new Uint8Array(readFileSync(CAPTURE)))
    reader.end()
    // ENet SEND_RELIABLE data: FigNet envelope 60ea (60000 LE) 01 (callback 1), then the BitBuffer payload.
    const message = unhex(`60ea01 ${REGISTER}`)
    const hits = frames.filter((f) => hex(f.data).includes(hex(message)))
    expect(hits.map((f) => f.number)).toEqual([5])
    const at = hex(hits[0].data).indexOf(hex(message)) / 2 + 3
    const payload = hits[0].data.subarray(at, at + 11)
    const { res } = decode(payload, 60000, 'c2s')
    expect(plain(res.payload)).toMatchObject({ SecretKey: { value: 'secret' }, AppName: { value: 'app' } })
    // The reply (frame 7) is an empty BitBuffer: the sentinel only.
    const reply = frames.find((f) => f.number === 7)!
    expect(hex(reply.data).endsWith('60ea0101')).toBe(true)
    const empty = decode(reply.data.subarray(reply.data.length - 1), 60000, 's2c')
    expect(empty.res.codec).toBe('BitBuffer')
    expect(empty.res.error).toBeUndefined()
    expect(empty.res.summary).toBe('empty')
  })

  it('Ping {peerType=1} is 01 01; PingModel decodes', () => {
    const { res } = decode(unhex('0101'), 60002, 's2c')
    expect(plain(res.payload)).toEqual({ peerType: { type: 'byte', value: 1, name: 'Client' } })
    expect(res.summary).toBe('peerType=Client')
  })

  it('RegisterIdentity failure reply: SecretKey "invalid", AppName is the error text', () => {
    const bytes = new BitWriter().byte(0).string('invalid').string('app not found').toBytes()
    const { res, roots } = decode(bytes, 60000, 's2c')
    expect(res.summary).toBe('rejected: "app not found"')
    expect(res.notes.join(' ')).toMatch(/failure reply/)
    expect((res.payload as Record<string, { meaning?: string }>).AppName.meaning).toBe('error text')
    expect(find(roots, 'fignet.app_name').label).toMatch(/^AppName \(error text\): "app not found"/)
    // The same bytes from the client are an ordinary request.
    expect(decode(bytes, 60000, 'c2s').res.summary).toBe('peerType=Server app="app not found"')
  })
})

type Op =
  | { k: 'byte' | 'ushort' | 'short' | 'uint' | 'int'; v: number }
  | { k: 'bool'; v: boolean }
  | { k: 'long' | 'ulong'; v: bigint }
  | { k: 'string'; v: string }

function randomOps(rand: () => number): Op[] {
  const ops: Op[] = []
  const n = 1 + Math.floor(rand() * 12)
  const big = () => BigInt(Math.floor(rand() * 2 ** 32)) | (BigInt(Math.floor(rand() * 2 ** 32)) << 32n)
  for (let i = 0; i < n; i++) {
    switch (Math.floor(rand() * 9)) {
      case 0:
        ops.push({ k: 'byte', v: Math.floor(rand() * 256) })
        break
      case 1:
        ops.push({ k: 'bool', v: rand() < 0.5 })
        break
      case 2:
        ops.push({ k: 'ushort', v: Math.floor(rand() * 65536) })
        break
      case 3:
        ops.push({ k: 'short', v: Math.floor(rand() * 65536) - 32768 })
        break
      case 4:
        ops.push({ k: 'uint', v: ([0, 127, 128, 2 ** 32 - 1][Math.floor(rand() * 4)] ^ (rand() < 0.5 ? Math.floor(rand() * 2 ** 31) : 0)) >>> 0 })
        break
      case 5:
        ops.push({ k: 'int', v: (Math.floor(rand() * 2 ** 32) | 0) >> Math.floor(rand() * 31) })
        break
      case 6:
        ops.push({ k: 'long', v: BigInt.asIntN(64, big()) })
        break
      case 7:
        ops.push({ k: 'ulong', v: big() })
        break
      default:
        ops.push({ k: 'string', v: Array.from({ length: Math.floor(rand() * 40) }, () => String.fromCharCode(Math.floor(rand() * 128))).join('') })
    }
  }
  return ops
}

describe('BitBuffer reader against the writer', () => {
  it('random field sequences: values, bit-exact byte ranges, sentinel', () => {
    const rand = rng(60000)
    for (let round = 0; round < 400; round++) {
      const ops = randomOps(rand)
      const w = new BitWriter()
      ops.forEach((op, i) => (w as unknown as Record<string, (v: unknown, name: string) => void>)[op.k](op.v, `f${i}`))
      const bytes = w.toBytes()
      const tree = new TreeBuilder(true)
      const r = new FieldReader(bytes, tree, 0)
      const bb = new BitBufferReader(r)
      expect(bb.dataBits).toBe(w.bits.length)
      ops.forEach((op, i) => {
        const def = dynamicDef('test.f', `f${i}`, op.k === 'string' ? 'string' : 'u32')
        const got = op.k === 'string' ? bb.string(def) : (bb as unknown as Record<string, (d: unknown) => unknown>)[op.k](def)
        expect(got, `${op.k} #${i}`).toEqual(op.v)
      })
      bb.finish()
      expect(bb.warnings).toEqual([])
      expect(r.pos).toBe(bytes.length)
      // Each field's node covers exactly the bytes its bits touch.
      const nodes = tree.roots.filter((n) => n.key === 'test.f')
      expect(nodes.length).toBe(ops.length)
      nodes.forEach((n, i) => {
        const m = w.marks[i]
        const start = m.from >> 3
        const end = m.to > m.from ? ((m.to - 1) >> 3) + 1 : start
        expect([n.start, n.length], `field ${i} ${n.label}`).toEqual([start, end - start])
        expect(n.label).toContain(m.to - m.from === 1 ? `(bit ${m.from})` : `(bits ${m.from}–${m.to - 1}, ${m.to - m.from} bits)`)
      })
      const sentinel = tree.roots.find((n) => n.key === 'fignet.bitbuffer.sentinel')!
      expect(sentinel.value).toBe(w.bits.length)
    }
  })

  it('a zero last byte is reported as a missing sentinel; unread bits before the sentinel are reported', () => {
    const w = new BitWriter().byte(1)
    const noSentinel = Uint8Array.from([...w.toBytes(false), 0])
    const { res } = decode(noSentinel, 60002, 'c2s')
    expect(res.warnings.join(' ')).toMatch(/no sentinel bit: the last payload byte \(offset 4\) is zero/)
    expect(plain(res.payload)).toEqual({ peerType: { type: 'byte', value: 1, name: 'Client' } })

    const extra = new BitWriter().byte(1).add(5, 0b10110).toBytes()
    const d = decode(extra, 60002, 'c2s')
    expect(d.res.error).toBeUndefined()
    expect(d.res.warnings.join(' ')).toMatch(/5 data bits left before the sentinel at bit 8 \(offset 4\)/)
    const unread = find(d.roots, 'fignet.bitbuffer.unread')
    expect([unread.start, unread.length, unread.value]).toEqual([4, 1, 5])

    const empty = decode(new Uint8Array(0), 60000, 'c2s')
    expect(empty.res.warnings.join(' ')).toMatch(/empty BitBuffer payload/)
    expect(empty.res.error).toBeUndefined()
  })

  it('over-long varints are errors with their offset', () => {
    const bytes = new BitWriter().add(8, 0xff).add(8, 0xff).add(8, 0xff).add(8, 0xff).add(8, 0xff).add(8, 0x01).toBytes()
    const r = new FieldReader(bytes, new TreeBuilder(false), 0)
    const bb = new BitBufferReader(r)
    expect(() => bb.uint(null)).toThrow(DecodeError)
    try {
      new BitBufferReader(new FieldReader(bytes, new TreeBuilder(false), 0)).uint(null)
    } catch (e) {
      expect((e as DecodeError).offset).toBe(0)
      expect((e as DecodeError).message).toMatch(/longer than 5 groups/)
    }
  })

  it('every truncation of RegisterIdentity: an error with an offset inside the payload and the fields read so far', () => {
    const full = unhex(REGISTER)
    for (let cut = 1; cut < full.length; cut++) {
      // A cut payload keeps NetStack's rule: the highest set bit of its last byte is taken as the sentinel.
      const { res, roots, buf } = decode(full.subarray(0, cut), 60000, 'c2s')
      checkNesting(roots, buf)
      expect(res.codec).toBe('BitBuffer')
      if (res.error) {
        expect(res.error.offset).toBeGreaterThanOrEqual(3)
        expect(res.error.offset).toBeLessThan(3 + cut)
        expect(res.error.message).toMatch(/offset \d+/)
      } else if (cut === 1)
        expect(res.summary).toBe('empty') // 01: the sentinel alone, a valid empty buffer
      else expect(res.warnings.length).toBeGreaterThan(0)
      if (cut >= 2) expect((res.payload as Record<string, unknown>).peerType).toBeDefined()
      walk(roots, (n) => {
        if (n.start !== undefined) expect(n.start + n.length!).toBeLessThanOrEqual(buf.length)
      })
    }
  })

  it('a string length beyond the data fails before reading characters', () => {
    const bytes = new BitWriter().byte(1).add(8, 200).add(7, 65).toBytes()
    const { res } = decode(bytes, 60000, 'c2s')
    expect(res.error?.message).toMatch(/SecretKey: 200 characters need 1400 bits at bit 16 \(offset 5\), only 7 data bits left/)
    expect(plain(res.payload)).toEqual({ peerType: { type: 'byte', value: 1, name: 'Client' } })
  })
})
