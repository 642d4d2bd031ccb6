// Keys: the session's key store as key-file lines, which conversations each key covers, and re-decoding
// the capture when a change covers some of them.

import type { KeyChange, KeyInfo } from '../../../src-shared/api'
import { formatKeyFile, formatKeyLine, parseKeyFile, type KeyEntry } from '../../../src-shared/keys/keyfile'
import type { SessionContext } from './context'

export class KeysPart {
  constructor(
    private readonly ctx: SessionContext,
    /** Decodes the open capture again with the current keys (a file's or a live capture's frames). */
    private readonly redecode: () => Promise<void>
  ) {}

  private keyInfo(k: KeyEntry): KeyInfo {
    const conv = k.conversation === '*' ? '*' : `${k.conversation.client}-${k.conversation.server}`
    const info: KeyInfo = { line: formatKeyLine(k), type: k.type, conversation: conv, covers: this.covers(k) }
    if (k.direction) info.direction = k.direction
    if (this.ctx.demoKeys.has(info.line)) info.demo = true
    return info
  }

  /** Conversations of the open capture a key applies to. */
  private covers(k: KeyEntry): number[] {
    const protocol = k.type.split('_')[0].toLowerCase()
    const kc = k.conversation
    const out: number[] = []
    for (const c of this.ctx.conversations.conversations()) {
      const hit =
        kc === '*' ? c.protocol === protocol : (kc.client === c.client && kc.server === c.server) || (kc.client === c.server && kc.server === c.client)
      if (hit) out.push(c.id)
    }
    return out
  }

  listKeys(): KeyInfo[] {
    return this.ctx.keys.list().map((k) => this.keyInfo(k))
  }

  private async keysChanged(entries: KeyEntry[], added: number, removed: number, warnings: string[]): Promise<KeyChange> {
    const covered = [...new Set(entries.flatMap((k) => this.covers(k)))].sort((a, b) => a - b)
    this.ctx.emitStatus()
    this.ctx.opts.emit({ type: 'keys', keys: this.listKeys() })
    if ((added || removed) && covered.length) await this.redecode()
    // Conversation info (protocol, notes) may have changed: report coverage again.
    const keys = this.listKeys()
    this.ctx.opts.emit({ type: 'keys', keys })
    return { added, removed, warnings, redecoded: added || removed ? covered : [], keys }
  }

  /** Adds key-file text. Throws KeyFileError (naming the line) for a malformed line. */
  async addKeys(text: string): Promise<KeyChange> {
    const parsed = parseKeyFile(text)
    // a demo key the user adds themselves becomes theirs (saved with their keys)
    for (const k of parsed.keys) this.ctx.demoKeys.delete(formatKeyLine(k))
    const fresh = parsed.keys.filter((k) => this.ctx.keys.add({ ...k, line: 0 }))
    return this.keysChanged(fresh, fresh.length, 0, parsed.warnings)
  }

  async removeKey(line: string): Promise<KeyChange> {
    const parsed = parseKeyFile(line)
    const gone = parsed.keys.filter((k) => this.ctx.keys.remove(k))
    return this.keysChanged(gone, 0, gone.length, parsed.warnings)
  }

  /**
   * Replaces the demo's keys (none when `text` is empty) before a capture opens: the demo's key file comes
   * with the demo only. Keys the user already had are left alone. Returns whether the key list changed.
   */
  setDemoKeys(text: string): boolean {
    let changed = false
    for (const line of this.ctx.demoKeys) changed = parseKeyFile(line).keys.some((k) => this.ctx.keys.remove(k)) || changed
    this.ctx.demoKeys.clear()
    for (const k of parseKeyFile(text).keys) {
      if (!this.ctx.keys.add({ ...k, line: 0 })) continue
      this.ctx.demoKeys.add(formatKeyLine(k))
      changed = true
    }
    return changed
  }

  /** Tells the shells the key list (after a change they did not ask for, e.g. the demo's keys). */
  emitKeys(): void {
    this.ctx.emitStatus()
    this.ctx.opts.emit({ type: 'keys', keys: this.listKeys() })
  }

  exportKeys(): string {
    return formatKeyFile(this.ctx.keys.list())
  }
}
