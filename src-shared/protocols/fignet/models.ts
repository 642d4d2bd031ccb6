// The Entangle payload models: ONE schema table (field name, C# type, whether the type is our
// assumption), from the porting guide §8–9 and docs/fignet.md. A user with the real
// EntangleModels.cs fixes a field here and nothing else changes. Fields are in declaration order, which is
// MemoryPack's wire order (GenerateType.Object is assumed; a version-tolerant layout would not fit and the
// payload would fall back to MessagePack/raw with the reason).
//
// Every field is the filter field `entangle.<snake_case name>` (RoomId → entangle.room_id in every
// model), declared from this table with its enum names. Models the guide does not detail are decoded
// generically: their member count, then the members as far as the bytes tell them apart.

import { DecodeError, FieldReader } from '../../bytes/reader'
import { TreeBuilder, formatValue } from '../../bytes/tree'
import { defineField, type FieldDef, type FieldType } from '../../bytes/fields'
import { MemoryPackReader, UNMANAGED_FIELD_TYPE, UNMANAGED_SIZE, isUnmanaged, readGuessedMembers } from './memorypack'
import { MsgPackReader, type Slot } from './messagepack'
import { DELIVERY_METHOD, ENTITY_TYPE, PEER_TYPE, ROOM_RESPONSE_CODE } from './names'
import { F_MEMORYPACK, F_MSGPACK, F_PAYLOAD, dynamicDef } from './payload-fields'
import { configFlagNames, recordConfigFlagBits, unpackTransformData } from './transform-lite'
import type { Typed, TypedFields } from './typed'

/** Byte-sized enums (FigNetCommon, FigNet.Core; v1.0.6 binaries). */
export const ENUMS = {
  EntityType: ENTITY_TYPE,
  RoomResponseCode: ROOM_RESPONSE_CODE,
  DeliveryMethod: DELIVERY_METHOD,
  PeerType: PEER_TYPE
} as const

export type EnumName = keyof typeof ENUMS

export interface SchemaField {
  name: string
  /** C# type: an unmanaged primitive, `string`, `byte[]`, an enum of ENUMS (byte), a model of MODELS, or `List<T>`. */
  type: string
  /** The guide names the field but not its type: the type is ours (entangle-models.md). */
  assumed?: true
  /** Enum whose names label this integer (RoomEventData.DeliveryMethod is a byte holding a DeliveryMethod). */
  names?: EnumName
  /** What the field carries in server→client traffic when the code reuses it (porting guide §10). */
  s2cMeaning?: string
}

export interface ModelSchema {
  /** Fields in declaration order; absent when the guide does not detail the model (generic decoding). */
  fields?: SchemaField[]
  /** Members after `fields` are expected (and decoded generically): what they are. */
  moreMembers?: string
  /** A note shown with every server→client decode of this model (the guide's quirks). */
  s2cNote?: string
  /** A note shown with every decode (layout assumptions). */
  note?: string
}

const f = (name: string, type: string, opts: Omit<SchemaField, 'name' | 'type'> = {}): SchemaField => ({ name, type, ...opts })
const A = { assumed: true } as const

const ROOM_EVENT_FIELDS: SchemaField[] = [
  f('RoomId', 'uint', { ...A, s2cMeaning: 'sender peer id, not the room id' }),
  f('EventId', 'byte', A),
  f('DeliveryMethod', 'byte', { ...A, names: 'DeliveryMethod' }),
  f('Tag', 'byte', A),
  f('IsCached', 'bool', A),
  f('UniqueId', 'uint', A),
  f('Data', 'byte[]', A)
]

