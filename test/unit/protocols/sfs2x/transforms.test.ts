// Header bits, lengths, and the body transforms: Last War XOR, zlib, Zstandard, AES-128-CBC, caps.
import { describe, it, expect } from 'vitest'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import zlib from 'node:zlib'
import { jsonSafe } from '../../../../src-shared/export/json'
import { compileFilter, targetFromMessage } from '../../../../src-shared/filter'
import type { Sfs2xValue } from '../../../../src-shared/protocols/sfs2x'
import { DEFAULT_MAX_DECOMPRESSED, decompressZstd, walkZstd } from '../../../../src-shared/protocols/sfs2x/transforms'
import { concat, encode, envelope, ext, find, findAll, harness, hex, keyStore, packet, rangeBytes, t, unhex, xorLength, ZSTD_BODY, ZSTD_HEX } from './helpers'

const val = (m: { value: unknown }) => m.value as Sfs2xValue

// 4 MiB of zeros: `head -c 4194304 /dev/zero | zstd -q -c --no-content-size | xxd -p` (no size in the header)
const ZSTD_ZEROS_NO_SIZE =
  '28b52ffd04585400001000000100fbff39c00202001000020010000200100002001000020010000200100002001000020010000200100002001000020010000200100002001000020010000200100002001000020010000200100002001000020010000200100002001000020010000200100002001000020010000200100002001000020010000200100003001000289dbc7c'
// the same with the content size in the header: `head -c 4194304 /dev/zero | zstd -q -c | xxd -p`
const ZSTD_ZEROS_SIZED =
  '28b52ffd8458000040005400001000000100fbff39c00202001000020010000200100002001000020010000200100002001000020010000200100002001000020010000200100002001000020010000200100002001000020010000200100002001000020010000200100002001000020010000200100002001000020010000200100002001000020010000200100003001000289dbc7c'

/** The zstd CLI is a test requirement (README, .ci/run), as tshark is: without it the test fails saying so. */
function zstdCli(args: string[], input: Uint8Array): Uint8Array {
  try {
    execFileSync('zstd', ['--version'], { stdio: 'ignore' })
  } catch {
    throw new Error('the `zstd` command-line tool is required by this test (apt-get install zstd); it is not on PATH')
  }
  return Uint8Array.from(execFileSync('zstd', args, { input }))
}

describe('header and length', () => {
  it('shows every header bit as its own field over the header byte', () => {
    const { m } = harness().decode(packet(envelope(0, 29), { zlib: true, shard: 7, big: true }))
    const tree = m.draft.tree.roots
    const hdr = find(tree, 'sfs2x.header')
    expect(hdr).toMatchObject({ start: 0, length: 1, value: 0xac, label: 'Header: 0xac (binary, compressed, bigSized, forward)' })
    const bits = ['binary', 'encrypted', 'compressed', 'bluebox', 'bigsized', 'forward'].map((b) => find(tree, `sfs2x.header.${b}`))
    expect(bits.map((b) => b.value)).toEqual([true, false, true, false, true, true])
    expect(bits.every((b) => b.start === 0 && b.length === 1)).toBe(true)
    expect(bits[0].label).toBe('1... .... = Binary: set')
    expect(bits[2].label).toBe('..1. .... = Compressed: set')
    expect(bits[5].label).toBe('.... .1.. = Forward (shard id follows): set')
    expect(find(tree, 'sfs2x.shard')).toMatchObject({ value: 7, start: 1, length: 2 })
    expect(find(tree, 'sfs2x.length')).toMatchObject({ start: 3, length: 4 })
    expect(val(m)).toMatchObject({ shard: 7, header: { forward: true, bigSized: true, compressed: true }, lengthRule: 'unneeded' })
  })

  it('tells which bigSized rule a length implies: 65335 / 65336 / 65535 / 65536', () => {
    const pad = (n: number) => {
      // an extension body of exactly n bytes
      const base = encode(ext('data', { s: t.str('') })).length
      return ext('data', { s: t.str('x'.repeat(n - base)) })
    }
    const cases: [number, boolean, string, string][] = [
      [65335, false, 'short', 'Length: 65335 (2-byte length)'],
      [65336, true, 'js-sdk', 'Length: 65336 (4-byte length: > 65335 only (JS SDK quirk))'],
      [65336, false, 'short-over-js', 'Length: 65336 (2-byte length: ≤ 65535 (SFS2X); the JS SDK would have used 4 bytes above 65335)'],
      [65535, true, 'js-sdk', 'Length: 65535 (4-byte length: > 65335 only (JS SDK quirk))'],
      [65535, false, 'short-over-js', 'Length: 65535 (2-byte length: ≤ 65535 (SFS2X); the JS SDK would have used 4 bytes above 65335)'],
      [65536, true, 'sfs2x', 'Length: 65536 (4-byte length: > 65535 (SFS2X))']
    ]
    for (const [n, big, rule, label] of cases) {
      const body = pad(n)
      expect(encode(body).length).toBe(n)
      const { m, draft } = harness().decode(packet(body, { big }))
      expect(draft.error).toBeNull()
      expect(val(m)).toMatchObject({ length: n, lengthRule: rule, header: { bigSized: big } })
      expect(find(m.draft.tree.roots, 'sfs2x.length').label).toBe(label)
    }
  })

  it('a WebSocket packet with bytes after it, and an empty message, are errors', () => {
    const p = packet(envelope(0, 29))
    expect(harness().decode(concat(p, unhex('0102'))).draft.error).toBe(`2 bytes after the packet at offset ${p.length}`)
    const empty = harness().decode(new Uint8Array(0))
    expect(empty.draft.error).toBe('empty packet at offset 0')
    expect(empty.m.name).toBe('SFS2X packet')
  })

  it('a length longer than the message is a truncated packet, decoded as far as it goes', () => {
    const p = packet(ext('mail.read', { uid: t.long(5n) }))
    const { m, draft } = harness().decode(p.subarray(0, 40))
    expect(draft.error).toBe(`truncated packet: the length says ${p.length - 3} body bytes, only 37 present (body at offset 3)`)
    expect(find(m.draft.tree.roots, 'sfs2x.p.p.c').value).toBe('mail.read')
  })
})

