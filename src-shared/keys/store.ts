// The key store: decryption keys per protocol, per conversation or wildcard. Decoders ask it with
// `find`; the engine listens with `onChange` to re-decode the affected conversations.

import { normalizeEndpoint, type KeyDirection, type KeyEntry, type KeyType } from './keyfile'
import { bytesEqual } from '../bytes/equal'

/** Both absent, or the same bytes. */
function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && bytesEqual(a, b))
}

/** Same key material for the same conversation (the line number does not matter). */
export function sameKey(a: KeyEntry, b: KeyEntry): boolean {
  if (a.type !== b.type) return false
  if ((a.direction ?? null) !== (b.direction ?? null)) return false
  if (a.conversation === '*' || b.conversation === '*') {
    if (a.conversation !== b.conversation) return false
  } else if (a.conversation.client !== b.conversation.client || a.conversation.server !== b.conversation.server) {
    return false
  }
  return sameBytes(a.key, b.key) && sameBytes(a.iv, b.iv)
}

function normalize(e: KeyEntry): KeyEntry {
  if (e.conversation === '*') return e
  const client = normalizeEndpoint(e.conversation.client)
  const server = normalizeEndpoint(e.conversation.server)
  if (client === e.conversation.client && server === e.conversation.server) return e
  return { ...e, conversation: { client, server } }
}

export class KeyStore {
  private entries: KeyEntry[] = []
  private listeners = new Set<(store: KeyStore) => void>()
  /** Increments on every change; caches keyed on it stay valid while it is unchanged. */
  version = 0

  /** Adds a key; returns false (and changes nothing) when the same key is already there. */
  add(entry: KeyEntry): boolean {
    const added = this.insert(entry)
    if (added) this.changed()
    return added
  }

  /** Adds several keys with one change notification; returns how many were new. */
  addAll(entries: Iterable<KeyEntry>): number {
    let n = 0
    for (const e of entries) if (this.insert(e)) n++
    if (n) this.changed()
    return n
  }

  /** Removes a key (matched by content, so a re-parsed copy removes it too); returns whether it was there. */
  remove(entry: KeyEntry): boolean {
    const e = normalize(entry)
    const i = this.entries.findIndex((x) => x === entry || sameKey(x, e))
    if (i === -1) return false
    this.entries.splice(i, 1)
    this.changed()
    return true
  }

  clear(): void {
    if (!this.entries.length) return
    this.entries = []
    this.changed()
  }

  list(): readonly KeyEntry[] {
    return this.entries.slice()
  }

  get size(): number {
    return this.entries.length
  }

  /**
   * Keys of `type` for the conversation `client`-`server` (`ip:port`, IPv6 in brackets), best first:
   * entries for exactly this conversation, then entries written with the endpoints swapped (a user may
   * paste them the other way round), then wildcard (`*`) entries; insertion order within each group.
   * With `direction`, FigNet keys must be for that direction or `both` (a swapped entry keeps the
   * direction as written). Keys without a direction always pass.
   */
  find(type: KeyType, client: string, server: string, direction?: KeyDirection): KeyEntry[] {
    const c = normalizeEndpoint(client)
    const s = normalizeEndpoint(server)
    const exact: KeyEntry[] = []
    const swapped: KeyEntry[] = []
    const wild: KeyEntry[] = []
    for (const e of this.entries) {
      if (e.type !== type) continue
      if (direction && direction !== 'both' && e.direction && e.direction !== 'both' && e.direction !== direction) continue
      if (e.conversation === '*') wild.push(e)
      else if (e.conversation.client === c && e.conversation.server === s) exact.push(e)
      else if (e.conversation.client === s && e.conversation.server === c) swapped.push(e)
    }
    return [...exact, ...swapped, ...wild]
  }

  /** Calls `cb` after every change; returns the unsubscribe function. */
  onChange(cb: (store: KeyStore) => void): () => void {
    this.listeners.add(cb)
    return () => {
      this.listeners.delete(cb)
    }
  }

  private insert(entry: KeyEntry): boolean {
    const e = normalize(entry)
    if (this.entries.some((x) => sameKey(x, e))) return false
    this.entries.push(e)
    return true
  }

  private changed(): void {
    this.version++
    for (const cb of [...this.listeners]) cb(this)
  }
}
