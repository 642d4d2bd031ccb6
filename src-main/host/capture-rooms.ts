// `gamewire rooms`: decodes a capture through the export's one-thread pipeline (no trees: the Photon values
// are what the room analysis reads) and hands the Photon messages to analyzeRooms.

import { KeyStore } from '../../src-shared/keys/store'
import type { SchemaPack } from '../../src-shared/schema/types'
import { decodeOnThread } from './run-decode'
import { analyzeRooms, type RoomsDocument, type RoomsMessage } from '../../src-shared/analysis/photon-rooms'
import type { DecodeAsRule } from '../../src-shared/engine/engine'

/** Only what the analysis reads is kept (the app's Rooms panel keeps the same): Photon operations, events and disconnects, without trees or sources. */
function wanted(m: { protocol: string; value: unknown }): boolean {
  if (m.protocol !== 'photon') return false
  const v = m.value as { msgType?: number | null; command?: string | null } | null
  return !!v && ((v.msgType !== undefined && v.msgType !== null && v.msgType >= 2 && v.msgType <= 4) || v.command === 'DISCONNECT')
}

/** What analyzeRooms keeps of a decoded message, or null when it does not read it. */
export function roomsMessage(m: RoomsMessage): RoomsMessage | null {
  return wanted(m)
    ? { id: m.id, conversation: m.conversation, direction: m.direction, frames: m.frames, time: m.time, protocol: m.protocol, value: m.value, error: m.error }
    : null
}

export async function captureRooms(
  path: string,
  o: { keys?: KeyStore; schemas?: SchemaPack[]; decodeAs?: DecodeAsRule[] } = {}
): Promise<{ doc: RoomsDocument; warnings: string[] }> {
  const messages: RoomsMessage[] = []
  const session = await decodeOnThread(
    { file: path, format: 'ndjson', decodeAs: o.decodeAs, schemas: o.schemas },
    {
      keys: o.keys ?? new KeyStore(),
      recording: false,
      onMessage: (m) => {
        const r = roomsMessage(m)
        if (r) messages.push(r)
      },
      pause: async () => {}
    }
  )
  const conversations = Array.from(session.engine.conversations(), (c) => ({ id: c.id, server: c.server }))
  return { doc: analyzeRooms(messages, conversations), warnings: session.engine.stats.warnings }
}
