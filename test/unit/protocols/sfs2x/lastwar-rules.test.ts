// SFS2X points checked against the Last War seed (docs/sfs2x.md): a XOR-recognised body that then fails is
// a malformed body, not "Encrypted"; *_ARRAY counts above 32767 (an i16 in the game's SDK); 0x10 without the
// Zstandard magic; the 0x20 (compressed iff above the threshold) and 0x08 (4-byte length iff above 65535)
// writer rules, and which compression threshold applies. Packets come from the tests' own encoder (helpers.ts).
import { describe, it, expect, beforeEach } from 'vitest'
import { resetFrames } from '../../helpers/frames'
import type { Sfs2xValue } from '../../../../src-shared/protocols/sfs2x'
import { Conn, encode, envelope, ext, harness, keyStore, packet, runEngine, t, unhex, ZSTD_BODY, ZSTD_HEX, type TV } from './helpers'

const val = (m: { value: unknown }) => m.value as Sfs2xValue
const NO_ZSTD = '0x10 is set but the body does not start with the Zstandard magic 28 b5 2f fd'

/** An extension request whose serialized body is exactly n bytes (padded with a BYTE_ARRAY). */
function sized(n: number, cmd = 'bulk'): TV {
  const base = encode(ext(cmd, { s: t.bytes([]) })).length
  return ext(cmd, { s: t.bytes(new Uint8Array(n - base).fill(0x78)) })
}

beforeEach(() => resetFrames())

describe('a XOR-recognised body that does not decode', () => {
  const body = encode(ext('mail.read', { uid: t.str('u1'), type: t.int(2), toUser: t.long(99n), _id: t.int(42) }))
  // The SFSObject claims more than is there: its last 6 bytes are missing, and the length says so.
  const cut = body.subarray(0, body.length - 6)

  it('keeps its transforms and shows the SFSObject error, as any malformed body', () => {
    const { m, draft } = harness().decode(packet(cut, { xor: true }))
    expect(m.name).not.toBe('Encrypted')
    expect(val(m)).toMatchObject({ transforms: ['xor'], variant: 'lastwar', header: { encrypted: true }, length: cut.length })
    expect(val(m).encryptedBody).toBeUndefined()
    // The cut falls inside the last key, "_id" (its 2-byte length read, 3 bytes wanted, 2 left).
    expect(draft.error).toBe(`key: needs 3 bytes at offset ${cut.length - 2}, only 2 present in XOR-decoded body`)
    expect([m.name, m.summary]).toEqual(['CallExtension', 'CallExtension mail.read room=-1'])
    expect(draft.warnings.join('\n')).not.toMatch(/XOR does not apply/)
    expect(draft.sources.map((s) => s.name)).toEqual(['WebSocket message', 'XOR-decoded body'])
    // What was read before the cut is kept.
    const b = val(m).body as { type: string; value: Map<string, TV> }
    expect(b.type).toBe('SFS_OBJECT')
    expect([...b.value.keys()]).toEqual(['c', 'a', 'p'])
  })

  it('with SFS2X_AES keys that do not fit either: the XOR error, not "none of the keys decrypts"', () => {
    const keys = keyStore(`SFS2X_AES * ${'11'.repeat(16)} ${'22'.repeat(16)}`)
    const { m, draft } = harness({ keys }).decode(packet(cut, { xor: true }))
    expect(val(m).transforms).toEqual(['xor'])
    expect(draft.error).toMatch(/in XOR-decoded body$/)
  })

  it('a body that is neither plain nor XOR-recognisable stays "Encrypted" (no key)', () => {
    const noise = Uint8Array.from({ length: 48 }, (_, i) => (i * 73 + 41) & 0xff)
    const { m, draft } = harness().decode(packet(noise, { header: 0xc0 }))
    expect(m.name).toBe('Encrypted')
    expect(draft.error).toBeNull()
  })
})

describe('*_ARRAY counts above 32767', () => {
  const arrays: [string, TV][] = [
    ['BOOL_ARRAY', t.boolArr(new Array(32768).fill(true))],
    ['SHORT_ARRAY', t.shortArr(new Array(32768).fill(-1))],
    ['INT_ARRAY', t.intArr(new Array(32768).fill(7))],
    ['LONG_ARRAY', t.longArr(new Array(32768).fill(1n))],
    ['FLOAT_ARRAY', t.floatArr(new Array(32768).fill(0.5))],
    ['DOUBLE_ARRAY', t.doubleArr(new Array(32768).fill(0.25))],
    ['UTF_STRING_ARRAY', t.strArr(new Array(32768).fill(''))]
  ]
  // Body: 12 00 01 (object, 1 key), 00 01 'v' (key), tag; the count follows at 3 + 3 + 3 + 1 in the packet
  // (header byte and a 2-byte length; a 4-byte length when bigSized).
  for (const [type, v] of arrays) {
    it(`${type} of 32768 decodes with a warning (a negative count for the game's SDK)`, () => {
      const wire = packet(t.obj({ v }))
      const countAt = (wire[0] & 0x08 ? 5 : 3) + 3 + 3 + 1
      const { m, draft } = harness().decode(wire)
      expect(draft.error).toBeNull()
      expect((val(m).body as { value: Map<string, TV> }).value.get('v')!.value).toHaveLength(32768)
      expect(draft.warnings).toEqual([`${type} count 32768 at offset ${countAt} is above 32767 (the game's SDK reads it as a signed 16-bit value: -32768)`])
    })
  }

  it('a BOOL_ARRAY of 40,000 says -25536; one of 32767 says nothing', () => {
    const big = harness().decode(packet(t.obj({ b: t.boolArr(new Array(40000).fill(false)) })))
    expect(big.draft.warnings).toEqual(["BOOL_ARRAY count 40000 at offset 10 is above 32767 (the game's SDK reads it as a signed 16-bit value: -25536)"])
    expect(harness().decode(packet(t.obj({ b: t.boolArr(new Array(32767).fill(false)) }))).draft.warnings).toEqual([])
  })
})

