// Photon's message layer (docs/photon.md): the `F3`/`FD` signal, the message type with
// its encrypted bit, Init, and the GpBinary bodies — decrypted first when a key fits. The same code serves
// UDP commands, TCP frames and WebSocket messages; what a message teaches the conversation (the protocol
// version from Init, the DH public keys of InitEncryption) goes back through MessageSession.

import { DecodeError, FieldReader } from '../../bytes/reader'
import { TreeBuilder, type MessageDraft } from '../../bytes/tree'
import { decryptPayload } from './crypto'
import {
  readDisconnectMessage,
  readEvent,
  readMessageObject,
  readOperationRequest,
  readOperationResponse,
  trialVersion,
  type GpOptions,
  type GpVersion
} from './gpbinary'
import { isHttpInit, readHttpInit, readInitV3, SIGNAL_INIT_V3 } from './init'
import { F_ENC, F_INIT, F_MSG, F_MSG_GROUP } from './message-fields'
import { EVENT_CACHING, EVENTS, INTERNAL_OPERATIONS, JOIN_MODE, MESSAGE_TYPES, OPERATIONS, RECEIVER_GROUP, RETURN_CODES, nameOf, parameterName } from './names'
import { previewValue, type PhotonParams, type PhotonValue } from './values'
import { applyToBody, matchMessage, namedSummary, type ParamSeen, type SchemaMatch } from './schema'
import type { PhotonTables } from '../../schema/set'
import type { FieldNode } from '../../model/types'
import { counted } from '../../model/text'

export const SIGNAL = 0xf3
export const SIGNAL_ALT = 0xfd
export const MSG = {
  INIT: 0,
  INIT_RESPONSE: 1,
  OP_REQUEST: 2,
  OP_RESPONSE: 3,
  EVENT: 4,
  DISCONNECT: 5,
  INTERNAL_REQUEST: 6,
  INTERNAL_RESPONSE: 7,
  MESSAGE: 8,
  RAW: 9
} as const
const INIT_BODY = 39

/** Whether a message starts at `at`: the F3/FD signal, InitV3's F5, or an HTTP-style init. */
export function startsMessage(b: Uint8Array, at: number, end = b.length): boolean {
  if (at >= end) return false
  const s = b[at]
  return s === SIGNAL || s === SIGNAL_ALT || s === SIGNAL_INIT_V3 || isHttpInit(b, at, end)
}

/** The contract's Photon `value` (transport fields are added by the decoder). */
export interface PhotonMessageValue {
  signal: number
  msgType: number | null
  msgTypeName: string | null
  encrypted: boolean
  protocol: 'GpBinary16' | 'GpBinary18' | null
  /** How the protocol version was decided: the conversation's Init, the WebSocket subprotocol, or trial parse. */
  protocolFrom?: VersionSource
  channel?: number
  command?: string
  code?: number
  codeName?: string
  returnCode?: number
  returnCodeName?: string
  debugMessage?: PhotonValue
  parameters?: PhotonParams
  object?: PhotonValue
  init?: PhotonInit
  /** Encrypted and not decrypted: the ciphertext. */
  ciphertext?: Uint8Array
  /** How the body was decrypted ("PHOTON_AES_KEY line 3", "DH private key + public keys seen", …). */
  decryptedWith?: string
  raw?: Uint8Array
  [k: string]: unknown
}

/** What an Init says. `form` marks the InitV3 and HTTP-style forms (absent for the 41-byte Init). */
export interface PhotonInit {
  form?: 'InitV3' | 'HTTP'
  protocolVersion: string
  clientSdkId: number
  libraryVersion: string
  ipv6: boolean
  appId: string
  /** InitV3: its flags (1 encryption, 2 IPv6, 4 release SDK). */
  flags?: number
  encryption?: boolean
  /** InitV3: the token bytes; HTTP-style: the serialized PhotonToken after the headers. */
  token?: Uint8Array | PhotonValue
  /** InitV3: the serialized Dictionary (key 0 = custom init data). */
  data?: PhotonValue
}

