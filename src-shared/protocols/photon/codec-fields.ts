// Filter fields of the Photon message bodies and GpBinary values. Parameters are `photon.param.<code>`
// and their nested entries `photon.param.<code>.<key>` (keys come from the traffic: made on the fly by
// valueDef, not registered).

import { EVENTS, INTERNAL_OPERATIONS, OPERATIONS } from './names'
import { defineDynamicFields, defineField, defineFields, presenceKey, runtimeFieldDef, type FieldDef, type FieldType } from '../../bytes/fields'

export const F_PARAM = defineField('photon.param', 'Parameter', 'none', {
  description: 'Parameters are photon.param.<code> (e.g. photon.param.254); Hashtable/Dictionary entries add .<key>'
})

export const F_BODY = defineFields('photon', {
  param_count: ['Parameter count', 'i16', { description: 'int16 in Protocol16, one byte in Protocol18' }],
  return_code: ['Return code', 'i16', { description: 'OperationResponse return code (0 = ok)', index: true }],
  debug_message: ['Debug message', 'none', { description: 'OperationResponse debug message: any typed value (usually null or a string)' }],
  disconnect_code: ['Disconnect code', 'i16', { description: 'DisconnectMessage (msgType 5) code' }],
  message: ['Message object', 'none', { description: 'The serialized object of a Message (msgType 8)' }],
  key: ['Parameter code', 'u8', { index: true }]
})

// Named values for filters and autocomplete (`photon.op.code == RaiseEvent`); the tree labels name codes
// per message type (codeLeaf), since internal operations reuse codes 0 and 1.
export const F_OP = defineFields('photon.op', { code: ['Operation code', 'u8', { index: true, names: { ...INTERNAL_OPERATIONS, ...OPERATIONS } }] })
export const F_EV = defineFields('photon.ev', { code: ['Event code', 'u8', { index: true, names: { ...EVENTS } }] })

export const F_VALUE = defineFields('photon.value', {
  type: ['Type code', 'u8', { description: 'GpBinary type byte (Protocol16 letters, Protocol18 codes)' }],
  length: ['Length', 'u32', { description: 'Byte length of a string, byte[] or custom payload' }],
  count: ['Count', 'u32', { description: 'Element or entry count of a container' }],
  key_type: ['Key type', 'u8', { description: '0 = every key carries its own type byte' }],
  value_type: ['Value type', 'u8', { description: '0 = every value carries its own type byte' }],
  element_type: ['Element type', 'u8'],
  custom_code: ['Custom type code', 'u8'],
  code: ['Code', 'u8', { description: 'Code of a nested EventData/OperationRequest/OperationResponse' }],
  return_code: ['Return code', 'i16', { description: 'Of a nested OperationResponse' }],
  debug_message: ['Debug message', 'none', { description: 'Of a nested OperationResponse' }],
  entry_key: ['Key', 'none', { description: 'The key of a Hashtable/Dictionary entry' }]
})

/** The node of a value read on its own (readTypedValue). */
export const F_VALUE_ROOT = defineField('photon.value', 'Value', 'none')

// Keys made from the traffic: parameters by code and, under any value, Hashtable/Dictionary entries by
// key (`<parent>.<key>`) and nested parameter tables by code (`<parent>.<code>`). The index keeps which
// parameters a message has and their short scalar values (GpWalker.indexParam in gpbinary.ts), so filters on them
// are answered without decoding again.
defineDynamicFields('photon.param', 'Parameter by code', { segment: /^[0-9]+$/, indexFirstLevel: true })
defineDynamicFields('photon.value', 'Entry of a value read on its own')
defineDynamicFields('photon.message', 'Entry of a Message object')
defineDynamicFields('photon.debug_message', 'Entry of a debug message')

/** Field definition for a dynamic key (`photon.param.254.x`), not registered. */
export const valueDef = (key: string, type: FieldType): FieldDef => runtimeFieldDef(key, key, type)

/** `photon.param.<code>` for every byte code, made once. */
export const PARAM_KEYS: readonly string[] = Array.from({ length: 256 }, (_, i) => `photon.param.${i}`)
/** Where the tree-less pass keeps that a message has parameter <code> with values only its tree holds (presenceKey of PARAM_KEYS). */
export const PARAM_PRESENCE_KEYS: readonly string[] = PARAM_KEYS.map(presenceKey)
