// The fields of the frame and its network layers, under Wireshark's keys (frame, eth, vlan, sll, null, ip,
// ipv6, udp, tcp), so a filter or column written for Wireshark means the same here. The link, IP and
// transport parsers record them (net/link.ts, ip.ts, tcp.ts) when a tree is built with layers (net/layers.ts).
// Some keys (frame.number, ip.src, udp.srcport…) are also meta fields every message has without a tree
// (engine/meta-fields.ts declares them from here): one key, one declaration, one meaning.

import { defineField, defineFields } from '../bytes/fields'

const ETHERTYPES: Record<number, string> = { 0x0800: 'IPv4', 0x86dd: 'IPv6', 0x0806: 'ARP', 0x8100: '802.1Q Virtual LAN', 0x88a8: '802.1ad', 0x9100: 'QinQ' }
const IP_PROTOCOLS: Record<number, string> = {
  1: 'ICMP',
  6: 'TCP',
  17: 'UDP',
  58: 'ICMPv6',
  0: 'Hop-by-hop',
  43: 'Routing',
  44: 'Fragment',
  60: 'Destination options'
}

export const F_FRAME = {
  frame: defineField('frame', 'Frame', 'none'),
  ...defineFields('frame', {
    number: ['Frame number', 'u32'],
    time_epoch: ['Frame time (epoch seconds)', 'f64'],
    time: ['Arrival time', 'string'],
    len: ['Frame length on the wire', 'u32'],
    cap_len: ['Captured length', 'u32'],
    interface_id: ['Interface id', 'u32'],
    interface_name: ['Interface name', 'string'],
    comment: ['Comment', 'string'],
    bytes_missing: ['Frame no longer held', 'string']
  })
}

export const F_ETH = {
  eth: defineField('eth', 'Ethernet II', 'none'),
  ...defineFields('eth', {
    dst: ['Destination', 'bytes'],
    src: ['Source', 'bytes'],
    type: ['Type', 'u16', { names: ETHERTYPES }]
  })
}

export const F_VLAN = {
  vlan: defineField('vlan', '802.1Q Virtual LAN', 'none'),
  ...defineFields('vlan', {
    priority: ['Priority', 'u8'],
    dei: ['DEI', 'bool'],
    id: ['ID', 'u16'],
    etype: ['Type', 'u16', { names: ETHERTYPES }]
  })
}

export const F_SLL = {
  sll: defineField('sll', 'Linux cooked capture', 'none'),
  ...defineFields('sll', {
    pkttype: ['Packet type', 'u16', { names: { 0: 'Unicast to us', 1: 'Broadcast', 2: 'Multicast', 3: 'Unicast to another host', 4: 'Sent by us' } }],
    hatype: ['Link-layer address type', 'u16', { names: { 1: 'Ethernet', 772: 'Loopback' } }],
    halen: ['Link-layer address length', 'u16'],
    'src.eth': ['Source', 'bytes'],
    unused: ['Unused', 'bytes'],
    etype: ['Protocol', 'u16', { names: ETHERTYPES }],
    ifindex: ['Interface index', 'u32']
  })
}

export const F_NULL = {
  null: defineField('null', 'Null/Loopback', 'none'),
  family: defineField('null.family', 'Family', 'u32', { names: { 2: 'IP', 10: 'IPv6 (Linux)', 24: 'IPv6 (BSD)', 28: 'IPv6 (FreeBSD)', 30: 'IPv6 (Darwin)' } })
}

export const F_IP = {
  ip: defineField('ip', 'Internet Protocol Version 4', 'none'),
  ...defineFields('ip', {
    version: ['Version', 'u8'],
    hdr_len: ['Header length', 'u8'],
    dsfield: ['Differentiated services field', 'u8'],
    'dsfield.dscp': ['DSCP', 'u8'],
    'dsfield.ecn': ['ECN', 'u8'],
    len: ['Total length', 'u16'],
    id: ['Identification', 'u16'],
    flags: ['Flags', 'u8'],
    'flags.rb': ['Reserved bit', 'bool'],
    'flags.df': ["Don't fragment", 'bool'],
    'flags.mf': ['More fragments', 'bool'],
    frag_offset: ['Fragment offset (8-byte units)', 'u16'],
    ttl: ['Time to live', 'u8'],
    proto: ['Protocol', 'u8', { names: IP_PROTOCOLS }],
    checksum: ['Header checksum', 'u16'],
    src: ['IPv4 source', 'ipv4'],
    dst: ['IPv4 destination', 'ipv4']
  })
}

