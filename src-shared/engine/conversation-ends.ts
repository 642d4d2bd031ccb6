// Each conversation's transport and endpoints, which the message index reads for the ip/udp/tcp filter
// fields: typed arrays by conversation id when both ends are IPv4 (13 bytes a conversation), a map for the
// rest (IPv6). Kept as objects, a million conversations took about 180 bytes each (the ends object, two
// endpoints and their address strings) and outlived the conversations themselves.

import { resized } from '../bytes/columns'
import type { Transport } from '../model/types'
import type { Endpoint } from './conversation'
import { ipv4Of, ipv4Text } from './conversation-table'

/** A conversation's transport and endpoints, as the index keeps them for the frame/IP/port filter fields. */
export interface ConversationEnds {
  transport: Transport
  a: Endpoint
  b: Endpoint
}

const UDP4 = 1
const TCP4 = 2
/** Ends read back recently are kept, so a filter over many rows does not build them again for each row. */
const READ_CACHE = 4096
const MAX_COLUMN_ID = 2 ** 28

export class ConversationEndsTable {
  /** By id: 0 when not known (or kept in `others`), else UDP4 or TCP4. */
  private kind = new Uint8Array(0)
  private aIp = new Uint32Array(0)
  private bIp = new Uint32Array(0)
  private aPort = new Uint16Array(0)
  private bPort = new Uint16Array(0)
  private readonly others = new Map<number, ConversationEnds>()
  private readonly read = new Map<number, ConversationEnds>()
  private v4 = false

  has(id: number): boolean {
    return (id < this.kind.length && this.kind[id] !== 0) || this.others.has(id)
  }

  /** Keeps a conversation's ends (the first call for an id wins). */
  set(id: number, ends: ConversationEnds): void {
    if (this.has(id)) return
    const a = ipv4Of(ends.a.ip)
    const b = ipv4Of(ends.b.ip)
    // Ids count up from 1, so the columns grow with the conversations; an id far beyond that goes to the map.
    if (a < 0 || b < 0 || !Number.isInteger(id) || id < 0 || id >= MAX_COLUMN_ID || !isPort(ends.a.port) || !isPort(ends.b.port)) {
      this.others.set(id, { transport: ends.transport, a: { ip: ends.a.ip, port: ends.a.port }, b: { ip: ends.b.ip, port: ends.b.port } })
      return
    }
    if (id >= this.kind.length) {
      const size = Math.max(1024, id + 1, this.kind.length * 2)
      this.kind = resized(this.kind, size)
      this.aIp = resized(this.aIp, size)
      this.bIp = resized(this.bIp, size)
      this.aPort = resized(this.aPort, size)
      this.bPort = resized(this.bPort, size)
    }
    this.kind[id] = ends.transport === 'tcp' ? TCP4 : UDP4
    this.aIp[id] = a
    this.bIp[id] = b
    this.aPort[id] = ends.a.port
    this.bPort[id] = ends.b.port
    this.v4 = true
  }

  get(id: number): ConversationEnds | undefined {
    const known = this.read.get(id) ?? this.others.get(id)
    if (known || !(id < this.kind.length) || this.kind[id] === 0) return known
    const ends: ConversationEnds = {
      transport: this.kind[id] === TCP4 ? 'tcp' : 'udp',
      a: { ip: ipv4Text(this.aIp[id]), port: this.aPort[id] },
      b: { ip: ipv4Text(this.bIp[id]), port: this.bPort[id] }
    }
    if (this.read.size >= READ_CACHE) this.read.clear()
    this.read.set(id, ends)
    return ends
  }

  /** The address families of the conversations kept: 'ip' (IPv4) and 'ipv6'. */
  families(): Set<string> {
    const out = new Set<string>()
    if (this.v4) out.add('ip')
    for (const e of this.others.values()) out.add(e.a.ip.includes(':') ? 'ipv6' : 'ip')
    return out
  }
}

function isPort(p: number): boolean {
  return Number.isInteger(p) && p >= 0 && p <= 0xffff
}
