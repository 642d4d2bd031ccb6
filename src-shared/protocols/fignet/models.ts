// The Entangle payload models: ONE schema table (field name, C# type, whether the type is our
// assumption), from docs/fignet.md (the guide's §8–9). A user with the real
// EntangleModels.cs fixes a field here and nothing else changes. Fields are in declaration order, which is
// MemoryPack's wire order (GenerateType.Object is assumed; a version-tolerant layout would not fit and the
// payload would fall back to MessagePack/raw with the reason).
//
// Every field is the filter field `entangle.<snake_case name>` (RoomId → entangle.room_id in every
// model), declared from this table with its enum names. Models the guide does not detail are decoded
// generically: their member count, then the members as far as the bytes tell them apart.
//
// Where the guide's own tables disagree on a model's field order (RequestOwnershipOperationData §8.10), the
// schema lists the candidate orders and each payload is read in the one that validates; the tree says
// which and why (docs/fignet.md).

import { DecodeError, FieldReader } from '../../bytes/reader'
import { TreeBuilder, formatValue } from '../../bytes/tree'
import { defineField, type FieldDef, type FieldType } from '../../bytes/fields'
import {
  MemoryPackReader,
  NULL_OBJECT as NULL_UNION,
  UNMANAGED_FIELD_TYPE,
  UNMANAGED_SIZE,
  guessMembers,
  isUnmanaged,
  readGuessedMembers,
  type MemberGuess
} from './memorypack'
import { MsgPackReader, type Slot } from './messagepack'
import { DELIVERY_METHOD, ENTITY_TYPE, PEER_TYPE, ROOM_RESPONSE_CODE } from './names'
import { F_MEMORYPACK, F_MSGPACK, F_PAYLOAD, dynamicDef } from './payload-fields'
import { BYTE_FLAGS_WARNING, F_FLAG_WIDTH, configFlagNames, recordConfigFlagBits, unpackTransformData } from './transform-lite'
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
  /** The guide names the field but not its type: the type is ours (docs/fignet.md, Model field types). */
  assumed?: true
  /** Enum whose names label this integer (RoomEventData.DeliveryMethod is a byte holding a DeliveryMethod). */
  names?: EnumName
  /** What the field carries in server→client traffic when the code reuses it (docs/fignet.md, guide §10). */
  s2cMeaning?: string
  /** Set at load for the fields of MODELS: the field's definition and its parsed type (no lookup per read). */
  def?: FieldDef
  kind?: Kind
}

/** One candidate field order of a model whose order the guide leaves open. */
export interface FieldOrder {
  /** Where the order comes from, for the tree: `broadcast table (§8.10)`. */
  name: string
  fields: SchemaField[]
}

export interface ModelSchema {
  /** Fields in declaration order; absent when the guide does not detail the model (generic decoding). */
  fields?: SchemaField[]
  /** Candidate orders of `fields` (same field objects) where the guide disagrees with itself; the first is the default. */
  orders?: FieldOrder[]
  /** Members after `fields` are expected (and decoded generically): what they are. */
  moreMembers?: string
  /** A note shown with every server→client decode of this model (the guide's quirks). */
  s2cNote?: string
  /** A note shown with every decode (layout assumptions). */
  note?: string
}

// Every member present, in one order: one object shape for all fields keeps the decoder's reads of them
// monomorphic (with the options spread in, V8 looked each read up in its megamorphic cache).
const f = (name: string, type: string, opts: Omit<SchemaField, 'name' | 'type'> = {}): SchemaField => ({
  name,
  type,
  assumed: opts.assumed,
  names: opts.names,
  s2cMeaning: opts.s2cMeaning,
  def: undefined,
  kind: undefined
})
const A = { assumed: true } as const

