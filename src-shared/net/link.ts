// Link layers: find where the IP packet starts in a captured frame. Given a FieldReader over the frame,
// the same code records the link-layer fields with their byte ranges (net/layers.ts; the index pass
// passes none and pays nothing for it).

import type { FieldReader } from '../bytes/reader'
import { LinkType } from '../capture/types'
import { F_ETH, F_NULL, F_SLL, F_VLAN, macText } from './layer-fields'

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

const u16 = (d: Uint8Array, at: number): number => (d[at] << 8) | d[at + 1]
const hex4 = (v: number): string => `0x${v.toString(16).padStart(4, '0')}`

const short = (data: Uint8Array, n: number): LinkResult | null =>
  data.length < n ? { network: 'other', offset: 0, reason: `frame shorter than ${n}-byte link header` } : null

export function decodeLink(linkType: number, data: Uint8Array, r?: FieldReader): LinkResult {
  switch (linkType) {
    case LinkType.ETHERNET: {
      const s = short(data, 14)
      if (s) return s
      let type = u16(data, 12)
      if (r) {
        r.pos = 0
        const src = data.subarray(6, 12)
        const dst = data.subarray(0, 6)
        r.open(F_ETH.eth, () => `Ethernet II, Src: ${macText(src)}, Dst: ${macText(dst)}`)
        r.record(F_ETH.dst, dst, 0, 6, () => `Destination: ${macText(dst)}`)
        r.record(F_ETH.src, src, 6, 6, () => `Source: ${macText(src)}`)
        r.record(F_ETH.type, type, 12, 2)
        r.pos = 14
        r.close()
      }
      let off = 14
      const vlans: number[] = []
      while (ETHERTYPE_VLAN.includes(type)) {
        if (data.length < off + 4) return { network: 'other', offset: off, reason: 'truncated 802.1Q tag' }
        const tci = u16(data, off)
        vlans.push(tci & 0x0fff)
        type = u16(data, off + 2)
        if (r) {
          r.pos = off
          r.open(F_VLAN.vlan, () => `802.1Q Virtual LAN, PRI: ${tci >> 13}, DEI: ${(tci >> 12) & 1}, ID: ${tci & 0x0fff}`)
          r.record(F_VLAN.priority, tci >> 13, off, 2)
          r.record(F_VLAN.dei, ((tci >> 12) & 1) === 1, off, 2)
          r.record(F_VLAN.id, tci & 0x0fff, off, 2)
          r.record(F_VLAN.etype, type, off + 2, 2)
          r.pos = off + 4
          r.close()
        }
        off += 4
      }
      return byEtherType(type, off, vlans.length ? vlans : undefined)
    }
    case LinkType.LINUX_SLL: {
      const s = short(data, 16)
      if (s) return s
      if (r) {
        r.pos = 0
        r.open(F_SLL.sll, 'Linux cooked capture v1')
        r.record(F_SLL.pkttype, u16(data, 0), 0, 2)
        r.record(F_SLL.hatype, u16(data, 2), 2, 2)
        const halen = u16(data, 4)
        r.record(F_SLL.halen, halen, 4, 2)
        sllAddress(r, data, 6, halen)
        r.record(F_SLL.etype, u16(data, 14), 14, 2, () => `Protocol: ${hex4(u16(data, 14))}`)
        r.pos = 16
        r.close()
      }
      return byEtherType(u16(data, 14), 16)
    }
    case LinkType.LINUX_SLL2: {
      const s = short(data, 20)
      if (s) return s
      if (r) {
        r.pos = 0
        r.open(F_SLL.sll, 'Linux cooked capture v2')
        r.record(F_SLL.etype, u16(data, 0), 0, 2, () => `Protocol: ${hex4(u16(data, 0))}`)
        const ifindex = ((data[4] << 24) | (data[5] << 16) | (data[6] << 8) | data[7]) >>> 0
        r.record(F_SLL.ifindex, ifindex, 4, 4)
        r.record(F_SLL.hatype, u16(data, 8), 8, 2)
        r.record(F_SLL.pkttype, data[10], 10, 1)
        r.record(F_SLL.halen, data[11], 11, 1)
        sllAddress(r, data, 12, data[11])
        r.pos = 20
        r.close()
      }
      return byEtherType(u16(data, 0), 20)
    }
    case LinkType.NULL:
    case LinkType.LOOP: {
      const s = short(data, 4)
      if (s) return s
      // NULL stores the family in the capturing host's byte order; try both.
      const be = (data[0] << 24) | (data[1] << 16) | (data[2] << 8) | data[3]
      const le = data[0] | (data[1] << 8) | (data[2] << 16) | (data[3] << 24)
      const fam = linkType === LinkType.LOOP ? be : be > 0xffff ? le : be
      if (r) {
        r.pos = 0
        r.open(F_NULL.null, linkType === LinkType.LOOP ? 'OpenBSD loopback' : 'Null/Loopback')
        r.record(F_NULL.family, fam, 0, 4)
        r.pos = 4
        r.close()
      }
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

/** The 8-byte address field of SLL/SLL2: a 6-byte hardware address as Wireshark's sll.src.eth, the rest unused. */
function sllAddress(r: FieldReader, data: Uint8Array, at: number, halen: number): void {
  if (halen !== 6) return
  const mac = data.subarray(at, at + 6)
  r.record(F_SLL['src.eth'], mac, at, 6, () => `Source: ${macText(mac)}`)
  r.record(F_SLL.unused, data.subarray(at + 6, at + 8), at + 6, 2)
}
