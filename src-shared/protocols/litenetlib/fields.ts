// Filter fields of the LiteNetLib transport (0.9, 1.x, 2.x; all multi-byte values little-endian).
// See docs/fignet.md The property byte's names depend on the
// version's table, so the number has no names here and `litenetlib.property_name` carries the name.

import { defineField, defineFields } from '../../bytes/fields'

/** DeliveryMethod as LiteNetLib numbers it; on the wire channelId % 4 gives 0..3, Unreliable has no channel id. */
export const DELIVERY_NAMES: Readonly<Record<number, string>> = {
  0: 'ReliableUnordered',
  1: 'Sequenced',
  2: 'ReliableOrdered',
  3: 'ReliableSequenced',
  4: 'Unreliable'
}

export const PROTOCOL_ID_NAMES: Readonly<Record<number, string>> = { 11: 'LiteNetLib 0.9', 13: 'LiteNetLib 1.x/2.x' }

export const ADDRESS_FAMILY_NAMES: Readonly<Record<number, string>> = {
  2: 'InterNetwork (IPv4)',
  10: 'AF_INET6 (Linux)',
  23: 'InterNetworkV6 (.NET)',
  30: 'AF_INET6 (macOS)'
}

export const F_PACKET = defineField('litenetlib.packet', 'LiteNetLib packet', 'none')
export const F_MERGED = defineField('litenetlib.merged', 'Merged packet', 'none')
export const F_ADDRESS = defineField('litenetlib.address', 'Target address', 'string', {
  description: '.NET SocketAddress of the peer the request was sent to, as ip:port'
})

export const F = defineFields('litenetlib', {
  version: ['LiteNetLib version', 'string', { description: '0.9, 1.x or 2.x: picks the packet property table and the connect layouts' }],
  property: ['Packet property', 'u8', { description: 'Bits 0-4 of the first byte; its name depends on the version table' }],
  property_name: ['Packet type', 'string', { description: 'Name of the property in the table in use (Unreliable, Channeled, Ack, Ping, ...)', index: true }],
  connection_number: ['Connection number', 'u8', { description: 'Bits 5-6 of the first byte (0..3)' }],
  fragmented: ['Fragmented', 'bool', { description: 'Bit 7 of the first byte' }],
  sequence: ['Sequence', 'u16', { description: '0..32767' }],
  channel_id: ['Channel id', 'u8', { description: 'channel number * 4 + delivery method' }],
  channel: ['Channel', 'u8', { description: 'channel id / 4 (Unreliable packets: 0)', index: true }],
  delivery: ['Delivery method', 'u8', { names: { ...DELIVERY_NAMES }, description: 'channel id % 4; Unreliable packets: 4', index: true }],
  fragment_id: ['Fragment id', 'u16'],
  fragment_part: ['Fragment part', 'u16'],
  fragment_total: ['Fragments total', 'u16'],
  fragment_data: ['Fragment data', 'bytes'],
  payload: ['Payload', 'bytes'],
  merged_size: ['Merged item size', 'u16', { description: 'Size of the inner packet (Merged) or payload (ReliableMerged) that follows' }],
  merged_end: ['End of merged items', 'u16', { description: 'A size of 0 ends a Merged packet' }],
  ack_window_start: ['Ack window start', 'u16', { description: 'Oldest sequence of the receive window this Ack covers' }],
  ack_bitfield: ['Ack bitfield', 'bytes', { description: 'Bit (seq % window) set for every sequence received in the window' }],
  ack_window_size: ['Ack window size', 'u16'],
  ack_acked: ['Acknowledged sequences', 'string'],
  ack_sequence: ['Acknowledged sequence', 'u16', { description: 'ReliableSequenced channel: the sequence of the last packet received' }],
  ping_sequence: ['Ping sequence', 'u16'],
  pong_sequence: ['Pong sequence', 'u16'],
  pong_time: ['Pong time', 'i64', { description: 'DateTime.UtcNow.Ticks of the answering side (100 ns since 0001-01-01)' }],
  protocol_id: ['Protocol id', 'i32', { names: { ...PROTOCOL_ID_NAMES } }],
  connection_time: ['Connection time', 'i64', { description: 'DateTime.UtcNow.Ticks when the client started connecting; identifies the connection' }],
  peer_id: ['Peer id', 'i32'],
  address_size: ['Address size', 'u8', { description: '16 = IPv4, 28 = IPv6 .NET SocketAddress' }],
  address_family: ['Address family', 'u16', { names: { ...ADDRESS_FAMILY_NAMES } }],
  address_port: ['Port', 'u16'],
  address_ip: ['IP address', 'string'],
  address_flowinfo: ['IPv6 flow info', 'u32'],
  address_scope: ['IPv6 scope id', 'u32'],
  address_bytes: ['Address bytes', 'bytes'],
  key_length: ['Key length', 'u32', { description: '1.x/2.x: u16 UTF-8 length + 1 (0 = empty); 0.9: i32 UTF-8 length' }],
  key: ['Connection key', 'string', { description: 'The connect data read as a NetDataWriter string' }],
  connect_data: ['Connect data', 'bytes'],
  accept_connection_number: ['Accepted connection number', 'u8'],
  reused_peer: ['Reused peer / network changed', 'u8', { names: { 0: 'no', 1: 'yes' } }],
  disconnect_data: ['Disconnect data', 'bytes'],
  mtu: ['MTU', 'i32', { description: 'The packet size being tested' }],
  mtu_padding: ['MTU padding', 'bytes'],
  mtu_end: ['MTU (end check)', 'i32'],
  nat_data: ['NAT message', 'bytes'],
  extra: ['Extra bytes', 'bytes', { description: 'Bytes after a fixed-size packet' }]
})

/** Links to other messages, computed (no byte range of their own unless stated). */
export const F_LINK = defineFields('litenetlib', {
  acked_frame: ['Acknowledged frame', 'u32', { description: 'Frame of a Channeled packet this Ack acknowledges' }],
  rtt: ['Round trip (ms)', 'f64'],
  pong_to: ['Pong to frame', 'u32', { description: 'Frame of the Ping this Pong answers' }],
  accept_to: ['Accepts frame', 'u32', { description: 'Frame of the ConnectRequest this ConnectAccept answers' }],
  retransmission_of: ['Retransmission of frame', 'u32'],
  reassembled: ['Reassembled payload', 'bytes', { description: 'Fragment parts concatenated in part order' }]
})