describe('0x10 without the Zstandard magic', () => {
  it('warns, plain or after the XOR; a Zstandard body does not', () => {
    const plain = harness().decode(packet(ext('x', {}), { header: 0x90 }))
    expect(plain.draft.error).toBeNull()
    expect(plain.draft.warnings).toEqual([`${NO_ZSTD} (Last War sets 0x10 on Zstandard bodies only)`])
    const xored = harness().decode(packet(ext('x', {}), { xor: true, header: 0xd0 }))
    expect(val(xored.m).transforms).toEqual(['xor'])
    expect(xored.draft.warnings).toEqual([`${NO_ZSTD} in XOR-decoded body (Last War sets 0x10 on Zstandard bodies only)`])
    const zstd = harness().decode(packet(ZSTD_BODY, { zstd: unhex(ZSTD_HEX) }))
    expect(zstd.draft.warnings.join('\n')).not.toMatch(/Zstandard magic/)
  })
})

describe('which compression threshold applies, and the 0x20 rule', () => {
  const LW = 'threshold 1024: Last War compresses above 1024 bytes whatever the Handshake says'

  /** A Last War conversation whose server (b2a) answered a Handshake with ct=3072. */
  function lastWar() {
    const h = harness()
    h.decode(packet(envelope(0, 0, { api: t.str('1.7.8'), cl: t.str('Unity') }), { xor: true }), 'a2b')
    h.decode(packet(envelope(0, 0, { tk: t.str('0123'), ct: t.int(3072), ms: t.int(1000000) }), { xor: true }), 'b2a')
    return h
  }

  it('Last War packets are judged by 1024 whatever ct says, both ways', () => {
    const h = lastWar()
    for (const dir of ['a2b', 'b2a'] as const) {
      const ok = h.decode(packet(sized(2000), { zlib: true, xor: true }), dir)
      expect(val(ok.m)).toMatchObject({ variant: 'lastwar', transforms: ['xor', 'zlib'], compressionThreshold: 1024, compressionRule: 'lastwar' })
      expect(ok.draft.warnings).toEqual([])
      const plainBig = h.decode(packet(sized(2000), { xor: true }), dir)
      expect(plainBig.draft.warnings).toEqual([`not compressed although the 2000-byte body is above the compression threshold (${LW})`])
      const smallZ = h.decode(packet(sized(600), { zlib: true, xor: true }), dir)
      expect(smallZ.draft.warnings).toEqual([`compressed (0x20) although the 600-byte body is not above the compression threshold (${LW})`])
      expect(h.decode(packet(sized(1024), { xor: true }), dir).draft.warnings).toEqual([])
      const z1025 = h.decode(packet(sized(1025), { zlib: true, xor: true }), dir)
      expect([val(z1025.m).uncompressedLength, z1025.draft.warnings]).toEqual([1025, []])
    }
  })

  it('over raw TCP, the same', () => {
    const conn = new Conn()
      .c(packet(sized(2000), { zlib: true, xor: true }))
      .s(packet(sized(1500), { zlib: true, xor: true }))
      .s(packet(sized(1500), { xor: true }))
    const { messages } = runEngine(conn.frames)
    expect(messages.map((m) => [m.direction, val(m).compressionRule, val(m).compressionThreshold, m.warnings.length])).toEqual([
      ['c2s', 'lastwar', 1024, 0],
      ['s2c', 'lastwar', 1024, 0],
      ['s2c', undefined, undefined, 1]
    ])
  })

  it('vanilla packets are not judged (clients set their own threshold), but say which threshold is in force', () => {
    const h = harness()
    const z = h.decode(packet(sized(100), { zlib: true }))
    expect(val(z.m)).toMatchObject({ compressionThreshold: 1024, compressionRule: 'default' })
    expect(z.draft.warnings).toEqual([])
    expect(h.decode(packet(sized(5000))).draft.warnings).toEqual([])
    h.decode(packet(envelope(0, 0, { tk: t.str('0123'), ct: t.int(3072), ms: t.int(1000000) })), 'b2a')
    expect(val(h.decode(packet(sized(100), { zlib: true })).m)).toMatchObject({ compressionThreshold: 3072, compressionRule: 'handshake' })
  })
})

describe('the 0x08 rule: a 4-byte length only above 65535', () => {
  it('notes a 4-byte length that no writer needs', () => {
    const { m, draft } = harness().decode(packet(ext('x', {}), { big: true }))
    expect(val(m).lengthRule).toBe('unneeded')
    expect(draft.warnings).toEqual([`bigSized (0x08) with a length of ${encode(ext('x', {})).length}: a 4-byte length is only needed above 65535`])
  })

  it("65336..65535 with 0x08 is the JS SDK's own rule over WebSocket, a note over raw TCP", () => {
    const wire = packet(sized(65336), { big: true })
    expect(harness().decode(wire).draft.warnings).toEqual([])
    const { messages } = runEngine(new Conn().c(wire).frames)
    expect(messages).toHaveLength(1)
    expect(val(messages[0]).lengthRule).toBe('js-sdk')
    expect(messages[0].warnings).toEqual([
      "bigSized (0x08) with a length of 65336: SFS2X uses a 4-byte length only above 65535 (above 65335 is the JS SDK's quirk)"
    ])
    resetFrames()
    const ok = runEngine(new Conn().c(packet(sized(65536))).frames).messages[0]
    expect([val(ok).lengthRule, ok.warnings]).toEqual(['sfs2x', []])
  })
})
