// Opens a capture file and summarises it (frames, messages, conversations) for the app window.
// Runs the engine's fast row pass (no field trees); message detail is built on demand by the UI issue's
// engine host.

import { createReadStream, statSync } from 'node:fs'
import { basename } from 'node:path'
import type { CaptureSummary, CaptureProgress } from '../../src-shared/api'
import { DecodeSession } from '../../src-shared/engine/session'

export async function summarizeCapture(path: string, onProgress?: (p: CaptureProgress) => void): Promise<CaptureSummary> {
  const total = statSync(path).size
  let messages = 0
  const session = new DecodeSession({ recording: false, onMessage: () => void messages++ })
  let bytes = 0
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    bytes += chunk.length
    session.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
    onProgress?.({ bytes, total })
  }
  session.end()
  const stats = session.engine.stats
  return { file: basename(path), frames: stats.frames, messages, conversations: session.engine.conversationList(), warnings: stats.warnings }
}
