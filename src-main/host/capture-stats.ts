// `gamewire stats`: a capinfos-like overview of what gamewire finds in a capture, plus the memory the
// UI's row index needs for it (the benchmark reads this).

import { createReadStream, statSync } from 'node:fs'
import { basename } from 'node:path'
import { DecodeSession } from '../../src-shared/engine/session'
import { MessageIndex } from '../../src-shared/engine/message-index'
import type { ConversationInfo } from '../../src-shared/model/types'
import type { KeyStore } from '../../src-shared/keys/store'

export interface CaptureStats {
  file: string
  bytes: number
  frames: number
  messages: number
  errors: number
  seconds: number
  protocols: Record<string, number>
  conversations: ConversationInfo[]
  warnings: string[]
  index: { bytesPerMessage: number; columnBytesPerMessage: number; heapBytesPerMessage: number }
}

const gc = (globalThis as { gc?: () => void }).gc

/** `keys` decrypt what they cover, as in `decode --keylog` (the index pass then costs what the app's does). */
export async function captureStats(path: string, o: { keys?: KeyStore } = {}): Promise<CaptureStats> {
  const started = performance.now()
  gc?.()
  const heapBefore = process.memoryUsage().heapUsed
  const index = new MessageIndex()
  const protocols: Record<string, number> = {}
  const session = new DecodeSession({
    keys: o.keys,
    recording: false,
    onMessage: (m) => {
      index.add(m)
      protocols[m.protocol] = (protocols[m.protocol] ?? 0) + 1
    }
  })
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    session.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
  }
  session.end()
  const conversations = session.engine.conversationList()
  gc?.()
  const heapAfter = process.memoryUsage().heapUsed
  const n = Math.max(1, index.count)
  return {
    file: basename(path),
    bytes: statSync(path).size,
    frames: session.engine.stats.frames,
    messages: index.count,
    errors: session.engine.stats.errors,
    seconds: (performance.now() - started) / 1000,
    protocols,
    conversations,
    warnings: session.engine.stats.warnings,
    index: {
      bytesPerMessage: index.byteSize() / n,
      columnBytesPerMessage: MessageIndex.BYTES_PER_ROW,
      // Includes what the engine still holds (conversation state), so it is an upper bound.
      heapBytesPerMessage: Math.max(0, heapAfter - heapBefore) / n
    }
  }
}
