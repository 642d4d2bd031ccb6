// Filter fields of the Photon UDP transport (ENet-style, big-endian): datagram header, CRC, datagram
// encryption envelope, command headers and command bodies. See docs/photon.md

import { defineField, defineFields } from '../../bytes/fields'

/** Command types (docs/photon.md, UDP layout). 13's layout is unconfirmed: its body is shown as bytes. */
export const CMD = {
  ACK: 1,
  CONNECT: 2,
  VERIFYCONNECT: 3,
  DISCONNECT: 4,
  PING: 5,
  SEND_RELIABLE: 6,
  SEND_UNRELIABLE: 7,
  SEND_FRAGMENT: 8,
  SEND_UNSEQUENCED: 11,
  SERVERTIME: 12,
  SEND_UNRELIABLE_PROCESSED: 13,
  SEND_RELIABLE_UNSEQUENCED: 14,
  SEND_FRAGMENT_UNSEQUENCED: 15,
  ACK_UNSEQUENCED: 16
} as const

export const COMMAND_NAMES: Readonly<Record<number, string>> = {
  1: 'ACK',
  2: 'CONNECT',
  3: 'VERIFYCONNECT',
  4: 'DISCONNECT',
  5: 'PING',
  6: 'SEND_RELIABLE',
  7: 'SEND_UNRELIABLE',
  8: 'SEND_FRAGMENT',
  11: 'SEND_UNSEQUENCED',
  12: 'SERVERTIME',
  13: 'SEND_UNRELIABLE_PROCESSED',
  14: 'SEND_RELIABLE_UNSEQUENCED',
  15: 'SEND_FRAGMENT_UNSEQUENCED',
  16: 'ACK_UNSEQUENCED'
}

/** Header flags byte values (docs/photon.md, UDP layout). */
export const HEADER_FLAG_NAMES: Readonly<Record<number, string>> = {
  0x00: 'plain',
  0x01: 'datagram encrypted',
  0xcc: 'CRC present'
}

export const PEER_ID_NAMES: Readonly<Record<number, string>> = {
  [-1]: 'unassigned (before VerifyConnect)',
  [-2]: 'unassigned, server tracing'
}

export const COMMAND_FLAG_NAMES: Readonly<Record<number, string>> = {
  0: 'unreliable',
  1: 'reliable',
  2: 'unsequenced',
  3: 'reliable, unsequenced'
}

export const CHANNEL_NAMES: Readonly<Record<number, string>> = { 255: 'control' }

/** The reserved byte of a DISCONNECT command (docs/photon.md, UDP layout); anything else is "reason unknown" in the SDK. */
export const DISCONNECT_REASON_NAMES: Readonly<Record<number, string>> = {
  1: 'server logic',
  2: 'timeout',
  3: 'user limit',
  4: 'unspecified (default reserved byte)'
}

export const CRC_STATUS_NAMES: Readonly<Record<number, string>> = { 0: 'bad', 1: 'good' }

export const F_HEADER = defineField('photon.header', 'Photon UDP header', 'none')
export const F_CMD = defineField('photon.cmd', 'Command', 'none', {
  index: true,
  description: 'A command of a UDP datagram (the index keeps which messages have one)'
})

export const F = defineFields('photon', {
  peer_id: ['Peer id', 'i16', { names: { ...PEER_ID_NAMES }, description: 'Client: -1 before VerifyConnect, then the assigned id; server: 0' }],
  flags: ['Header flags', 'u8', { names: { ...HEADER_FLAG_NAMES }, description: '0x00 plain, 0xCC CRC present, 0x01 datagram encrypted' }],
  crc: ['CRC', 'u32', { description: 'Reflected CRC-32 (poly 0xEDB88320, init 0xFFFFFFFF, no final xor) over the datagram with this field zeroed' }],
  crc_status: ['CRC status', 'u8', { names: { ...CRC_STATUS_NAMES } }],
  command_count: ['Command count', 'u8'],
  sent_time: ['Sent time', 'u32', { description: "Sender's millisecond clock" }],
  challenge: ['Challenge', 'u32', { description: 'Random value chosen by the client, echoed by the server' }],
  encrypted_datagram: ['Encrypted datagram', 'bytes', { description: 'AES-CBC blob (16-byte IV first) holding commandCount, sentTime and the commands' }],
  hmac: ['HMAC-SHA256', 'bytes', { description: 'Over everything before it' }],
  channel: ['Channel', 'u8', { names: { ...CHANNEL_NAMES }, index: true }],
  unreliable_seq: ['Unreliable sequence', 'i32'],
  unsequenced_group: ['Unsequenced group', 'i32']
})

export const F_CMD_FIELDS = defineFields('photon.cmd', {
  type: ['Command type', 'u8', { names: { ...COMMAND_NAMES }, index: true }],
  flags: ['Command flags', 'u8', { names: { ...COMMAND_FLAG_NAMES }, description: 'bit0 reliable, bit1 unsequenced' }],
  reserved: ['Reserved', 'u8', { description: 'Usually 4; the reason code in DISCONNECT' }],
  length: ['Command length', 'i32', { description: 'Including the 12-byte command header' }],
  seq: ['Reliable sequence', 'i32'],
  payload: ['Payload', 'bytes'],
  extra: ['Extra bytes', 'bytes', { description: 'Bytes inside the command length beyond its known layout' }]
})

export const F_ACK = defineFields('photon.ack', {
  seq: ['Acknowledged sequence', 'i32'],
  sent_time: ['Acknowledged sent time', 'u32']
})

export const F_FRAG = defineFields('photon.frag', {
  start_seq: ['Fragment start sequence', 'i32'],
  count: ['Fragment count', 'i32'],
  number: ['Fragment number', 'i32'],
  total_length: ['Total length', 'i32'],
  offset: ['Fragment offset', 'i32'],
  data: ['Fragment data', 'bytes']
})

export const F_CONNECT = defineFields('photon.connect', {
  reserved: ['Reserved', 'u16'],
  mtu: ['MTU', 'u16'],
  window_size: ['Window size', 'u32'],
  channel_count: ['Channel count', 'u32'],
  incoming_bandwidth: ['Incoming bandwidth', 'u32'],
  outgoing_bandwidth: ['Outgoing bandwidth', 'u32'],
  throttle_interval: ['Packet throttle interval', 'u32'],
  throttle_acceleration: ['Packet throttle acceleration', 'u32'],
  throttle_deceleration: ['Packet throttle deceleration', 'u32']
})

export const F_VERIFY = defineFields('photon.verify', {
  peer_id: ['Assigned peer id', 'i16'],
  mtu: ['MTU', 'u16', { description: 'As observed (Rec Room capture); ignored by the client' }],
  window_size: ['Window size', 'u32', { description: 'As observed; ignored by the client' }],
  channel_count: ['Channel count', 'u32', { description: 'As observed; ignored by the client' }],
  rest: ['Rest of body', 'bytes', { description: 'Ignored by the client (zeros as observed)' }]
})

export const F_DISCONNECT = defineFields('photon.disconnect', {
  reason: ['Disconnect reason', 'u8', { names: { ...DISCONNECT_REASON_NAMES } }]
})
