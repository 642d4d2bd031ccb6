// One SFS2X packet: header fields, body transforms (each its own data source), the SFSObject body, the
// envelope (controller, action, command, ...), the typed value and the summary. Shared by the WebSocket
// (one packet per message) and TCP (framed from the byte stream) paths.

import { DecodeError, FieldReader } from '../../bytes/reader'
import { TreeBuilder, type MessageDraft, type TreeInterest } from '../../bytes/tree'
import { presenceKey, type FieldDef } from '../../bytes/fields'
import type { DataSource, FieldScalar } from '../../model/types'
import type { KeyEntry } from '../../keys/keyfile'
import { F_SCHEMA, type Sfs2xTables } from '../../schema/set'
import { F, F_HEADER_BITS, F_ROOT, PARAM_FAMILIES } from './fields'
import { FLAG, hex2, lengthRule, lengthRuleText, strongStart, type LengthRule, type PacketHeader } from './framing'
import {
  ACTION_CALL_EXTENSION,
  ACTION_GENERIC_MESSAGE,
  ACTION_HANDSHAKE,
  ACTION_LOGIN,
  ACTION_PING_PONG,
  CONTROLLER_EXTENSION,
  CONTROLLER_SYSTEM,
  GENERIC_MESSAGE_EVENTS,
  GENERIC_MESSAGE_TYPES,
  actionName,
  controllerName,
  serverMessageName
} from './names'
import { decodeSfs, ENTRY_PREFIX, shortValue, type EntryRange, type SfsDecodeResult, type SfsObjectValue, type SfsValue } from './sfsobject'
import { aesCbcDecrypt, decompressZstd, inflateZlib, isZlibHeader, isZstdMagic, xorWithLength, type DecompressResult } from './transforms'
import { counted } from '../../model/text'

/** The `value` of an sfs2x message (the contract's form plus extras). */
export interface Sfs2xValue {
  header: { byte: number; binary: boolean; encrypted: boolean; compressed: boolean; blueBoxed: boolean; bigSized: boolean; forward: boolean } | null
  length: number | null
  body: SfsValue | null
  controller: string | number | null
  action: string | number | null
  command: string | null
  controllerId?: number
  actionId?: number
  shard?: number
  lengthRule?: LengthRule
  /** Body transforms in read order: 'aes', 'xor', 'zlib', 'zstd'. */
  transforms?: string[]
  variant?: 'lastwar'
  zlibHeaderHex?: string
  zstdDeclaredSize?: number
  uncompressedLength?: number
  compressionThreshold?: number
  /** Which compression threshold applies to this packet (see compressionRule). */
  compressionRule?: CompressionRule
  room?: number
  requestId?: number
  /** For a response: the last frame of the request it answers, and the time between them (ms). */
  responseTo?: number
  responseTimeMs?: number | null
  /** The body could not be read (encrypted without a usable key): its bytes. */
  encryptedBody?: Uint8Array
  /** Bytes skipped while the framing was lost. */
  skipped?: Uint8Array
}

/**
 * Where a packet's compression threshold comes from: Last War compresses above 1024 whatever the Handshake
 * says; otherwise the Handshake response's `ct`, or the SDK default 1024 before it.
 */
export type CompressionRule = 'lastwar' | 'handshake' | 'default'

const COMPRESSION_RULE_TEXT: Record<CompressionRule, string> = {
  lastwar: 'Last War compresses above 1024 bytes whatever the Handshake says',
  handshake: "the Handshake response's ct",
  default: 'the SDK default, no Handshake response seen'
}

/** Last War's fixed threshold (docs/sfs2x.md). */
const LASTWAR_THRESHOLD = 1024

export function emptyValue(): Sfs2xValue {
  return { header: null, length: null, body: null, controller: null, action: null, command: null }
}

/** What the decoder knows about the conversation, and learns from packets. */
export interface PacketContext {
  recording: boolean
  /** With trees: whether their nodes get labels, and which keys they keep (bytes/tree.ts). */
  labels: boolean
  interest?: TreeInterest | null
  maxDecompressed: number
  maxDepth: number
  /** SFS2X_AES keys for this conversation, best first (empty when none). */
  keys: readonly KeyEntry[]
  /** The key that worked last (tried first). */
  lastKey: KeyEntry | undefined
  /** The warning of an encrypted packet no SFS2X_AES line covers: the line to add (keys/hint.ts). */
  missingKeyWarning: () => string
  /** The Last War XOR was needed before in this direction (tried first). */
  xorFirst: boolean
  compressionThreshold: number
  /** Whether compressionThreshold came from a Handshake response (else it is the default). */
  thresholdFromHandshake: boolean
  /** One packet per WebSocket message: the JS SDK, whose bigSized rule is its own (> 65335). */
  jsSdk: boolean
  maxMessageSize: number | null
  /** The packet came from the server (true), the client (false), or the roles are not known yet (null). */
  fromServer: boolean | null
  /** Extension commands named by the loaded schema packs (src-shared/schema), if any apply. */
  schema?: Sfs2xTables
}

