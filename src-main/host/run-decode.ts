// Runs one decode job: streams the capture file through a DecodeSession and writes the export as text
// chunks. Plain Node, no worker specifics, so tests can run it in-process; decode-worker.ts wraps it.

import { createReadStream, statSync } from 'node:fs'
import { basename } from 'node:path'
import { DecodeSession } from '../../src-shared/engine/session'
import { JsonExportWriter } from '../../src-shared/export/json'
import { parseKeyFile } from '../../src-shared/keys/keyfile'
import { KeyStore } from '../../src-shared/keys/store'
import { toHex } from '../../src-shared/bytes/tree'
import type { DecodeJob } from './decode-job'

export interface DecodeResult {
  frames: number
  messages: number
  matched: number
  errors: number
  warnings: string[]
}

export interface DecodeIo {
  /** Receives export text as it is produced (once per message). Must not block. */
  write(text: string): void
  /** Called between input chunks and at the end: awaiting it applies backpressure to reading. */
  flush(): Promise<void> | void
  progress?(p: { bytes: number; total: number; frames: number; messages: number }): void
}

export async function runDecode(job: DecodeJob, io: DecodeIo): Promise<DecodeResult> {
  const total = statSync(job.file).size
  const keys = new KeyStore()
  if (job.keylog) keys.addAll(parseKeyFile(job.keylog).keys)
  const writer = new JsonExportWriter({
    format: job.format,
    includeSourceBytes: job.includeSourceBytes,
    keys: job.includeKeys
      ? keys.list().map((k) => ({ type: k.type, conversation: k.conversation === '*' ? '*' : `${k.conversation.client}-${k.conversation.server}`, key: toHex(k.key) + (k.iv ? ` ${toHex(k.iv)}` : '') }))
      : undefined
  })
  io.write(writer.begin())
  const only = job.ids ? new Set(job.ids) : undefined
  let written = 0
  const session = new DecodeSession({
    keys,
    filter: job.filter,
    decodeAs: job.decodeAs,
    onMessage: (m) => {
      if (only && !only.has(m.id)) return
      written++
      io.write(writer.message(m))
    }
  })
  let bytes = 0
  let lastProgress = 0
  const stream = createReadStream(job.file, { highWaterMark: 1 << 20 })
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    bytes += chunk.length
    session.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
    await io.flush()
    const now = Date.now()
    if (io.progress && now - lastProgress > 200) {
      lastProgress = now
      io.progress({ bytes, total, frames: session.engine.stats.frames, messages: session.engine.stats.messages })
    }
  }
  session.end()
  const stats = session.engine.stats
  const warnings = [...stats.warnings]
  const tail = writer.endChunks(
    { file: basename(job.file), frames: stats.frames, linkTypes: stats.linkTypes, warnings },
    session.engine.conversations(),
    { messages: written, errors: stats.errors }
  )
  for (const text of tail) {
    io.write(text)
    await io.flush()
  }
  return { frames: stats.frames, messages: stats.messages, matched: written, errors: stats.errors, warnings }
}
