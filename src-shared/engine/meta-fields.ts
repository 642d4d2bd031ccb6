// Fields every message has besides its decoded tree: frame, IP and transport fields (as Wireshark names
// them) and the message's own attributes. The filter matches them like any decoded field. The frame, IP
// and port fields are the ones the layer tree records (net/layer-fields.ts declares them, with the same
// meaning): without layers they come from here; when a tree has them, the tree's values are used. The
// frame lengths come from the frames' lengths a decode keeps (frame-lengths.ts), where it keeps them.

import { defineField, type FieldType } from '../bytes/fields'
import { F_FRAME, F_IP, F_IPV6, F_TCP, F_UDP, inFrameGroups } from '../net/layer-fields'
import type { DecodedMessage, FieldScalar } from '../model/types'
import type { Conversation } from './conversation'
import type { WireDir } from '../protocols/registry'
import { targetFromMessage } from '../filter/target'
import type { FilterTarget } from '../filter/compile'
import { frameLengthValues, readsFrameLengths, RecentFrameLengths, type FrameLengths } from './frame-lengths'
import { LayeredTarget, lastFrameGroups, type FrameSource } from '../net/layers'
import { FrameRing, RECENT_FRAME_LIMITS } from '../net/frame-ring'
import { TreeInterest } from '../bytes/tree'
import type { CaptureFrame, CaptureInterface } from '../capture/types'

const layer = (d: { key: string; name: string; type: string }) => [d.key, d.name, d.type] as const
const META_FIELDS = [
  layer(F_FRAME.number),
  layer(F_FRAME.time_epoch),
  layer(F_FRAME.len),
  layer(F_FRAME.cap_len),
  layer(F_IP.src),
  layer(F_IP.dst),
  ['ip.addr', 'IPv4 source or destination', 'ipv4'],
  layer(F_IPV6.src),
  layer(F_IPV6.dst),
  ['ipv6.addr', 'IPv6 source or destination', 'ipv6'],
  layer(F_UDP.srcport),
  layer(F_UDP.dstport),
  ['udp.port', 'UDP source or destination port', 'u16'],
  layer(F_TCP.srcport),
  layer(F_TCP.dstport),
  ['tcp.port', 'TCP source or destination port', 'u16'],
  ['gamewire.conversation', 'Conversation id', 'u32'],
  ['gamewire.direction', 'Direction (c2s, s2c, a2b, b2a)', 'string'],
  ['gamewire.protocol', 'Protocol', 'string'],
  ['gamewire.name', 'Message name', 'string'],
  ['gamewire.summary', 'Summary', 'string'],
  ['gamewire.error', 'Decode error', 'string'],
  ['gamewire.warning', 'Decode warning', 'string'],
  ['gamewire.length', 'Payload length', 'u32']
] as const

// Declared so autocomplete knows them.
for (const [key, name, type] of META_FIELDS) defineField(key, name, type as FieldType)

/** The keys messageMetaFields fills: from the frame, the conversation and the message's own row. */
export const META_KEYS: ReadonlySet<string> = new Set(META_FIELDS.map(([key]) => key))

// Families whose bare name a filter may test (`ip`): present when one of their meta fields has a value.
export const META_FAMILIES: ReadonlySet<string> = new Set(['frame', 'ip', 'ipv6', 'udp', 'tcp', 'gamewire'])

/**
 * Whether a filter or columns on these keys read what messageMetaFields gives (a meta field, a gamewire.*
 * key, a family's presence).
 */
function readsMetaFields(keys: readonly string[]): boolean {
  return keys.some((k) => META_KEYS.has(k) || k.startsWith('gamewire.') || META_FAMILIES.has(k))
}

/**
 * What a message's frames give its filter target beyond the message: their lengths (frame.len,
 * frame.cap_len) and the frames themselves, for header fields (ip.ttl) parsed from their layers. The app's
 * frame store gives both; a streaming decode keeps the recent frames' (RecentFrameLengths, FrameRing).
 */
export interface MessageFrames {
  lengths?: FrameLengths
  frames?: FrameSource
  /** The capture's interfaces by id (the frame groups' interface names). */
  iface?(id: number): CaptureInterface | undefined
}

/** The recent frames a streaming decode puts as it reads them, for its filter targets. */
export interface RecentFrames {
  put(f: CaptureFrame): void
  frames: MessageFrames
}

/**
 * What a streaming decode (the CLI, with one engine or shards) keeps of the frames for a filter on `keys`:
 * the lengths of the recent frames when it reads frame lengths, and copies of the recent frames when it
 * reads header fields (RECENT_FRAME_LIMITS). Null when it reads neither. `withLayers`: its messages
 * carry their frames' layers in their trees (`decode --layers` with trees), where a filter reads header
 * fields, so no frames are kept for them (the engine keeps its own for the layers).
 */
function recentFramesFor(keys: readonly string[], iface: MessageFrames['iface'], withLayers: boolean): RecentFrames | null {
  const lengths = readsFrameLengths(keys) ? new RecentFrameLengths() : undefined
  const kept = needsLayers(keys) && !withLayers ? new FrameRing(RECENT_FRAME_LIMITS) : undefined
  if (!lengths && !kept) return null
  return {
    put(f) {
      lengths?.put(f)
      kept?.push(f)
    },
    frames: { lengths, frames: kept, iface }
  }
}