describe('Last War XOR', () => {
  it('detects a body that only parses after the length-derived XOR', () => {
    const h = harness()
    const body = ext('mail.read', { uid: t.str('u1'), type: t.int(2), toUser: t.long(99n), _id: t.int(42) })
    const wire = packet(body, { xor: true, shard: 3 })
    expect(wire[0]).toBe(0xc4)
    const { m, draft } = h.decode(wire)
    expect(draft.error).toBeNull()
    expect(m.summary).toBe('CallExtension mail.read room=-1 _id=42')
    expect(val(m)).toMatchObject({
      variant: 'lastwar',
      transforms: ['xor'],
      shard: 3,
      command: 'mail.read',
      room: -1,
      requestId: 42,
      header: { encrypted: true, forward: true }
    })
    expect(jsonSafe(val(m).body)).toEqual(jsonSafe(body))
    expect(draft.sources.map((s) => s.name)).toEqual(['WebSocket message', 'XOR-decoded body'])
    const key = find(m.draft.tree.roots, 'sfs2x.xor_key')
    expect(key).toMatchObject({ source: 0, start: 3, length: 2, value: encode(body).length })
    // the body tree points into the XOR-decoded source
    const cmd = find(m.draft.tree.roots, 'sfs2x.p.p.c')
    expect(cmd.source).toBe(1)
    expect(Buffer.from(rangeBytes(draft.sources, cmd)).toString('latin1')).toBe('\x08\x00\x09mail.read')
    expect(find(m.draft.tree.roots, 'sfs2x.req_id')).toMatchObject({ value: 42, source: 1, length: 4 })
    expect(h.notes).toEqual(['SFS2X "Last War" variant: bodies XOR-obfuscated with their length'])
  })

  it('XOR applied after zlib (removed before inflating)', () => {
    const body = ext('world.map', { tiles: t.intArr(Array.from({ length: 400 }, (_, i) => i % 5)), _id: t.int(9) })
    const { m, draft } = harness().decode(packet(body, { zlib: true, xor: true }))
    expect(draft.error).toBeNull()
    expect(val(m)).toMatchObject({
      variant: 'lastwar',
      transforms: ['xor', 'zlib'],
      zlibHeaderHex: '789c',
      uncompressedLength: encode(body).length,
      header: { byte: 0xe0 }
    })
    expect(draft.sources.map((s) => s.name)).toEqual(['WebSocket message', 'XOR-decoded body', 'Decompressed body (zlib)'])
    expect(find(m.draft.tree.roots, 'sfs2x.zlib_header')).toMatchObject({ source: 1, start: 0, length: 2, value: 0x789c })
    expect(find(m.draft.tree.roots, 'sfs2x.p.p.c').source).toBe(2)
    expect(jsonSafe(val(m).body)).toEqual(jsonSafe(body))
  })

  it('XOR with a 4-byte (bigSized) length uses all four length bytes', () => {
    const body = ext('big', { blob: t.bytes(randomBytes(70000)) })
    const wire = packet(body, { xor: true })
    expect(wire[0]).toBe(0xc8)
    const { m, draft } = harness().decode(wire)
    expect(draft.error).toBeNull()
    expect(val(m)).toMatchObject({ variant: 'lastwar', lengthRule: 'sfs2x' })
  })

  it('plain bodies are not mistaken for XOR, and an unencrypted XORed body is still found', () => {
    const body = ext('x', {})
    expect(val(harness().decode(packet(body)).m).variant).toBeUndefined()
    const { m } = harness().decode(packet(body, { xor: true, header: 0x80 }))
    expect(val(m)).toMatchObject({ variant: 'lastwar', header: { encrypted: false } })
  })
})

