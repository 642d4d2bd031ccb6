// Runs one decode job: streams the capture file through a DecodeSession and writes the export as UTF-8
// chunks. Plain Node, no worker specifics, so tests can run it in-process; decode-worker.ts wraps it.

import { withSessionLinks } from '../../src-shared/engine/session-links'
import type { ConversationList } from '../../src-shared/engine/conversation-table'
import { createReadStream, statSync } from 'node:fs'
import { basename } from 'node:path'
import { DecodeSession } from '../../src-shared/engine/session'
import { JsonExportWriter, type ExportSourceInfo } from '../../src-shared/export/json'
import { compileFilter } from '../../src-shared/filter'
import { parseKeyFile, type KeyEntry } from '../../src-shared/keys/keyfile'
import { KeyStore } from '../../src-shared/keys/store'
import { registerSchemaFields } from '../../src-shared/schema/set'
import { toHex } from '../../src-shared/bytes/tree'
import type { DecodeJob } from './decode-job'
import type { CaptureFrame, CaptureInterface } from '../../src-shared/capture/types'
import type { DecodedMessage } from '../../src-shared/model/types'
import { decodeDepth } from './view-matcher'
import { CaptureReader } from '../../src-shared/capture/reader'
import { WarningList } from '../../src-shared/engine/engine'
import { ShardPool } from './shard-pool'
import { amongFrames, type ReaderWarning } from './reader-warnings'

/** Export bytes are handed to DecodeIo.write in chunks of this size (and at every flush() once half full). */
export const OUTPUT_CHUNK = 1 << 20

export interface DecodeResult {
  frames: number
  messages: number
  matched: number
  errors: number
  warnings: string[]
}

export interface DecodeIo {
  /** Receives the export's bytes in chunks, and owns each chunk unless `reuse` is set. Must not block. */
  write(bytes: Uint8Array): void
  /** write() is done with the bytes when it returns (a synchronous file write): the buffer is reused. */
  reuse?: boolean
  /** Called between input chunks and at the end: awaiting it applies backpressure to reading. */
  flush(): Promise<void> | void
  progress?(p: { bytes: number; total: number; frames: number; messages: number }): void
}

/**
 * Frames a job decodes that are not read from its file: the app's stored frames of the open capture (a
 * live capture's, or a file's already read), with the capture reader's warnings from when they were read.
 */
export interface HeldFrames {
  name: string
  count: number
  frames(): Iterable<CaptureFrame>
  warnings: readonly ReaderWarning[]
  /** The app's shards run on its own thread (tests, as SessionCoreOptions.shardsInProcess). */
  shardsInProcess?: boolean
}

