// Test helpers for the SFS2X decoder: a tiny independent SFSObject encoder, a packet builder (zlib via
// node:zlib, AES via node:crypto, the Last War XOR written out here), decoder and engine harnesses, and
// WebSocket frame builders.
import { createCipheriv } from 'node:crypto'
import zlib from 'node:zlib'
import { join } from 'node:path'
import { readFileSync } from 'node:fs'
import { MessageDraft } from '../../../../src-shared/bytes/tree'
import { Sfs2xDecoder, type Sfs2xOptions } from '../../../../src-shared/protocols/sfs2x'
import type { DecoderContext, MessageOut, WireDir } from '../../../../src-shared/protocols/registry'
import type { KeyStore } from '../../../../src-shared/keys/store'
import type { CaptureFrame } from '../../../../src-shared/capture/types'
import { tcpFrame, SYN, ACK, PSH } from '../../helpers/frames'

// ---- the committed SFS2X SDK vectors ----

/** The committed test vectors (test/fixtures/vectors, with their sources). */
export const VECTORS_DIR = join(__dirname, '../../../fixtures/vectors')

export function loadVectors(): { name: string; kind: string; direction?: string; hex: string; expect: any; notes?: string }[] {
  return JSON.parse(readFileSync(join(VECTORS_DIR, 'sfs2x-sdk-vectors.json'), 'utf8'))
}

export const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')
export const unhex = (h: string) => Uint8Array.from(Buffer.from(h.replace(/\s+/g, ''), 'hex'))

// ---- typed values and a tiny encoder (independent of the decoder) ----

export type TV = { type: string; value: any }

export const t = {
  null: (): TV => ({ type: 'NULL', value: null }),
  bool: (v: boolean): TV => ({ type: 'BOOL', value: v }),
  byte: (v: number): TV => ({ type: 'BYTE', value: v }),
  short: (v: number): TV => ({ type: 'SHORT', value: v }),
  int: (v: number): TV => ({ type: 'INT', value: v }),
  long: (v: bigint): TV => ({ type: 'LONG', value: v }),
  float: (v: number): TV => ({ type: 'FLOAT', value: v }),
  double: (v: number): TV => ({ type: 'DOUBLE', value: v }),
  str: (v: string): TV => ({ type: 'UTF_STRING', value: v }),
  text: (v: string): TV => ({ type: 'TEXT', value: v }),
  boolArr: (v: boolean[]): TV => ({ type: 'BOOL_ARRAY', value: v }),
  bytes: (v: Uint8Array | number[]): TV => ({ type: 'BYTE_ARRAY', value: Uint8Array.from(v) }),
  shortArr: (v: number[]): TV => ({ type: 'SHORT_ARRAY', value: v }),
  intArr: (v: number[]): TV => ({ type: 'INT_ARRAY', value: v }),
  longArr: (v: bigint[]): TV => ({ type: 'LONG_ARRAY', value: v }),
  floatArr: (v: number[]): TV => ({ type: 'FLOAT_ARRAY', value: v }),
  doubleArr: (v: number[]): TV => ({ type: 'DOUBLE_ARRAY', value: v }),
  strArr: (v: string[]): TV => ({ type: 'UTF_STRING_ARRAY', value: v }),
  arr: (...v: TV[]): TV => ({ type: 'SFS_ARRAY', value: v }),
  /** Entries in the order given (pass pairs to put integer-like keys in a chosen order). */
  obj: (v: Record<string, TV> | [string, TV][]): TV => ({ type: 'SFS_OBJECT', value: new Map(Array.isArray(v) ? v : Object.entries(v)) })
}

const TAGS: Record<string, number> = {
  NULL: 0,
  BOOL: 1,
  BYTE: 2,
  SHORT: 3,
  INT: 4,
  LONG: 5,
  FLOAT: 6,
  DOUBLE: 7,
  UTF_STRING: 8,
  BOOL_ARRAY: 9,
  BYTE_ARRAY: 10,
  SHORT_ARRAY: 11,
  INT_ARRAY: 12,
  LONG_ARRAY: 13,
  FLOAT_ARRAY: 14,
  DOUBLE_ARRAY: 15,
  UTF_STRING_ARRAY: 16,
  SFS_ARRAY: 17,
  SFS_OBJECT: 18,
  TEXT: 20
}

function num(size: number, write: (dv: DataView) => void): number[] {
  const dv = new DataView(new ArrayBuffer(size))
  write(dv)
  return [...new Uint8Array(dv.buffer)]
}
const u16 = (n: number) => [(n >> 8) & 0xff, n & 0xff]
const u32 = (n: number) => num(4, (d) => d.setUint32(0, n >>> 0))
const utf = (s: string) => [...Buffer.from(s, 'utf8')]