/**
 * A streaming decode's filter targets for `keys`, and the recent frames they read (recentFramesFor), which the
 * decode puts as it reads them. `engine`: the options of the engine whose messages they are; with layers and
 * trees its messages carry their frames' layers, so no frames are kept for them.
 */
export function streamingTargets(
  keys: readonly string[],
  iface: MessageFrames['iface'],
  engine: { layers?: boolean; recording?: boolean }
): { recent: RecentFrames | null; targets: MessageTargets } {
  const withLayers = !!engine.layers && (engine.recording ?? true)
  const recent = recentFramesFor(keys, iface, withLayers)
  return { recent, targets: new MessageTargets(keys, recent?.frames, withLayers) }
}

/**
 * Decoded messages as filter targets for the keys a filter (and columns) read: with the message's meta
 * fields only when one of the keys reads them, since making them costs more than a small tree's walk.
 * Keys that read frame lengths need `frames.lengths`, and header fields `frames.frames`: a message whose
 * tree was built without its frames' layers gets them in its target (LayeredTarget), not in its tree.
 */
export class MessageTargets {
  private readonly meta: boolean
  private readonly layers: boolean
  /** With layers: the keys their frame groups keep. */
  private readonly interest: TreeInterest | undefined
  /** With layers: the last message's frame groups (the next message is often carried by the same frames). */
  private readonly last = lastFrameGroups()

  /** `withLayers`: the messages carry their frames' layers in their trees (recentFramesFor's), where header fields are read. */
  constructor(
    private readonly keys: readonly string[],
    private readonly frames: MessageFrames = {},
    withLayers = false
  ) {
    this.meta = readsMetaFields(keys)
    this.layers = needsLayers(keys)
    this.interest = this.layers ? new TreeInterest(keys) : undefined
    // Without them such keys would read as absent on every message: a filter that silently matches nothing.
    if (!frames.lengths && readsFrameLengths(keys)) throw new Error(`internal: frame lengths read without the frames' lengths (${keys.join(', ')})`)
    if (!frames.frames && this.layers && !withLayers) throw new Error(`internal: header fields read without the frames (${keys.join(', ')})`)
  }

  of(m: DecodedMessage, conv: Conversation, dir: WireDir): FilterTarget {
    const base = targetFromMessage(m, this.meta ? messageMetaFields(m, conv, dir, this.frames.lengths) : undefined, this.keys)
    // A message built with its layers (decode --layers) has them in its tree.
    if (!this.layers || m.layerSources !== undefined) return base
    if (!this.frames.frames) throw new Error(`internal: message #${m.id} has no layers, and no frames were kept for them`)
    return new LayeredTarget(
      base,
      m.frames,
      this.frames.frames,
      this.interest!,
      {
        iface: this.frames.iface,
        tcpBases: (ip, port) => conv.tcpBases(ip, port)
      },
      this.last
    )
  }
}

/**
 * True when a filter or column on this key reads the frames' layers (their frame groups, net/layers.ts): a
 * frame, link, IP or transport field that is not a meta field (ip.ttl, frame.interface_id, tcp.seq, eth.src…).
 */
export function isLayerKey(key: string): boolean {
  return inFrameGroups(key) && !META_KEYS.has(key) && !META_FAMILIES.has(key)
}

/** True when a filter or column on these keys reads the frames' layers (isLayerKey). */
export function needsLayers(keys: readonly string[]): boolean {
  return keys.some(isLayerKey)
}

/** The message's meta fields; `frame.len` and `frame.cap_len` only with its frames' lengths (`frames`). */
export function messageMetaFields(m: DecodedMessage, conv: Conversation, dir: WireDir, frames?: FrameLengths): Record<string, FieldScalar[]> {
  const { src, dst } = conv.endpoints(dir)
  const v6 = src.ip.includes(':')
  const ipKey = v6 ? 'ipv6' : 'ip'
  const t = conv.transport
  const out: Record<string, FieldScalar[]> = {
    'frame.number': m.frames,
    'frame.time_epoch': [m.time],
    [`${ipKey}.src`]: [src.ip],
    [`${ipKey}.dst`]: [dst.ip],
    [`${ipKey}.addr`]: [src.ip, dst.ip],
    [`${t}.srcport`]: [src.port],
    [`${t}.dstport`]: [dst.port],
    [`${t}.port`]: [src.port, dst.port],
    'gamewire.conversation': [m.conversation],
    'gamewire.direction': [m.direction],
    'gamewire.protocol': [m.protocol],
    'gamewire.name': [m.name],
    'gamewire.summary': [m.summary],
    'gamewire.length': [m.sources[m.layerSources ?? 0]?.bytes.length ?? 0]
  }
  if (frames) {
    out['frame.len'] = frameLengthValues('frame.len', m.frames, frames)
    out['frame.cap_len'] = frameLengthValues('frame.cap_len', m.frames, frames)
  }
  if (m.error) out['gamewire.error'] = [m.error]
  if (m.warnings.length) out['gamewire.warning'] = m.warnings
  return out
}
