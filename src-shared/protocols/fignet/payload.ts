// The FigNet payload layer: what the envelope decoder calls with the bytes after the FigNet header.
// Core messages (60000–60002) are NetStack BitBuffer; Entangle messages MemoryPack, with the model chosen
// by message id and direction (c2s = request form, s2c = response/event form; unknown direction: the
// form that fits). A MemoryPack decode that does not fit (bad header or lengths, bytes left over) falls
// back to MessagePack (older builds used MessagePack-CSharp), and failing that the payload is kept raw
// with the reason, after the fields read before the failure.

import { DecodeError, FieldReader } from '../../bytes/reader'
import { TreeBuilder } from '../../bytes/tree'
import type { FieldNode } from '../../model/types'
import { BitBufferReader, REGISTER_IDENTITY_FAILURE_SECRET, readPingModel, readRegisterIdentityModel } from './bitbuffer'
import {
  appKeyMembers,
  decodeMemoryPackModel,
  decodeMessagePackModel,
  isDetailed,
  memoryPackFits,
  messagePackFits,
  usesTransformLite,
  type Dir,
  type ModelDecode
} from './models'
import { MSG_REGISTER_IDENTITY, MSG_ROOM_EVENT, messageInfo, type FigNetMessageInfo } from './names'
import { F_PAYLOAD, F_PAYLOAD_ROOT } from './payload-fields'
import { BYTE_FLAGS_WARNING } from './transform-lite'
import { brief, num, round3Text, type Typed, type TypedFields } from './typed'
import { MemoryPackReader, UNMANAGED_FIELD_TYPE, isUnmanaged } from './memorypack'
import { packFieldDef } from '../../schema/struct'
import type { FigNetMessageSpec } from '../../schema/types'
import type { FieldType } from '../../bytes/fields'

export type PayloadCodec = 'BitBuffer' | 'MemoryPack' | 'MessagePack' | 'raw'

export interface PayloadResult {
  codec: PayloadCodec
  /** The payload model's C# name; null when decoded without one. */
  model: string | null
  /** The model's fields in declaration order, typed per the contract; partial when `error` is set. */
  payload: Record<string, unknown> | null
  /** Short, without the message name: `peerType=Client app="app"`, `ev=7 cached tag=2 from player 3`. */
  summary: string
  /** The protocol's quirks where they bite (reused fields, failure replies, assumed layouts). */
  notes: string[]
  warnings: string[]
  /** The payload bytes, when no codec decoded them. */
  raw?: Uint8Array
  error?: DecodeError
}

/**
 * Decodes the payload in `r`'s window (exactly the bytes after the envelope) into r's tree under a
 * `fignet.payload` node, and leaves the reader at the window's end. Never throws.
 */
export function decodeFigNetPayload(r: FieldReader, msgId: number, dir: 'c2s' | 's2c' | null, pack?: FigNetMessageSpec): PayloadResult {
  const res: PayloadResult = { codec: 'raw', model: null, payload: null, summary: '', notes: [], warnings: [] }
  const info = messageInfo(msgId)
  const node = r.open(F_PAYLOAD_ROOT)
  const depth = r.tree.depth
  try {
    if (pack) packPayload(r, pack, res)
    else if (info?.codec === 'BitBuffer') bitBufferPayload(r, info, dir, res)
    else if (r.remaining === 0) {
      res.summary = 'no payload'
      if (info?.request || info?.response) res.notes.push('empty payload: no model bytes')
    } else if (info?.kind === 'core') rawPayload(r, res, `${info.name} (${msgId}) is reserved: no payload format`)
    else memoryPackPayload(r, msgId, info, dir, res)
  } catch (e) {
    // Only a bug gets here (decoders return their DecodeErrors): keep the message, say where.
    res.error =
      e instanceof DecodeError ? e : new DecodeError(`payload decoder failed at offset ${r.pos}: ${e instanceof Error ? e.message : String(e)}`, r.pos)
    while (r.tree.depth > depth) r.tree.close(r.pos)
  }
  r.pos = r.end
  if (node) {
    if (r.tree.labels) node.label = `Payload (${res.codec}${res.model ? `: ${res.model}` : ''})${res.summary ? `: ${res.summary}` : ''}`
    // What the decoder decided, as zero-length fields first under the payload node (filterable). Added
    // before it closes: a tree with an interest decides then whether the node stays (bytes/tree.ts).
    const decided = (def: typeof F_PAYLOAD.codec, value: string): FieldNode => ({
      key: def.key,
      label: `${def.name}: ${value}`,
      type: def.type,
      value,
      source: r.source,
      start: node.start!,
      length: 0
    })
    node.children!.unshift(decided(F_PAYLOAD.codec, res.codec), ...(res.model ? [decided(F_PAYLOAD.model, res.model)] : []))
    r.tree.close(r.end)
  } else {
    r.tree.indexValue(F_PAYLOAD.codec, res.codec)
    if (res.model) r.tree.indexValue(F_PAYLOAD.model, res.model)
  }
  if (!res.summary) res.summary = res.error ? `undecoded (${res.error.message})` : ''
  return res
}