export const MODELS: Readonly<Record<string, ModelSchema>> = {
  CreateRoomData: {
    fields: [
      f('RoomName', 'string'), f('MaxPlayers', 'ushort'), f('Password', 'string'), f('CellSize', 'ushort'), f('Width', 'ushort'),
      f('Height', 'ushort'), f('AoiActivationCount', 'byte'), f('LodLevel', 'byte'), f('ForcedRoomStateSyncInterval', 'short'),
      f('PresenterInGroupCast', 'bool'), f('FetchCachedEventsDelay', 'ushort')
    ]
  },
  CreateRoomResponseData: { fields: [f('RoomId', 'uint'), f('RoomName', 'string'), f('ResponseCode', 'RoomResponseCode')] },
  RoomJoinOperationData: {
    fields: [
      f('RoomId', 'uint', { s2cMeaning: 'joining player id, not the room id' }), f('TeamId', 'uint'), f('Password', 'string'), f('UserName', 'string')
    ],
    moreMembers: 'the response members ResponseCode, RoomAuthToken and RoomName (their order is not documented)',
    s2cNote: 'RoomJoinOperationData.RoomId is the joining player\'s id in the join response, not the room id (porting guide §10.2)'
  },
  RoomReJoinOperationData: {
    fields: [
      f('RoomId', 'uint'), f('TeamId', 'uint'), f('Password', 'string'), f('IsRejoin', 'bool'), f('RoomAuthToken', 'string'),
      f('PeerId', 'uint'), f('ResponseCode', 'RoomResponseCode'), f('RoomName', 'string')
    ]
  },
  RoomEventData: {
    fields: ROOM_EVENT_FIELDS,
    s2cNote: 'RoomEventData.RoomId is the sender\'s peer id in server→client traffic, not the room id (porting guide §10.3)'
  },
  RoomEventResponseData: {
    fields: ROOM_EVENT_FIELDS,
    note: 'RoomEventResponseData: members not listed by the guide; read with RoomEventData\'s layout (§8.5 describes RoomEventData in server→client events)',
    s2cNote: 'RoomId is the sender\'s peer id in server→client event traffic, not the room id (porting guide §10.3)'
  },
  InstantiateOperationData: {
    fields: [f('RoomId', 'uint'), f('EntityId', 'short'), f('EntityType', 'EntityType'), f('TransLite', 'TransformLite')]
  },
  InstantiateOperationResponseData: {
    fields: [
      f('RoomId', 'uint'), f('OwnerId', 'uint'), f('NetworkId', 'uint'), f('EntityId', 'short'), f('EntityType', 'EntityType'),
      f('InitialState', 'EntityDefaultStateData')
    ]
  },
  EntityUpdateOperationData: {
    fields: [f('RoomId', 'uint'), f('EntityNetId', 'uint'), f('EntityType', 'EntityType'), f('TransLite', 'TransformLite')]
  },
  EntityUpdateResponseOperationData: { fields: [f('EntitiesUpdate', 'List<EntityUpdateOperationData>')] },
  EntityStateChangeOperationData: {
    fields: [f('RoomId', 'uint'), f('NetworkId', 'uint'), f('EntityType', 'EntityType'), f('State', 'EntangleEntityState')]
  },
  EntityStateChangeResponseOperationData: { fields: [f('StatesBatch', 'List<EntityStateChangeOperationData>')] },
  RequestOwnershipOperationData: {
    fields: [
      f('RoomId', 'uint', { ...A, s2cMeaning: 'owner id, not the room id' }), f('IsLocked', 'bool', A), f('EntityNetId', 'uint', A),
      f('EntityType', 'EntityType', A)
    ],
    s2cNote: 'RequestOwnershipOperationData.RoomId is the owner\'s id in the broadcast, not the room id (porting guide §10.4)'
  },
  ClearOwnershipData: {
    fields: [f('RoomId', 'uint', { ...A, s2cMeaning: 'owner id of the clearer, not the room id' }), f('EntityNetId', 'uint', A)],
    s2cNote: 'ClearOwnershipData.RoomId is the clearing owner\'s id in the broadcast, not the room id (porting guide §10.5)'
  },
  TransformLite: { fields: [f('TransformData', 'byte[]'), f('ConfigFlags', 'ushort'), f('SequenceNumber', 'ushort')] },
  EntangleEntityState: {
    fields: [f('DeliveryMethod', 'byte', { names: 'DeliveryMethod' }), f('Delta', 'List<NetworkedObjectBinary>'), f('SequenceNumber', 'ushort')]
  },
  NetworkedObjectBinary: { fields: [f('Key', 'byte'), f('Data', 'byte[]')] },

  // Not detailed by the guide: member count, then members as far as they can be told apart.
  EntityDefaultStateData: {},
  RoomListData: {},
  GetRoomListOperationData: {},
  LeaveRoomOperationData: {},
  RegisterAppIdOperationData: {},
  PresenterModeData: {},
  CustomGroupOperationData: {},
  UpdateSeatOperationData: {},
  GameMessage: {},
  GameState: {},
  NullOperationData: {},
  DeleteEntityData: {},
  OnPlayerJoinRoomOperationData: {},
  OnPlayerLeaveRoomOperationData: {},
  MasterClientChangeOperationData: {},
  AgentOwnershipChangeOperationData: {},
  RoomStateChangeOperationData: {}
}

/** Whether the guide details the model's fields. */
export function isDetailed(model: string): boolean {
  return !!MODELS[model]?.fields
}

// ---- type parsing and the entangle.* fields ----

