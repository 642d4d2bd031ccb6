// Link layers: find where the IP packet starts in a captured frame.

import { LinkType } from '../capture/types'

export type NetworkKind = 'ipv4' | 'ipv6' | 'other'

export interface LinkResult {
  network: NetworkKind
  /** Offset of the network-layer header in the frame. */
  offset: number
  /** 802.1Q VLAN ids, outermost first. */
  vlans?: number[]
  /** Why the frame could not be followed further, when network is 'other'. */
  reason?: string
}

const ETHERTYPE_IPV4 = 0x0800
const ETHERTYPE_IPV6 = 0x86dd
const ETHERTYPE_VLAN = [0x8100, 0x88a8, 0x9100]

function byEtherType(type: number, offset: number, vlans?: number[]): LinkResult {
  if (type === ETHERTYPE_IPV4) return { network: 'ipv4', offset, vlans }
  if (type === ETHERTYPE_IPV6) return { network: 'ipv6', offset, vlans }
  return { network: 'other', offset, vlans, reason: `ethertype 0x${type.toString(16).padStart(4, '0')}` }
}

function byVersionNibble(data: Uint8Array, offset: number): LinkResult {
  if (offset >= data.length) return { network: 'other', offset, reason: 'empty' }
  const v = data[offset] >> 4
  if (v === 4) return { network: 'ipv4', offset }
  if (v === 6) return { network: 'ipv6', offset }
  return { network: 'other', offset, reason: `IP version ${v}` }
}

// BSD loopback address families: AF_INET is 2 everywhere; AF_INET6 differs per OS (24 NetBSD/OpenBSD, 28 FreeBSD, 30 macOS, 10 Linux).
const AF_INET6 = new Set([10, 24, 28, 30])

export function decodeLink(linkType: number, data: Uint8Array): LinkResult {
  const short = (n: number): LinkResult | null => (data.length < n ? { network: 'other', offset: 0, reason: `frame shorter than ${n}-byte link header` } : null)
  switch (linkType) {
    case LinkType.ETHERNET: {
      const s = short(14)
      if (s) return s
      let type = (data[12] << 8) | data[13]
      let off = 14
      const vlans: number[] = []
      while (ETHERTYPE_VLAN.includes(type)) {
        if (data.length < off + 4) return { network: 'other', offset: off, reason: 'truncated 802.1Q tag' }
        vlans.push(((data[off] << 8) | data[off + 1]) & 0x0fff)
        type = (data[off + 2] << 8) | data[off + 3]
        off += 4
      }
      return byEtherType(type, off, vlans.length ? vlans : undefined)
    }
    case LinkType.LINUX_SLL: {
      const s = short(16)
      if (s) return s
      return byEtherType((data[14] << 8) | data[15], 16)
    }
    case LinkType.LINUX_SLL2: {
      const s = short(20)
      if (s) return s
      return byEtherType((data[0] << 8) | data[1], 20)
    }
    case LinkType.NULL:
    case LinkType.LOOP: {
      const s = short(4)
      if (s) return s
      // NULL stores the family in the capturing host's byte order; try both.
      const be = (data[0] << 24) | (data[1] << 16) | (data[2] << 8) | data[3]
      const le = data[0] | (data[1] << 8) | (data[2] << 16) | (data[3] << 24)
      const fam = linkType === LinkType.LOOP ? be : be > 0xffff ? le : be
      if (fam === 2) return { network: 'ipv4', offset: 4 }
      if (AF_INET6.has(fam)) return { network: 'ipv6', offset: 4 }
      return { network: 'other', offset: 4, reason: `address family ${fam}` }
    }
    case LinkType.RAW:
      return byVersionNibble(data, 0)
    case LinkType.IPV4:
      return { network: 'ipv4', offset: 0 }
    case LinkType.IPV6:
      return { network: 'ipv6', offset: 0 }
    default:
      return { network: 'other', offset: 0, reason: `unsupported link type ${linkType}` }
  }
}
