// Which ENet a conversation speaks, and whether its datagrams carry a checksum, learnt from the traffic.
// Vanilla ENet 1.3 flags SENT_TIME with bit 15 and COMPRESSED with bit 14; ENet-CSharp flags SENT_TIME with
// bit 14 and never sets bit 15; the checksum (4 or 8 bytes after the header) is a host setting invisible in
// the header. So (docs/fignet.md):
// - a CONNECT datagram (peer id 0xFFF) headed 8F FF is vanilla, 4F FF or 0F FF is ENet-CSharp;
// - bit 15 anywhere else means vanilla; bit 14 alone with commands that parse with a 4-byte header means
//   ENet-CSharp (in vanilla it would mean compressed, unreadable bytes);
// - the checksum is present when the layout with it parses every command to exactly the datagram's end (and
//   verifies, where the connectID is known: always for CONNECT, whose preset is zeros) and the one without
//   it does not.
// Until the evidence is there each datagram is read with the layout that fits it best.

import { DecodeError, FieldReader } from '../../bytes/reader'
import { TreeBuilder } from '../../bytes/tree'
import {
  CMD,
  HEADER_FLAGS,
  NO_PEER_ID,
  PEER_ID_MASK,
  VARIANT_NAMES,
  parseDatagram,
  readCommand,
  readHeader,
  type EnetLayout,
  type EnetVariant,
  type ParsedDatagram
} from './wire'

const CHECKSUM_SIZE: Record<EnetVariant, 4 | 8> = { vanilla: 4, csharp: 8 }
const CHECKSUM_NAME: Record<4 | 8, string> = { 4: 'CRC-32', 8: 'CRC-64' }
/** The layouts `choose` tries, in order. */
const ONLY: Record<EnetVariant, readonly EnetVariant[]> = { vanilla: ['vanilla'], csharp: ['csharp'] }
const CSHARP_FIRST: readonly EnetVariant[] = ['csharp', 'vanilla']
const VANILLA_FIRST: readonly EnetVariant[] = ['vanilla', 'csharp']
const SIZE_ONLY: Record<0 | 4 | 8, readonly (0 | 4 | 8)[]> = { 0: [0], 4: [4], 8: [8] }
const SIZE_TRY: Record<EnetVariant, readonly (0 | 4 | 8)[]> = { vanilla: [0, 4], csharp: [0, 8] }

export interface LayoutChoice {
  layout: EnetLayout
  /** The datagram read (without a tree) with that layout. */
  parsed: ParsedDatagram
  /** For the tree: the variant and why, e.g. "ENet-CSharp (SENT_TIME at bit 14, seen in CONNECT, frame 1)". */
  variantText: string
  checksumText: string
}

interface Decision<T> {
  value: T
  why: string
}

/** How well a layout explains a datagram; higher is better, 0 = it does not. */
function score(p: ParsedDatagram): number {
  if (!p.header) return 0
  if (p.compressedAt !== undefined) return 2
  if (p.error || p.commands.length === 0) return 0
  const c = p.header.checksum
  if (!c) return 4
  return c.status === 'good' ? 5 : c.status === 'unverified' ? 3 : 1
}

const isConnectDatagram = (p: ParsedDatagram) => p.header?.peerId === NO_PEER_ID && p.commands.length > 0 && p.commands[0].number === CMD.CONNECT

/** Per conversation: the variant, the checksum size and the connectID, once learnt. */
export class EnetVariantDetector {
  private variant: Decision<EnetVariant> | undefined
  private checksum: Decision<0 | 4 | 8> | undefined
  /** The connectID's wire bytes, from the last CONNECT or VERIFY_CONNECT. */
  connectId: Uint8Array | null = null

  get knownVariant(): EnetVariant | undefined {
    return this.variant?.value
  }

  get knownChecksumSize(): 0 | 4 | 8 | undefined {
    return this.checksum?.value
  }