type Kind =
  | { k: 'unmanaged'; t: keyof typeof UNMANAGED_SIZE }
  | { k: 'enum'; e: EnumName }
  | { k: 'string' }
  | { k: 'bytes' }
  | { k: 'list'; of: string }
  | { k: 'model'; m: string }

export function parseType(type: string): Kind {
  if (isUnmanaged(type)) return { k: 'unmanaged', t: type }
  if (type in ENUMS) return { k: 'enum', e: type as EnumName }
  if (type === 'string') return { k: 'string' }
  if (type === 'byte[]') return { k: 'bytes' }
  const list = /^List<(.+)>$/.exec(type)
  if (list) return { k: 'list', of: list[1] }
  if (type in MODELS) return { k: 'model', m: type }
  throw new Error(`schema: unknown type ${type}`)
}

function fieldType(kind: Kind): FieldType {
  switch (kind.k) {
    case 'unmanaged': return UNMANAGED_FIELD_TYPE[kind.t]
    case 'enum': return 'u8'
    case 'string': return 'string'
    case 'bytes': return 'bytes'
    default: return 'none'
  }
}

export function snakeCase(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2').toLowerCase()
}

/** The filter key of a schema field: `entangle.<snake_case name>`. */
export function fieldKey(name: string): string {
  return `entangle.${snakeCase(name)}`
}

const FIELD_DEFS = new Map<SchemaField, FieldDef>()
for (const [model, schema] of Object.entries(MODELS)) {
  for (const fl of schema.fields ?? []) {
    const kind = parseType(fl.type)
    const names = kind.k === 'enum' ? ENUMS[kind.e] : fl.names ? ENUMS[fl.names] : undefined
    FIELD_DEFS.set(fl, defineField(fieldKey(fl.name), fl.name, fieldType(kind), {
      ...(names ? { names: { ...names } } : {}),
      description: `${model}.${fl.name} (${fl.type}${fl.assumed ? ', type assumed' : ''})${fl.s2cMeaning ? `; server→client: ${fl.s2cMeaning}` : ''}`
    }))
  }
}

/** The field definition of a schema field (declared at load). */
export function schemaFieldDef(fl: SchemaField): FieldDef {
  return FIELD_DEFS.get(fl)!
}

// ---- MemoryPack decoding ----

export type Dir = 'c2s' | 's2c' | null

export interface ModelDecode {
  /** null: decoded without a schema. */
  model: string | null
  payload: TypedFields | null
  warnings: string[]
  notes: string[]
  /** Some members were kept as bytes because they could not be told apart (generic decoding). */
  undecoded: boolean
  error?: DecodeError
}

interface Ctx {
  mp: MemoryPackReader
  dir: Dir
  notes: string[]
  undecoded: boolean
}

function note(ctx: Ctx, text: string): void {
  if (!ctx.notes.includes(text)) ctx.notes.push(text)
}

function enumNames(fl: SchemaField, kind: Kind): Readonly<Record<number, string>> | undefined {
  return kind.k === 'enum' ? ENUMS[kind.e] : fl.names ? ENUMS[fl.names] : undefined
}

function minSize(type: string): number {
  const kind = parseType(type)
  if (kind.k === 'unmanaged') return UNMANAGED_SIZE[kind.t]
  if (kind.k === 'enum' || kind.k === 'model') return 1
  return 4
}

/**
 * Reads one object of `model`. `tail`: the object runs to the end of the reader's window, so members the
 * schema does not know can still be read generically (inside a larger value they cannot be skipped).
 */