export interface PacketInput {
  draft: MessageDraft
  /** The source holding the packet, its bytes, and the packet's window in them. */
  source: number
  bytes: Uint8Array
  start: number
  end: number
  /** Bytes after `length` that belong to the body (an uncounted Zstandard size prefix). */
  extra: number
  /** Set for a packet cut short (end of capture, TCP gap): the first error line. */
  cutShort?: string
  /** The packet ends at `end` although its length says more: the SFSObject ended there and the next packet starts. */
  lengthWrong?: boolean
}

export interface PacketOutput {
  name: string
  summary: string
  value: Sfs2xValue
  /** The body parsed as an SFSObject ending before `length`, and a plausible packet follows there: its offset in the source. */
  bodyEndsEarly?: number
  /** Learned from this packet. */
  usedKey?: KeyEntry
  usedXor?: boolean
  /** Who sent it, when its content says (docs/sfs2x.md, Roles): the Handshake, or a field only one side sends. */
  sentBy?: { side: 'client' | 'server'; from: 'handshake' | 'semantics' }
  compressionThreshold?: number
  maxMessageSize?: number
}

// ---------------------------------------------------------------------------------------------------------
// Body attempts: one per way of undoing the obfuscation (none, AES with each key, Last War XOR).

type Step = { kind: 'none' } | { kind: 'xor' } | { kind: 'aes'; key: KeyEntry }

interface Attempt {
  step: Step
  steps: string[]
  sources: DataSource[]
  tree: TreeBuilder
  /** Index in tree.roots where the body object nodes start (transform nodes before it). */
  objectStart: number
  transformError: string | null
  parse: SfsDecodeResult | null
  parseError: string | null
  /** Where the parsed body lives. */
  final: { source: number; bytes: Uint8Array; name: string | null }
  warnings: string[]
  info: { zlibHeaderHex?: string; zstdDeclaredSize?: number; uncompressedLength?: number }
  ok: boolean
  progress: number
  /** The bytes after AES/XOR looked like what the header promises (SFSObject tag, zlib header, zstd magic). */
  recognized: boolean
  /** A XOR attempt whose output starts like a body (SFSObject/SFSArray start, zlib, Zstandard): the XOR applies. */
  xorRecognized: boolean
  /** Bytes of the serialized SFSObject (after decompression when there was one); null when unknown. */
  serialized: number | null
}

interface BodyArgs {
  h: PacketHeader
  body: Uint8Array
  /** Packet source index, its bytes, and the body's offset in them. */
  source: number
  bytes: Uint8Array
  bodyAt: number
  lengthAt: number
  lengthSize: number
  /** Index the first new source will get. */
  base: number
  complete: boolean
}