describe('Zstandard (the 0x10 bit in Last War)', () => {
  it('decompresses a zstd body (committed test data)', () => {
    const zst = unhex(ZSTD_HEX)
    const { m, draft } = harness().decode(packet(ZSTD_BODY, { zstd: zst }))
    expect(draft.error).toBeNull()
    expect(val(m)).toMatchObject({ transforms: ['zstd'], uncompressedLength: encode(ZSTD_BODY).length, header: { blueBoxed: true, byte: 0x90 } })
    expect(hex(draft.sources[1].bytes)).toBe(hex(encode(ZSTD_BODY)))
    expect(draft.sources[1].name).toBe('Decompressed body (zstd)')
    expect(m.summary).toBe('CallExtension init.push room=-1 _id=7')
  })

  it('zstd + XOR, and a 4-byte decompressed-size prefix before the frame', () => {
    const zst = unhex(ZSTD_HEX)
    const n = encode(ZSTD_BODY).length
    const x = harness().decode(packet(xorLength(zst, zst.length), { zstd: xorLength(zst, zst.length), header: 0xd0 }))
    // (the builder XORs nothing itself here: the zstd bytes are pre-XORed with their own length)
    expect(x.draft.error).toBeNull()
    expect(val(x.m)).toMatchObject({ variant: 'lastwar', transforms: ['xor', 'zstd'] })
    const prefixed = concat(Uint8Array.from([0, 0, n >> 8, n & 0xff]), zst)
    const p = harness().decode(packet(prefixed, { zstd: prefixed }))
    expect(p.draft.error).toBeNull()
    expect(val(p.m)).toMatchObject({ transforms: ['zstd'], zstdDeclaredSize: n, uncompressedLength: n })
    expect(find(p.m.draft.tree.roots, 'sfs2x.zstd_declared_size')).toMatchObject({ value: n, start: 3, length: 4 })
  })

  it('a size prefix not counted in the length (the layout sfs2x-py describes) is recognised from the frame', () => {
    const zst = unhex(ZSTD_HEX)
    const n = encode(ZSTD_BODY).length
    const wire = concat(Uint8Array.from([0xb0, zst.length >> 8, zst.length & 0xff, 0, 0, n >> 8, n & 0xff]), zst)
    const { m, draft } = harness().decode(wire)
    expect(draft.error).toBeNull()
    expect(draft.warnings).toContain('4-byte decompressed size before the Zstandard frame is not counted in the length')
    expect(val(m)).toMatchObject({ length: zst.length, zstdDeclaredSize: n, uncompressedLength: n })
  })

  it('round-trips a fresh body through the zstd command-line tool (required)', () => {
    const body = ext('cli', { r: t.bytes(randomBytes(3000)), s: t.str('z'.repeat(5000)) })
    const zst = zstdCli(['-q', '-c', '-3'], encode(body))
    const { m, draft } = harness().decode(packet(body, { zstd: zst, xor: true }))
    expect(draft.error).toBeNull()
    expect(jsonSafe(val(m).body)).toEqual(jsonSafe(body))
  })

  it('caps zstd output, and refuses a frame whose declared size or window is above the cap', () => {
    const cap = 3 * 1024 * 1024 // above the frames' 2 MiB window, below their 4 MiB of output
    const streamed = decompressZstd(unhex(ZSTD_ZEROS_NO_SIZE), cap)
    expect(streamed).toMatchObject({ error: `decompression capped at ${cap} bytes`, capped: true })
    expect(streamed.out.length).toBe(cap)
    const sized = decompressZstd(unhex(ZSTD_ZEROS_SIZED), cap)
    expect(sized.error).toBe(`Zstandard frame declares 4194304 bytes, above the decompression cap (${cap} bytes): refused`)
    expect(decompressZstd(unhex(ZSTD_ZEROS_NO_SIZE), 1024 * 1024).error).toBe(
      'Zstandard window of 2097152 bytes is above the decompression cap (1048576 bytes): refused'
    )
    expect(sized.out.length).toBe(0)
    // a window descriptor of 2 GiB on a tiny frame is refused before fzstd allocates it
    const hugeWindow = unhex('28b52ffd 00 a8 010000')
    expect(decompressZstd(hugeWindow, DEFAULT_MAX_DECOMPRESSED).error).toMatch(/^Zstandard window of \d+ bytes is above the decompression cap/)
    // through a packet: the error carries the offset of the compressed data
    const { draft } = harness({ options: { maxDecompressed: cap } }).decode(packet(new Uint8Array(0), { zstd: unhex(ZSTD_ZEROS_NO_SIZE) }))
    expect(draft.error).toBe(`zstd: decompression capped at ${cap} bytes (compressed data at offset 3)`)
    expect(draft.sources.map((s) => s.name)).toEqual(['WebSocket message', 'Decompressed body (zstd, capped)'])
  })

  it('walks frames without decompressing, and reports a broken one', () => {
    const w = walkZstd(unhex(ZSTD_HEX))
    expect(w).toMatchObject({ ok: true, end: unhex(ZSTD_HEX).length })
    const broken = harness().decode(packet(new Uint8Array(0), { zstd: unhex(ZSTD_HEX).subarray(0, 30) }))
    expect(broken.draft.error).toBe('zstd: Zstandard block at offset 7 needs 112 bytes after its header, only 20 present (compressed data at offset 3)')
  })
})