// ---- a schema pack's layout (docs/schema-packs.md) ----

/** MemoryPack's unmanaged types as the registry types them, plus the two variable-length ones a pack may name. */
const PACK_FIELD_TYPES: Record<string, FieldType> = { ...UNMANAGED_FIELD_TYPE, string: 'string', 'byte[]': 'bytes' }

/** A message a schema pack lays out: its fields `fignet.field.<name>`, read by the codec's own reader. */
function packPayload(r: FieldReader, spec: FigNetMessageSpec, res: PayloadResult): void {
  res.codec = spec.codec
  res.model = spec.name
  const payload: TypedFields = {}
  res.payload = payload
  const fields = spec.fields ?? []
  const def = (f: { name: string; type: string }) => packFieldDef(`fignet.field.${f.name}`, f.name, PACK_FIELD_TYPES[f.type])
  try {
    if (spec.codec === 'BitBuffer') {
      const bb = new BitBufferReader(r)
      try {
        for (const f of fields) {
          const d = def(f)
          const t = f.type as 'byte' | 'bool' | 'short' | 'ushort' | 'int' | 'uint' | 'long' | 'ulong' | 'string'
          payload[f.name] = { type: f.type, value: bb[t](d) }
        }
      } finally {
        bb.finish()
        res.warnings.push(...bb.warnings)
      }
    } else {
      const mp = new MemoryPackReader(r)
      try {
        const count = mp.objectHeader(spec.name)
        if (count === null) {
          res.payload = null
          res.summary = 'null'
          return
        }
        if (count !== fields.length) mp.warn(`${spec.name}: ${count} members on the wire, the schema pack lays out ${fields.length}`)
        for (const f of fields.slice(0, count)) {
          const d = def(f)
          if (isUnmanaged(f.type)) payload[f.name] = { type: f.type, value: mp.unmanaged(f.type, d) }
          else if (f.type === 'string') payload[f.name] = { type: 'string', value: mp.string(d) }
          else payload[f.name] = { type: 'byte[]', value: mp.bytes(d) }
        }
      } finally {
        res.warnings.push(...mp.warnings)
      }
      if (r.remaining > 0) {
        const at = r.pos
        r.bytesField(F_PAYLOAD.leftover, r.remaining)
        throw new DecodeError(`${r.end - at} bytes left after ${spec.name} as the schema pack lays it out, at offset ${at}`, at)
      }
    }
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e
    res.error = e
  }
  res.notes.push(`payload laid out by the schema pack`)
  res.summary = fields
    .filter((f) => payload[f.name])
    .slice(0, 4)
    .map((f) => `${f.name}=${brief(payload[f.name])}`)
    .join(' ')
}

// ---- BitBuffer (core messages) ----