function runAttempt(step: Step, a: BodyArgs, pc: PacketContext): Attempt {
  const tree = new TreeBuilder(pc.recording, pc.labels, pc.interest)
  const at: Attempt = {
    step,
    steps: [],
    sources: [],
    tree,
    objectStart: 0,
    transformError: null,
    parse: null,
    parseError: null,
    final: { source: a.source, bytes: a.bytes, name: null },
    warnings: [],
    info: {},
    ok: false,
    progress: -1,
    recognized: false,
    xorRecognized: false,
    serialized: null
  }
  const addSource = (name: string, bytes: Uint8Array): number => {
    at.sources.push({ name, bytes })
    return a.base + at.sources.length - 1
  }
  // The bytes being transformed: a window [start, end) of `buf`, which is source `src`.
  let buf = a.bytes
  let src = a.source
  let start = a.bodyAt
  let end = a.bodyAt + a.body.length
  let srcName: string | null = null
  const where = () => (srcName ? ` in ${srcName}` : '')
  const reader = () => new FieldReader(buf, tree, src, start, end)
  const fail = (msg: string) => {
    at.transformError ??= msg
  }

  // 1. AES or XOR.
  if (step.kind === 'aes') {
    at.steps.push('aes')
    const res = aesCbcDecrypt(a.body, step.key.key, step.key.iv ?? new Uint8Array(0))
    if (!res.ok) {
      at.transformError = `AES-128-CBC with the SFS2X_AES key${step.key.line ? ` (key file line ${step.key.line})` : ''}: ${res.error} (body at offset ${a.bodyAt})`
      return at
    }
    const full = new Uint8Array(res.out.buffer, res.out.byteOffset, res.out.length + res.padding)
    src = addSource('Decrypted body', full)
    buf = full
    start = 0
    end = res.out.length
    srcName = 'Decrypted body'
    if (pc.recording) {
      const r = new FieldReader(full, tree, src)
      r.record(F.aes_padding, res.padding, end, res.padding, () => `PKCS#7 padding: ${res.padding} byte${res.padding === 1 ? '' : 's'}`)
      r.record(
        F.decrypted,
        res.out,
        0,
        end,
        () => `Decrypted body (AES-128-CBC${step.key.line ? `, key file line ${step.key.line}` : ''}): ${res.out.length} bytes`
      )
    }
  } else if (step.kind === 'xor') {
    at.steps.push('xor')
    const x = xorWithLength(a.body, a.h.length)
    if (pc.recording) {
      const r = new FieldReader(a.bytes, tree, a.source)
      const k = a.h.length >>> 0
      const kb = [k & 0xff, (k >>> 8) & 0xff, (k >>> 16) & 0xff, (k >>> 24) & 0xff].map((b) => b.toString(16).padStart(2, '0')).join(' ')
      r.record(F.xor_key, k, a.lengthAt, a.lengthSize, () => `XOR key (Last War): ${kb}, the little-endian bytes of the length ${k}, repeated`)
    }
    src = addSource('XOR-decoded body', x)
    buf = x
    start = 0
    end = x.length
    srcName = 'XOR-decoded body'
    if (pc.recording) new FieldReader(x, tree, src).record(F.xor_decoded, x, 0, x.length, () => `XOR-decoded body: ${x.length} bytes`)
  }

  // 2. Decompression: Zstandard (magic, or a 4-byte size then the magic, with 0x10), zlib (0x20).
  const data = buf.subarray(start, end)
  let kind: 'zstd' | 'zlib' | null = null
  let zstdAt = 0
  at.recognized = data.length > 0 && (data[0] === 0x12 || data[0] === 0x11)
  at.xorRecognized = step.kind === 'xor' && strongStart(data, a.h)
  at.serialized = data.length
  if (isZstdMagic(data, 0)) kind = 'zstd'
  else if (a.h.blueBoxed && isZstdMagic(data, 4)) {
    kind = 'zstd'
    zstdAt = 4
  } else if (a.h.compressed) {
    if (data.length >= 2 && isZlibHeader(data[0], data[1])) kind = 'zlib'
    else if (data.length >= 1 && (data[0] === 0x12 || data[0] === 0x11)) at.warnings.push('compressed bit set but the body is not compressed')
    else {
      fail(
        `compressed bit set but the body has no zlib header (${data.length >= 2 ? `${hex2(data[0])} ${hex2(data[1])}` : 'too short'}) at offset ${start}${where()}`
      )
      return at
    }
  }
  if (kind) at.recognized = true
  if (a.h.blueBoxed && kind !== 'zstd') {
    at.warnings.push(`0x10 is set but the body does not start with the Zstandard magic 28 b5 2f fd${where()} (Last War sets 0x10 on Zstandard bodies only)`)
  }
  if (kind && !a.complete) {
    // A cut-short compressed body cannot be inflated into anything trustworthy: keep it as bytes.
    fail(`compressed body cut short: not decompressed`)
    return at
  }
  if (kind === 'zlib') {
    at.steps.push('zlib')
    const r = reader()
    const zh = r.u16(null)
    at.info.zlibHeaderHex = zh.toString(16).padStart(4, '0')
    if (pc.recording) {
      r.record(
        F.zlib_header,
        zh,
        start,
        2,
        () => `zlib header: ${at.info.zlibHeaderHex} (deflate, ${2 ** ((zh >> 12) + 8)}-byte window, level hint ${(zh >> 6) & 3})`
      )
      if (data.length >= 6)
        r.record(
          F.zlib_adler32,
          ((data[data.length - 4] << 24) | (data[data.length - 3] << 16) | (data[data.length - 2] << 8) | data[data.length - 1]) >>> 0,
          end - 4,
          4
        )
    }
    const res = inflateZlib(data, pc.maxDecompressed)
    if (!decompressed(res, 'zlib', start)) return at
  } else if (kind === 'zstd') {
    at.steps.push('zstd')
    const r = reader()
    if (zstdAt === 4) {
      const declared = r.u32(F.zstd_declared_size)
      at.info.zstdDeclaredSize = declared
    }
    r.u32(null, true)
    if (pc.recording) r.record(F.zstd_magic, 0xfd2fb528, start + zstdAt, 4, 'Zstandard magic: 28 b5 2f fd')
    const res = decompressZstd(data.subarray(zstdAt), pc.maxDecompressed)
    if (!decompressed(res, 'zstd', start + zstdAt)) return at
    if (at.info.zstdDeclaredSize !== undefined && at.info.zstdDeclaredSize !== at.info.uncompressedLength) {
      at.warnings.push(`declared decompressed size ${at.info.zstdDeclaredSize} but ${at.info.uncompressedLength} bytes came out`)
    }
  }

  // 3. The SFSObject.
  const r = reader()
  at.objectStart = tree.roots.length
  at.final = { source: src, bytes: buf, name: srcName }
  const parse = decodeSfs(r, 'Body', { maxDepth: pc.maxDepth }, a.complete)
  at.parse = parse
  if (!pc.recording) indexParams(tree, parse)
  for (const w of parse.warnings) at.warnings.push(`${w}${where()}`)
  if (parse.error) at.parseError = `${parse.error.message}${where()}`
  at.progress = parse.progress
  at.ok = !at.transformError && !parse.error
  return at

  function decompressed(res: DecompressResult, name: 'zlib' | 'zstd', dataAt: number): boolean {
    for (const w of res.warnings) at.warnings.push(w)
    at.info.uncompressedLength = res.out.length
    at.serialized = res.error || res.capped ? null : res.out.length
    if (res.error) fail(`${name}: ${res.error.replace(/^(zlib|Zstandard): /, '')} (compressed data at offset ${dataAt}${where()})`)
    if (res.error && res.out.length === 0) return false
    const sourceName = `Decompressed body (${name}${res.capped ? ', capped' : res.error ? ', partial' : ''})`
    src = addSource(sourceName, res.out)
    buf = res.out
    start = 0
    end = res.out.length
    srcName = sourceName
    if (pc.recording) {
      new FieldReader(res.out, tree, src).record(
        F.uncompressed_length,
        res.out.length,
        0,
        res.out.length,
        () => `Uncompressed length: ${res.out.length}${res.capped ? ` (capped at ${pc.maxDecompressed})` : ''}`
      )
    }
    return true
  }
}

