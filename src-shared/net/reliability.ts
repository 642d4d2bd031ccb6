// Reliable-sequence tracking for one conversation of a datagram transport (Photon, ENet), both directions:
// spots retransmissions (the same direction/channel/reliableSeq seen again) and links ACKs to the message
// they acknowledge, with the round trip. Reliable sequence numbers are per channel (the control channel 255 has its own) and per direction
// (docs/photon.md). Memory is bounded: each direction/channel keeps at most
// `maxPerChannel` sequence numbers (the oldest inserted is forgotten first).

import type { WireDir } from '../model/types'

export interface ReliabilityLimits {
  /** Sequence numbers remembered per direction and channel (default 65536). */
  maxPerChannel?: number
  /**
   * A repeat of a sequence number later than this after its last transmission (in the unit of `time`,
   * seconds by default) is a new command, not a retransmission: sequence numbers restart on reconnect.
   * Default 60 (Photon disconnects long before that without an ACK).
   */
  retransmitWindow?: number
  /** Milliseconds per unit of `time` (default 1000: times are epoch seconds as in DecodedMessage.time). */
  msPerTimeUnit?: number
}

export interface ReliableResult {
  /** The message that first carried this sequence number, when this is a retransmission. */
  retransmissionOf?: number
  /** 1 for the first transmission, 2 for the first retransmission... */
  transmission: number
}

export interface AckResult {
  ackedMessage?: number
  /** ACK time minus the time of the FIRST transmission, in ms. */
  rttMs?: number
  /** ACK time minus the time of the LAST transmission before the ACK, in ms. */
  rttLastMs?: number
  /** How often the acknowledged command had been sent. */
  transmissions?: number
  /** The sequence number had already been acknowledged (ACKs repeat when the sender retransmits). */
  duplicate?: boolean
}

interface Sent {
  messageId: number
  firstTime: number
  lastTime: number
  transmissions: number
  acked: boolean
}

export class ReliabilityTracker {
  private readonly maxPerChannel: number
  private readonly retransmitWindow: number
  private readonly msPerUnit: number
  /** Key: direction (0 a2b, 1 b2a) * 65536 + channel. Made on first use. */
  private tableMap: Map<number, Map<number, Sent>> | undefined

  constructor(limits: ReliabilityLimits = {}) {
    this.maxPerChannel = positive(limits.maxPerChannel, 65536)
    this.retransmitWindow = positive(limits.retransmitWindow, 60)
    this.msPerUnit = positive(limits.msPerTimeUnit, 1000)
  }

  /**
   * A reliable command (flags bit0) was seen in `dir` on `channel` with `seq`, in message `messageId` (opaque)
   * at `time`. Reporting the same message again for the same sequence is not a retransmission.
   */
  reliable(dir: WireDir, channel: number, seq: number, messageId: number, time: number): ReliableResult {
    const table = this.table(dir, channel, true)!
    const s = table.get(seq)
    if (s && time - s.lastTime <= this.retransmitWindow) {
      if (s.messageId === messageId) return { transmission: s.transmissions }
      s.transmissions++
      if (time > s.lastTime) s.lastTime = time
      return { retransmissionOf: s.messageId, transmission: s.transmissions }
    }
    if (s) table.delete(seq) // stale: a new command reusing the number; re-insert at the newest end
    table.set(seq, { messageId, firstTime: time, lastTime: time, transmissions: 1, acked: false })
    if (table.size > this.maxPerChannel) {
      const oldest = table.keys().next()
      if (!oldest.done) table.delete(oldest.value)
    }
    return { transmission: 1 }
  }

  /** An ACK seen in `dir` for `ackedSeq` on `channel` acknowledges a command sent in the opposite direction. */
  ack(dir: WireDir, channel: number, ackedSeq: number, time: number): AckResult {
    const table = this.table(dir === 'a2b' ? 'b2a' : 'a2b', channel, false)
    const s = table?.get(ackedSeq)
    if (!s) return {}
    const duplicate = s.acked
    s.acked = true
    const out: AckResult = {
      ackedMessage: s.messageId,
      rttMs: (time - s.firstTime) * this.msPerUnit,
      rttLastMs: (time - s.lastTime) * this.msPerUnit,
      transmissions: s.transmissions
    }
    if (duplicate) out.duplicate = true
    return out
  }

  private get tables(): Map<number, Map<number, Sent>> {
    return (this.tableMap ??= new Map())
  }

  /** Forgets everything (e.g. on a new connection). */
  clear(): void {
    this.tableMap = undefined
  }

  /** Sequence numbers currently remembered (all directions and channels). */
  get size(): number {
    let n = 0
    for (const t of this.tables.values()) n += t.size
    return n
  }

  private table(dir: WireDir, channel: number, create: boolean): Map<number, Sent> | undefined {
    const key = (dir === 'a2b' ? 0 : 1) * 65536 + (channel & 0xffff)
    let t = this.tables.get(key)
    if (!t && create) {
      t = new Map()
      this.tables.set(key, t)
    }
    return t
  }
}

function positive(v: number | undefined, dflt: number): number {
  return v !== undefined && Number.isFinite(v) && v > 0 ? v : dflt
}
