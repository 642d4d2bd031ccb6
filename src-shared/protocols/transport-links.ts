// What the datagram transports with ENet's reliability model (Photon UDP, ENet) do alike around their
// commands: a reliable command seen again is marked as a retransmission, an ACK is linked to the command it
// acknowledges (with the round trip), fragments are reassembled into a new data source, and reassemblies
// that never completed are described at the end of the capture. The state lives in net/reliability.ts and
// net/fragments.ts; this adds the warnings, tree links and error texts, so both decoders word them alike.
// Summaries stay with each decoder.

import { defineField, type FieldDef } from '../bytes/fields'
import type { DecodeError } from '../bytes/reader'
import { MessageDraft, type TreeSwitch } from '../bytes/tree'
import { FragmentAssembler, type FragmentHeader, type FragmentLimits, type IncompleteReassembly } from '../net/fragments'
import { ReliabilityTracker, type ReliabilityLimits } from '../net/reliability'
import type { Pdu, WireDir } from './registry'

const round = (ms: number) => Math.round(ms * 1000) / 1000

/** A fresh draft for the i-th message of a datagram: the first reuses the engine's draft, the others hold the datagram again. */
export function commandDraft(pdu: Pdu, i: number, trees: TreeSwitch, sourceName = 'UDP payload'): { draft: MessageDraft; source: number } {
  if (i === 0) return { draft: pdu.draft, source: pdu.source }
  const draft = new MessageDraft(trees)
  return { draft, source: draft.addSource(sourceName, pdu.bytes) }
}

/** A DecodeError as a message's one-line `error`, with its offset. */
export function errorLine(e: DecodeError): string {
  return /offset \d/.test(e.message) ? e.message : `${e.message} (offset ${e.offset})`
}

export interface AckLink {
  /** Frame of the acknowledged command (its first transmission). */
  acknowledges?: number
  rttMs?: number
  duplicate?: boolean
  /** For summaries: " → frame 5 (33.056 ms)", or '' when the command was not seen. */
  text: string
}

/** Reliable sequence numbers and ACKs of one conversation, both directions. */
export class ReliableLinks {
  readonly tracker: ReliabilityTracker

  /** `ackFrame`: the tree field that carries the acknowledged frame. */
  constructor(
    private readonly ackFrame: FieldDef,
    limits: ReliabilityLimits = {}
  ) {
    this.tracker = new ReliabilityTracker(limits)
  }

  /** A reliable command in `frame`: returns the frame it retransmits (and warns on the draft), if it is a retransmission. */
  reliable(draft: MessageDraft, dir: WireDir, channel: number, seq: number, frame: number, time: number): number | undefined {
    const rel = this.tracker.reliable(dir, channel, seq, frame, time)
    if (rel.retransmissionOf === undefined) return undefined
    draft.warn(`retransmission (transmission ${rel.transmission}) of reliable seq ${seq} on channel ${channel}, first sent in frame ${rel.retransmissionOf}`)
    return rel.retransmissionOf
  }

  /** An ACK in `dir` for `seq` on `channel`: links it to the command it acknowledges, in the tree and the result. */
  ack(draft: MessageDraft, dir: WireDir, channel: number, seq: number, time: number): AckLink {
    const a = this.tracker.ack(dir, channel, seq, time)
    if (a.ackedMessage === undefined) return { text: '' }
    const rtt = a.rttMs !== undefined ? ` (${round(a.rttMs)} ms)` : ''
    if (draft.tree.recording) {
      draft.tree.add({
        key: this.ackFrame.key,
        label: draft.tree.labels
          ? `Acknowledges the command in frame ${a.ackedMessage}${a.rttMs !== undefined ? `, round trip ${round(a.rttMs)} ms` : ''}${a.duplicate ? ' (acknowledged before)' : ''}`
          : '',
        type: this.ackFrame.type,
        value: a.ackedMessage
      })
    }
    const out: AckLink = { acknowledges: a.ackedMessage, text: ` → frame ${a.ackedMessage}${rtt}` }
    if (a.rttMs !== undefined) out.rttMs = round(a.rttMs)
    if (a.duplicate) out.duplicate = true
    return out
  }

  clear(): void {
    this.tracker.clear()
  }
}

/** One reassembly stream: its own assembler per direction, and how its start sequences are named. */
export interface FragmentLane {
  /** How a start sequence of this lane reads in texts, e.g. `start seq 2` (the default). */
  describe?(startSeq: number): string
  limits?: FragmentLimits
}

export type FragmentOutcome =
  | { kind: 'complete'; bytes: Uint8Array; source: number; frames: number[]; time: number; count: number }
  | { kind: 'pending'; received: number; count: number }
  | { kind: 'duplicate' }
  | { kind: 'error'; message: string }

export interface IncompleteInLane {
  dir: WireDir
  lane: string
  inc: IncompleteReassembly
  /** "fragmented message start seq 4 on channel 0 never completed: 2 of 3 fragments missing (1)" */
  error: string
}