// The usual step lists are shared (steps are only read), so a plain packet allocates none.
const STEP_NONE: Step = { kind: 'none' }
const STEP_XOR: Step = { kind: 'xor' }
const NONE_THEN_XOR: readonly Step[] = [STEP_NONE, STEP_XOR]
const XOR_THEN_NONE: readonly Step[] = [STEP_XOR, STEP_NONE]

function stepsFor(h: PacketHeader, pc: PacketContext): readonly Step[] {
  const plainXor = pc.xorFirst || h.encrypted ? XOR_THEN_NONE : NONE_THEN_XOR
  if (!h.encrypted) return plainXor
  const aes: Step[] = []
  const keys = pc.lastKey ? [pc.lastKey, ...pc.keys.filter((k) => k !== pc.lastKey)] : pc.keys
  for (const key of keys) aes.push({ kind: 'aes', key })
  return [...aes, ...plainXor]
}

// ---------------------------------------------------------------------------------------------------------
// The packet

function bitLabel(bit: number, name: string, on: boolean): string {
  let s = ''
  for (let i = 7; i >= 0; i--) {
    s += 1 << i === bit ? (on ? '1' : '0') : '.'
    if (i === 4) s += ' '
  }
  return `${s} = ${name}: ${on ? 'set' : 'not set'}`
}

function headerLabel(h: PacketHeader): string {
  const names: string[] = []
  if (h.binary) names.push('binary')
  if (h.encrypted) names.push('encrypted')
  if (h.compressed) names.push('compressed')
  if (h.blueBoxed) names.push('blueBoxed/zstd')
  if (h.bigSized) names.push('bigSized')
  if (h.forward) names.push('forward')
  if (h.reserved) names.push(`reserved ${hex2(h.reserved)}`)
  return `Header: ${hex2(h.byte)} (${names.join(', ') || 'no flags'})`
}

