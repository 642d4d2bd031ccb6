// The frame under a message, as Wireshark shows it first: per frame that carried the message, a `frame`
// group (number, time, lengths, interface, comments) holding the link, IP/IPv6 and UDP/TCP headers, every
// field with its bytes in that frame's own data source `Frame N`. Built only when a tree is built with
// layers (the detail view, `decode --layers`) or a filter reads these fields (LayeredTarget, beside the
// message's own tree): the same link/IP/transport parsers as the engine's network pass run again over the
// frame with a recording FieldReader. Conventions and sources: docs/capture-files.md (The frame under a message).

import { FieldReader } from '../bytes/reader'
import { TreeBuilder, type TreeInterest } from '../bytes/tree'
import { frameTime, type CaptureFrame, type CaptureInterface } from '../capture/types'
import type { DataSource, DecodedMessage, FieldNode, FieldScalar } from '../model/types'
import type { FilterTarget } from '../filter/compile'
import { targetFromMessage } from '../filter/target'
import { inFrameGroups } from './layer-fields'
import { parseIpv4, parseIpv6 } from './ip'
import { F_FRAME } from './layer-fields'
import { decodeLink } from './link'
import { parseTcp, parseUdp, type TcpBases } from './tcp'

export interface LayerContext {
  /** The capture's interfaces by id (names in the frame node), when known. */
  iface?(id: number): CaptureInterface | undefined
  /** Relative sequence-number bases for a TCP frame from `src` (ip, port), when the connection is known. */
  tcpBases?(srcIp: string, srcPort: number): TcpBases | undefined
}

/** Arrival time as ISO 8601 UTC with the capture's nanoseconds. */
export function frameTimeText(f: Pick<CaptureFrame, 'tsSec' | 'tsNsec'>): string {
  const iso = new Date(f.tsSec * 1000).toISOString() // …T18:58:59.000Z
  return `${iso.slice(0, 19)}.${String(f.tsNsec).padStart(9, '0')}Z`
}

/**
 * Layer fields whose values need the conversation decoded up to the frame: TCP's relative sequence and
 * acknowledgment numbers count from the connection's first ones (LayerContext.tcpBases).
 */
export const CONVERSATION_LAYER_KEYS: ReadonlySet<string> = new Set(['tcp.seq', 'tcp.ack'])

/**
 * Records one frame's group into `tree` (a recording builder), its fields pointing into data source
 * `source` (the frame's bytes). Malformed headers end the group where parsing stopped; nothing throws.
 */
export function recordFrame(tree: TreeBuilder, source: number, f: CaptureFrame, ctx: LayerContext = {}): void {
  const data = f.data
  const r = new FieldReader(data, tree, source)
  const depth = tree.depth
  const iface = ctx.iface?.(f.interfaceId)
  r.open(F_FRAME.frame, () => {
    const on = iface?.name ? `on interface ${iface.name}, id ${f.interfaceId}` : `on interface id ${f.interfaceId}`
    return `Frame ${f.number}: ${f.originalLength} bytes on wire (${f.originalLength * 8} bits), ${data.length} bytes captured (${data.length * 8} bits) ${on}`
  })
  // Metadata, not read from the frame's bytes: no bytes of their own (position 0, length 0, as Wireshark).
  const all = 0
  r.record(F_FRAME.interface_id, f.interfaceId, 0, all, iface?.name ? () => `Interface id: ${f.interfaceId} (${iface.name})` : undefined)
  if (iface?.name) r.record(F_FRAME.interface_name, iface.name, 0, all, () => `Interface name: ${iface.name}`)
  if (!f.noTimestamp) {
    // the text is made only for a tree that keeps it (a filter's tree keeps only the keys it reads)
    if (tree.interest === null || tree.interest.wants(F_FRAME.time.key))
      r.record(F_FRAME.time, frameTimeText(f), 0, all, () => `Arrival time: ${frameTimeText(f)}`)
    r.record(F_FRAME.time_epoch, frameTime(f), 0, all, () => `Epoch arrival time: ${f.tsSec}.${String(f.tsNsec).padStart(9, '0')}`)
  }
  r.record(F_FRAME.number, f.number, 0, all)
  r.record(F_FRAME.len, f.originalLength, 0, all, () => `Frame length: ${f.originalLength} bytes`)
  r.record(F_FRAME.cap_len, data.length, 0, all, () => `Capture length: ${data.length} bytes`)
  for (const c of f.comments ?? []) r.record(F_FRAME.comment, c, 0, all, () => `Comment: ${c}`)
  const link = decodeLink(f.linkType, data, r)
  if (link.network !== 'other') {
    const ip = link.network === 'ipv4' ? parseIpv4(data, link.offset, r) : parseIpv6(data, link.offset, r)
    // The transport header is in this frame unless it is a later fragment of an IP datagram.
    if (ip.ok && (!ip.packet.fragment || ip.packet.fragment.offset === 0)) {
      const p = ip.packet
      const at = p.payload.byteOffset - data.byteOffset
      if (p.protocol === 17) parseUdp(p.payload, r, at)
      else if (p.protocol === 6) parseTcp(p.payload, r, at, ctx.tcpBases?.(p.src, (p.payload[0] << 8) | p.payload[1]))
    }
  }
  while (tree.depth > depth + 1) tree.close()
  r.pos = data.length
  r.close()
}

