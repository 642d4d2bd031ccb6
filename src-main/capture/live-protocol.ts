// The messages between a LiveCaptureHost and its capture process (capture-process.ts). Plain data that
// survives structured clone (child_process 'advanced' serialization, or Electron's utilityProcess).

import type { DecodeAsRule } from '../../src-shared/engine/engine'
import type { IndexRow } from '../../src-shared/engine/message-index'
import type { TreeMode } from '../../src-shared/export/json'
import type { SchemaPack } from '../../src-shared/schema/types'
import { validateSchemaPack } from '../../src-shared/schema/validate'
import type { RingLimits } from '../../src-shared/net/frame-ring'
import type { CaptureErrorKind } from './live'

export interface LiveOutputOptions {
  /** NDJSON of every message (the `gamewire decode --format ndjson` lines, UTF-8). Builds field trees unless `tree` is 'none'. */
  ndjson?: boolean
  /** With ndjson: 'none' writes messages without their field tree (default 'full'). */
  tree?: TreeMode
  /** Compact rows for a message list. */
  rows?: boolean
  /** The raw frames, for a host that keeps its own frame store and engine. */
  frames?: boolean
  /** With ndjson: add each data source's bytes as hex. */
  includeSourceBytes?: boolean
}

export interface LiveStartOptions {
  device: string
  /** BPF capture filter (presets already folded in, see presets.ts captureFilter). */
  filter?: string
  snapLen?: number
  promiscuous?: boolean
  /** libpcap buffer in bytes. */
  bufferSize?: number
  /** gamewire display filter: only matching messages are sent. */
  displayFilter?: string
  /** Key-file text loaded before the first frame. */
  keylog?: string
  /** Schema packs loaded before the first frame (checked here again: they cross a process boundary). */
  schemas?: SchemaPack[]
  decodeAs?: DecodeAsRule[]
  /** Write every frame to this pcapng file while capturing (`-w`). */
  writeFile?: string
  /** Frames kept for save(); null keeps none (save() then fails). Default: the FrameRing defaults. */
  ring?: RingLimits | null
  output?: LiveOutputOptions
  /** How often batches are sent (default 200 ms). */
  batchMs?: number
  /**
   * Only read libpcap and forward the raw frames (`output.frames`, plus libpcap's counters): no decoder
   * worker. For a host that decodes the frames itself (the app's SessionCore), so no frame is decoded
   * twice. The decoding options (displayFilter, keylog, decodeAs, output.ndjson/rows) are refused with it.
   */
  forwardOnly?: boolean
  /** Stop after this many frames (`--count`). */
  maxFrames?: number
  /** Stop after this long (`--duration`). */
  durationMs?: number
}

export interface LiveStats {
  device: string
  seconds: number
  /** Frames libpcap delivered. */
  received: number
  truncated: number
  /** libpcap's drop counters: null, the cap binding does not expose pcap_stats. */
  dropped: number | null
  ifDropped: number | null
  /** The decoder's counters: messages, matched, errors, conversations and decodeBacklog stay 0 with forwardOnly. */
  messages: number
  /** Messages that passed the display filter. */
  matched: number
  errors: number
  conversations: number
  /** Frames captured and not decoded yet. */
  decodeBacklog: number
  /** Frames not decoded because the decoder's backlog hit its bound (still written with -w and kept in the ring). */
  decodeDropped: number
  ringFrames: number
  ringBytes: number
  /** Frames the ring limit pushed out (no longer in a save()). */
  ringDropped: number
  /** Messages not sent because the host fell behind and the pending output hit its bound. */
  outputDropped: number
  /** Frames not sent to a host that asked for frames, for the same reason. */
  framesNotSent: number
  /** Frames written to the -w file. */
  written: number
}

/** Frames of one batch, packed: `meta` holds 5 numbers per frame (number, tsSec, tsNsec, originalLength, capturedLength) and `data` their bytes back to back. */
export interface PackedFrames {
  linkType: number
  meta: Float64Array
  data: Uint8Array
}

export interface LiveBatch {
  seq: number
  /** Whole NDJSON lines, UTF-8. */
  ndjson?: Uint8Array
  /**
   * A piece of the NDJSON summary line `{"summary": {...}}` and its newline, UTF-8. The line comes in
   * the last batches, after every message, split across as many as its conversation list needs.
   */
  summary?: Uint8Array
  rows?: IndexRow[]
  frames?: PackedFrames
  stats: LiveStats
}

export interface LiveStarted {
  device: string
  linkType: number
  linkTypeName: string
  filter: string
  warnings: string[]
}

export type StopReason = 'requested' | 'count' | 'duration' | 'parent-gone'

export interface LiveStopped {
  reason: StopReason
  stats: LiveStats
  warnings: string[]
}

