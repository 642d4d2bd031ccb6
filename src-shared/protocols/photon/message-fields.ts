// Filter fields of Photon's message layer (signal, message type, Init, encryption) and of its TCP framing.
// The UDP transport's fields are in udp-fields.ts, the GpBinary codec's in codec-fields.ts.

import { defineField, defineFields } from '../../bytes/fields'
import { MESSAGE_TYPES } from './names'

export const F_ROOT = defineField('photon', 'Photon', 'none')
export const F_MSG_GROUP = defineField('photon.msg', 'Photon message', 'none')

export const F_MSG = defineFields('photon.msg', {
  signal: ['Signal byte', 'u8', { names: { 0xf3: 'message', 0xfd: 'message (alternative signal)', 0xf5: 'InitV3' } }],
  type: ['Message type', 'u8', { names: { ...MESSAGE_TYPES }, index: true }],
  type_byte: ['Message type byte', 'u8', { description: 'The type with bit 7 = encrypted' }],
  version: [
    'Protocol version',
    'u8',
    { names: { 16: 'GpBinary 1.6 (Protocol16)', 18: 'GpBinary 1.8 (Protocol18)' }, description: 'From the conversation Init, or guessed by trial parse' }
  ],
  body: ['Message body', 'bytes'],
  raw: ['Raw message', 'bytes']
})

export const F_ENC = defineFields('photon', {
  encrypted: ['Encrypted', 'bool', { description: 'The message type has bit 7 set (payload encryption)', index: true }],
  ciphertext: ['Ciphertext', 'bytes'],
  decrypted: ['Decrypted body', 'bytes', { description: 'AES-256-CBC, zero IV, PKCS#7; key = SHA-256 of the DH shared secret' }],
  aes_padding: ['PKCS#7 padding', 'u8'],
  dh_public_key: ['DH public key', 'bytes', { description: 'InitEncryption (internal operation 0) parameter 1: Oakley 768-bit group, generator 22' }]
})

export const F_INIT = defineFields('photon.init', {
  protocol_major: ['Protocol major', 'u8'],
  protocol_minor: ['Protocol minor', 'u8'],
  client_sdk: ['Client SDK id', 'u8', { description: 'The byte is (sdk id << 1) | flag' }],
  lib_version: ['Library version', 'u8', { description: '(major << 4) | minor; bit 7 = IPv6' }],
  lib_build: ['Library build', 'u8'],
  lib_revision: ['Library revision', 'u8'],
  reserved: ['Reserved', 'u8'],
  app_id: ['Application id', 'string', { index: true }],
  body: ['InitResponse body', 'bytes'],
  // InitV3 (signal 0xF5) and the HTTP-style init (docs/photon.md, "Init").
  flags: ['InitV3 flags', 'u16', { names: { 0: 'none' }, description: '1 encryption, 2 IPv6, 4 release SDK' }],
  protocol: ['Protocol', 'u8', { names: { 16: 'GpBinary 1.6', 18: 'GpBinary 1.8' } }],
  library: ['Library version', 'string', { description: 'major.minor.build.revision' }],
  app_id_length: ['Application id length', 'u8'],
  token_length: ['Token length', 'u16'],
  token: ['Token', 'bytes'],
  data: ['Init data', 'none', { description: 'InitV3: a serialized Dictionary (key 0 = custom init data)' }],
  http_request: ['HTTP init request', 'string', { description: 'POST /?init=&app=…&clientversion=…&protocol=…&sid=… HTTP/1.1 and its headers' }],
  http_token: ['Token', 'none', { description: 'HTTP-style init: the serialized PhotonToken after the headers' }]
})

export const F_LINK = defineFields('photon', {
  response_to: ['Response to frame', 'u32', { description: 'Frame of the request this OperationResponse answers' }],
  ack_frame: ['Acknowledged frame', 'u32', { description: 'Frame of the reliable command this ACK acknowledges' }],
  reassembled: ['Reassembled message', 'bytes', { description: 'A message rebuilt from SEND_FRAGMENT commands' }],
  server_time: ['Server time', 'u32', { description: "The ACK of the client's SERVERTIME command: the server clock is this datagram's sent time" }]
})

export const F_TCP = defineFields('photon.tcp', {
  signal: ['TCP frame type', 'u8', { names: { 0xfb: 'message', 0xf0: 'ping', 0xf1: 'proxy/router' } }],
  length: ['Frame length', 'u32', { description: 'Whole frame, header included' }],
  channel: ['Channel', 'u8'],
  reliable: ['Reliable', 'u8', { names: { 0: 'unreliable', 1: 'reliable' } }],
  ping_time: ['Client time', 'u32'],
  server_time: ['Server time', 'u32', { description: "The server's millisecond clock (ping reply)" }],
  proxy: ['Proxy byte', 'u8', { description: 'Request: node id; response: 0 ok, 1 node id unknown, 2 endpoint unknown, 16 node not ready' }],
  skipped: ['Skipped bytes', 'bytes', { description: 'Bytes that do not start a TCP frame (framing lost)' }]
})