describe('zlib', () => {
  it('stops a zlib bomb at the cap (default 64 MiB) and says so', () => {
    const bomb = zlib.deflateSync(Buffer.alloc(80 * 1024 * 1024))
    expect(bomb.length).toBeLessThan(100_000)
    const { m, draft } = harness().decode(packet(Uint8Array.from(bomb), { header: 0xa8, big: true }))
    expect(draft.error).toBe(`zlib: decompression capped at ${DEFAULT_MAX_DECOMPRESSED} bytes (compressed data at offset 5)`)
    expect(draft.sources[1]).toMatchObject({ name: 'Decompressed body (zlib, capped)' })
    expect(draft.sources[1].bytes.length).toBe(DEFAULT_MAX_DECOMPRESSED)
    expect(val(m).uncompressedLength).toBe(DEFAULT_MAX_DECOMPRESSED)
  })

  it('reports a compressed bit without a zlib stream, a corrupt stream, and a bad checksum', () => {
    const noHeader = harness().decode(packet(unhex('01020304'), { header: 0xa0 }))
    expect(noHeader.draft.error).toBe('compressed bit set but the body has no zlib header (0x01 0x02) at offset 3')
    const z = Uint8Array.from(zlib.deflateSync(Buffer.from(encode(envelope(0, 29)))))
    const corrupt = z.slice()
    corrupt[2] = 0xff
    expect(harness().decode(packet(corrupt, { header: 0xa0 })).draft.error).toMatch(/^zlib: .+ \(compressed data at offset 3\)$/)
    const badSum = z.slice()
    badSum[badSum.length - 1] ^= 1
    const r = harness().decode(packet(badSum, { header: 0xa0 }))
    expect(r.draft.error).toBeNull()
    expect(r.draft.warnings).toEqual(['zlib Adler-32 checksum does not match the inflated data'])
  })
})

