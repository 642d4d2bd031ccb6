// The SFS2X filter fields. Body entries are `sfs2x.p.<path>` (declared on the fly by the codec, not here:
// their keys come from the traffic).

import { defineDynamicFields, defineField, defineFields, type FieldDef, type FieldType } from '../../bytes/fields'
import { ACTION_NAMES, CONTROLLER_NAMES } from './names'

export const F_ROOT = defineField('sfs2x', 'SmartFoxServer 2X', 'none')

export const F = defineFields('sfs2x', {
  header: ['Header', 'flags', { description: 'The packet header byte' }],
  shard: ['Shard id', 'u16', { description: 'Source shard id after the header byte when the forward bit (0x04) is set (Last War variant)' }],
  length: ['Length', 'u32', { description: 'Body length on the wire (2 bytes, or 4 when bigSized)' }],
  body: ['Body', 'bytes', { description: 'The body as on the wire' }],
  object: ['Decoded body', 'none', { description: 'The body SFSObject (or SFSArray); its entries are sfs2x.p.<path>' }],
  trailing: ['Trailing bytes', 'bytes'],
  skipped: ['Skipped bytes', 'bytes', { description: 'Bytes between packets that do not form a packet (framing lost)' }],
  controller: ['Controller', 'u8', { names: { ...CONTROLLER_NAMES }, index: true }],
  action: ['Action', 'i16', { names: { ...ACTION_NAMES }, index: true }],
  cmd: ['Extension command', 'string', { index: true }],
  room: ['Room id', 'i32', { index: true }],
  req_id: ['Request id (_id)', 'i32', { description: 'The "_id" the Last War client injects into extension params' }],
  response_to: ['Response to frame', 'u32', { description: 'Last frame of the request this response answers' }],
  api: ['API version', 'string'],
  client_type: ['Client type', 'string'],
  token: ['Session token', 'string'],
  compression_threshold: ['Compression threshold', 'i32'],
  max_message_size: ['Max message size', 'i32'],
  zone: ['Zone', 'string', { index: true }],
  user: ['User name', 'string', { index: true }],
  password: ['Password hash', 'string', { description: 'Lowercase hex MD5(session token + password), or empty' }],
  error_code: ['Error code', 'i16', { index: true }],
  // transforms
  xor_key: ['XOR key', 'u32', { description: 'Last War: the little-endian bytes of the on-wire length, repeated' }],
  xor_decoded: ['XOR-decoded body', 'bytes'],
  decrypted: ['Decrypted body', 'bytes', { description: 'The body after AES-128-CBC with the SFS2X_AES key (padding removed)' }],
  aes_padding: ['PKCS#7 padding', 'u8'],
  zlib_header: ['zlib header', 'u16'],
  zlib_adler32: ['zlib Adler-32', 'u32'],
  uncompressed_length: ['Uncompressed length', 'u32'],
  zstd_declared_size: ['Declared decompressed size', 'u32', { description: '4-byte size some servers put before the Zstandard frame' }],
  zstd_magic: ['Zstandard magic', 'u32']
})

export const F_HEADER_BITS = defineFields('sfs2x.header', {
  binary: ['Binary', 'bool'],
  encrypted: ['Encrypted', 'bool'],
  compressed: ['Compressed', 'bool'],
  bluebox: ['BlueBoxed (Zstandard in Last War)', 'bool'],
  bigsized: ['BigSized (4-byte length)', 'bool'],
  forward: ['Forward (shard id follows)', 'bool'],
  reserved: ['Reserved bits', 'u8']
})

/** Body entries `sfs2x.p.<name>.<name>…`: the names come from the traffic. */
defineDynamicFields('sfs2x.p', 'SFSObject entry')
/**
 * The parameters of a request or response (the envelope's `p`: `sfs2x.p.p.<name>`) and of an extension
 * call (its `p.p`: `sfs2x.p.p.p.<name>`): the index keeps their short scalar values and which a message has
 * (indexParams in packet.ts), so filters on them are answered without decoding again. Longest first.
 */
export const PARAM_FAMILIES = ['sfs2x.p.p.p', 'sfs2x.p.p'] as const
defineDynamicFields('sfs2x.p.p', 'Request or response parameter', { indexFirstLevel: true })
defineDynamicFields('sfs2x.p.p.p', 'Extension parameter', { indexFirstLevel: true })

/** A field definition for a body entry `sfs2x.p.<path>`, not registered (keys come from the traffic). */
const pathDefs = new Map<string, FieldDef>()
export function pathDef(key: string, type: FieldType): FieldDef {
  const id = `${key}\u0000${type}`
  let def = pathDefs.get(id)
  if (!def) {
    def = { key, name: key, type }
    // Bounded: keys come from the traffic, so the cache must not grow without limit.
    if (pathDefs.size > 20_000) pathDefs.clear()
    pathDefs.set(id, def)
  }
  return def
}
