// What a timeline view asks of each message: does it pass the display filter, and what do its extra
// columns show. Also says whether the field trees are needed at all: a filter on frame/IP/port/gamewire
// fields (a conversation click, a time brush) runs on the fast pass without building trees.

import { compileFilter, targetFromMessage, type CompiledFilter, type FilterTarget } from '../../src-shared/filter'
import { messageMetaFields } from '../../src-shared/engine/meta-fields'
import { toHex } from '../../src-shared/bytes/tree'
import type { Conversation } from '../../src-shared/engine/conversation'
import type { DecodedMessage, FieldScalar } from '../../src-shared/model/types'
import type { WireDir } from '../../src-shared/protocols/registry'

const CELL_MAX = 160

// Keys messageMetaFields fills from the frame and conversation (no tree needed).
const META_PREFIXES = ['gamewire.', 'frame.']
const META_KEYS = new Set([
  'ip.src', 'ip.dst', 'ip.addr', 'ipv6.src', 'ipv6.dst', 'ipv6.addr',
  'udp.srcport', 'udp.dstport', 'udp.port', 'tcp.srcport', 'tcp.dstport', 'tcp.port'
])

/** True when a key's values come from the message's meta fields or its protocol stack alone. */
export function isMetaKey(key: string): boolean {
  return !key.includes('.') || META_KEYS.has(key) || META_PREFIXES.some((p) => key.startsWith(p))
}

/** True when matching or showing these field keys needs the field trees (some key is not a meta key). */
export function needsTree(keys: readonly string[]): boolean {
  return keys.some((k) => !isMetaKey(k))
}

export function formatCell(values: readonly FieldScalar[]): string {
  let out = ''
  for (const v of values) {
    const s =
      v instanceof Uint8Array ? toHex(v.subarray(0, CELL_MAX / 2)) : v === null ? 'null' : typeof v === 'string' ? v : String(v)
    out = out ? `${out}, ${s}` : s
    if (out.length >= CELL_MAX) return out.slice(0, CELL_MAX - 1) + '…'
  }
  return out
}

export class ViewMatcher {
  readonly filter: CompiledFilter | undefined
  readonly needsTree: boolean

  /** Throws FilterError for a bad filter. */
  constructor(filterText: string, readonly columns: readonly string[]) {
    this.filter = filterText.trim() ? compileFilter(filterText) : undefined
    const keys = [...(this.filter?.fields ?? []), ...columns]
    this.needsTree = needsTree(keys)
  }

  /** True when neither a filter nor columns need a pass over the messages. */
  get trivial(): boolean {
    return !this.filter && this.columns.length === 0
  }

  target(m: DecodedMessage, conv: Conversation, dir: WireDir): FilterTarget {
    return targetFromMessage(m, messageMetaFields(m, conv, dir))
  }

  matches(t: FilterTarget): boolean {
    return !this.filter || this.filter.matches(t)
  }

  cells(t: FilterTarget): string[] {
    return this.columns.map((k) => formatCell(t.values(k)))
  }
}