/** Feeds a job's frames (its file read as a stream, or `held`), letting `pause` wait between pieces. */
async function feed(
  job: DecodeJob,
  held: HeldFrames | undefined,
  sink: { frame(f: CaptureFrame): void; warn(w: string): void; iface?(i: CaptureInterface): void },
  pause: (done: number, total: number) => Promise<void>
): Promise<void> {
  if (held) {
    let n = 0
    for (const f of amongFrames(held.frames(), held.warnings, (w) => sink.warn(w))) {
      sink.frame(f)
      if (++n % 4096 === 0) await pause(n, held.count)
    }
    return
  }
  const total = statSync(job.file).size
  const reader = new CaptureReader({ onInterface: (i) => sink.iface?.(i), onFrame: (f) => sink.frame(f), onWarning: (w) => sink.warn(w) })
  let bytes = 0
  for await (const chunk of createReadStream(job.file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    bytes += chunk.length
    reader.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
    await pause(bytes, total)
  }
  if (bytes > 0) reader.end()
}

/**
 * The export writer of a job, its opening written: the format, the tree mode and, with --include-keys, the
 * job's keys in the tail. Every way of producing an export (one engine, shards, the app's replay of
 * chosen rows) starts here, so their documents are the same bytes.
 */
export function beginExport(job: DecodeJob, io: DecodeIo, keys: KeyStore): JsonExportWriter {
  const writer = new JsonExportWriter(
    {
      format: job.format,
      includeSourceBytes: job.includeSourceBytes,
      tree: job.tree,
      keys: job.includeKeys
        ? keys.list().map((k) => ({
            type: k.type,
            conversation: k.conversation === '*' ? '*' : `${k.conversation.client}-${k.conversation.server}`,
            key: toHex(k.key) + (k.iv ? ` ${toHex(k.iv)}` : '')
          }))
        : undefined
    },
    (bytes) => io.write(bytes),
    { chunkSize: OUTPUT_CHUNK, reuse: io.reuse }
  )
  writer.begin()
  return writer
}

/** Writes the export's tail (source, conversations with their session links, counts), waiting on io between pieces. */
export async function endExport(
  writer: JsonExportWriter,
  io: DecodeIo,
  source: ExportSourceInfo,
  conversations: ConversationList,
  stats: { messages: number; errors: number }
): Promise<void> {
  for (const _ of writer.endPieces(source, withSessionLinks(conversations), stats)) await io.flush()
  await io.flush()
}

/** A job's keys: its entries as given, or those of its key-file text. */
export function jobKeys(job: Pick<DecodeJob, 'keys' | 'keylog'>): readonly KeyEntry[] {
  return job.keys ?? (job.keylog ? parseKeyFile(job.keylog).keys : [])
}

export async function runDecode(job: DecodeJob, io: DecodeIo, held?: HeldFrames): Promise<DecodeResult> {
  // The packs' fields must be known before a filter that may name them compiles (here and in shardable).
  if (job.schemas?.length) registerSchemaFields(job.schemas)
  const name = held ? held.name : basename(job.file)
  const keys = new KeyStore()
  keys.addAll(jobKeys(job))
  const writer = beginExport(job, io, keys)
  if ((job.jobs ?? 1) > 1 && shardable(job)) return runSharded(job, io, writer, held)
  const only = job.ids ? new Set(job.ids) : undefined
  let written = 0
  let lastProgress = 0
  const session = await decodeOnThread(job, {
    keys,
    held,
    // Without trees in the output, trees are built only when the filter reads tree fields.
    recording: job.tree !== 'none',
    onMessage: (m) => {
      if (only && !only.has(m.id)) return
      written++
      writer.message(m)
    },
    pause: async (done, total, s) => {
      writer.flush(OUTPUT_CHUNK / 2)
      await io.flush()
      const now = Date.now()
      if (io.progress && now - lastProgress > 200) {
        lastProgress = now
        io.progress({ bytes: done, total, frames: s.engine.stats.frames, messages: s.engine.stats.messages })
      }
    }
  })
  const stats = session.engine.stats
  const warnings = [...stats.warnings]
  await endExport(writer, io, { file: name, frames: stats.frames, linkTypes: stats.linkTypes, warnings }, session.engine, {
    messages: written,
    errors: stats.errors
  })
  return { frames: stats.frames, messages: stats.messages, matched: written, errors: stats.errors, warnings }
}

export interface OnThreadOptions {
  keys: KeyStore
  held?: HeldFrames
  /** Build field trees (also built, whatever this says, when the job's filter reads tree fields). */
  recording: boolean
  /** Each message the job's filter passes, in export order. */
  onMessage(m: DecodedMessage): void
  /** Awaited between input pieces: where the consumer hands its output on (backpressure) and reports progress. */
  pause(done: number, total: number, session: DecodeSession): Promise<void>
}

/**
 * A job's messages decoded by one engine on this thread: the export's pipeline (reader, session, filter,
 * decode-as) for any consumer of DecodedMessage objects (the JSON export, the SQL tables). Returns the
 * ended session for its stats and conversations.
 */
export async function decodeOnThread(job: DecodeJob, o: OnThreadOptions): Promise<DecodeSession> {
  if (job.schemas?.length) registerSchemaFields(job.schemas)
  const filter = job.filter?.trim() ? compileFilter(job.filter) : undefined
  const session = new DecodeSession({
    keys: o.keys,
    schemas: job.schemas,
    filter,
    decodeAs: job.decodeAs,
    ...decodeDepth(o.recording, filter),
    layers: job.layers,
    onMessage: o.onMessage
  })
  await feed(job, o.held, { frame: (f) => session.addFrame(f), warn: (w) => session.engine.warn(w), iface: (i) => session.interfaces.push(i) }, (done, total) =>
    o.pause(done, total, session)
  )
  session.end()
  return session
}

/**
 * Whether a job can be decoded in shards with the same result: not when it names messages or conversations
 * by id (selected ids, decode-as by conversation id, a filter on gamewire.conversation), since shards learn
 * the global ids only at the merge.
 */
export function shardable(job: Pick<DecodeJob, 'ids' | 'decodeAs' | 'filter'>): boolean {
  if (job.ids) return false
  if (job.decodeAs?.some((r) => typeof r.match === 'number')) return false
  if (job.filter?.trim() && compileFilter(job.filter).fields.includes('gamewire.conversation')) return false
  return true
}

/** The same job over a pool of shard workers (see shard-pool.ts): byte-identical output. */
async function runSharded(job: DecodeJob, io: DecodeIo, writer: JsonExportWriter, held: HeldFrames | undefined): Promise<DecodeResult> {
  const keys = jobKeys(job)
  const warnings = new WarningList()
  let written = 0
  const pool = new ShardPool(
    job.jobs!,
    {
      mode: 'export',
      keys,
      schemas: job.schemas,
      decodeAs: job.decodeAs,
      filter: job.filter,
      includeSourceBytes: job.includeSourceBytes,
      tree: job.tree,
      layers: job.layers
    },
    {
      body: (id, conversation, body) => {
        if (body === null) return
        written++
        writer.messageBody(id, conversation, body)
      },
      warning: (w) => warnings.add(w)
    },
    held?.shardsInProcess
  )
  try {
    let lastProgress = 0
    await feed(job, held, { frame: (f) => pool.push(f), warn: (w) => pool.warn(w), iface: (i) => pool.addInterface(i) }, async (done, total) => {
      await pool.drain()
      writer.flush(OUTPUT_CHUNK / 2)
      await io.flush()
      const now = Date.now()
      if (io.progress && now - lastProgress > 200) {
        lastProgress = now
        io.progress({ bytes: done, total, frames: pool.frames, messages: pool.messages })
      }
    })
    const r = await pool.end()
    const name = held ? held.name : basename(job.file)
    await endExport(writer, io, { file: name, frames: r.frames, linkTypes: r.linkTypes, warnings: warnings.list }, r.conversations, {
      messages: written,
      errors: r.errors
    })
    return { frames: r.frames, messages: r.messages, matched: written, errors: r.errors, warnings: warnings.list }
  } finally {
    pool.close()
  }
}