describe('AES-128-CBC (vanilla 0x40) with a key file entry', () => {
  // Fixed, not random: with a wrong key the padding is random bytes, valid now and then (1 in 256 or so),
  // which would make the wrong-key case below fail at random.
  const key = Uint8Array.from({ length: 16 }, (_, i) => (i * 37 + 11) & 0xff)
  const iv = Uint8Array.from({ length: 16 }, (_, i) => (i * 53 + 7) & 0xff)
  const line = `SFS2X_AES 10.0.0.1:40000-10.0.0.2:9933 ${hex(key)} ${hex(iv)}\n`

  it('decrypts (node:crypto encrypted), then inflates: decrypt before decompress', () => {
    const body = ext('secret.op', { n: t.int(1), blob: t.str('q'.repeat(3000)) })
    const h = harness({ keys: keyStore(line) })
    const { m, draft } = h.decode(packet(body, { zlib: true, aes: { key, iv } }))
    expect(draft.error).toBeNull()
    expect(val(m)).toMatchObject({ transforms: ['aes', 'zlib'], header: { byte: 0xe0, encrypted: true, compressed: true }, command: 'secret.op' })
    expect(val(m).variant).toBeUndefined()
    expect(draft.sources.map((s) => s.name)).toEqual(['WebSocket message', 'Decrypted body', 'Decompressed body (zlib)'])
    const pad = find(m.draft.tree.roots, 'sfs2x.aes_padding')
    expect(pad.source).toBe(1)
    expect([...rangeBytes(draft.sources, pad)].every((b) => b === pad.value)).toBe(true)
    expect(jsonSafe(val(m).body)).toEqual(jsonSafe(body))
    // uncompressed
    expect(val(h.decode(packet(envelope(0, 29), { aes: { key, iv } })).m)).toMatchObject({ transforms: ['aes'], action: 'PingPong' })
  })

  it('a wildcard key works too; a wrong key is an error; no key shows the body as encrypted', () => {
    const wire = packet(ext('op', {}), { aes: { key, iv } })
    expect(harness({ keys: keyStore(`SFS2X_AES * ${hex(key)} ${hex(iv)}`) }).decode(wire).draft.error).toBeNull()
    const wrong = harness({ keys: keyStore(`SFS2X_AES * ${'00'.repeat(16)} ${hex(iv)}`) }).decode(wire)
    expect(wrong.draft.error).toMatch(
      /^encrypted \(0x40\): none of the 1 SFS2X_AES key decrypts the body \(AES-128-CBC with the SFS2X_AES key \(key file line 1\): bad PKCS#7 (padding byte \d+ )?.*\(body at offset 3\)\)$/
    )
    const none = harness().decode(wire)
    expect(none.draft.error).toBeNull()
    expect(none.m.name).toBe('Encrypted')
    expect(none.m.summary).toBe(`encrypted body, ${wire.length - 3} bytes (no SFS2X_AES key for this conversation)`)
    expect(val(none.m)).toMatchObject({ body: null, header: { encrypted: true }, length: wire.length - 3 })
    expect(hex(val(none.m).encryptedBody!)).toBe(hex(wire.subarray(3)))
    expect(find(none.m.draft.tree.roots, 'sfs2x.body').value).toEqual(wire.subarray(3))
  })
})

describe('envelope', () => {
  it('Handshake ct updates the compression threshold; Login fields; errors; server events', () => {
    const h = harness()
    h.decode(packet(envelope(0, 0, { tk: t.str('abc'), ct: t.int(3072), ms: t.int(1000000) })), 'b2a')
    const big = ext('bulk', { s: t.str('a'.repeat(2000)) })
    expect(val(h.decode(packet(big, { zlib: true })).m).compressionThreshold).toBe(3072)
    expect(val(harness().decode(packet(big, { zlib: true })).m).compressionThreshold).toBe(1024)
    const login = h.decode(packet(envelope(0, 1, { zn: t.str('Zone'), un: t.str('bob'), pw: t.str('6817b085c98c04ca42071d266e34772f'), p: t.obj({}) })))
    expect(login.m.summary).toBe('Login zone=Zone user=bob')
    expect(find(login.m.draft.tree.roots, 'sfs2x.password').label).toBe('Password hash: "6817b085c98c04ca42071d266e34772f"')
    expect(find(login.m.draft.tree.roots, 'sfs2x.zone').value).toBe('Zone')
    expect(h.decode(packet(envelope(0, 1, { ec: t.short(28), ep: t.strArr(['bob']) })), 'b2a').m.summary).toBe('LoginResponse ec=28')
    const ev = h.decode(packet(envelope(0, 1000, { r: t.int(3), u: t.arr(t.int(7), t.str('alice')) })), 'b2a').m
    expect([ev.name, ev.summary, val(ev).action]).toEqual(['UserEnterRoom', 'UserEnterRoom r=3 u=[2]', 'UserEnterRoom'])
    const gm = h.decode(packet(envelope(0, 7, { t: t.byte(0), r: t.int(1), m: t.str('hello all') }))).m
    expect(gm.summary).toBe('GenericMessage public m="hello all"')
    const unknown = h.decode(packet(envelope(5, 77, {}))).m
    expect([unknown.name, val(unknown).controller, val(unknown).action]).toEqual(['Controller 5 action 77', 5, 77])
    const notEnvelope = h.decode(packet(t.obj({ x: t.int(1) }))).m
    expect([notEnvelope.name, notEnvelope.summary]).toEqual(['SFSObject', 'SFSObject {x}'])
    const arr = h.decode(packet(t.arr(t.int(1)))).m
    expect([arr.name, arr.summary]).toEqual(['SFSArray', 'SFSArray [1]'])
  })

  it('filter fields: controller/action/cmd/room/req_id point at their values', () => {
    const body = ext('mail.read', { _id: t.int(42) })
    const { m, draft } = harness().decode(packet(body))
    const roots = m.draft.tree.roots
    expect(roots).toHaveLength(1)
    expect(roots[0]).toMatchObject({
      key: 'sfs2x',
      start: 0,
      length: draft.sources[0].bytes.length,
      label: `SmartFoxServer 2X: CallExtension, ${draft.sources[0].bytes.length} bytes, 0x80`
    })
    expect(roots[0].children!.map((n) => n.key)).toEqual([
      'sfs2x.header',
      'sfs2x.length',
      'sfs2x.body',
      'sfs2x.controller',
      'sfs2x.action',
      'sfs2x.cmd',
      'sfs2x.room',
      'sfs2x.req_id',
      'sfs2x.object'
    ])
    expect(find(roots, 'sfs2x.controller')).toMatchObject({ value: 1, label: 'Controller: 1 (Extension)', start: 10, length: 1 })
    expect(find(roots, 'sfs2x.action')).toMatchObject({ value: 13, label: 'Action: 13 (CallExtension)', start: 15, length: 2 })
    expect(Buffer.from(rangeBytes(draft.sources, find(roots, 'sfs2x.cmd'))).toString('latin1')).toBe('\x00\x09mail.read')
    expect([...rangeBytes(draft.sources, find(roots, 'sfs2x.room'))]).toEqual([0xff, 0xff, 0xff, 0xff])
    expect(findAll(roots, 'sfs2x.p.p.p._id')[0].value).toBe(42)
  })

  it('answers the documented filters', () => {
    const h = harness()
    const msg = (bytes: Uint8Array) => {
      const { m } = h.decode(bytes)
      return targetFromMessage({ tree: m.draft.tree.roots, protocol: 'sfs2x', stack: ['tcp', 'websocket'] })
    }
    const mail = msg(packet(ext('mail.read', { uid: t.str('u7'), _id: t.int(42) }), { xor: true }))
    const ping = msg(packet(envelope(0, 29)))
    const zipped = msg(packet(ext('chat', { s: t.str('z'.repeat(2000)) }), { zlib: true }))
    const cases: [string, boolean, boolean, boolean][] = [
      ['sfs2x.cmd == "mail.read"', true, false, false],
      ['sfs2x.controller == 1 && sfs2x.action == 13', true, false, true],
      ['sfs2x.action == 29', false, true, false],
      ['sfs2x.header.compressed', true, true, true],
      ['sfs2x.header.compressed == true', false, false, true],
      ['sfs2x.header.encrypted == true', true, false, false],
      ['sfs2x.p.p.p._id == 42 && sfs2x.req_id == 42', true, false, false],
      ['sfs2x.p.p.p.uid contains "7"', true, false, false],
      ['sfs2x.p.p.c matches "^ch"', false, false, true],
      ['sfs2x.room == -1', true, false, true],
      ['sfs2x.xor_key', true, false, false],
      ['sfs2x.p.p', true, true, true], // PingPong carries an empty p
      ['sfs2x.p.p.r', true, false, true]
    ]
    for (const [f, a, b, c] of cases) {
      const cf = compileFilter(f)
      expect([f, cf.matches(mail), cf.matches(ping), cf.matches(zipped)]).toEqual([f, a, b, c])
    }
  })

  it('warns about a packet above the max message size from the Handshake', () => {
    const h = harness()
    h.decode(packet(envelope(0, 0, { tk: t.str('abc'), ct: t.int(1024), ms: t.int(40) })), 'b2a')
    expect(h.decode(packet(envelope(0, 29))).draft.warnings).toEqual([])
    expect(h.decode(packet(ext('long.command.name', {}))).draft.warnings).toEqual([
      `packet of ${packet(ext('long.command.name', {})).length} bytes is above the max message size 40 from the Handshake`
    ])
  })
})