export function decodePacket(inp: PacketInput, pc: PacketContext): PacketOutput {
  const { draft } = inp
  const tree = draft.tree
  const rec = tree.recording
  const out: PacketOutput = { name: 'SFS2X packet', summary: '', value: emptyValue() }
  const value = out.value
  const r = new FieldReader(inp.bytes, tree, inp.source, inp.start, inp.end)
  const baseDepth = tree.depth
  const root = rec ? tree.open({ key: F_ROOT.key, label: 'SmartFoxServer 2X', type: 'none', source: inp.source, start: inp.start, length: 0 }) : null
  if (inp.cutShort) draft.error = inp.cutShort
  const setError = (msg: string) => {
    draft.error ??= msg
  }
  let h: PacketHeader | null = null
  try {
    if (inp.end <= inp.start) throw new DecodeError(`empty packet at offset ${inp.start}`, inp.start)
    const hAt = r.pos
    const byte = r.u8(null)
    const fw = (byte & FLAG.FORWARD) !== 0
    const big = (byte & FLAG.BIGSIZED) !== 0
    h = {
      byte,
      binary: (byte & FLAG.BINARY) !== 0,
      encrypted: (byte & FLAG.ENCRYPTED) !== 0,
      compressed: (byte & FLAG.COMPRESSED) !== 0,
      blueBoxed: (byte & FLAG.BLUEBOX) !== 0,
      bigSized: big,
      forward: fw,
      reserved: byte & FLAG.RESERVED,
      shard: null,
      length: 0,
      headerSize: 1 + (fw ? 2 : 0) + (big ? 4 : 2)
    }
    value.header = {
      byte,
      binary: h.binary,
      encrypted: h.encrypted,
      compressed: h.compressed,
      blueBoxed: h.blueBoxed,
      bigSized: h.bigSized,
      forward: h.forward
    }
    if (rec) {
      tree.open({ key: F.header.key, label: headerLabel(h), type: 'flags', value: byte, source: inp.source, start: hAt, length: 1 })
      const bits: [FieldDef, number, string, boolean][] = [
        [F_HEADER_BITS.binary, FLAG.BINARY, 'Binary', h.binary],
        [F_HEADER_BITS.encrypted, FLAG.ENCRYPTED, 'Encrypted', h.encrypted],
        [F_HEADER_BITS.compressed, FLAG.COMPRESSED, 'Compressed', h.compressed],
        [F_HEADER_BITS.bluebox, FLAG.BLUEBOX, 'BlueBoxed (Zstandard in Last War)', h.blueBoxed],
        [F_HEADER_BITS.bigsized, FLAG.BIGSIZED, 'BigSized (4-byte length)', h.bigSized],
        [F_HEADER_BITS.forward, FLAG.FORWARD, 'Forward (shard id follows)', h.forward]
      ]
      for (const [d, bit, name, on] of bits) r.record(d, on, hAt, 1, bitLabel(bit, name, on))
      if (h.reserved)
        r.record(
          F_HEADER_BITS.reserved,
          h.reserved,
          hAt,
          1,
          `.... ..${(h.reserved >> 1) & 1}${h.reserved & 1} = Reserved bits: ${h.reserved} (not defined by SFS2X)`
        )
      tree.close(hAt + 1)
    }
    if (!h.binary) draft.warn(`header byte ${hex2(byte)} has no binary bit (0x80)`)
    if (h.reserved) draft.warn(`header byte ${hex2(byte)} has reserved bits ${hex2(h.reserved)} set`)
    if (h.forward) {
      h.shard = r.u16(F.shard)
      value.shard = h.shard
    }
    const lengthAt = r.pos
    h.length = h.bigSized ? r.u32(null) : r.u16(null)
    value.length = h.length
    const rule = lengthRule(h)
    value.lengthRule = rule
    if (rec) r.record(F.length, h.length, lengthAt, r.pos - lengthAt, `Length: ${h.length} (${lengthRuleText(rule)})`)

    // The body
    const bodyLen = h.length + inp.extra
    const bodyAt = r.pos
    const avail = Math.min(bodyLen, r.remaining)
    const complete = avail === bodyLen || !!inp.lengthWrong
    if (inp.lengthWrong) {
      setError(
        `wrong length at offset ${lengthAt}: it says ${bodyLen} body bytes but the SFSObject ends after ${avail}, where the next packet starts (offset ${bodyAt + avail})`
      )
    } else if (!complete) {
      setError(`truncated packet: the length says ${bodyLen} body bytes, only ${avail} present (body at offset ${bodyAt})`)
    }
    const body = r.bytesField(null, avail)
    if (rec) {
      const how = [h.encrypted ? 'encrypted' : '', h.compressed ? 'compressed' : '', h.blueBoxed ? '0x10' : ''].filter(Boolean).join(', ')
      r.record(
        F.body,
        body,
        bodyAt,
        avail,
        () =>
          `Body: ${avail} bytes${how ? ` (${how})` : ''}${complete ? '' : ` of ${bodyLen}`}${inp.extra ? `, including a ${inp.extra}-byte size not counted in the length` : ''}`
      )
    }
    if (inp.extra) draft.warn(`${inp.extra}-byte decompressed size before the Zstandard frame is not counted in the length`)
    if (r.remaining > 0) {
      const at = r.pos
      const rest = r.bytesField(F.trailing, r.remaining)
      setError(`${rest.length} bytes after the packet at offset ${at}`)
    }
    if (pc.maxMessageSize !== null && inp.end - inp.start > pc.maxMessageSize) {
      draft.warn(`packet of ${inp.end - inp.start} bytes is above the max message size ${pc.maxMessageSize} from the Handshake`)
    }

    // Undo the transforms and parse, trying each way to read the body until one parses.
    const args: BodyArgs = {
      h,
      body,
      source: inp.source,
      bytes: inp.bytes,
      bodyAt,
      lengthAt,
      lengthSize: h.bigSized ? 4 : 2,
      base: draft.sources.length,
      complete
    }
    // None parses: the best is the one whose bytes looked right, then the one that got furthest.
    const score = (x: Attempt) => (x.recognized ? 2 ** 40 : 0) + x.progress
    let best: Attempt | null = null
    let aesError: string | null = null
    for (const step of stepsFor(h, pc)) {
      const at = runAttempt(step, args, pc)
      if (at.ok) {
        best = at
        break
      }
      if (step.kind === 'aes') aesError ??= at.transformError
      if (!best || score(at) > score(best)) best = at
    }
    const chosen = best!
    // A body that starts like one after the Last War XOR is that variant even when it then fails: it is
    // shown with its transforms and decode error, not as opaque ciphertext.
    const noKey = h.encrypted && !chosen.ok && pc.keys.length === 0 && !chosen.xorRecognized
    if (noKey) {
      // Encrypted without a key (and not the Last War XOR): the body stays opaque, which is not an error.
      value.encryptedBody = body
      value.transforms = []
      out.name = 'Encrypted'
      out.summary = `encrypted body, ${body.length} bytes (no SFS2X_AES key for this conversation)`
      draft.warn(pc.missingKeyWarning())
      return out
    }
    for (const s of chosen.sources) draft.addSource(s.name, s.bytes)
    for (const w of chosen.warnings) draft.warn(w)
    value.transforms = chosen.steps
    if (chosen.info.zlibHeaderHex !== undefined) value.zlibHeaderHex = chosen.info.zlibHeaderHex
    if (chosen.info.zstdDeclaredSize !== undefined) value.zstdDeclaredSize = chosen.info.zstdDeclaredSize
    if (chosen.info.uncompressedLength !== undefined) value.uncompressedLength = chosen.info.uncompressedLength
    if (chosen.step.kind === 'xor' && (chosen.ok || chosen.xorRecognized)) value.variant = 'lastwar'
    if (chosen.step.kind === 'xor' && chosen.ok) out.usedXor = true
    if (chosen.step.kind === 'aes' && chosen.ok) out.usedKey = chosen.step.key
    const comp = compressionRule(value.variant === 'lastwar', pc)
    if (h.compressed || h.blueBoxed) {
      value.compressionThreshold = comp.threshold
      value.compressionRule = comp.rule
    }
    if (complete && !chosen.transformError) sizeRules(draft, h, chosen, comp, pc, value.variant === 'lastwar')
    if (h.encrypted && !chosen.ok && pc.keys.length > 0 && !chosen.steps.includes('aes') && !chosen.xorRecognized) {
      setError(
        `encrypted (0x40): none of the ${pc.keys.length} SFS2X_AES key${pc.keys.length === 1 ? '' : 's'} decrypts the body${aesError ? ` (${aesError})` : ''}`
      )
    }
    if (chosen.transformError) setError(chosen.transformError)
    if (chosen.parseError) setError(chosen.parseError)

    const parse = chosen.parse
    if (parse?.value) {
      value.body = parse.value
      // A plain body whose SFSObject ends before the length: the caller checks whether a packet starts there.
      if (parse.objectEnd !== null && parse.trailing && chosen.steps.length === 0) out.bodyEndsEarly = parse.objectEnd
      envelope(out, parse, chosen, pc, draft)
    }
    tree.append(chosen.tree)
  } catch (e) {
    // A DecodeError carries its offset; anything else is a decoder bug, kept on this packet alone so the
    // framing (and every later packet) survives it.
    setError(e instanceof DecodeError ? e.message : `internal decoder error: ${(e as Error)?.message ?? String(e)}`)
  } finally {
    while (tree.depth > baseDepth + (root ? 1 : 0)) tree.close(r.pos)
    if (root) {
      tree.close(inp.end)
      if (tree.labels) root.label = `SmartFoxServer 2X: ${out.name}, ${inp.end - inp.start} bytes${h ? `, ${hex2(h.byte)}` : ''}`
    }
  }
  if (!out.summary) out.summary = counted(value.length !== null ? value.length : inp.end - inp.start, 'byte')
  return out
}