const defaultDescribe = (startSeq: number) => `startSeq ${startSeq}`

/** Fragment reassembly for one conversation: per lane (reliable/unreliable kinds) and direction. */
export class FragmentLinks {
  /** By `${dir}:${lane}`, made on first use. */
  private assemblerMap: Map<string, FragmentAssembler> | undefined

  /**
   * `reassembled`: the tree field for the reassembled bytes; `sourceName`: the name of the reassembled data
   * source; `lanes`: the reassembly streams (a transport with one kind of fragment uses one).
   */
  constructor(
    private readonly reassembled: FieldDef,
    private readonly sourceName: string,
    private readonly lanes: Record<string, FragmentLane>
  ) {}

  private assembler(dir: WireDir, lane: string): FragmentAssembler {
    const k = `${dir}:${lane}`
    const assemblers = (this.assemblerMap ??= new Map())
    let a = assemblers.get(k)
    if (!a) {
      a = new FragmentAssembler(this.lanes[lane]?.limits)
      assemblers.set(k, a)
    }
    return a
  }

  private describe(lane: string, startSeq: number): string {
    return (this.lanes[lane]?.describe ?? defaultDescribe)(startSeq)
  }

  /**
   * One fragment: warns about reassemblies evicted to bound memory, and on completion adds the reassembled
   * bytes as a source of `draft` with a tree node listing the fragments' frames.
   */
  add(draft: MessageDraft, dir: WireDir, lane: string, channel: number, frag: FragmentHeader, data: Uint8Array, frame: number, time: number): FragmentOutcome {
    const res = this.assembler(dir, lane).add(channel, frag, data, frame, time)
    for (const ev of res.evicted ?? []) {
      draft.warn(
        `gave up on fragmented message ${this.describe(lane, ev.startSeq)} (channel ${ev.channel}): ${ev.received} of ${ev.count} fragments held too much memory`
      )
    }
    switch (res.kind) {
      case 'complete': {
        const source = draft.addSource(this.sourceName, res.bytes)
        if (draft.tree.recording) {
          draft.tree.add({
            key: this.reassembled.key,
            label: `Reassembled from ${res.pieces.length} fragments in frames ${res.frames.join(', ')}: ${res.bytes.length} bytes`,
            type: this.reassembled.type,
            value: res.bytes,
            source,
            start: 0,
            length: res.bytes.length
          })
        }
        return { kind: 'complete', bytes: res.bytes, source, frames: res.frames, time: res.time, count: res.pieces.length }
      }
      case 'duplicate':
        draft.warn('duplicate fragment (already received)')
        return res
      case 'error': {
        // The assembler names the start sequence as a plain number; a lane may name it differently.
        const plain = `start seq ${frag.startSeq}`
        const message = this.lanes[lane]?.describe ? res.message.split(plain).join(this.describe(lane, frag.startSeq)) : res.message
        return { kind: 'error', message }
      }
      default:
        return { kind: 'pending', received: res.received, count: res.count }
    }
  }

  /** Every reassembly that never completed (evicted ones included), per direction and lane. */
  incomplete(): IncompleteInLane[] {
    const out: IncompleteInLane[] = []
    for (const dir of ['a2b', 'b2a'] as const) {
      for (const lane of Object.keys(this.lanes)) {
        const a = this.assemblerMap?.get(`${dir}:${lane}`)
        if (!a) continue
        for (const inc of a.incomplete()) out.push({ dir, lane, inc, error: incompleteError(inc, this.describe(lane, inc.startSeq)) })
      }
    }
    return out
  }

  clear(): void {
    for (const a of this.assemblerMap?.values() ?? []) a.clear()
  }
}

/** The error line of a reassembly that never completed. */
export function incompleteError(inc: IncompleteReassembly, start = defaultDescribe(inc.startSeq)): string {
  const missing = `${inc.missingCount} of ${inc.count} fragments missing (${inc.missing.join(', ')}${inc.missingCount > inc.missing.length ? ', …' : ''})`
  return `fragmented message ${start} on channel ${inc.channel} never completed: ${missing}${inc.state === 'evicted' ? '; dropped to bound memory' : ''}`
}

/** Which of several messages in one datagram this is: a fact about the datagram, not a warning. */
export const F_DATAGRAM_INDEX = defineField('datagram.index', 'Position in the datagram', 'u8', {
  description: '1-based position of this command/packet among those its datagram carries'
})

/** Records "command 2 of 3 in this datagram" as a zero-length field at the unit's start, when there are several. */
export function markPosition(draft: MessageDraft, source: number, at: number, i: number, n: number, unit = 'command'): void {
  if (n < 2 || !draft.tree.recording) return
  draft.tree.add({
    key: F_DATAGRAM_INDEX.key,
    label: draft.tree.labels ? `${unit[0].toUpperCase()}${unit.slice(1)} ${i + 1} of ${n} in this datagram` : '',
    type: 'u8',
    value: i + 1,
    source,
    start: at,
    length: 0
  })
}