/**
 * Records the groups of a message's frames into `tree`: `numbers` are its frames in order, `frames` the
 * frames themselves, where one no longer held (undefined) gets a group that says so. Returns the frames'
 * `Frame N` sources, which the groups' fields point into (source 0 is the first frame held).
 */
function recordFrameGroups(tree: TreeBuilder, numbers: readonly number[], frames: readonly (CaptureFrame | undefined)[], ctx: LayerContext): DataSource[] {
  const sources: DataSource[] = []
  for (let i = 0; i < numbers.length; i++) {
    const f = frames[i]
    const n = numbers[i]
    if (!f) {
      tree.add({
        key: F_FRAME.frame.key,
        label: `Frame ${n}`,
        type: 'none',
        children: [
          { key: F_FRAME.number.key, label: `Frame number: ${n}`, type: 'u32', value: n },
          {
            key: F_FRAME.bytes_missing.key,
            label: 'Frame no longer held: its bytes were let go before this message was complete',
            type: 'string',
            value: 'not held'
          }
        ]
      })
      continue
    }
    sources.push({ name: `Frame ${n}`, bytes: f.data })
    recordFrame(tree, sources.length - 1, f, ctx)
  }
  return sources
}

/**
 * The message with its frames' groups first in the tree and their `Frame N` sources first in `sources`
 * (the protocol's own fields move up by as many sources). `frames` are the message's frames in order;
 * one no longer held (undefined) gets a group that says so.
 */
export function withLayers(m: DecodedMessage, frames: readonly (CaptureFrame | undefined)[], ctx: LayerContext = {}): DecodedMessage {
  const tree = new TreeBuilder(true)
  const sources = recordFrameGroups(tree, m.frames, frames, ctx)
  const shift = sources.length
  if (shift) shiftSources(m.tree, shift)
  return { ...m, tree: [...tree.roots, ...m.tree], sources: [...sources, ...m.sources], layerSources: shift }
}

/** Where a message's frames are found by number (the app's frame store; a streaming decode's FrameRing). */
export interface FrameSource {
  /** undefined for a frame not held. */
  get(frame: number): CaptureFrame | undefined
}

/**
 * A message's filter target with its frames' layers, without building them into its tree: the frame
 * groups are recorded (without labels, and only the keys read, as trees built for a filter) when a key
 * they can hold is first asked. It answers as the message decoded with layers would (filter/target.ts):
 * a key the frame groups have values for takes theirs (frame.time_epoch and ip.src per frame), any other
 * the message's own (`base`). So a filter on header fields (ip.ttl) needs no tree of the protocol, and
 * leaves the message as it was.
 */
export class LayeredTarget implements FilterTarget {
  private groups: FilterTarget | null = null

  /**
   * `numbers`: the message's frames, in its order, found in `frames`; `interest`: the keys the filter (and
   * columns) read, the only ones the frame groups keep. `last`: the frame groups of the message before, shared
   * by the targets of a run of messages, so that messages carried by the same frames (the commands of one
   * Photon datagram) parse them once.
   */
  constructor(
    private readonly base: FilterTarget,
    private readonly numbers: readonly number[],
    private readonly frames: FrameSource,
    private readonly interest: TreeInterest,
    private readonly ctx: LayerContext = {},
    private readonly last?: LastFrameGroups
  ) {}

  values(key: string): readonly FieldScalar[] {
    if (inFrameGroups(key)) {
      const v = this.frameGroups().values(key)
      if (v.length) return v
    }
    return this.base.values(key)
  }

  has(key: string): boolean {
    return (inFrameGroups(key) && this.frameGroups().has(key)) || this.base.has(key)
  }

  private frameGroups(): FilterTarget {
    if (this.groups) return this.groups
    const last = this.last
    if (last?.groups && sameNumbers(last.numbers, this.numbers)) return (this.groups = last.groups)
    const tree = new TreeBuilder(true, false, this.interest)
    recordFrameGroups(
      tree,
      this.numbers,
      this.numbers.map((n) => this.frames.get(n)),
      this.ctx
    )
    this.groups = targetFromMessage({ tree: tree.roots, protocol: '', stack: [] }, undefined, this.interest.keys)
    if (last) {
      last.numbers = this.numbers
      last.groups = this.groups
    }
    return this.groups
  }
}

/**
 * The frame groups a LayeredTarget made last, for the next message's: one per run of targets made with
 * the same frames, interest and context (a filter's pass over a view, a decode's messages).
 */
export interface LastFrameGroups {
  numbers: readonly number[]
  groups: FilterTarget | null
}

export function lastFrameGroups(): LastFrameGroups {
  return { numbers: [], groups: null }
}

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

function shiftSources(nodes: FieldNode[], by: number): void {
  const stack = [nodes]
  while (stack.length) {
    for (const n of stack.pop()!) {
      if (n.source !== undefined) n.source += by
      if (n.children) stack.push(n.children)
    }
  }
}