/** A candidate AES-256 key and where it came from (for the tree). */
export interface PhotonAesKey {
  key: Uint8Array
  from: string
}

/** What the message layer reads from and reports to its conversation. */
export type VersionSource = 'init' | 'subprotocol' | 'trial'

export interface MessageSession {
  /** Protocol version from the conversation's Init or WebSocket subprotocol (null until known). */
  version: GpVersion | null
  /** Where `version` came from. */
  versionFrom: Exclude<VersionSource, 'trial'>
  /** A version guessed by trial parse that decoded cleanly, reused for later messages. */
  guessedVersion: GpVersion | null
  aesKeys(): PhotonAesKey[]
  /** The warning of an encrypted message no key line covers: the line to add (keys/hint.ts). */
  missingKeyWarning(): string
  onInit(version: GpVersion | null, appId: string): void
  /** InitEncryption carried a DH public key (request = client's, response = server's). */
  onPublicKey(key: Uint8Array, fromResponse: boolean): void
  /** The schema packs' Photon tables for this conversation (src-shared/schema), if any apply. */
  readonly schema?: PhotonTables
}

export interface MessageResult {
  name: string
  summary: string
  value: PhotonMessageValue
  msgType: number | null
  /** Operation code of a request/response (for pairing). */
  opCode?: number
  error?: DecodeError
}

/** Decodes one message (the reader spans exactly its bytes) into the draft's tree. */
export function decodePhotonMessage(r: FieldReader, draft: MessageDraft, session: MessageSession): MessageResult {
  const value: PhotonMessageValue = { signal: 0, msgType: null, msgTypeName: null, encrypted: false, protocol: null }
  const res: MessageResult = { name: 'Photon message', summary: '', value, msgType: null }
  const node = r.open(F_MSG_GROUP)
  try {
    if (isHttpInit(r.bytes, r.pos, r.end)) {
      value.signal = r.bytes[r.pos]
      r.record(F_MSG.type, MSG.INIT, r.pos, 0, 'Message type: 0 (Init, HTTP-style)')
      readHttpInit(r, session, res)
    } else if (r.remaining > 0 && r.bytes[r.pos] === SIGNAL_INIT_V3) {
      value.signal = r.u8(F_MSG.signal)
      r.record(F_MSG.type, MSG.INIT, r.pos - 1, 1, 'Message type: 0 (Init, InitV3 signal 0xF5)')
      readInitV3(r, session, res)
    } else typed(r, draft, session, res)
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e
    res.error = e
  } finally {
    r.close()
  }
  if (!res.summary) res.summary = res.name
  if (node && r.tree.labels) node.label = `Photon message: ${res.summary}`
  return res
}

/** A message that starts with the F3 (or FD) signal and its type byte. */
function typed(r: FieldReader, draft: MessageDraft, session: MessageSession, res: MessageResult): void {
  const value = res.value
  value.signal = r.u8(F_MSG.signal)
  if (value.signal !== SIGNAL && value.signal !== SIGNAL_ALT) {
    throw new DecodeError(`message does not start with the F3 signal byte: 0x${value.signal.toString(16).padStart(2, '0')}`, r.pos - 1)
  }
  const typeAt = r.pos
  const typeByte = r.u8(null)
  const msgType = typeByte & 0x7f
  value.encrypted = (typeByte & 0x80) !== 0
  value.msgType = msgType
  value.msgTypeName = nameOf(MESSAGE_TYPES, msgType) ?? null
  res.msgType = msgType
  res.name = value.msgTypeName ?? `Message type ${msgType}`
  // Per message: labels as strings, made only with a tree (a closure would cost a context on every call).
  const labels = r.tree.labels
  r.record(F_MSG.type, msgType, typeAt, 1, labels ? `Message type: ${msgType} (${res.name})${value.encrypted ? ', encrypted' : ''}` : undefined)
  r.record(F_ENC.encrypted, value.encrypted, typeAt, 1, labels ? `Encrypted: ${value.encrypted ? 'yes (bit 7 of the type byte)' : 'no'}` : undefined)
  body(r, draft, session, res)
}

