// `gamewire stats`: a capinfos-like overview of what gamewire finds in a capture, plus the memory the
// UI's row index needs for it (the benchmark reads this).

import { createReadStream, statSync } from 'node:fs'
import { basename } from 'node:path'
import { DecodeSession } from '../../src-shared/engine/session'
import { MessageIndex } from '../../src-shared/engine/message-index'
import { CaptureReader } from '../../src-shared/capture/reader'
import { WarningList } from '../../src-shared/engine/engine'
import type { ConversationList } from '../../src-shared/engine/conversation-table'
import { ShardPool } from './shard-pool'
import type { KeyStore } from '../../src-shared/keys/store'
import type { SchemaPack } from '../../src-shared/schema/types'
import type { DecodeAsRule } from '../../src-shared/engine/engine'
import { OperationsCollector, type OperationsReport } from '../../src-shared/analysis/operations'

export interface CaptureStats {
  file: string
  bytes: number
  frames: number
  messages: number
  errors: number
  seconds: number
  protocols: Record<string, number>
  /** Read one summary at a time (`conversations()`): a list of a million is not held as objects. */
  conversations: ConversationList
  warnings: string[]
  index: { bytesPerMessage: number; columnBytesPerMessage: number; heapBytesPerMessage: number }
  /** With `ops`: requests, responses and latency per operation, overall and per conversation. */
  operations?: OperationsReport
}

const gc = (globalThis as { gc?: () => void }).gc

/**
 * Decodes a capture without trees, as the app's index pass does; with `jobs` > 1 in that many shard workers.
 * `keys` decrypt what they cover, as in `decode --keylog` (the index pass then costs what the app's does).
 */
export async function captureStats(
  path: string,
  o: {
    keys?: KeyStore
    schemas?: SchemaPack[]
    jobs?: number
    decodeAs?: DecodeAsRule[]
    ops?: boolean
    progress?: (p: { bytes: number; total: number; messages: number }) => void
  } = {}
): Promise<CaptureStats> {
  // Rules naming conversation ids need one engine's numbering (as for decode --jobs); the operations need
  // every message's value, which only a decoder in this thread hands over.
  const jobs = o.ops || o.decodeAs?.some((r) => typeof r.match === 'number') ? 1 : (o.jobs ?? 1)
  const ops = o.ops ? new OperationsCollector() : undefined
  const total = statSync(path).size
  let read = 0
  const progress = (n: number) => {
    read += n
    o.progress?.({ bytes: read, total, messages: index.count })
  }
  const started = performance.now()
  gc?.()
  const heapBefore = process.memoryUsage().heapUsed
  const index = new MessageIndex()
  const protocols: Record<string, number> = {}
  const count = (protocol: string) => (protocols[protocol] = (protocols[protocol] ?? 0) + 1)
  let frames: number
  let errors: number
  let conversations: ConversationList
  let warnings: string[]
  const chunks = () => createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>
  if (jobs > 1) {
    const list = new WarningList()
    const pool = new ShardPool(
      jobs,
      { mode: 'index', keys: [...(o.keys?.list() ?? [])], schemas: o.schemas, decodeAs: o.decodeAs },
      {
        conversation: (id, ends) => index.setEnds(id, ends),
        row: (_id, row) => {
          index.add(row, undefined, row.wireDir)
          count(row.protocol)
        },
        warning: (w) => list.add(w)
      }
    )
    try {
      const reader = new CaptureReader({ onFrame: (f) => pool.push(f), onWarning: (w) => pool.warn(w) })
      let bytes = 0
      for await (const chunk of chunks()) {
        bytes += chunk.length
        reader.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
        await pool.drain()
        progress(chunk.length)
      }
      if (bytes > 0) reader.end()
      const r = await pool.end()
      ;({ frames, errors } = r)
      conversations = r.conversations
      warnings = list.list
    } finally {
      pool.close()
    }
  } else {
    const session = new DecodeSession({
      keys: o.keys,
      schemas: o.schemas,
      decodeAs: o.decodeAs,
      recording: false,
      onMessage: (m, conv, dir) => {
        index.add(m, conv, dir)
        count(m.protocol)
        ops?.add(m)
      }
    })
    for await (const chunk of chunks()) {
      session.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
      progress(chunk.length)
    }
    session.end()
    frames = session.engine.stats.frames
    errors = session.engine.stats.errors
    conversations = session.engine
    warnings = session.engine.stats.warnings
  }
  index.trim()
  gc?.()
  const heapAfter = process.memoryUsage().heapUsed
  const n = Math.max(1, index.count)
  return {
    file: basename(path),
    bytes: total,
    frames,
    messages: index.count,
    errors,
    seconds: (performance.now() - started) / 1000,
    protocols,
    conversations,
    warnings,
    index: {
      bytesPerMessage: index.byteSize() / n,
      columnBytesPerMessage: index.columnBytes() / n,
      // Includes what the engine still holds (conversation state), so it is an upper bound.
      heapBytesPerMessage: Math.max(0, heapAfter - heapBefore) / n
    },
    ...(ops ? { operations: ops.report() } : {})
  }
}