function payload(v: TV): number[] {
  switch (v.type) {
    case 'NULL':
      return []
    case 'BOOL':
      return [v.value ? 1 : 0]
    case 'BYTE':
      return [v.value & 0xff]
    case 'SHORT':
      return num(2, (d) => d.setInt16(0, v.value))
    case 'INT':
      return num(4, (d) => d.setInt32(0, v.value))
    case 'LONG':
      return num(8, (d) => d.setBigInt64(0, v.value))
    case 'FLOAT':
      return num(4, (d) => d.setFloat32(0, v.value))
    case 'DOUBLE':
      return num(8, (d) => d.setFloat64(0, v.value))
    case 'UTF_STRING': {
      const b = utf(v.value)
      return [...u16(b.length), ...b]
    }
    case 'TEXT': {
      const b = utf(v.value)
      return [...u32(b.length), ...b]
    }
    case 'BOOL_ARRAY':
      return [...u16(v.value.length), ...v.value.map((x: boolean) => (x ? 1 : 0))]
    case 'BYTE_ARRAY':
      return [...u32(v.value.length), ...v.value]
    case 'SHORT_ARRAY':
      return [...u16(v.value.length), ...v.value.flatMap((x: number) => payload(t.short(x)))]
    case 'INT_ARRAY':
      return [...u16(v.value.length), ...v.value.flatMap((x: number) => payload(t.int(x)))]
    case 'LONG_ARRAY':
      return [...u16(v.value.length), ...v.value.flatMap((x: bigint) => payload(t.long(x)))]
    case 'FLOAT_ARRAY':
      return [...u16(v.value.length), ...v.value.flatMap((x: number) => payload(t.float(x)))]
    case 'DOUBLE_ARRAY':
      return [...u16(v.value.length), ...v.value.flatMap((x: number) => payload(t.double(x)))]
    case 'UTF_STRING_ARRAY':
      return [...u16(v.value.length), ...v.value.flatMap((x: string) => payload(t.str(x)))]
    case 'SFS_ARRAY':
      return [...u16(v.value.length), ...v.value.flatMap((x: TV) => encodeValue(x))]
    case 'SFS_OBJECT': {
      // concat, not push(...): an entry may be larger than a call's argument limit
      let out: number[] = u16(v.value.size)
      for (const [k, x] of v.value as Map<string, TV>) out = out.concat(payload(t.str(k)), encodeValue(x))
      return out
    }
  }
  throw new Error(`cannot encode ${v.type}`)
}

export function encodeValue(v: TV): number[] {
  return [TAGS[v.type], ...payload(v)]
}

export function encode(v: TV): Uint8Array {
  return Uint8Array.from(encodeValue(v))
}

/** {c: BYTE, a: SHORT, p: SFS_OBJECT} */
export function envelope(c: number, a: number, p: Record<string, TV> = {}): TV {
  return t.obj({ c: t.byte(c), a: t.short(a), p: t.obj(p) })
}

/** An extension request as the Last War client writes it: {c:1, a:13, p:{c: cmd, r: room, p: params}}. */
export function ext(cmd: string, params: Record<string, TV> = {}, room: number | null = -1): TV {
  const p: Record<string, TV> = { c: t.str(cmd) }
  if (room !== null) p.r = t.int(room)
  p.p = t.obj(params)
  return envelope(1, 13, p)
}

// Zstandard test data, made once with the zstd command-line tool (v1.5.4), because Node 20 has no zstd
// encoder:  `zstd -19 -q -c body.bin | xxd -p`  where body.bin = encode(ZSTD_BODY).
export const ZSTD_BODY = ext('init.push', { items: t.strArr(Array.from({ length: 60 }, (_, i) => `item-${i % 7}-bootstrap`)), n: t.int(60), _id: t.int(7) }, -1)
export const ZSTD_HEX =
  '28b52ffd6485038503000405120003000163020100016103000d000170080009696e69742e7075736800017204ff056974656d7310003c00102d302d626f6f747374726170313233343536016e040000003c00035f696404000000070c00b803a602d80ecc0ccc02e603330353d4f4d4b21c283774c14ac35c027d4c735a'

// ---- packets ----

export function xorLength(data: Uint8Array, length: number): Uint8Array {
  const key = Buffer.alloc(4)
  key.writeUInt32LE(length >>> 0)
  return data.map((b, i) => b ^ key[i % 4])
}

export function aesEncrypt(data: Uint8Array, key: Uint8Array, iv: Uint8Array): Uint8Array {
  const c = createCipheriv('aes-128-cbc', key, iv)
  return Uint8Array.from(Buffer.concat([c.update(data), c.final()]))
}