// RequestOwnershipOperationData (§8.10): the request table lists RoomId, IsLocked, EntityNetId, EntityType;
// the broadcast table RoomId, EntityNetId, IsLocked, EntityType. One C# class has one order, so one table is
// wrong, and which one is not public: both are tried.
const OWN_ROOM = f('RoomId', 'uint', { ...A, s2cMeaning: 'owner id, not the room id' })
const OWN_LOCKED = f('IsLocked', 'bool', A)
const OWN_ENTITY = f('EntityNetId', 'uint', A)
const OWN_TYPE = f('EntityType', 'EntityType', A)

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
      f('RoomName', 'string'),
      f('MaxPlayers', 'ushort'),
      f('Password', 'string'),
      f('CellSize', 'ushort'),
      f('Width', 'ushort'),
      f('Height', 'ushort'),
      f('AoiActivationCount', 'byte'),
      f('LodLevel', 'byte'),
      f('ForcedRoomStateSyncInterval', 'short'),
      f('PresenterInGroupCast', 'bool'),
      f('FetchCachedEventsDelay', 'ushort')
    ]
  },
  CreateRoomResponseData: { fields: [f('RoomId', 'uint'), f('RoomName', 'string'), f('ResponseCode', 'RoomResponseCode')] },
  RoomJoinOperationData: {
    fields: [f('RoomId', 'uint', { s2cMeaning: 'joining player id, not the room id' }), f('TeamId', 'uint'), f('Password', 'string'), f('UserName', 'string')],
    moreMembers: 'the response members ResponseCode, RoomAuthToken and RoomName (their order is not documented)',
    s2cNote: "RoomJoinOperationData.RoomId is the joining player's id in the join response, not the room id (docs/fignet.md, guide §10.2)"
  },
  RoomReJoinOperationData: {
    fields: [
      f('RoomId', 'uint'),
      f('TeamId', 'uint'),
      f('Password', 'string'),
      f('IsRejoin', 'bool'),
      f('RoomAuthToken', 'string'),
      f('PeerId', 'uint'),
      f('ResponseCode', 'RoomResponseCode'),
      f('RoomName', 'string')
    ]
  },
  RoomEventData: {
    fields: ROOM_EVENT_FIELDS,
    s2cNote: "RoomEventData.RoomId is the sender's peer id in server→client traffic, not the room id (docs/fignet.md, guide §10.3)"
  },
  RoomEventResponseData: {
    fields: ROOM_EVENT_FIELDS,
    note: "RoomEventResponseData: members not listed by the guide; read with RoomEventData's layout (§8.5 describes RoomEventData in server→client events)",
    s2cNote: "RoomId is the sender's peer id in server→client event traffic, not the room id (docs/fignet.md, guide §10.3)"
  },
  InstantiateOperationData: {
    fields: [f('RoomId', 'uint'), f('EntityId', 'short'), f('EntityType', 'EntityType'), f('TransLite', 'TransformLite')]
  },
  InstantiateOperationResponseData: {
    fields: [
      f('RoomId', 'uint'),
      f('OwnerId', 'uint'),
      f('NetworkId', 'uint'),
      f('EntityId', 'short'),
      f('EntityType', 'EntityType'),
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
    fields: [OWN_ROOM, OWN_LOCKED, OWN_ENTITY, OWN_TYPE],
    orders: [
      { name: 'request table (§8.10)', fields: [OWN_ROOM, OWN_LOCKED, OWN_ENTITY, OWN_TYPE] },
      { name: 'broadcast table (§8.10)', fields: [OWN_ROOM, OWN_ENTITY, OWN_LOCKED, OWN_TYPE] }
    ],
    s2cNote: "RequestOwnershipOperationData.RoomId is the owner's id in the broadcast, not the room id (docs/fignet.md, guide §10.4)"
  },
  ClearOwnershipData: {
    fields: [f('RoomId', 'uint', { ...A, s2cMeaning: 'owner id of the clearer, not the room id' }), f('EntityNetId', 'uint', A)],
    s2cNote: "ClearOwnershipData.RoomId is the clearing owner's id in the broadcast, not the room id (docs/fignet.md, guide §10.5)"
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

const transformUse = new Map<string, boolean>()
/** Whether a model holds a TransformLite anywhere (so its ConfigFlags width can be in question). */
export function usesTransformLite(model: string): boolean {
  let v = transformUse.get(model)
  if (v === undefined) {
    transformUse.set(model, false) // cycles
    v =
      model === 'TransformLite' ||
      (MODELS[model]?.fields ?? []).some((fl) => {
        const t = /^List<(.+)>$/.exec(fl.type)?.[1] ?? fl.type
        return t in MODELS && usesTransformLite(t)
      })
    transformUse.set(model, v)
  }
  return v
}

// Entangle's model fields sit in FigNet's payload, with no group of their own: `entangle` stands for any of
// them, and the index keeps which messages have one.
export const F_ENTANGLE = defineField('entangle', 'Entangle model fields', 'none', {
  index: true,
  covers: true,
  description: 'Any field of an Entangle model (entangle.*): kept by the index, so a bare `entangle` filter needs no trees'
})
export const F_FIELD_ORDER = defineField('entangle.field_order', 'Field order', 'string', {
  description: "Which of the guide's disagreeing field orders the model was read in, and why"
})
export const F_DATA_VALUE = defineField('entangle.data.value', 'Data (MemoryPack)', 'none', {
  description: 'NetworkedObjectBinary.Data read as the MemoryPack NetworkSerializable it carries'
})
export const F_DATA_UNION_HEADER = defineField('entangle.data.union_header', 'Union header', 'u8', {
  description: 'MemoryPack union header of a NetworkSerializable registered as a dynamic union (RoomSeatsData): 0–249 the tag, 250 a u16 tag follows, 255 null'
})
export const F_DATA_UNION_TAG = defineField('entangle.data.union_tag', 'Union tag (wide)', 'u16', { description: 'The u16 tag after union header 250' })

// ---- type parsing and the entangle.* fields ----

type Kind =
  | { k: 'unmanaged'; t: keyof typeof UNMANAGED_SIZE }
  | { k: 'enum'; e: EnumName }
  | { k: 'string' }
  | { k: 'bytes' }
  | { k: 'list'; of: string }
  | { k: 'model'; m: string }

/** Parsed once per type string: every field of every message asks (the List<…> test is a regex). */
const KINDS = new Map<string, Kind>()

export function parseType(type: string): Kind {
  let kind = KINDS.get(type)
  if (kind === undefined) {
    kind = parseTypeOnce(type)
    KINDS.set(type, kind)
  }
  return kind
}

function parseTypeOnce(type: string): Kind {
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
    case 'unmanaged':
      return UNMANAGED_FIELD_TYPE[kind.t]
    case 'enum':
      return 'u8'
    case 'string':
      return 'string'
    case 'bytes':
      return 'bytes'
    default:
      return 'none'
  }
}

export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
}

