// The seam between a datagram transport (ENet, LiteNetLib) and the protocol its payloads carry (FigNet).
// The transport owns datagrams, commands, fragments, sequence numbers and ACKs; each payload it delivers
// (whole or reassembled) is handed to a CarriedDecoder, which reads it into the same message draft.

import type { FieldReader, DecodeError } from '../bytes/reader'
import type { MessageDraft } from '../bytes/tree'
import type { WireDir } from './registry'

/** One payload a transport delivers to the protocol above it. */
export interface CarriedPayload {
  dir: WireDir
  /** Transport channel id as on the wire (ENet channelID; LiteNetLib channel number, not the raw id). */
  channel: number
  /** Delivery as the transport names it: Reliable, Unreliable, Unsequenced, ReliableOrdered, Sequenced, … */
  delivery: string
  /** Frame that completed the payload and its time (epoch seconds). */
  frame: number
  time: number
}

/** What the carried protocol made of one payload. */
export interface CarriedResult {
  /** Protocol name for the message (e.g. 'fignet'); also appended to the stack. */
  protocol: string
  name: string
  summary: string
  /** The protocol's typed value; the transport adds `channel` and `delivery` to it. */
  value: Record<string, unknown>
  /** Set when reading stopped early; the fields read so far stay in the draft. */
  error?: DecodeError
}

export interface CarriedDecoder {
  /** Reads one payload from `r` (its window is exactly the payload) into `draft`. Must not throw. */
  decode(r: FieldReader, draft: MessageDraft, payload: CarriedPayload): CarriedResult
}