export interface PacketOpts {
  /** zlib-compress (0x20); or pass already-compressed zstd bytes with `zstd` (0x10). */
  zlib?: boolean
  zstd?: Uint8Array
  /** Last War XOR (sets 0x40 unless `header` says otherwise). */
  xor?: boolean
  aes?: { key: Uint8Array; iv: Uint8Array }
  /** Forward bit with this shard id. */
  shard?: number
  /** Force the 4-byte length (true) or the 2-byte one (false); default: > 65535. */
  big?: boolean
  /** Replace the computed header byte. */
  header?: number
  /** Replace the length field value. */
  length?: number
}

export function packet(body: Uint8Array | TV, o: PacketOpts = {}): Uint8Array {
  let data = body instanceof Uint8Array ? body : encode(body)
  let h = 0x80
  if (o.zstd) {
    data = o.zstd
    h |= 0x10
  } else if (o.zlib) {
    data = Uint8Array.from(zlib.deflateSync(data))
    h |= 0x20
  }
  if (o.aes) {
    data = aesEncrypt(data, o.aes.key, o.aes.iv)
    h |= 0x40
  }
  if (o.xor) {
    data = xorLength(data, data.length)
    h |= 0x40
  }
  if (o.shard !== undefined) h |= 0x04
  const big = o.big ?? data.length > 65535
  if (big) h |= 0x08
  const len = o.length ?? data.length
  const head = [o.header ?? h]
  if (o.shard !== undefined) head.push(...u16(o.shard))
  head.push(...(big ? u32(len) : u16(len)))
  return Uint8Array.from([...head, ...data])
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  return Uint8Array.from(Buffer.concat(parts))
}

// ---- raw TCP (client 10.0.0.1:40000, server 10.0.0.2) ----

const C = '10.0.0.1'
const S = '10.0.0.2'
const CP = 40000

/** A TCP connection: the frames for each chunk, with sequence numbers kept per direction. */
export class Conn {
  frames: CaptureFrame[] = []
  private seq = { c: 1000, s: 5000 }
  constructor(
    private readonly sport = 9933,
    syn = true
  ) {
    if (syn) {
      this.frames.push(tcpFrame(C, CP, S, this.sport, this.seq.c++, SYN))
      this.frames.push(tcpFrame(S, this.sport, C, CP, this.seq.s++, SYN | ACK))
    }
  }
  c(data: Uint8Array | string): this {
    return this.send('c', data)
  }
  s(data: Uint8Array | string): this {
    return this.send('s', data)
  }
  /** Skips `n` bytes of the client's stream (never captured). */
  lose(n: number): this {
    this.seq.c += n
    return this
  }
  private send(side: 'c' | 's', data: Uint8Array | string): this {
    const bytes = typeof data === 'string' ? Uint8Array.from(Buffer.from(data, 'latin1')) : data
    for (let i = 0; i < bytes.length; i += 1400) {
      const part = bytes.subarray(i, i + 1400)
      this.frames.push(side === 'c' ? tcpFrame(C, CP, S, this.sport, this.seq.c, ACK | PSH, part) : tcpFrame(S, this.sport, C, CP, this.seq.s, ACK | PSH, part))
      this.seq[side] += part.length
    }
    return this
  }
}

// ---- decoder harness (one packet = one WebSocket-like datagram) ----

export interface Harness {
  dec: Sfs2xDecoder
  notes: string[]
  clients: WireDir[]
  decode(bytes: Uint8Array, dir?: WireDir): { m: MessageOut; draft: MessageDraft }
}

export function harness(opts: { keys?: KeyStore; recording?: boolean; options?: Sfs2xOptions } = {}): Harness {
  const notes: string[] = []
  const clients: WireDir[] = []
  const ctx: DecoderContext = {
    conversationId: 1,
    keys: opts.keys,
    a: '10.0.0.1:40000',
    b: '10.0.0.2:9933',
    recording: opts.recording ?? true,
    labels: true,
    setClient: (d) => clients.push(d),
    get clientDir() {
      return clients[0] ?? 'a2b'
    },
    get roleFrom() {
      return clients.length ? 'handshake' : 'first-packet'
    },
    note: (n) => notes.push(n)
  }
  const dec = new Sfs2xDecoder(ctx, opts.options)
  return {
    dec,
    notes,
    clients,
    decode(bytes, dir = 'a2b') {
      const draft = new MessageDraft(opts.recording ?? true)
      const source = draft.addSource('WebSocket message', bytes)
      const out: MessageOut[] = []
      dec.datagram({ dir, frames: [1], time: 0, draft, source, offset: 0, bytes, stack: ['tcp', 'websocket'] }, (m) => out.push(m))
      if (out.length !== 1) throw new Error(`expected one message, got ${out.length}`)
      return { m: out[0], draft }
    }
  }
}

export { keyStore, runEngine, findAll, find, rangeBytes } from '../../helpers/decode'
export { wsFrame, pmd, upgradeRequest, upgradeResponse } from '../../helpers/websocket'
