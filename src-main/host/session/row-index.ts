// The session's rows: the compact message index plus what the detail replay and the statistics need.

import { MessageIndex, type IndexInput } from '../../../src-shared/engine/message-index'
import type { Conversation } from '../../../src-shared/engine/conversation'
import type { WireDir } from '../../../src-shared/model/types'

/** The message index plus what the detail replay needs: each message's ordinal in its conversation. */
export class RowIndex {
  readonly index = new MessageIndex()
  private ordinals = new Uint32Array(1024)
  private readonly perConversation: number[] = []
  errors = 0
  warned = 0
  firstTime = Infinity

  get count(): number {
    return this.index.count
  }

  add(m: IndexInput, conv?: Conversation, dir?: WireDir): void {
    const row = this.index.add(m, conv, dir)
    if (row >= this.ordinals.length) {
      const bigger = new Uint32Array(Math.max(1024, this.ordinals.length * 2))
      bigger.set(this.ordinals)
      this.ordinals = bigger
    }
    const c = m.conversation
    this.ordinals[row] = this.perConversation[c] ?? 0
    this.perConversation[c] = (this.perConversation[c] ?? 0) + 1
    if (m.error) this.errors++
    if (m.warnings.length) this.warned++
    if (m.time < this.firstTime) this.firstTime = m.time
  }

  /** Gives back the room kept for more rows (a file's index is complete; more rows grow it again). */
  trim(): void {
    this.index.trim()
    if (this.ordinals.length > this.count) this.ordinals = this.ordinals.slice(0, Math.max(1, this.count))
  }

  /** `rows` (row numbers in capture order) by conversation, each conversation's rows in that order. */
  byConversation(rows: ArrayLike<number>): Map<number, Uint32Array> {
    const counts = new Map<number, number>()
    for (let i = 0; i < rows.length; i++) {
      const c = this.index.conversationAt(rows[i])
      counts.set(c, (counts.get(c) ?? 0) + 1)
    }
    const out = new Map<number, Uint32Array>()
    const filled = new Map<number, number>()
    for (const [c, n] of counts) {
      out.set(c, new Uint32Array(n))
      filled.set(c, 0)
    }
    for (let i = 0; i < rows.length; i++) {
      const c = this.index.conversationAt(rows[i])
      const k = filled.get(c)!
      out.get(c)![k] = rows[i]
      filled.set(c, k + 1)
    }
    return out
  }

  ordinal(row: number): number {
    return this.ordinals[row]
  }

  messagesIn(conversation: number): number {
    return this.perConversation[conversation] ?? 0
  }
}
