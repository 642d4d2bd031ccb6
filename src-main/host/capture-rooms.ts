// `gamewire rooms`: decodes a capture with the same DecodeSession as `stats` (no trees: the Photon values
// are what the room analysis reads) and hands the Photon messages to analyzeRooms.

import { createReadStream } from 'node:fs'
import { DecodeSession } from '../../src-shared/engine/session'
import { analyzeRooms, type RoomsDocument, type RoomsMessage } from '../../src-shared/analysis/photon-rooms'
import type { KeyStore } from '../../src-shared/keys/store'
import type { DecodeAsRule } from '../../src-shared/engine/engine'

/** Only what the analysis reads is kept: Photon operations, events and disconnects, without trees or sources. */
function wanted(m: { protocol: string; value: unknown }): boolean {
  if (m.protocol !== 'photon') return false
  const v = m.value as { msgType?: number | null; command?: string | null } | null
  return !!v && ((v.msgType !== undefined && v.msgType !== null && v.msgType >= 2 && v.msgType <= 4) || v.command === 'DISCONNECT')
}

export async function captureRooms(path: string, o: { keys?: KeyStore; decodeAs?: DecodeAsRule[] } = {}): Promise<{ doc: RoomsDocument; warnings: string[] }> {
  const messages: RoomsMessage[] = []
  const session = new DecodeSession({
    keys: o.keys,
    decodeAs: o.decodeAs,
    recording: false,
    onMessage: (m) => {
      if (wanted(m)) messages.push({ id: m.id, conversation: m.conversation, direction: m.direction, frames: m.frames, time: m.time, protocol: m.protocol, value: m.value, error: m.error })
    }
  })
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    session.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
  }
  session.end()
  const conversations = session.engine.conversationList().map((c) => ({ id: c.id, server: c.server }))
  return { doc: analyzeRooms(messages, conversations), warnings: session.engine.stats.warnings }
}
