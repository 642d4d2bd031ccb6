// Filter fields of the FigNet payload layer: the payload node, the core BitBuffer models, and the
// structure of the three codecs (BitBuffer, MemoryPack, MessagePack). The Entangle model fields
// (`entangle.<field>`) are declared from the schema table in models.ts, the TransformLite unpacking in
// transform-lite.ts.

import { defineField, defineFields, runtimeFieldDef } from '../../bytes/fields'
import { PEER_TYPE } from './names'

export const F_PAYLOAD_ROOT = defineField('fignet.payload', 'Payload', 'none', {
  description: 'The message payload after the FigNet envelope (BitBuffer, MemoryPack or MessagePack)'
})

export const F_PAYLOAD = defineFields('fignet.payload', {
  codec: ['Payload codec', 'string', { description: 'BitBuffer, MemoryPack, MessagePack or raw', index: true }],
  model: ['Payload model', 'string', { index: true }],
  raw: ['Raw payload', 'bytes', { description: 'Payload bytes no codec could decode' }],
  undecoded: ['Undecoded bytes', 'bytes', { description: 'Bytes after the point where decoding stopped' }],
  leftover: ['Leftover bytes', 'bytes', { description: 'Bytes after a complete model' }]
})

export const F_CORE = defineFields('fignet', {
  peer_type: ['peerType', 'u8', { names: { ...PEER_TYPE } }],
  secret_key: ['SecretKey', 'string', { description: 'RegisterIdentity app secret (clear text on the wire); "invalid" in a failure reply' }],
  app_name: ['AppName', 'string', { description: 'RegisterIdentity app name; the error text in a failure reply' }]
})

export const F_BITBUFFER = defineFields('fignet.bitbuffer', {
  length: ['String length', 'u8', { description: '8-bit length of a BitBuffer ASCII string' }],
  chars: ['Characters', 'string', { description: '7 bits per ASCII character' }],
  varint_group: ['Varint group', 'u8'],
  sentinel: ['Sentinel bit', 'u32', { description: 'Stream bit index of the 1-bit NetStack appends before the zero padding' }],
  unread: ['Unread bits', 'u32', { description: 'Data bits between the last field and the sentinel' }]
})

export const F_MEMORYPACK = defineFields('fignet.memorypack', {
  header: ['Member count', 'u8', { names: { 255: 'null' }, description: 'Object header: 0–249 members, 255 null, 250–254 reserved' }],
  length: ['Length', 'i32', { description: 'String/collection length prefix: -1 null, ≤ -2 ~UTF-8 byte count, ≥ 0 UTF-16 length or element count' }],
  utf16_length: ['UTF-16 length', 'i32', { description: 'Second prefix of a UTF-8 string (-1 = not given)' }],
  chars: ['Characters', 'string'],
  data: ['Data', 'bytes'],
  element: ['Element', 'none'],
  has_value: ['Has value', 'bool', { description: 'Nullable<T> of an unmanaged T: the hasValue byte' }],
  padding: ['Padding', 'bytes'],
  member: ['Member', 'none', { description: 'A member of a model decoded without its schema (type guessed)' }],
  member_lengths: ['Member lengths', 'none', { description: 'Version-tolerant header: one varint byte length per member' }],
  varint: ['Varint', 'i64'],
  undecoded: ['Undecoded members', 'bytes', { description: 'Members that could not be told apart without the schema' }]
})

export const F_MSGPACK = defineFields('fignet.msgpack', {
  item: ['Value', 'none'],
  format: ['Format', 'u8', { description: 'MessagePack format byte' }],
  length: ['Length', 'u32', { description: 'Byte length, element or entry count' }],
  ext_type: ['Extension type', 'i8'],
  value: ['Value', 'none'],
  key: ['Map key', 'none']
})

/** A definition for a field made from the traffic at run time (same key, type of the read), not registered. */
export const dynamicDef = runtimeFieldDef