/** The compression threshold in force for a packet, and why (docs/sfs2x.md, "Writer rules"). */
function compressionRule(lastwar: boolean, pc: PacketContext): { threshold: number; rule: CompressionRule } {
  if (lastwar) return { threshold: LASTWAR_THRESHOLD, rule: 'lastwar' }
  return { threshold: pc.compressionThreshold, rule: pc.thresholdFromHandshake ? 'handshake' : 'default' }
}

/**
 * The writers' rules, noted when a packet breaks them (it still decodes): 0x08 set iff the length is above
 * 65535 (the JS SDK: above 65335); in Last War, 0x20 set iff the serialized body is above the compression
 * threshold. Vanilla clients may change their threshold at will (the SDK vectors raise it), so only the Last
 * War writer's rule is checked.
 */
function sizeRules(
  draft: MessageDraft,
  h: PacketHeader,
  at: Attempt,
  comp: { threshold: number; rule: CompressionRule },
  pc: PacketContext,
  lastwar: boolean
): void {
  const n = lastwar ? at.serialized : null
  const why = `threshold ${comp.threshold}: ${COMPRESSION_RULE_TEXT[comp.rule]}`
  if (n !== null && h.compressed && at.steps.includes('zlib') && n <= comp.threshold) {
    draft.warn(`compressed (0x20) although the ${n}-byte body is not above the compression threshold (${why})`)
  } else if (n !== null && !h.compressed && !h.blueBoxed && n > comp.threshold) {
    draft.warn(`not compressed although the ${n}-byte body is above the compression threshold (${why})`)
  }
  const rule = lengthRule(h)
  if (rule === 'unneeded') draft.warn(`bigSized (0x08) with a length of ${h.length}: a 4-byte length is only needed above 65535`)
  else if (rule === 'js-sdk' && !pc.jsSdk)
    draft.warn(`bigSized (0x08) with a length of ${h.length}: SFS2X uses a 4-byte length only above 65535 (above 65335 is the JS SDK's quirk)`)
}

// ---------------------------------------------------------------------------------------------------------
// Envelope: {c: controller, a: action, p: params}

function num(v: SfsValue | undefined): number | undefined {
  if (!v) return undefined
  if (v.type === 'BYTE' || v.type === 'SHORT' || v.type === 'INT') return v.value
  if (v.type === 'LONG') return Number(v.value)
  return undefined
}

function str(v: SfsValue | undefined): string | undefined {
  return v && (v.type === 'UTF_STRING' || v.type === 'TEXT') ? v.value : undefined
}