function bitBufferPayload(r: FieldReader, info: FigNetMessageInfo, dir: Dir, res: PayloadResult): void {
  res.codec = 'BitBuffer'
  const bb = new BitBufferReader(r)
  const model = (dir === 's2c' ? info.response : info.request) ?? info.request
  const payload: TypedFields = {}
  const reply = dir === 's2c'
  try {
    if (bb.dataBits === 0) {
      res.summary = 'empty'
      res.notes.push(bb.sentinelBit === null ? 'empty payload' : 'empty BitBuffer (the sentinel bit only): no fields')
      return
    }
    res.model = model
    res.payload = payload
    if (info.id === MSG_REGISTER_IDENTITY) readRegisterIdentityModel(bb, payload, reply)
    else readPingModel(bb, payload)
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e
    res.error = e
  } finally {
    bb.finish()
    res.warnings.push(...bb.warnings)
  }
  res.summary = info.id === MSG_REGISTER_IDENTITY ? registerIdentitySummary(payload, reply, res) : fields(payload, ['peerType'])
}

function registerIdentitySummary(p: TypedFields, reply: boolean, res: PayloadResult): string {
  if (reply && p.SecretKey?.value === REGISTER_IDENTITY_FAILURE_SECRET) {
    res.notes.push('RegisterIdentity failure reply: SecretKey is "invalid" and AppName carries the error text')
    return `rejected: ${brief(p.AppName)}`
  }
  const parts = [p.peerType ? `peerType=${brief(p.peerType)}` : '']
  if (p.AppName) parts.push(`app=${brief(p.AppName)}`)
  return parts.filter(Boolean).join(' ')
}

// ---- MemoryPack / MessagePack (Entangle) ----

const NO_MODEL: readonly (string | null)[] = [null]
/** candidateModels per message and direction, made once (read-only lists). */
const CANDIDATES = new Map<FigNetMessageInfo, Partial<Record<'c2s' | 's2c' | 'null', readonly (string | null)[]>>>()

/** Candidate models in the order to try: c2s the request form, s2c the response form, unknown both. */
function candidateModels(info: FigNetMessageInfo | undefined, dir: Dir): readonly (string | null)[] {
  if (!info) return NO_MODEL
  let byDir = CANDIDATES.get(info)
  if (!byDir) CANDIDATES.set(info, (byDir = {}))
  return (byDir[dir ?? 'null'] ??= candidateModelsOnce(info, dir))
}

function candidateModelsOnce(info: FigNetMessageInfo, dir: Dir): (string | null)[] {
  const order = dir === 'c2s' ? [info.request ?? info.response] : dir === 's2c' ? [info.response ?? info.request] : [info.request, info.response]
  const out = [...new Set(order.filter((m): m is string => !!m))]
  return out.length ? out : [null]
}