function body(r: FieldReader, draft: MessageDraft, session: MessageSession, res: MessageResult): void {
  const v = res.value
  const t = res.msgType!
  if (t === MSG.INIT && !v.encrypted) return init(r, session, res)
  if (t === MSG.INIT_RESPONSE || t === MSG.RAW) {
    const n = r.remaining
    const bytes = r.bytesField(t === MSG.RAW ? F_MSG.raw : F_INIT.body, n)
    v.raw = bytes
    res.summary = `${res.name}${n ? ` (${counted(n, 'byte')})` : ''}`
    return
  }
  if (!isGpBody(t)) {
    v.raw = r.bytesField(F_MSG.body, r.remaining)
    throw new DecodeError(`unknown message type ${t}`, r.pos - v.raw.length - 1)
  }
  if (!v.encrypted) return gpBody(r, session, res, draft)

  // Encrypted: try every key; then, since clients may set the flag on a plain body (datagram
  // encryption already protects it), a body that parses cleanly as is.
  const start = r.pos
  const cipher = r.bytes.subarray(start, r.end)
  for (const k of session.aesKeys()) {
    const d = decryptPayload(k.key, cipher)
    if (!d.ok) continue
    const trial = new FieldReader(d.plain, new TreeBuilder(false), 0)
    if (!parsesCleanly(trial, session, t)) continue
    r.record(F_ENC.ciphertext, cipher, start, cipher.length, () => `Ciphertext: ${cipher.length} bytes (AES-256-CBC, decrypted with ${k.from})`)
    r.pos = r.end
    // The source keeps the padding (decryptPayload's `plain` is a view without it).
    const full = new Uint8Array(d.plain.buffer, d.plain.byteOffset, d.plain.length + d.padding)
    const src = draft.addSource('Decrypted body', full)
    const dr = new FieldReader(full, r.tree, src)
    v.decryptedWith = k.from
    dr.open(F_ENC.decrypted, `Decrypted body (${d.plain.length} bytes + ${d.padding} bytes of PKCS#7 padding)`)
    try {
      gpBody(new FieldReader(full, r.tree, src, 0, d.plain.length), session, res, draft)
      dr.record(F_ENC.aes_padding, d.padding, d.plain.length, d.padding, () => `PKCS#7 padding: ${d.padding} bytes`)
      dr.pos = full.length
    } finally {
      dr.close()
    }
    return
  }
  const plainTrial = new FieldReader(r.bytes, new TreeBuilder(false), r.source, r.pos, r.end)
  if (parsesCleanly(plainTrial, session, t)) {
    draft.warn('the encrypted flag is set but the body is plain (clients may set it when the datagram is already encrypted)')
    return gpBody(r, session, res, draft)
  }
  v.ciphertext = r.bytesField(null, r.remaining)
  r.record(F_ENC.ciphertext, v.ciphertext, start, cipher.length, () => `Ciphertext: ${cipher.length} bytes (no key decrypts it)`)
  const keys = session.aesKeys().length
  res.summary = `${res.name} (encrypted, ${cipher.length} bytes${keys ? `; none of ${keys} key${keys > 1 ? 's' : ''} decrypts it` : '; no key'})`
  if (keys) draft.warn(`none of the ${keys} Photon key${keys > 1 ? 's' : ''} for this conversation decrypts this message`)
  else draft.warn(session.missingKeyWarning())
}

const isGpBody = (t: number) => t >= MSG.OP_REQUEST && t <= MSG.MESSAGE