export const F_IPV6 = {
  ipv6: defineField('ipv6', 'Internet Protocol Version 6', 'none'),
  ...defineFields('ipv6', {
    version: ['Version', 'u8'],
    tclass: ['Traffic class', 'u8'],
    flow: ['Flow label', 'u32'],
    plen: ['Payload length', 'u16'],
    nxt: ['Next header', 'u8', { names: IP_PROTOCOLS }],
    hlim: ['Hop limit', 'u8'],
    src: ['IPv6 source', 'ipv6'],
    dst: ['IPv6 destination', 'ipv6'],
    fraghdr: ['Fragment header', 'none'],
    'fraghdr.nxt': ['Next header', 'u8', { names: IP_PROTOCOLS }],
    'fraghdr.offset': ['Offset (8-byte units)', 'u16'],
    'fraghdr.more': ['More fragments', 'bool'],
    'fraghdr.ident': ['Identification', 'u32'],
    ext: ['Extension header', 'u8', { names: IP_PROTOCOLS }]
  })
}

export const F_UDP = {
  udp: defineField('udp', 'User Datagram Protocol', 'none'),
  ...defineFields('udp', {
    srcport: ['UDP source port', 'u16'],
    dstport: ['UDP destination port', 'u16'],
    length: ['Length', 'u16'],
    checksum: ['Checksum', 'u16']
  })
}

export const F_TCP = {
  tcp: defineField('tcp', 'Transmission Control Protocol', 'none'),
  ...defineFields('tcp', {
    srcport: ['TCP source port', 'u16'],
    dstport: ['TCP destination port', 'u16'],
    seq: ['Sequence number (relative)', 'u32'],
    seq_raw: ['Sequence number (raw)', 'u32'],
    ack: ['Acknowledgment number (relative)', 'u32'],
    ack_raw: ['Acknowledgment number (raw)', 'u32'],
    hdr_len: ['Header length', 'u8'],
    flags: ['Flags', 'u16'],
    'flags.urg': ['Urgent', 'bool'],
    'flags.ack': ['Acknowledgment', 'bool'],
    'flags.push': ['Push', 'bool'],
    'flags.reset': ['Reset', 'bool'],
    'flags.syn': ['Syn', 'bool'],
    'flags.fin': ['Fin', 'bool'],
    window_size_value: ['Window', 'u16'],
    checksum: ['Checksum', 'u16'],
    urgent_pointer: ['Urgent pointer', 'u16'],
    options: ['Options', 'bytes'],
    len: ['Segment length', 'u32']
  })
}

/** The first part of every key above: a filter or column on one of them may read the frames' layers. */
export const LAYER_FAMILIES: ReadonlySet<string> = new Set(['frame', 'eth', 'vlan', 'sll', 'null', 'ip', 'ipv6', 'udp', 'tcp'])
/** Bare layer names a message's stack does not give (its frame groups have them). */
const LINK_LAYERS: ReadonlySet<string> = new Set(['eth', 'vlan', 'sll', 'null'])

/** True when the frame groups of a message's tree with layers can hold `key` (meta fields such as ip.src too). */
export function inFrameGroups(key: string): boolean {
  const dot = key.indexOf('.')
  return dot < 0 ? LAYER_FAMILIES.has(key) || LINK_LAYERS.has(key) : LAYER_FAMILIES.has(key.slice(0, dot))
}

/** `aa:bb:cc:dd:ee:ff`, as Wireshark shows hardware addresses. */
export function macText(b: Uint8Array): string {
  let s = ''
  for (let i = 0; i < b.length; i++) s += (i ? ':' : '') + (b[i] < 16 ? '0' : '') + b[i].toString(16)
  return s
}