function memoryPackPayload(r: FieldReader, msgId: number, info: FigNetMessageInfo | undefined, dir: Dir, res: PayloadResult): void {
  if (!info) res.notes.push(`message id ${msgId} is not in the registry: payload decoded without a schema`)
  else if (info.kind === 'infrastructure' || info.kind === 'admin') res.notes.push(`${info.name}: ${info.description}`)
  const candidates = candidateModels(info, dir)

  let chosen: string | null | undefined
  let chosenTrial: (ModelDecode & { tree: TreeBuilder }) | undefined
  let primary = candidates[0]
  let firstFailure: ModelDecode | undefined
  let byteFlags = false
  for (const m of candidates) {
    let trial = memoryPackFits(r, m, dir)
    if (trial.error && m && usesTransformLite(m)) {
      // Builds before the Advanced NetworkTransform change wrote ConfigFlags as one byte (§9.1).
      // Only a clean reading counts: a cut payload can also "fit" one byte shorter, but not without warnings
      // (members missing, TransformData longer or shorter than its flags say).
      const old = memoryPackFits(r, m, dir, { byteFlags: true })
      if (!old.error && old.warnings.every((w) => w === BYTE_FLAGS_WARNING)) {
        trial = old
        byteFlags = true
      }
    }
    if (!trial.error) {
      // Members kept as undecoded bytes are a weak fit: a MessagePack reading of the whole payload wins.
      if (trial.undecoded && !messagePackFits(r, m).error) primary = m
      else {
        chosen = m
        chosenTrial = trial
      }
      break
    }
    firstFailure ??= trial
  }

  if (chosen !== undefined) {
    // Without a tree the dry run that fitted is the decode: the model is not read a second time.
    const dec = r.tree.recording || !chosenTrial ? decodeMemoryPackModel(r, chosen, dir, { byteFlags }) : chosenTrial
    if (dec === chosenTrial) r.tree.append(chosenTrial.tree)
    res.codec = 'MemoryPack'
    res.model = chosen
    res.payload = dec.payload
    res.notes.push(...dec.notes)
    res.warnings.push(...dec.warnings)
    if (dec.error) res.error = dec.error
    if (dir === null && candidates.length > 1) res.notes.push(`direction unknown: decoded as ${chosen}, the form that fits`)
    res.summary = summarize(chosen, dec.payload, dir, msgId)
    return
  }

  const mp = messagePackFits(r, primary)
  if (!mp.error) {
    const dec = decodeMessagePackModel(r, primary)
    res.codec = 'MessagePack'
    res.model = primary
    res.payload = dec.payload
    if (dec.error) res.error = dec.error
    res.notes.push('MessagePack payload (older FigNet builds used MessagePack-CSharp)')
    res.summary = summarize(primary, dec.payload, dir, msgId)
    return
  }

  // Neither fits: the fields read before the MemoryPack failure, then the rest as bytes.
  res.codec = 'raw'
  res.model = primary
  res.raw = new FieldReader(r.bytes, new TreeBuilder(false), r.source, r.pos, r.end).bytesField(null, r.remaining)
  const dec = decodeMemoryPackModel(r, primary, dir)
  if (r.remaining > 0) r.bytesField(F_PAYLOAD.undecoded, r.remaining)
  res.payload = dec.payload
  res.warnings.push(...dec.warnings)
  res.error = dec.error ?? firstFailure?.error
  res.notes.push(`MessagePack does not fit either: ${mp.error!.message}`)
  res.summary = `raw, ${res.raw.length} byte${res.raw.length === 1 ? '' : 's'}`
}

function rawPayload(r: FieldReader, res: PayloadResult, why: string): void {
  res.codec = 'raw'
  res.raw = r.bytesField(F_PAYLOAD.raw, r.remaining)
  res.notes.push(why)
  res.summary = `raw, ${res.raw.length} byte${res.raw.length === 1 ? '' : 's'}`
}

// ---- summaries ----

function fields(p: TypedFields, names: string[]): string {
  return names
    .filter((n) => p[n])
    .map((n) => `${n}=${brief(p[n])}`)
    .join(' ')
}

const fmt = (t: Typed | undefined) => (t && typeof t.value === 'number' ? round3Text(t.value) : '?')

function position(p: TypedFields): string {
  const decoded = (p.TransLite?.value as TypedFields | null | undefined)?.TransformData?.decoded as TypedFields | undefined
  if (!decoded?.X) return ''
  // X, then Y and Z where present (each entity update's summary: no array per message).
  let text = ` pos (${fmt(decoded.X)}`
  if (decoded.Y) text += `, ${fmt(decoded.Y)}`
  if (decoded.Z) text += `, ${fmt(decoded.Z)}`
  return `${text})`
}

function count(t: Typed | undefined, one: string, many = `${one}s`): string {
  const n = Array.isArray(t?.value) ? (t!.value as unknown[]).length : 0
  return t?.value === null ? `no ${many} (null)` : `${n} ${n === 1 ? one : many}`
}