  /** Picks the layout for this datagram (learning from it), and reads it without a tree. */
  choose(bytes: Uint8Array, frame: number): LayoutChoice {
    const word = bytes.length >= 2 ? (bytes[0] << 8) | bytes[1] : 0
    // Constant lists (read only): no arrays per datagram.
    const variants = this.variant ? ONLY[this.variant.value] : word & 0x8000 ? ONLY.vanilla : word & 0x4000 ? CSHARP_FIRST : VANILLA_FIRST
    const candidates: ParsedDatagram[] = []
    for (const variant of variants) {
      const sizes = this.checksum ? SIZE_ONLY[this.checksum.value === 0 ? 0 : CHECKSUM_SIZE[variant]] : SIZE_TRY[variant]
      for (const checksumSize of sizes) candidates.push(parseDatagram(bytes, { variant, checksumSize }, this.connectId))
    }
    let best = candidates[0]
    for (const c of candidates) if (score(c) > score(best)) best = c
    best = this.learn(bytes, best, candidates, frame)
    return { layout: best.layout, parsed: best, variantText: this.variantText(best), checksumText: this.checksumText(best) }
  }

  /** Updates what is known from the chosen reading; returns it (re-read when the connectID just became known). */
  private learn(bytes: Uint8Array, best: ParsedDatagram, candidates: ParsedDatagram[], frame: number): ParsedDatagram {
    const fits = score(best) >= 3
    const h = best.header
    if (!this.variant && h && (fits || best.compressedAt !== undefined)) {
      if (isConnectDatagram(best)) {
        const head = `${hex2(bytes[0])} ${hex2(bytes[1])}`
        if (h.word & 0x8000) this.variant = { value: 'vanilla', why: `SENT_TIME at bit 15, seen in CONNECT (header ${head}) in frame ${frame}` }
        else if (h.word & 0x4000) this.variant = { value: 'csharp', why: `SENT_TIME at bit 14, seen in CONNECT (header ${head}) in frame ${frame}` }
        else this.variant = { value: 'csharp', why: `CONNECT without bit 15 (header ${head}) in frame ${frame}` }
      } else if (h.word & 0x8000) {
        this.variant = { value: 'vanilla', why: `SENT_TIME at bit 15 in frame ${frame}; ENet-CSharp never sets it` }
      } else if (h.word & 0x4000 && best.layout.variant === 'csharp') {
        this.variant = { value: 'csharp', why: `bit 14 set in frame ${frame} and its commands parse after a sent time (SENT_TIME at bit 14)` }
      }
    }
    if (!this.checksum && fits) {
      const c = best.header!.checksum
      if (c?.status === 'good') {
        this.checksum = { value: c.size, why: `${CHECKSUM_NAME[c.size]} verified in frame ${frame}` }
      } else if (!c) {
        // Absent when no layout with a checksum explains the datagram (it would, were one there).
        const withChecksum = candidates.filter((x) => x.layout.checksumSize !== 0)
        if (withChecksum.every((x) => score(x) <= 2)) this.checksum = { value: 0, why: `frame ${frame} parses to its end without one and not with one` }
      }
    }
    if (this.variant && best.layout.variant !== this.variant.value) {
      // Both variants read a header without flag bits alike; keep the layout in step with the decision.
      const variant = this.variant.value
      best = parseDatagram(bytes, { variant, checksumSize: best.layout.checksumSize === 0 ? 0 : CHECKSUM_SIZE[variant] }, this.connectId)
    }
    for (const cmd of best.commands) {
      if (cmd.connectIdBytes && (cmd.number === CMD.CONNECT || cmd.number === CMD.VERIFY_CONNECT)) this.connectId = cmd.connectIdBytes
    }
    if (best.header?.checksum?.status === 'unverified' && this.connectId) {
      // A VERIFY_CONNECT captured without its CONNECT brings the connectID its own checksum needs.
      const again = parseDatagram(bytes, best.layout, this.connectId)
      if (again.header?.checksum?.status === 'good' && !this.checksum) {
        this.checksum = { value: again.layout.checksumSize, why: `${CHECKSUM_NAME[again.header.checksum.size]} verified in frame ${frame}` }
      }
      return again
    }
    return best
  }

  /** The texts once the decision is made (it never changes after): not rebuilt for every datagram. */
  private decidedVariantText: string | undefined
  private decidedChecksumText: Partial<Record<0 | 4 | 8, string>> = {}

