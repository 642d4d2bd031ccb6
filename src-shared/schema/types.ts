// Schema packs (docs/schema-packs.md): a JSON file, `"format": "gamewire-schema/1"`, that names a game's
// own codes and describes its payloads. The JSON Schema of the format is docs/schema-pack.schema.json;
// validate.ts checks a pack against the same rules by hand and says where and why it refuses one.

import { TYPE_NAMES, type SfsTypeName } from '../protocols/sfs2x/sfsobject'

export const SCHEMA_FORMAT = 'gamewire-schema/1'

/** Fixed-size values of a declared struct layout (Photon custom types, byte[] struct payloads). */
export const STRUCT_SCALARS = ['u8', 'i8', 'u16', 'i16', 'u32', 'i32', 'u64', 'i64', 'f32', 'f64', 'bool'] as const
export type StructScalar = (typeof STRUCT_SCALARS)[number]

/** One field of a struct layout: a scalar, or `bytes` of a fixed `length` (without it: the rest). */
export interface StructField {
  name: string
  type: StructScalar | 'bytes'
  length?: number
}

export interface StructLayout {
  /** Byte order of the multi-byte fields (default big, as Photon's Protocol.Serialize writes). */
  endian?: 'big' | 'little'
  fields: StructField[]
}

export const NESTED_FORMATS = ['protocol16', 'protocol18', 'messagepack', 'struct'] as const
export type NestedFormat = (typeof NESTED_FORMATS)[number]

/** A byte[] parameter holding a serialised value. */
export interface NestedSpec extends Partial<StructLayout> {
  format: NestedFormat
}

export interface PhotonParamSpec {
  name: string
  nested?: NestedSpec
}

/** Parameter names by code ("1": "itemId"), or with a nested payload. */
export type PhotonParams = Record<string, string | PhotonParamSpec>

export interface PhotonMessageSpec {
  /** The code: the wire code, or with codeParameter the value of that parameter. */
  code: number
  name: string
  /** The parameter that carries the real code (Albion Online: 253 in operation 1). */
  codeParameter?: number
  /** With codeParameter: only messages of this wire code (default: any). */
  wireCode?: number
  parameters?: PhotonParams
}

export interface PhotonCustomTypeSpec extends StructLayout {
  code: number
  name: string
}

export interface PhotonSchema {
  /** Names for every operation and event (an entry's own names win). */
  parameters?: PhotonParams
  operations?: PhotonMessageSpec[]
  events?: PhotonMessageSpec[]
  customTypes?: PhotonCustomTypeSpec[]
}

/** The SFSDataType names a pack may give a param (the decoder's own table, docs/sfs2x.md). */
export const SFS_TYPES = TYPE_NAMES
export type SfsType = SfsTypeName

export interface SfsExtensionSpec {
  /** The extension command (`p.c` of the envelope). */
  command: string
  name?: string
  /** Param key -> SFSDataType, client to server and server to client. */
  request?: Record<string, SfsType>
  response?: Record<string, SfsType>
}

export interface Sfs2xSchema {
  extensions?: SfsExtensionSpec[]
}

export const MEMORYPACK_TYPES = [
  'byte',
  'sbyte',
  'bool',
  'short',
  'ushort',
  'char',
  'int',
  'uint',
  'float',
  'long',
  'ulong',
  'double',
  'string',
  'byte[]'
] as const
export const BITBUFFER_TYPES = ['byte', 'bool', 'short', 'ushort', 'int', 'uint', 'long', 'ulong', 'string'] as const
export type FigNetFieldType = (typeof MEMORYPACK_TYPES)[number]

export interface FigNetMessageSpec {
  id: number
  name: string
  codec: 'MemoryPack' | 'BitBuffer'
  fields?: { name: string; type: FigNetFieldType }[]
}

export interface FigNetSchema {
  messages?: FigNetMessageSpec[]
}

export interface SchemaPack {
  format: typeof SCHEMA_FORMAT
  name: string
  description?: string
  /** Where the facts come from (URLs). */
  sources?: string[]
  /** Conversations it applies to: either side on one of these ports or hosts. Absent: all. */
  appliesTo?: { ports?: number[]; hosts?: string[] }
  photon?: PhotonSchema
  sfs2x?: Sfs2xSchema
  fignet?: FigNetSchema
}