/** A short description of a decoded model for the message summary (no message name). */
export function summarize(model: string | null, p: TypedFields | null, dir: Dir, msgId: number): string {
  if (!p) return model ? `${model}: null` : 'null'
  const s2c = dir === 's2c'
  switch (model) {
    case 'CreateRoomData':
      return `${brief(p.RoomName)} max=${brief(p.MaxPlayers)}${typeof p.Password?.value === 'string' && p.Password.value ? ' password' : ''}`
    case 'CreateRoomResponseData':
      return `room ${brief(p.RoomId)} ${brief(p.RoomName)} ${brief(p.ResponseCode)}`
    case 'RoomJoinOperationData':
      return s2c ? `player ${brief(p.RoomId)}` : `room ${brief(p.RoomId)} team ${brief(p.TeamId)} user ${brief(p.UserName)}`
    case 'RoomReJoinOperationData':
      return s2c
        ? `room ${brief(p.RoomId)} peer ${brief(p.PeerId)} ${brief(p.ResponseCode)}`
        : `room ${brief(p.RoomId)} team ${brief(p.TeamId)}${p.IsRejoin?.value ? ' rejoin' : ''}`
    case 'RoomEventData':
    case 'RoomEventResponseData': {
      const who = s2c ? `from player ${brief(p.RoomId)}` : `room ${brief(p.RoomId)}`
      const uid = msgId !== MSG_ROOM_EVENT && p.UniqueId ? ` uid=${brief(p.UniqueId)}` : ''
      return `ev=${brief(p.EventId)}${p.IsCached?.value ? ' cached' : ''} tag=${brief(p.Tag)}${uid} ${who}`
    }
    case 'InstantiateOperationData':
      return `entity ${brief(p.EntityId)} ${brief(p.EntityType)} room ${brief(p.RoomId)}${position(p)}`
    case 'InstantiateOperationResponseData':
      return `net ${brief(p.NetworkId)} entity ${brief(p.EntityId)} ${brief(p.EntityType)} owner ${brief(p.OwnerId)}`
    case 'EntityUpdateOperationData': {
      const seq = (p.TransLite?.value as TypedFields | null | undefined)?.SequenceNumber
      return `net ${brief(p.EntityNetId)} ${brief(p.EntityType)}${seq ? ` seq ${brief(seq)}` : ''}${position(p)}`
    }
    case 'EntityUpdateResponseOperationData':
      return count(p.EntitiesUpdate, 'update')
    case 'EntityStateChangeOperationData': {
      const st = p.State?.value as TypedFields | null | undefined
      return `net ${brief(p.NetworkId)} ${brief(p.EntityType)}${st ? ` ${count(st.Delta, 'delta')} seq ${brief(st.SequenceNumber)}` : ''}`
    }
    case 'EntityStateChangeResponseOperationData':
      return count(p.StatesBatch, 'state')
    case 'RequestOwnershipOperationData':
      return s2c
        ? `owner ${brief(p.RoomId)} entity ${brief(p.EntityNetId)}${p.IsLocked?.value ? ' locked' : ''}`
        : `room ${brief(p.RoomId)} entity ${brief(p.EntityNetId)}${p.IsLocked?.value ? ' lock' : ''}`
    case 'RegisterAppIdOperationData': {
      const named = appKeyMembers(p)
      if (!named.AppKey && !named.IsSuccess) break
      const parts = [named.AppKey ? `key=${brief(p[named.AppKey])}` : '', named.IsSuccess ? `IsSuccess=${p[named.IsSuccess].value === 1}` : '']
      return parts.filter(Boolean).join(' ')
    }
    case 'ClearOwnershipData':
      return s2c ? `owner ${brief(p.RoomId)} entity ${brief(p.EntityNetId)}` : `room ${brief(p.RoomId)} entity ${brief(p.EntityNetId)}`
  }
  // Generic members (and an AppKey payload whose members cannot be named).
  const keys = Object.keys(p)
  if (!keys.length) return model && !isDetailed(model) ? 'no members' : 'empty'
  const shown = keys
    .slice(0, 3)
    .map((k) => `${k}=${brief(p[k])}`)
    .join(' ')
  return keys.length > 3 ? `${shown} … (${keys.length} members)` : shown
}

/** The plain number of a payload field (NaN when absent), for callers that pair or index messages. */
export function payloadNumber(p: Record<string, unknown> | null, field: string): number {
  return num((p as TypedFields | null)?.[field])
}
