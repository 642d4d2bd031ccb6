// Filter fields of the ENet transport (vanilla ENet 1.3 and ENet-CSharp): protocol header, checksum,
// command headers and every command's body. Layouts: docs/fignet.md

import { defineField, defineFields } from '../../bytes/fields'

/** ENet protocol command numbers (low nibble of the command byte). */
export const CMD = {
  ACKNOWLEDGE: 1,
  CONNECT: 2,
  VERIFY_CONNECT: 3,
  DISCONNECT: 4,
  PING: 5,
  SEND_RELIABLE: 6,
  SEND_UNRELIABLE: 7,
  SEND_FRAGMENT: 8,
  SEND_UNSEQUENCED: 9,
  BANDWIDTH_LIMIT: 10,
  THROTTLE_CONFIGURE: 11,
  SEND_UNRELIABLE_FRAGMENT: 12
} as const

export const COMMAND_NAMES: Readonly<Record<number, string>> = {
  1: 'ACKNOWLEDGE',
  2: 'CONNECT',
  3: 'VERIFY_CONNECT',
  4: 'DISCONNECT',
  5: 'PING',
  6: 'SEND_RELIABLE',
  7: 'SEND_UNRELIABLE',
  8: 'SEND_FRAGMENT',
  9: 'SEND_UNSEQUENCED',
  10: 'BANDWIDTH_LIMIT',
  11: 'THROTTLE_CONFIGURE',
  12: 'SEND_UNRELIABLE_FRAGMENT'
}

export const CHECKSUM_STATUS = { BAD: 0, GOOD: 1, NOT_VERIFIED: 2 } as const
const CHECKSUM_STATUS_NAMES = { 0: 'bad', 1: 'good', 2: 'present, not verified (connectID not seen)' }

export const F_HEADER = defineField('enet.header', 'ENet header', 'none')
export const F_CMD = defineField('enet.cmd', 'ENet command', 'none')

export const F = defineFields('enet', {
  peer_id: ['Peer id', 'u16', { names: { 0xfff: 'none (connecting)' }, description: 'Bits 0-11 of the first header word; 0xFFF in CONNECT' }],
  session_id: ['Session id', 'u8', { description: 'Bits 12-13 of the first header word' }],
  sent_time_flag: ['SENT_TIME flag', 'bool', { description: 'Bit 15 in vanilla ENet, bit 14 in ENet-CSharp: a sent time follows' }],
  compressed: ['COMPRESSED flag', 'bool', { description: 'Vanilla ENet bit 14: the commands are compressed' }],
  sent_time: ['Sent time', 'u16', { description: "Low 16 bits of the sender's millisecond clock" }],
  crc32: ['Checksum (CRC-32)', 'u32', { description: "Vanilla ENet's enet_crc32 over the datagram with this field preset to the connectID" }],
  crc64: ['Checksum (CRC-64)', 'u64', { description: "ENet-CSharp's enet_crc64 over the datagram with this field preset to the connectID" }],
  checksum_status: ['Checksum status', 'u8', { names: CHECKSUM_STATUS_NAMES }],
  variant: ['ENet variant', 'string', { description: 'vanilla ENet 1.3 or ENet-CSharp, and why' }],
  compressed_data: ['Compressed commands', 'bytes'],
  channel: ['Channel', 'u8', { names: { 0xff: 'control' }, index: true }],
  reliable_seq: ['Reliable sequence', 'u16'],
  unreliable_seq: ['Unreliable sequence', 'u16'],
  unsequenced_group: ['Unsequenced group', 'u16'],
  data_length: ['Data length', 'u16'],
  data: ['Data', 'bytes'],
  ack_frame: ['Acknowledged frame', 'u32', { description: 'Frame of the reliable command this ACK acknowledges' }],
  reassembled: ['Reassembled payload', 'bytes', { description: 'A payload rebuilt from SEND_FRAGMENT / SEND_UNRELIABLE_FRAGMENT commands' }],
  trailing: ['Trailing bytes', 'bytes', { description: 'Bytes after the last command that could be read' }]
})

export const F_CMD_FIELDS = defineFields('enet.cmd', {
  number: ['Command', 'u8', { names: { ...COMMAND_NAMES }, description: 'Low nibble of the command byte', index: true }],
  ack_flag: ['ACKNOWLEDGE flag', 'bool', { description: 'Bit 7: reliable, the receiver acknowledges it' }],
  unsequenced_flag: ['UNSEQUENCED flag', 'bool', { description: 'Bit 6' }]
})

export const F_ACK = defineFields('enet.ack', {
  seq: ['Acknowledged sequence', 'u16'],
  sent_time: ['Acknowledged sent time', 'u16', { description: 'The sent time of the datagram that carried the acknowledged command' }]
})

/** CONNECT and VERIFY_CONNECT share these (VERIFY_CONNECT has no `data`). */
export const F_CONNECT = defineFields('enet.connect', {
  outgoing_peer_id: ['Outgoing peer id', 'u16'],
  incoming_session_id: ['Incoming session id', 'u8'],
  outgoing_session_id: ['Outgoing session id', 'u8'],
  mtu: ['MTU', 'u32'],
  window_size: ['Window size', 'u32'],
  channel_count: ['Channel count', 'u32'],
  incoming_bandwidth: ['Incoming bandwidth', 'u32'],
  outgoing_bandwidth: ['Outgoing bandwidth', 'u32'],
  throttle_interval: ['Packet throttle interval', 'u32'],
  throttle_acceleration: ['Packet throttle acceleration', 'u32'],
  throttle_deceleration: ['Packet throttle deceleration', 'u32'],
  connect_id: ['Connect id', 'u32', { description: 'Random session id; also the checksum preset' }],
  data: ['Connect data', 'u32']
})

export const F_DISCONNECT = defineFields('enet.disconnect', {
  data: ['Disconnect data', 'u32']
})

export const F_FRAG = defineFields('enet.frag', {
  start_seq: ['Fragment start sequence', 'u16'],
  count: ['Fragment count', 'u32'],
  number: ['Fragment number', 'u32'],
  total_length: ['Total length', 'u32'],
  offset: ['Fragment offset', 'u32']
})

export const F_BANDWIDTH = defineFields('enet.bandwidth', {
  incoming: ['Incoming bandwidth', 'u32'],
  outgoing: ['Outgoing bandwidth', 'u32']
})

export const F_THROTTLE = defineFields('enet.throttle', {
  interval: ['Packet throttle interval', 'u32'],
  acceleration: ['Packet throttle acceleration', 'u32'],
  deceleration: ['Packet throttle deceleration', 'u32']
})
