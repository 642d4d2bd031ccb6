// Shared by the golden, fuzz and end-to-end tests: decode a capture file, and check field ranges.
import { expect } from 'vitest'
import { readFileSync } from 'node:fs'
import { DecodeSession } from '../../../src-shared/engine/session'
import type { ConversationInfo, DecodedMessage, FieldNode } from '../../../src-shared/model/types'

export interface Decoded {
  messages: DecodedMessage[]
  conversations: ConversationInfo[]
  frames: number
}

/** Decodes a capture file, pushing it in odd-sized chunks as a stream would. */
export function decodeFile(file: string): Decoded {
  const messages: DecodedMessage[] = []
  const s = new DecodeSession({ onMessage: (m) => messages.push(m) })
  const bytes = readFileSync(file)
  for (let i = 0; i < bytes.length; i += 4093) s.push(new Uint8Array(bytes.subarray(i, i + 4093)))
  s.end()
  return { messages, conversations: s.engine.conversationList(), frames: s.engine.stats.frames }
}

/** Every field range must lie inside its data source. */
export function checkRanges(m: DecodedMessage): void {
  const walk = (nodes: FieldNode[]) => {
    for (const n of nodes) {
      if (n.source !== undefined) {
        expect(n.source).toBeLessThan(m.sources.length)
        expect(n.start! >= 0 && n.length! >= 0).toBe(true)
        expect(n.start! + n.length!).toBeLessThanOrEqual(m.sources[n.source].bytes.length)
      }
      walk(n.children ?? [])
    }
  }
  walk(m.tree)
}