/** Whether a body decodes to its end with the conversation's version (or either, when unknown). */
function parsesCleanly(r: FieldReader, session: MessageSession, t: number): boolean {
  const versions: GpVersion[] = session.version
    ? [session.version]
    : session.guessedVersion
      ? [session.guessedVersion, session.guessedVersion === 16 ? 18 : 16]
      : [16, 18]
  const start = r.pos
  for (const ver of versions) {
    r.pos = start
    try {
      readBody(r, ver, t)
      if (r.pos === r.end) return true
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e
    }
  }
  return false
}

function readBody(
  r: FieldReader,
  ver: GpVersion,
  t: number,
  opts: GpOptions = {}
): { code?: number; returnCode?: number; debugMessage?: PhotonValue; parameters?: PhotonParams; object?: PhotonValue } {
  switch (t) {
    case MSG.OP_REQUEST:
    case MSG.INTERNAL_REQUEST:
      return readOperationRequest(r, ver, opts)
    case MSG.OP_RESPONSE:
    case MSG.INTERNAL_RESPONSE:
      return readOperationResponse(r, ver, opts)
    case MSG.EVENT:
      return readEvent(r, ver, opts)
    case MSG.DISCONNECT:
      return readDisconnectMessage(r, ver, opts)
    default:
      return { object: readMessageObject(r, ver, opts) }
  }
}

function gpBody(r: FieldReader, session: MessageSession, res: MessageResult, draft: MessageDraft): void {
  const v = res.value
  const t = res.msgType!
  let ver = session.version
  let from: VersionSource = session.versionFrom
  let note = from === 'init' ? 'from the conversation Init' : 'from the WebSocket subprotocol'
  if (!ver) {
    from = 'trial'
    if (session.guessedVersion) {
      ver = session.guessedVersion
      note = 'guessed by trial parse (no Init captured)'
    } else {
      const guess = trialVersion(r.bytes.subarray(r.pos, r.end), t)
      ver = guess.version
      note = `guessed by trial parse (no Init captured${guess.confident ? '' : '; both versions or neither fit'})`
      if (guess.confident) session.guessedVersion = ver
    }
  }
  v.protocol = ver === 18 ? 'GpBinary18' : 'GpBinary16'
  v.protocolFrom = from
  r.record(F_MSG.version, ver, r.pos, 0, r.tree.labels ? `Protocol: GpBinary ${ver === 18 ? '1.8' : '1.6'} (${note})` : undefined)
  const peekCode = r.remaining > 0 ? r.bytes[r.pos] : -1
  const codeAt = r.pos
  const schema = session.schema
  const seen: ParamSeen[] = []
  // Parameter names only label tree nodes: the index pass without a schema pack passes no options at all.
  const out = readBody(r, ver, t, schema || r.tree.recording ? bodyOptions(t, peekCode, schema, seen, draft) : NO_OPTIONS)
  if (r.remaining > 0) {
    const at = r.pos
    r.bytesField(F_MSG.body, r.remaining)
    throw new DecodeError(`${r.end - at} bytes left after the message body`, at)
  }
  Object.assign(v, out)
  if (out.code !== undefined) {
    res.opCode = t === MSG.EVENT ? undefined : out.code
    v.code = out.code
    v.codeName = codeName(t, out.code)
  }
  if (out.returnCode !== undefined) v.returnCodeName = nameOf(RETURN_CODES, out.returnCode)
  const internal = t === MSG.INTERNAL_REQUEST || t === MSG.INTERNAL_RESPONSE
  if (internal && out.code === 0) {
    const key = out.parameters?.get('1')
    if (key && key.type === 'ByteArray') session.onPublicKey(key.value, t === MSG.INTERNAL_RESPONSE)
  }
  let match: SchemaMatch | undefined
  if (schema && out.code !== undefined && out.parameters && (t === MSG.OP_REQUEST || t === MSG.OP_RESPONSE || t === MSG.EVENT)) {
    match = matchMessage(schema, t === MSG.EVENT, out.code, out.parameters)
    applyToBody(r, match, out.parameters, seen, codeAt, (w) => draft.warn(w), schema.customTypes)
    if (match.info) {
      v.codeName = match.info.name
      v.schemaPack = match.info.pack
      if (match.realCode !== undefined) v.schemaCode = match.realCode
    }
  }
  describe(res, t, out, match)
}