function readObject(ctx: Ctx, model: string | null, tail: boolean, out: TypedFields = {}): TypedFields | null {
  const schema = model ? MODELS[model] : undefined
  const { mp } = ctx
  const r = mp.r
  if (!model || !schema?.fields) {
    const what = model ?? 'object'
    const count = mp.objectHeader(what)
    if (count === null) return null
    if (!tail) throw new DecodeError(`${what}: members not documented, so the object cannot be skipped inside a larger value (offset ${r.pos})`, r.pos)
    if (!readGuessedMembers(mp, count, 0, out)) {
      throw new DecodeError(`${what}: ${count} member${count === 1 ? '' : 's'} cannot be read from the ${r.remaining} bytes at offset ${r.pos}`, r.pos)
    }
    if (Object.values(out).some((t) => t.type === 'undecoded')) ctx.undecoded = true
    if (count) note(ctx, `${what}: members not documented; their types are guessed from the bytes`)
    return out
  }
  if (schema.note) note(ctx, schema.note)
  if (schema.s2cNote && ctx.dir === 's2c') note(ctx, schema.s2cNote)
  const count = mp.objectHeader(model)
  if (count === null) return null
  const fields = schema.fields
  let dataAt = -1
  const n = Math.min(count, fields.length)
  for (let i = 0; i < n; i++) {
    const fl = fields[i]
    const lastOnWire = i === n - 1 && count <= fields.length
    if (model === 'TransformLite' && fl.name === 'TransformData') dataAt = r.pos + 4
    if (model === 'TransformLite' && fl.name === 'ConfigFlags') out[fl.name] = readConfigFlags(ctx, fl)
    else out[fl.name] = readField(ctx, fl, tail && lastOnWire)
  }
  if (count < fields.length) {
    mp.warn(`${model}: ${count} of ${fields.length} members on the wire (the rest keep their defaults)`)
  } else if (count > fields.length) {
    const extra = count - fields.length
    if (!tail) {
      throw new DecodeError(`${model}: ${count} members, the schema knows ${fields.length}; the extra members cannot be skipped inside a larger value (offset ${r.pos})`, r.pos)
    }
    if (schema.moreMembers) note(ctx, `${model}: ${extra} more member${extra === 1 ? '' : 's'}: ${schema.moreMembers}`)
    else mp.warn(`${model}: ${count} members, the schema knows ${fields.length}: the last ${extra} read generically`)
    if (!readGuessedMembers(mp, extra, fields.length, out)) {
      throw new DecodeError(`${model}: ${extra} more member${extra === 1 ? '' : 's'} cannot be read from the ${r.remaining} bytes at offset ${r.pos}`, r.pos)
    }
    if (Object.values(out).some((t) => t.type === 'undecoded')) ctx.undecoded = true
  }
  if (model === 'TransformLite') unpackTransform(ctx, out, dataAt)
  return out
}

function readField(ctx: Ctx, fl: SchemaField, tail: boolean, def = schemaFieldDef(fl)): Typed {
  const { mp } = ctx
  const kind = parseType(fl.type)
  const meaning = ctx.dir === 's2c' ? fl.s2cMeaning : undefined
  const label = meaning ? `${fl.name} (${meaning})` : fl.name
  const extra: Partial<Typed> = meaning ? { meaning } : {}
  switch (kind.k) {
    case 'unmanaged':
    case 'enum': {
      const names = enumNames(fl, kind)
      const v = mp.unmanaged(kind.k === 'enum' ? 'byte' : kind.t, def, (x) => `${label}: ${formatValue(def, x as number)}`)
      const name = typeof v === 'number' ? names?.[v] : undefined
      return { type: fl.type, value: v, ...(name !== undefined ? { name } : {}), ...extra }
    }
    case 'string':
      return { type: 'string', value: mp.string(def, label), ...extra }
    case 'bytes':
      return { type: 'byte[]', value: mp.bytes(def, label), ...extra }
    case 'list':
      return { type: fl.type, value: readList(ctx, kind.of, def, label) }
    case 'model':
      return mp.nested(fl.name, () => {
        const node = mp.openNode(def, `${label} (${kind.m})`)
        try {
          const value = readObject(ctx, kind.m, tail)
          if (node && value === null) node.label = `${label}: null`
          return { type: kind.m, value }
        } finally {
          mp.closeNode(node)
        }
      })
  }
}

function readList(ctx: Ctx, of: string, def: FieldDef, label: string): Typed[] | null {
  const { mp } = ctx
  const node = mp.openNode(def, label)
  try {
    const count = mp.collectionCount(label, minSize(of))
    if (count === null) {
      if (node) node.label = `${label}: null`
      return null
    }
    if (node) node.label = `${label} (${count} element${count === 1 ? '' : 's'})`
    const out: Typed[] = []
    const kind = parseType(of)
    for (let i = 0; i < count; i++) {
      const el = mp.openNode(F_MEMORYPACK.element, `[${i}] ${of}`)
      try {
        if (kind.k === 'model') out.push(mp.nested(of, () => ({ type: of, value: readObject(ctx, of, false) })))
        else out.push(readField(ctx, { name: `[${i}]`, type: of }, false, dynamicDef(def.key, `[${i}]`, fieldType(kind))))
      } finally {
        mp.closeNode(el)
      }
    }
    return out
  } finally {
    mp.closeNode(node)
  }
}

function readConfigFlags(ctx: Ctx, fl: SchemaField): Typed {
  const { mp } = ctx
  const r = mp.r
  const def = schemaFieldDef(fl)
  r.need(2, fl.name)
  const at = r.pos
  const node = mp.openNode(def)
  try {
    const flags = mp.unmanaged('ushort', null) as number
    const names = configFlagNames(flags)
    if (node) {
      node.value = flags
      node.label = `${fl.name}: 0x${flags.toString(16).padStart(4, '0')}${names.length ? ` (${names.join(', ')})` : ''}`
    }
    recordConfigFlagBits(r, flags, at)
    return { type: 'ushort', value: flags, flags: names }
  } finally {
    mp.closeNode(node)
  }
}