function obj(v: SfsValue | undefined): SfsObjectValue | undefined {
  return v && v.type === 'SFS_OBJECT' ? v.value : undefined
}

function plain(v: SfsValue | undefined): string {
  return v ? shortValue(v) : ''
}

/** The value types whose tree is one leaf holding the value itself (of the others, the index keeps presence). */
const SCALAR_TYPES = new Set(['NULL', 'BOOL', 'BYTE', 'SHORT', 'INT', 'LONG', 'FLOAT', 'DOUBLE', 'UTF_STRING', 'TEXT'])
const [EXTENSION_PARAMS, PARAMS] = PARAM_FAMILIES

/**
 * Without a tree, what the index keeps of the parameters (PARAM_FAMILIES: `sfs2x.p.p.<name>` and
 * `sfs2x.p.p.p.<name>`): a parameter's value when its tree is one leaf holding it (a scalar; a long string:
 * see TreeBuilder.keepValue), otherwise only that the message has it, which also tells a view to decode the message
 * again for its values (see `indexFirstLevel` in bytes/fields.ts). It walks the parsed body with the tree's
 * keys (an object entry adds `.<name>`, an array's elements keep its key), so that whatever puts a node
 * under a parameter's key counts: a name with a dot, an array of objects, a key held twice (the tree has
 * both values, the parsed object the last: then no value is kept).
 */
function indexParams(tree: TreeBuilder, parse: SfsDecodeResult): void {
  const top = parse.value
  if (!top) return
  const keepValues = !parse.duplicateKeys
  const visit = (v: SfsValue, key: string): void => {
    if (under(key, PARAMS)) {
      for (const family of PARAM_FAMILIES) {
        if (!under(key, family)) continue
        const dot = key.indexOf('.', family.length + 1)
        const first = dot < 0 ? key : key.slice(0, dot)
        if (first === key && keepValues && SCALAR_TYPES.has(v.type)) tree.keepValue(key, v.value as FieldScalar)
        else tree.presentKey(presenceKey(first))
      }
    }
    // Only the entries on the way to the extension parameters (`sfs2x.p`, `sfs2x.p.p`, `sfs2x.p.p.p`) can
    // put a node under another parameter's key: below any other key, every node is under the same ones.
    if (key !== EXTENSION_PARAMS && !under(EXTENSION_PARAMS, key)) return
    if (v.type === 'SFS_OBJECT') for (const [name, e] of v.value) visit(e, `${key}.${name}`)
    else if (v.type === 'SFS_ARRAY') for (const e of v.value) visit(e, key)
  }
  visit(top, ENTRY_PREFIX)
}

/** True when `key` is strictly under `prefix` (`prefix.` and at least one more character). */
function under(key: string, prefix: string): boolean {
  return key.length > prefix.length + 1 && key.charCodeAt(prefix.length) === 0x2e && key.startsWith(prefix)
}

