// What a decode job is told to do, shared by the CLI (which checks it) and the worker (which runs it).

import { CaptureFormatError } from '../../src-shared/capture/types'
import type { DecodeAsRule } from '../../src-shared/engine/engine'
import type { ExportFormat, TreeMode } from '../../src-shared/export/json'
import type { SchemaPack } from '../../src-shared/schema/types'
import type { KeyEntry } from '../../src-shared/keys/keyfile'

export interface DecodeJob {
  file: string
  format: ExportFormat
  /** Key-file text (already checked by the caller). */
  keylog?: string
  /**
   * Keys as entries, instead of `keylog`: the app's session keys, each still naming the key-file line it
   * came from (0 for one added in the app), as the labels of the session's own trees do. Key-file text
   * made from them would number its lines afresh.
   */
  keys?: readonly KeyEntry[]
  /** Schema packs (already validated by the caller). */
  schemas?: SchemaPack[]
  filter?: string
  decodeAs?: DecodeAsRule[]
  includeKeys?: boolean
  includeSourceBytes?: boolean
  /** 'none': messages without their field tree (default 'full'). */
  tree?: TreeMode
  /** Each message's frames first in its tree and sources (frame, link, IP, UDP/TCP; `--layers`). */
  layers?: boolean
  /** Only these message ids (the UI's "export selected"). */
  ids?: number[]
  /** Decode in this many shard workers (1 or absent: one engine on the job's own thread). */
  jobs?: number
}

/** Messages from the worker to its host. */
export type WorkerReport =
  | { type: 'out'; bytes: Uint8Array; seq: number }
  | { type: 'progress'; bytes: number; total: number; frames: number; messages: number }
  | { type: 'done'; frames: number; messages: number; matched: number; errors: number; warnings: string[] }
  | { type: 'fatal'; message: string }

/** Messages from the host to the worker: acknowledges output up to `seq` (flow control). */
export type HostReply = { type: 'ack'; seq: number }

/** What a worker reports for an error: a user's mistake (a file that is not a capture, a bad key file or filter) as it is, else an internal error. */
export function workerFailure(e: unknown): string {
  const err = e as Error
  return err instanceof CaptureFormatError || err.name === 'KeyFileError' || err.name === 'FilterError' ? err.message : `internal error: ${err.message}`
}