const NO_OPTIONS: GpOptions = Object.freeze({})

/** gpBody's reader options, made here: their closures in gpBody would cost it a context on every call. */
function bodyOptions(t: number, peekCode: number, schema: MessageSession['schema'], seen: ParamSeen[], draft: MessageDraft): GpOptions {
  return {
    paramName: (p) => parameterName(t, peekCode, p),
    ...(schema
      ? {
          customTypes: schema.customTypes,
          onParam: (code: number, node: FieldNode | null) => seen.push({ code, node }),
          warn: (w: string) => draft.warn(w)
        }
      : {})
  }
}

function codeName(t: number, code: number): string | undefined {
  if (t === MSG.EVENT) return nameOf(EVENTS, code)
  if (t === MSG.INTERNAL_REQUEST || t === MSG.INTERNAL_RESPONSE) return nameOf(INTERNAL_OPERATIONS, code)
  if (t === MSG.OP_REQUEST || t === MSG.OP_RESPONSE) return nameOf(OPERATIONS, code)
  return undefined
}

function num(v: PhotonValue | undefined): number | undefined {
  if (!v) return undefined
  if (v.type === 'Byte' || v.type === 'Int16' || v.type === 'Int32') return v.value
  if (v.type === 'Int64') return Number(v.value)
  return undefined
}

function named(table: Readonly<Record<number, string>>, n: number | undefined): string | undefined {
  return n === undefined ? undefined : (nameOf(table, n) ?? String(n))
}

/** Adds `k=x` to a summary's parts when x is given (a module function: a closure would cost describe() a context). */
function kv(parts: string[], k: string, x: string | number | undefined): void {
  if (x !== undefined) parts.push(`${k}=${x}`)
}

/** Name and summary line, e.g. `RaiseEvent code=22 cache=AddToRoomCacheGlobal receivers=All`. */
function describe(
  res: MessageResult,
  t: number,
  out: { code?: number; returnCode?: number; debugMessage?: PhotonValue; parameters?: PhotonParams; object?: PhotonValue },
  match?: SchemaMatch
): void {
  const p = out.parameters
  const parts: string[] = []
  const code = out.code
  const cname = code === undefined ? undefined : codeName(t, code)
  switch (t) {
    case MSG.OP_REQUEST:
    case MSG.INTERNAL_REQUEST:
      res.name = cname ?? `Operation ${code}`
      parts.push(res.name)
      if (t === MSG.OP_REQUEST && code === 253) {
        kv(parts, 'code', num(p?.get('244')))
        kv(parts, 'cache', named(EVENT_CACHING, num(p?.get('247'))))
        kv(parts, 'receivers', named(RECEIVER_GROUP, num(p?.get('246'))))
      } else if (t === MSG.OP_REQUEST && (code === 226 || code === 227 || code === 255)) {
        const room = p?.get('255')
        if (room && room.type === 'String') kv(parts, 'room', JSON.stringify(room.value))
        kv(parts, 'joinMode', named(JOIN_MODE, num(p?.get('215'))))
      }
      break
    case MSG.OP_RESPONSE:
    case MSG.INTERNAL_RESPONSE:
      res.name = `${cname ?? `Operation ${code}`} response`
      parts.push(res.name)
      kv(
        parts,
        'rc',
        out.returnCode === undefined
          ? undefined
          : `${out.returnCode}${nameOf(RETURN_CODES, out.returnCode) ? ` (${nameOf(RETURN_CODES, out.returnCode)})` : ''}`
      )
      if (out.debugMessage && out.debugMessage.type !== 'Null') parts.push(previewValue(out.debugMessage, 60))
      break
    case MSG.EVENT:
      res.name = cname ? `${cname} event` : `Event ${code}`
      parts.push(res.name)
      if (num(p?.get('254')) !== undefined) parts.push(`from actor ${num(p?.get('254'))}`)
      break
    case MSG.DISCONNECT:
      res.name = 'DisconnectMessage'
      parts.push(res.name, `code=${code}`)
      if (out.debugMessage && out.debugMessage.type !== 'Null') parts.push(previewValue(out.debugMessage, 60))
      break
    default:
      parts.push(res.name)
      if (out.object) parts.push(previewValue(out.object, 60))
  }
  // A schema pack's names: the message's own (`Move itemId=5`), or its parameters' where only those are named.
  const byName = match && p ? namedSummary(match, p) : ''
  if (match?.info) {
    const n = match.info.name
    res.name = t === MSG.OP_RESPONSE ? `${n} response` : t === MSG.EVENT ? `${n} event` : n
    const rc = t === MSG.OP_RESPONSE ? parts.find((x) => x.startsWith('rc=')) : undefined
    res.summary = [res.name, rc, byName].filter(Boolean).join(' ')
    return
  }
  if (byName) parts.push(byName)
  else if (p?.size && t !== MSG.OP_REQUEST) parts.push(keyList(p))
  else if (p?.size && !parts.some((x) => x.includes('='))) parts.push(keyList(p))
  res.summary = parts.join(' ')
}