/** Unpacks TransformData per ConfigFlags into `decoded` on the TransformData value; problems become warnings. */
function unpackTransform(ctx: Ctx, out: TypedFields, dataAt: number): void {
  const data = out.TransformData?.value
  const flags = out.ConfigFlags?.value
  if (!(data instanceof Uint8Array) || typeof flags !== 'number' || dataAt < 0) return
  const r = ctx.mp.r
  const sub = new FieldReader(r.bytes, r.tree, r.source, dataAt, dataAt + data.length)
  const u = unpackTransformData(sub, flags)
  out.TransformData.decoded = u.values
  for (const w of u.warnings) ctx.mp.warn(w)
  if (u.error) ctx.mp.warn(`TransformData: ${u.error.message}`)
}

/**
 * Decodes the reader's window as one MemoryPack `model` (the object must end exactly at the window's end:
 * bytes left over are an error). Fields go into the reader's tree; never throws DecodeError.
 */
export function decodeMemoryPackModel(r: FieldReader, model: string | null, dir: Dir): ModelDecode {
  const mp = new MemoryPackReader(r)
  const ctx: Ctx = { mp, dir, notes: [], undecoded: false }
  const res: ModelDecode = { model, payload: null, warnings: mp.warnings, notes: ctx.notes, undecoded: false }
  const partial: TypedFields = {}
  try {
    res.payload = readObject(ctx, model, true, partial)
    if (r.remaining > 0) {
      const at = r.pos
      r.bytesField(F_PAYLOAD.leftover, r.remaining)
      throw new DecodeError(`${r.end - at} byte${r.end - at === 1 ? '' : 's'} left after ${model ?? 'the object'} at offset ${at}`, at)
    }
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e
    res.error = e
    if (res.payload === null && Object.keys(partial).length) res.payload = partial
  }
  res.undecoded = ctx.undecoded
  return res
}

/** Whether `model` decodes from the window without error and to its end (a dry run: nothing recorded, reader not moved). */
export function memoryPackFits(r: FieldReader, model: string | null, dir: Dir): ModelDecode & { tree: TreeBuilder } {
  const tree = new TreeBuilder(false)
  const trial = new FieldReader(r.bytes, tree, r.source, r.pos, r.end)
  return { ...decodeMemoryPackModel(trial, model, dir), tree }
}

// ---- MessagePack (older builds: MessagePack-CSharp) ----

export interface MsgPackModelDecode {
  payload: TypedFields | null
  error?: DecodeError
}

/**
 * Decodes the window as one MessagePack value standing for `model` (a MessagePack-CSharp object is an
 * array of its fields, or a map with string keys). The value must be an array or map and end at the
 * window's end. Array elements take the schema's field names and keys where the model is detailed.
 */
export function decodeMessagePackModel(r: FieldReader, model: string | null): MsgPackModelDecode {
  const fields = model ? MODELS[model]?.fields : undefined
  const slot = (i: number): Slot | undefined => {
    const fl = fields?.[i]
    return fl ? { key: schemaFieldDef(fl).key, name: fl.name } : undefined
  }
  const start = r.pos
  try {
    const first = r.peekU8()
    const isArray = (first >= 0x90 && first <= 0x9f) || first === 0xdc || first === 0xdd
    const isMap = (first >= 0x80 && first <= 0x8f) || first === 0xde || first === 0xdf
    if (!isArray && !isMap) throw new DecodeError(`MessagePack: a model is an array or map, the first byte is 0x${first.toString(16)} at offset ${start}`, start)
    const v = new MsgPackReader(r).value({ key: F_MSGPACK.item.key, name: model ?? 'MessagePack value' }, slot)
    if (r.remaining > 0) {
      const at = r.pos
      r.bytesField(F_PAYLOAD.leftover, r.remaining)
      throw new DecodeError(`MessagePack: ${r.end - at} bytes left after the value at offset ${at}`, at)
    }
    const payload: TypedFields = {}
    if (v.type === 'array') (v.value as Typed[]).forEach((t, i) => (payload[fields?.[i]?.name ?? `item${i}`] = t))
    else payload.map = v
    return { payload }
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e
    return { payload: null, error: e }
  }
}

export function messagePackFits(r: FieldReader, model: string | null): MsgPackModelDecode {
  return decodeMessagePackModel(new FieldReader(r.bytes, new TreeBuilder(false), r.source, r.pos, r.end), model)
}