/** The filter key of a schema field: `entangle.<snake_case name>`. */
export function fieldKey(name: string): string {
  return `entangle.${snakeCase(name)}`
}

for (const [model, schema] of Object.entries(MODELS)) {
  for (const fl of schema.fields ?? []) {
    const kind = parseType(fl.type)
    const names = kind.k === 'enum' ? ENUMS[kind.e] : fl.names ? ENUMS[fl.names] : undefined
    fl.kind = kind
    fl.def = defineField(fieldKey(fl.name), fl.name, fieldType(kind), {
      ...(names ? { names: { ...names } } : {}),
      description: `${model}.${fl.name} (${fl.type}${fl.assumed ? ', type assumed' : ''})${fl.s2cMeaning ? `; server→client: ${fl.s2cMeaning}` : ''}`
    })
  }
}

/** The field definition of a schema field (declared at load). */
export function schemaFieldDef(fl: SchemaField): FieldDef {
  return fl.def!
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
  /** Read TransformLite.ConfigFlags as one byte (builds before the Advanced NetworkTransform change). */
  byteFlags: boolean
}

export interface DecodeOptions {
  byteFlags?: boolean
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
function readObject(ctx: Ctx, model: string | null, tail: boolean, out: TypedFields = {}, order?: SchemaField[]): TypedFields | null {
  const schema = model ? MODELS[model] : undefined
  const { mp } = ctx
  const r = mp.r
  if (!model || !schema?.fields) {
    const what = model ?? 'object'
    const count = mp.objectHeader(what)
    if (count === null) return null
    if (!tail) throw new DecodeError(`${what}: members not documented, so the object cannot be skipped inside a larger value (offset ${r.pos})`, r.pos)
    // Guessed without a tree too (one message per session): the AppKey and IsSuccess it names are entangle fields.
    const segs = model === APP_KEY_MODEL ? guessMembers(r, count) : null
    if (!readGuessedMembers(mp, count, 0, out)) {
      throw new DecodeError(`${what}: ${count} member${count === 1 ? '' : 's'} cannot be read from the ${r.remaining} bytes at offset ${r.pos}`, r.pos)
    }
    if (Object.values(out).some((t) => t.type === 'undecoded')) ctx.undecoded = true
    if (count) note(ctx, `${what}: members not documented; their types are guessed from the bytes`)
    if (model === APP_KEY_MODEL) nameAppKeyMembers(ctx, out, segs)
    return out
  }
  if (schema.note) note(ctx, schema.note)
  if (schema.s2cNote && ctx.dir === 's2c') note(ctx, schema.s2cNote)
  const fields = order ?? (schema.orders ? chooseOrder(ctx, model, schema.orders, tail) : schema.fields)
  const count = mp.objectHeader(model)
  if (count === null) return null
  let dataAt = -1
  const n = Math.min(count, fields.length)
  for (let i = 0; i < n; i++) {
    const fl = fields[i]
    const lastOnWire = i === n - 1 && count <= fields.length
    if ((model === 'TransformLite' && fl.name === 'TransformData') || (model === 'NetworkedObjectBinary' && fl.name === 'Data')) dataAt = r.pos + 4
    if (model === 'TransformLite' && fl.name === 'ConfigFlags') out[fl.name] = readConfigFlags(ctx, fl)
    else out[fl.name] = readField(ctx, fl, tail && lastOnWire)
  }
  if (count < fields.length) {
    mp.warn(`${model}: ${count} of ${fields.length} members on the wire (the rest keep their defaults)`)
  } else if (count > fields.length) {
    const extra = count - fields.length
    if (!tail) {
      throw new DecodeError(
        `${model}: ${count} members, the schema knows ${fields.length}; the extra members cannot be skipped inside a larger value (offset ${r.pos})`,
        r.pos
      )
    }
    if (schema.moreMembers) note(ctx, `${model}: ${extra} more member${extra === 1 ? '' : 's'}: ${schema.moreMembers}`)
    else mp.warn(`${model}: ${count} members, the schema knows ${fields.length}: the last ${extra} read generically`)
    if (!readGuessedMembers(mp, extra, fields.length, out)) {
      throw new DecodeError(`${model}: ${extra} more member${extra === 1 ? '' : 's'} cannot be read from the ${r.remaining} bytes at offset ${r.pos}`, r.pos)
    }
    if (Object.values(out).some((t) => t.type === 'undecoded')) ctx.undecoded = true
  }
  if (model === 'TransformLite') unpackTransform(ctx, out, dataAt)
  if (model === 'NetworkedObjectBinary') decodeNetworkedData(ctx, out, dataAt)
  return out
}

// ---- AppKey (60304): RegisterAppIdOperationData ----

const APP_KEY_MODEL = 'RegisterAppIdOperationData'
export const F_APP_KEY = defineField('entangle.app_key', 'AppKey', 'string', {
  description:
    "RegisterAppIdOperationData: the app key the Entangle client sends after RegisterIdentity (named from the guide's handshake, §5; the guide lists no fields)"
})
export const F_IS_SUCCESS = defineField('entangle.is_success', 'IsSuccess', 'bool', {
  description: "RegisterAppIdOperationData: the server's answer to AppKey (named from the guide's handshake, §5)"
})

/**
 * The guide lists no fields for RegisterAppIdOperationData, only that the client sends its AppKey and the
 * server replies IsSuccess (§5). The members stay generic (their order and any others are unknown); the one
 * string member is the AppKey and the one 0/1 byte member IsSuccess, when there is exactly one of each.
 */
export function appKeyMembers(p: TypedFields | null): { AppKey?: string; IsSuccess?: string } {
  const out: { AppKey?: string; IsSuccess?: string } = {}
  if (!p) return out
  const strings = Object.keys(p).filter((k) => p[k].type === 'string')
  const bools = Object.keys(p).filter((k) => p[k].type === '1-byte value' && (p[k].value === 0 || p[k].value === 1))
  if (strings.length === 1) out.AppKey = strings[0]
  if (bools.length === 1) out.IsSuccess = bools[0]
  return out
}

function nameAppKeyMembers(ctx: Ctx, out: TypedFields, segs: MemberGuess[] | null): void {
  const named = appKeyMembers(out)
  // The tree labels say where the names come from; no note, the payload decoded as it is.
  if ((!named.AppKey && !named.IsSuccess) || !segs) return
  const r = ctx.mp.r
  let index = 0
  for (const seg of segs) {
    const name = seg.members > 1 ? `member${index}..${index + seg.members - 1}` : `member${index}`
    index += seg.members
    if (name === named.AppKey) {
      const text = out[name].value as string
      const at = seg.start + (seg.kind === 'utf8' ? 8 : 4)
      r.record(F_APP_KEY, text, at, seg.end - at, () => `AppKey (${name}, named from the handshake §5): ${JSON.stringify(text)}`)
    } else if (name === named.IsSuccess) {
      const ok = out[name].value === 1
      r.record(F_IS_SUCCESS, ok, seg.start, 1, () => `IsSuccess (${name}, named from the handshake §5): ${ok}`)
    }
  }
}

/** A scratch context over the same bytes from `start` to the reader's end: dry runs record nothing. */
function scratch(ctx: Ctx, start = ctx.mp.r.pos, end = ctx.mp.r.end): Ctx {
  const r = ctx.mp.r
  const mp = new MemoryPackReader(new FieldReader(r.bytes, new TreeBuilder(false), r.source, start, end))
  return { mp, dir: ctx.dir, notes: [], undecoded: false, byteFlags: ctx.byteFlags }
}

/** Reads `model` in `fields`' order as a dry run: whether it validates, how plausible it is, what is wrong. */
function tryOrder(ctx: Ctx, model: string, fields: SchemaField[], tail: boolean): { ok: boolean; score: number; problems: string[] } {
  const t = scratch(ctx)
  let out: TypedFields | null
  try {
    out = readObject(t, model, tail, {}, fields)
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e
    return { ok: false, score: 0, problems: [e.message] }
  }
  if (tail && t.mp.r.remaining > 0) return { ok: false, score: 0, problems: [`${t.mp.r.remaining} bytes left over`] }
  const problems = t.mp.warnings.filter((w) => w.startsWith('bool at'))
  let score = 0
  for (const fl of fields) {
    const v = out?.[fl.name]
    if (!v) continue
    const kind = parseType(fl.type)
    if (kind.k === 'enum') {
      if (v.name !== undefined) score++
      else problems.push(`${fl.name} = ${String(v.value)} is not a ${kind.e}`)
    } else if (fl.type === 'uint' && fl.name !== 'RoomId' && /Id$/.test(fl.name) && typeof v.value === 'number') {
      // Entity ids are server counters: a value with its top byte set is a misread.
      if (v.value > 0 && v.value <= 0xffffff) score++
      else problems.push(`${fl.name} = ${v.value} is implausible`)
    } else if (kind.k === 'string' && typeof v.value === 'string') score++
  }
  // A bool byte other than 0/1 disqualifies the order; other problems only make it less plausible.
  return { ok: problems.length === 0 || problems.every((p) => !p.startsWith('bool at')), score: score - problems.length, problems }
}

/** Picks the field order that validates (bools 0/1, enums named, ids plausible); records which and why. */
function chooseOrder(ctx: Ctx, model: string, orders: FieldOrder[], tail: boolean): SchemaField[] {
  const r = ctx.mp.r
  const tried = orders.map((o) => ({ o, ...tryOrder(ctx, model, o.fields, tail) }))
  const valid = tried.filter((t) => t.ok)
  const best = valid.length ? Math.max(...valid.map((t) => t.score)) : -Infinity
  const top = valid.filter((t) => t.score === best)
  // Equal readings keep the first order (the schema's declaration order), whatever the direction.
  const pick = top[0] ?? tried[0]
  const names = (o: FieldOrder) => o.fields.map((fl) => fl.name).join(', ')
  const why = (): string => {
    const losers = tried.filter((t) => t !== pick).map((t) => `the ${t.o.name} reading fails: ${t.problems.join('; ') || 'less plausible'}`)
    if (!valid.length) return `no order validates (${tried.map((t) => `${t.o.name}: ${t.problems.join('; ')}`).join(' / ')}); read in the ${pick.o.name}`
    if (top.length > 1) return `every order validates equally (bools 0/1, enums named, ids plausible); read in the first, the ${pick.o.name}`
    return `only this order validates or is most plausible (bools 0/1, enums named, ids plausible); ${losers.join('; ')}`
  }
  if (!valid.length) note(ctx, `${model}: no field order of the guide validates; read in the ${pick.o.name} (${names(pick.o)})`)
  r.record(F_FIELD_ORDER, pick.o.name, r.pos, 0, () => `Field order: ${pick.o.name} (${names(pick.o)}): ${why()}`)
  return pick.o.fields
}

/**
 * NetworkedObjectBinary.Data is the MemoryPack form of a NetworkSerializable (§9.2): a plain object, or,
 * for the one type the server registers as a dynamic union (RoomSeatsData), a union header (tag 0–249, or
 * 250 and a u16 tag; 255 null) then the object. The concrete type is not on the wire, so members are
 * guessed; Data that is neither stays bytes with the reason.
 */
function decodeNetworkedData(ctx: Ctx, out: TypedFields, dataAt: number): void {
  const data = out.Data?.value
  if (!(data instanceof Uint8Array) || data.length === 0 || dataAt < 0) return
  // The reading goes to the tree only (its own context, its warnings and notes kept apart, no index
  // field): without a tree there is nothing to do, not even the dry runs that pick the form.
  if (!ctx.mp.r.tree.recording) return
  const end = dataAt + data.length
  const fits = (union: boolean): boolean => {
    try {
      readNetworkSerializable(scratch(ctx, dataAt, end), union)
      return true
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e
      return false
    }
  }
  const plain = fits(false)
  const union = !plain && fits(true)
  // Said in the tree only: Data is application bytes, so not decoding it is no fault of the message.
  const r = ctx.mp.r
  if (!plain && !union) {
    r.record(F_DATA_VALUE, null, dataAt, 0, 'Data (MemoryPack): neither one MemoryPack object nor a union of one; kept as bytes')
    return
  }
  // Its own context: guessed members here must not make the enclosing payload a weak fit.
  const t: Ctx = {
    mp: new MemoryPackReader(new FieldReader(r.bytes, r.tree, r.source, dataAt, end)),
    dir: ctx.dir,
    notes: [],
    undecoded: false,
    byteFlags: false
  }
  const node = t.mp.openNode(F_DATA_VALUE, union ? 'Data (MemoryPack union of NetworkSerializable)' : 'Data (MemoryPack object)')
  try {
    // Shown in the tree only: the typed value keeps the model's own fields (Key, Data bytes).
    const res = readNetworkSerializable(t, union)
    const n = res.value ? Object.keys(res.value).length : 0
    if (node) {
      node.label =
        `Data (MemoryPack ${union ? `union, tag ${res.tag}` : 'object'}${res.value ? `, ${n} member${n === 1 ? '' : 's'}` : ': null'})` +
        `${union ? ': only the union reading fits (the server registers a union only for RoomSeatsData, §9.2)' : ''}; the concrete NetworkSerializable type is not on the wire, so the members' types are guessed`
    }
  } finally {
    t.mp.closeNode(node)
  }
}

function readNetworkSerializable(ctx: Ctx, union: boolean): { tag: number | null; value: TypedFields | null } {
  const r = ctx.mp.r
  let tag: number | null = null
  if (union) {
    const at = r.pos
    const b = r.u8(null)
    const registered = 'RoomSeatsData is the only union the server registers (§9.2); its tag number is not documented'
    r.record(F_DATA_UNION_HEADER, b, at, 1, () =>
      b === NULL_UNION ? 'Union header: 255 (null)' : b === 250 ? 'Union header: 250 (a u16 tag follows)' : `Union header: tag ${b} (${registered})`
    )
    if (b === NULL_UNION) {
      if (r.remaining) throw new DecodeError(`Data: ${r.remaining} bytes after a null union header at offset ${at}`, at)
      return { tag: null, value: null }
    }
    if (b > 250) throw new DecodeError(`Data: reserved union header ${b} at offset ${at}`, at)
    tag = b
    if (b === 250) {
      const v = r.u16(null, true)
      tag = v
      r.record(F_DATA_UNION_TAG, v, at + 1, 2, () => `Union tag: ${v} (${registered})`)
    }
  }
  const value = readObject(ctx, null, true)
  if (r.remaining) throw new DecodeError(`Data: ${r.remaining} bytes left after the object at offset ${r.pos}`, r.pos)
  return { tag, value }
}

/** A leaf's label, made in its own function: a closure in readField would cost it a context on every call. */
function unmanagedLabel(label: string, def: FieldDef): (x: number | bigint | boolean) => string {
  return (x) => `${label}: ${formatValue(def, x as number)}`
}

// Runs for every field of every message: no closure, spread or label text that the tree-less pass drops.
// Typed values keep their key order (type, value, name, meaning): the decoded JSON shows it.
function readField(ctx: Ctx, fl: SchemaField, tail: boolean, def = schemaFieldDef(fl)): Typed {
  const { mp } = ctx
  const labels = mp.r.tree.labels
  const kind = fl.kind ?? parseType(fl.type)
  const meaning = ctx.dir === 's2c' ? fl.s2cMeaning : undefined
  const label = meaning ? `${fl.name} (${meaning})` : fl.name
  let t: Typed
  switch (kind.k) {
    case 'unmanaged':
    case 'enum': {
      const names = enumNames(fl, kind)
      const v = mp.unmanaged(kind.k === 'enum' ? 'byte' : kind.t, def, labels ? unmanagedLabel(label, def) : undefined)
      const name = typeof v === 'number' ? names?.[v] : undefined
      t = { type: fl.type, value: v }
      if (name !== undefined) t.name = name
      break
    }
    case 'string':
      t = { type: 'string', value: mp.string(def, label) }
      break
    case 'bytes':
      t = { type: 'byte[]', value: mp.bytes(def, label) }
      break
    case 'list':
      return { type: fl.type, value: readList(ctx, kind.of, def, label) }
    case 'model': {
      mp.enter(fl.name)
      try {
        const node = mp.openNode(def, labels ? `${label} (${kind.m})` : undefined)
        try {
          const value = readObject(ctx, kind.m, tail)
          if (node && labels && value === null) node.label = `${label}: null`
          return { type: kind.m, value }
        } finally {
          mp.closeNode(node)
        }
      } finally {
        mp.leave()
      }
    }
  }
  if (meaning) t.meaning = meaning
  return t
}

function readList(ctx: Ctx, of: string, def: FieldDef, label: string): Typed[] | null {
  const { mp } = ctx
  const node = mp.openNode(def, label)
  try {
    const count = mp.collectionCount(label, minSize(of))
    const { recording, labels } = mp.r.tree
    if (count === null) {
      if (node && labels) node.label = `${label}: null`
      return null
    }
    if (node && labels) node.label = `${label} (${count} element${count === 1 ? '' : 's'})`
    const out: Typed[] = []
    const kind = parseType(of)
    for (let i = 0; i < count; i++) {
      const el = recording ? mp.openNode(F_MEMORYPACK.element, labels ? `[${i}] ${of}` : undefined) : null
      try {
        if (kind.k === 'model') {
          mp.enter(of)
          try {
            out.push({ type: of, value: readObject(ctx, of, false) })
          } finally {
            mp.leave()
          }
        } else out.push(readField(ctx, f(`[${i}]`, of), false, dynamicDef(def.key, `[${i}]`, fieldType(kind))))
      } finally {
        mp.closeNode(el)
      }
    }
    return out
  } finally {
    mp.closeNode(node)
  }
}

/** configFlagNames per flags value, made once: each value gets its own copy (it goes into the typed value). */
const FLAG_NAMES = new Map<number, readonly string[]>()
function flagNames(flags: number): string[] {
  let names = FLAG_NAMES.get(flags)
  if (names === undefined) {
    names = configFlagNames(flags)
    FLAG_NAMES.set(flags, names)
  }
  return names.slice()
}

function readConfigFlags(ctx: Ctx, fl: SchemaField): Typed {
  const { mp } = ctx
  const r = mp.r
  const def = schemaFieldDef(fl)
  const width = ctx.byteFlags ? 1 : 2
  r.need(width, fl.name)
  const at = r.pos
  const node = mp.openNode(def)
  try {
    const flags = mp.unmanaged(width === 1 ? 'byte' : 'ushort', null) as number
    const names = flagNames(flags)
    if (node) {
      node.value = flags
      if (r.tree.labels)
        node.label = `${fl.name}: 0x${flags.toString(16).padStart(width * 2, '0')}${names.length ? ` (${names.join(', ')})` : ''}${width === 1 ? ' — byte-wide, before the Advanced NetworkTransform change' : ''}`
    }
    if (width === 1) {
      mp.warn(BYTE_FLAGS_WARNING)
      r.record(F_FLAG_WIDTH, 1, at, 1, `ConfigFlags width: 1 byte (${BYTE_FLAGS_WARNING})`)
    }
    recordConfigFlagBits(r, flags, at, width)
    const t: Typed = { type: width === 1 ? 'byte' : 'ushort', value: flags, flags: names }
    if (width === 1) t.width = width
    return t
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
export function decodeMemoryPackModel(r: FieldReader, model: string | null, dir: Dir, opts: DecodeOptions = {}): ModelDecode {
  const mp = new MemoryPackReader(r)
  const ctx: Ctx = { mp, dir, notes: [], undecoded: false, byteFlags: !!opts.byteFlags }
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
export function memoryPackFits(r: FieldReader, model: string | null, dir: Dir, opts: DecodeOptions = {}): ModelDecode & { tree: TreeBuilder } {
  const tree = new TreeBuilder(false)
  const trial = new FieldReader(r.bytes, tree, r.source, r.pos, r.end)
  const res = decodeMemoryPackModel(trial, model, dir, opts) as ModelDecode & { tree: TreeBuilder }
  res.tree = tree
  return res
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
    if (!isArray && !isMap)
      throw new DecodeError(`MessagePack: a model is an array or map, the first byte is 0x${first.toString(16)} at offset ${start}`, start)
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