/** `{244, 245, …}`: the first 6 parameter codes (without copying every key into an array). */
function keyList(p: PhotonParams): string {
  let s = ''
  let i = 0
  for (const k of p.keys()) {
    if (i === 6) break
    s += i++ ? `, ${k}` : k
  }
  return `{${s}${p.size > 6 ? ', …' : ''}}`
}

function init(r: FieldReader, session: MessageSession, res: MessageResult): void {
  const v = res.value
  const at = r.pos
  const major = r.u8(F_INIT.protocol_major)
  const minor = r.u8(F_INIT.protocol_minor)
  const sdk = r.u8(F_INIT.client_sdk)
  const libAt = r.pos
  const lib = r.u8(null)
  r.record(F_INIT.lib_version, lib, libAt, 1, () => `Library version: ${(lib >> 4) & 0x07}.${lib & 0x0f}${lib & 0x80 ? ' (IPv6)' : ''}`)
  const build = r.u8(F_INIT.lib_build)
  const rev = r.u8(F_INIT.lib_revision)
  r.u8(F_INIT.reserved)
  const appAt = r.pos
  const raw = r.bytesField(null, Math.min(32, r.remaining))
  let end = raw.indexOf(0)
  if (end < 0) end = raw.length
  const appId = new TextDecoder().decode(raw.subarray(0, end))
  r.record(F_INIT.app_id, appId, appAt, raw.length, () => `Application id: ${JSON.stringify(appId)}`)
  if (r.pos - at < INIT_BODY) throw new DecodeError(`Init body is ${r.pos - at} bytes, expected ${INIT_BODY}`, r.pos)
  if (r.remaining) {
    const extra = r.pos
    r.bytesField(F_MSG.body, r.remaining)
    throw new DecodeError(`${r.end - extra} bytes after the 41-byte Init`, extra)
  }
  const version: GpVersion | null = major === 1 && minor === 6 ? 16 : major === 1 && minor === 8 ? 18 : null
  v.protocol = version === 18 ? 'GpBinary18' : version === 16 ? 'GpBinary16' : null
  v.init = {
    protocolVersion: `${major}.${minor}`,
    clientSdkId: sdk >> 1,
    libraryVersion: `${(lib >> 4) & 0x07}.${lib & 0x0f}.${build}.${rev}`,
    ipv6: (lib & 0x80) !== 0,
    appId
  }
  session.onInit(version, appId)
  res.summary = `Init protocol ${major}.${minor} lib ${v.init.libraryVersion} app=${JSON.stringify(appId)}`
  if (!version) res.summary += ' (unknown protocol version)'
}