export type LiveFailureKind = CaptureErrorKind | 'unavailable' | 'output' | 'internal'

/** Capture process → host. */
export type CaptureReport =
  | ({ type: 'started' } & LiveStarted)
  | ({ type: 'batch' } & LiveBatch)
  | { type: 'keys'; id: number; added: number; total: number; warnings: string[] }
  | { type: 'saved'; id: number; path: string; frames: number }
  | { type: 'request-failed'; id: number; message: string }
  | ({ type: 'stopped' } & LiveStopped)
  | { type: 'fatal'; kind: LiveFailureKind; message: string }

/** Host → capture process. */
export type CaptureCommand =
  | { type: 'start'; options: LiveStartOptions }
  | { type: 'ack'; seq: number }
  | { type: 'add-keys'; id: number; text: string }
  | { type: 'save'; id: number; path: string }
  | { type: 'stop' }

export const FRAME_META_FIELDS = 5

/**
 * Checks start options that may come from an untrusted side (the renderer, a browser): types, ranges,
 * sizes. Throws RangeError with one line; the device, filter, snapLen and buffer size are checked again
 * by LiveCapture when it opens the device.
 */
export function checkStartOptions(o: LiveStartOptions): LiveStartOptions {
  const fail = (what: string): never => {
    throw new RangeError(`capture options: ${what}`)
  }
  if (typeof o !== 'object' || o === null) fail('expected an object')
  if (typeof o.device !== 'string') fail('device must be a string')
  for (const k of ['filter', 'displayFilter', 'keylog', 'writeFile'] as const) {
    const v = o[k]
    if (v !== undefined && (typeof v !== 'string' || v.includes('\0') || v.length > (k === 'keylog' ? 1 << 24 : 65536)))
      fail(`${k} must be text without NUL bytes`)
  }
  const positiveInt = (v: unknown, k: string) => {
    if (v !== undefined && (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1)) fail(`${k} must be a positive integer`)
  }
  positiveInt(o.maxFrames, 'maxFrames')
  positiveInt(o.snapLen, 'snapLen')
  positiveInt(o.bufferSize, 'bufferSize')
  if (o.durationMs !== undefined && (typeof o.durationMs !== 'number' || !Number.isFinite(o.durationMs) || o.durationMs < 0 || o.durationMs > 2 ** 31 - 1))
    fail('durationMs must be 0..2^31-1')
  if (o.batchMs !== undefined && (typeof o.batchMs !== 'number' || !Number.isFinite(o.batchMs))) fail('batchMs must be a number')
  if (o.ring !== undefined && o.ring !== null) {
    if (typeof o.ring !== 'object') fail('ring must be {frames?, bytes?} or null')
    positiveInt(o.ring.frames, 'ring.frames')
    positiveInt(o.ring.bytes, 'ring.bytes')
  }
  if (o.schemas !== undefined) {
    if (!Array.isArray(o.schemas) || o.schemas.length > 100) fail('schemas must be a list of at most 100 packs')
    o.schemas.forEach((p, i) => {
      try {
        validateSchemaPack(p)
      } catch (e) {
        fail(`schemas[${i}]: ${(e as Error).message}`)
      }
    })
  }
  if (o.decodeAs !== undefined && (!Array.isArray(o.decodeAs) || o.decodeAs.length > 1000)) fail('decodeAs must be a list')
  const tree = o.output?.tree
  if (tree !== undefined && tree !== 'full' && tree !== 'none') fail("output.tree must be 'full' or 'none'")
  if (o.forwardOnly !== undefined && typeof o.forwardOnly !== 'boolean') fail('forwardOnly must be a boolean')
  if (o.forwardOnly) {
    // Nothing decodes in a forward-only capture: options that only a decoder would use are a mistake.
    if (!o.output?.frames) fail('forwardOnly needs output.frames')
    for (const k of ['displayFilter', 'keylog', 'decodeAs', 'schemas'] as const) if (o[k] !== undefined) fail(`${k} needs a decoder (not with forwardOnly)`)
    if (o.output?.ndjson || o.output?.rows) fail('output.ndjson and output.rows need a decoder (not with forwardOnly)')
  }
  return o
}

/** Unpacks a batch's frames. */
export function unpackFrames(p: PackedFrames): { number: number; linkType: number; tsSec: number; tsNsec: number; originalLength: number; data: Uint8Array }[] {
  const out = []
  let off = 0
  for (let i = 0; i + FRAME_META_FIELDS <= p.meta.length; i += FRAME_META_FIELDS) {
    const len = p.meta[i + 4]
    out.push({
      number: p.meta[i],
      linkType: p.linkType,
      tsSec: p.meta[i + 1],
      tsNsec: p.meta[i + 2],
      originalLength: p.meta[i + 3],
      data: p.data.subarray(off, off + len)
    })
    off += len
  }
  return out
}