function envelope(out: PacketOutput, parse: SfsDecodeResult, at: Attempt, pc: PacketContext, draft: MessageDraft): void {
  const value = out.value
  const top = parse.value!
  if (top.type === 'SFS_ARRAY') {
    out.name = 'SFSArray'
    out.summary = `SFSArray [${top.value.length}]`
    return
  }
  if (top.type !== 'SFS_OBJECT') return
  const o = top.value
  const c = num(o.get('c'))
  const a = num(o.get('a'))
  const p = obj(o.get('p'))
  const rec = pc.recording
  // The envelope's own tree (placed before the body's nodes below); the index pass needs none.
  const tb = rec ? new TreeBuilder(true, pc.labels, pc.interest) : null
  const fr = tb ? new FieldReader(at.final.bytes, tb, at.final.source) : null
  const field = (d: FieldDef, path: string, v: FieldScalar, labelText?: string) => {
    if (!fr) return at.tree.indexValue(d, v)
    const range: EntryRange | undefined = parse.ranges.get(path)
    if (!range) return
    fr.record(d, v, range.valueStart, range.start + range.length - range.valueStart, labelText)
  }
  if (c === undefined || a === undefined) {
    if (parse.error) return // a body that failed before its envelope: keep the generic name
    out.name = 'SFSObject'
    out.summary = `SFSObject {${[...o.keys()].slice(0, 6).join(', ')}${o.size > 6 ? ', …' : ''}}`
    return
  }
  value.controllerId = c
  value.actionId = a
  value.controller = controllerName(c) ?? c
  const an = actionName(c, a)
  value.action = an ?? a
  field(F.controller, 'c', c)
  field(F.action, 'a', a, an ? `Action: ${a} (${an})` : undefined)
  const ec = p ? num(p.get('ec')) : undefined
  const msgType = p && c === CONTROLLER_SYSTEM && a === ACTION_GENERIC_MESSAGE ? num(p.get('t')) : undefined
  // The action id names the request; what the server sends on it is its response or an event (docs/sfs2x.md).
  const serverName = pc.fromServer ? serverMessageName(c, a, { error: ec !== undefined, messageType: msgType }) : undefined
  out.name = serverName ?? an ?? (controllerName(c) ? `${controllerName(c)} action ${a}` : `Controller ${c} action ${a}`)
  const parts: string[] = [out.name]
  const kv = (k: string, v: string | number | undefined) => {
    if (v !== undefined && v !== '') parts.push(`${k}=${v}`)
  }
  if (p) {
    if (c === CONTROLLER_EXTENSION || (c === CONTROLLER_SYSTEM && a === ACTION_CALL_EXTENSION)) {
      const cmd = str(p.get('c'))
      const room = num(p.get('r'))
      const params = obj(p.get('p'))
      const id = params ? num(params.get('_id')) : undefined
      if (cmd !== undefined) {
        value.command = cmd
        field(F.cmd, 'p.c', cmd)
        parts.push(cmd)
      }
      if (room !== undefined) {
        value.room = room
        field(F.room, 'p.r', room)
        kv('room', room)
      }
      if (id !== undefined) {
        value.requestId = id
        field(F.req_id, 'p.p._id', id)
        kv('_id', id)
      }
      const ext = cmd !== undefined ? pc.schema?.extensions.get(cmd) : undefined
      if (ext) {
        // A schema pack's extension command: its name, and its params checked against the declared types.
        if (ext.name) {
          out.name = ext.name
          parts[0] = ext.name
        }
        field(F_SCHEMA.name, 'p.c', ext.name ?? cmd!, `Schema name: ${JSON.stringify(ext.name ?? cmd)} (pack ${JSON.stringify(ext.pack)})`)
        const declared = (pc.fromServer ? ext.response : pc.fromServer === false ? ext.request : (ext.request ?? ext.response)) ?? {}
        let shown = 0
        for (const [k, type] of Object.entries(declared)) {
          const got = params?.get(k)
          if (!got) continue
          if (got.type !== type) draft.warn(`extension ${cmd}: param ${k} is ${got.type}, the schema pack ${JSON.stringify(ext.pack)} says ${type}`)
          if (shown++ < 4) kv(k, plain(got))
        }
      }
    } else if (c === CONTROLLER_SYSTEM && a === ACTION_HANDSHAKE) {
      const api = str(p.get('api'))
      const cl = str(p.get('cl'))
      const tk = str(p.get('tk'))
      const ct = num(p.get('ct'))
      const ms = num(p.get('ms'))
      // The request carries the API version, the response the session token.
      if (api !== undefined) out.sentBy = { side: 'client', from: 'handshake' }
      else if (tk !== undefined) out.sentBy = { side: 'server', from: 'handshake' }
      if (api !== undefined) {
        field(F.api, 'p.api', api)
        kv('api', api)
      }
      if (cl !== undefined) {
        field(F.client_type, 'p.cl', cl)
        kv('cl', cl)
      }
      if (tk !== undefined) {
        field(F.token, 'p.tk', tk)
        kv('tk', tk)
      }
      if (ct !== undefined) {
        field(F.compression_threshold, 'p.ct', ct)
        kv('ct', ct)
        out.compressionThreshold = ct
        value.compressionThreshold = ct
      }
      if (ms !== undefined) {
        field(F.max_message_size, 'p.ms', ms)
        kv('ms', ms)
        out.maxMessageSize = ms
      }
    } else if (c === CONTROLLER_SYSTEM && a === ACTION_LOGIN) {
      const zn = str(p.get('zn'))
      const un = str(p.get('un'))
      const pw = str(p.get('pw'))
      if (zn !== undefined) field(F.zone, 'p.zn', zn)
      if (un !== undefined) field(F.user, 'p.un', un)
      // Only the Login request carries the password (hash).
      if (pw !== undefined) out.sentBy = { side: 'client', from: 'semantics' }
      if (pw !== undefined) field(F.password, 'p.pw', pw, `Password hash: ${pw === '' ? '(empty: no password)' : JSON.stringify(pw)}`)
      kv('zone', zn)
      kv('user', un)
      kv('id', num(p.get('id')))
    } else if (c === CONTROLLER_SYSTEM && a === ACTION_GENERIC_MESSAGE) {
      // A message event's name already says its type.
      if (msgType !== undefined && out.name !== GENERIC_MESSAGE_EVENTS[msgType]) parts.push(GENERIC_MESSAGE_TYPES[msgType] ?? `type ${msgType}`)
      const m = p.get('m')
      if (m) kv('m', plain(m))
    } else if (!(c === CONTROLLER_SYSTEM && a === ACTION_PING_PONG)) {
      let n = 0
      for (const [k, v] of p) {
        if (k === 'ec') continue // said once, below
        if (n++ >= 4) {
          parts.push('…')
          break
        }
        kv(k, plain(v))
      }
    }
    if (ec !== undefined) {
      // An error code is only ever in a server's response.
      out.sentBy ??= { side: 'server', from: 'semantics' }
      field(F.error_code, 'p.ec', ec)
      kv('ec', ec)
    }
  }
  out.summary = parts.join(' ')
  // Envelope fields go before the body object nodes.
  if (tb) {
    at.tree.roots.splice(at.objectStart, 0, ...tb.roots)
    at.objectStart += tb.roots.length
  }
}