  private variantText(p: ParsedDatagram): string {
    if (this.variant) return (this.decidedVariantText ??= `${VARIANT_NAMES[this.variant.value]} (${this.variant.why})`)
    const w = p.header?.word ?? 0
    if (!(w & 0xc000)) return 'not known yet: no SENT_TIME flag seen, both variants read this datagram alike'
    if (p.compressedAt !== undefined) return `${VARIANT_NAMES.vanilla}? (bit 14 set and the datagram does not parse as ENet-CSharp: read as COMPRESSED)`
    return `${VARIANT_NAMES[p.layout.variant]}? (this datagram parses with it; not confirmed yet)`
  }

  private checksumText(p: ParsedDatagram): string {
    const size = p.layout.checksumSize
    const what = size === 0 ? 'none' : CHECKSUM_NAME[size]
    if (this.checksum) return (this.decidedChecksumText[size] ??= `${what} (${this.checksum.why})`)
    return `${what}? (this datagram parses with it; not confirmed yet)`
  }
}

const hex2 = (b: number | undefined) => (b ?? 0).toString(16).toUpperCase().padStart(2, '0')

const DATA_CHANNEL_MAX = 0xfe
const CONTROL_COMMANDS = new Set<number>([CMD.CONNECT, CMD.VERIFY_CONNECT, CMD.DISCONNECT, CMD.PING, CMD.BANDWIDTH_LIMIT, CMD.THROTTLE_CONFIGURE])

/**
 * How sure we are that `bytes` is an ENet datagram (0..100), for the protocol registry. A CONNECT with sane
 * parameters is near certain; other datagrams count when some layout parses them to their exact end with
 * commands an ENet sender would produce. Never throws.
 */
export function probeEnet(bytes: Uint8Array): number {
  try {
    if (bytes.length < 6) return 0
    const word = (bytes[0] << 8) | bytes[1]
    const variants: EnetVariant[] = word & 0x8000 ? ['vanilla'] : ['csharp', 'vanilla']
    let best = 0
    for (const variant of variants) {
      if (variant === 'vanilla' && word & HEADER_FLAGS.vanilla.compressed) continue // nothing to check
      for (const checksumSize of [0, variant === 'vanilla' ? 4 : 8] as const) best = Math.max(best, probeLayout(bytes, { variant, checksumSize }))
    }
    return best
  } catch {
    return 0
  }
}

function probeLayout(bytes: Uint8Array, layout: EnetLayout): number {
  const r = new FieldReader(bytes, new TreeBuilder(false), 0)
  try {
    const h = readHeader(r, layout, null)
    if (h.checksum?.status === 'bad') return 0
    let reliable = false
    let n = 0
    let connect = false
    while (r.remaining > 0) {
      const c = readCommand(r)
      n++
      if (n > 32) return 0
      if (c.acknowledge) reliable = true
      if (c.number === CMD.ACKNOWLEDGE && c.acknowledge) return 0
      if (CONTROL_COMMANDS.has(c.number) && c.channel !== 0xff) return 0
      if ((c.number >= CMD.SEND_RELIABLE && c.number <= CMD.SEND_UNSEQUENCED) || c.number === CMD.SEND_UNRELIABLE_FRAGMENT) {
        if (c.channel > DATA_CHANNEL_MAX) return 0
      }
      if (c.number === CMD.CONNECT) {
        const k = c.connect!
        if (h.peerId !== NO_PEER_ID || k.mtu < 576 || k.mtu > 4096 || k.channelCount < 1 || k.channelCount > 255 || k.windowSize < 4096 || k.windowSize > 65536)
          return 0
        connect = true
      }
    }
    if (n === 0) return 0
    // Senders set SENT_TIME whenever a reliable command rides along; CONNECT comes alone from peer 0xFFF.
    if (reliable && h.sentTime === undefined) return 0
    if ((h.word & PEER_ID_MASK) === NO_PEER_ID && (!connect || n !== 1)) return 0
    if (connect) return h.checksum?.status === 'good' ? 100 : 95
    if (h.checksum?.status === 'good') return 90
    return reliable ? 70 : 55
  } catch (e) {
    if (e instanceof DecodeError) return 0
    throw e
  }
}
