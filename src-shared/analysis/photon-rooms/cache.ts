// A room's event cache as Photon keeps it (docs/photon.md, Rooms and the event cache): RaiseEvent with
// cache option 4 (AddToRoomCache) or 5 (AddToRoomCacheGlobal) stores the event with its real sender; 6
// (RemoveFromRoomCache) removes matching events of any actor; 7 (RemoveFromRoomCacheForActorsLeft) removes
// the non-global events of actors no longer in the room; CleanupCacheOnLeave removes a departing actor's
// non-global events. Every removal is remembered, so a replay that still carries a removed event can be
// told apart from one that was never cached.

import type { PhotonValue } from '../../protocols/photon/values'
import { canon, dataMatches } from './values'

export const CACHE = { ADD: 4, ADD_GLOBAL: 5, REMOVE: 6, REMOVE_FOR_ACTORS_LEFT: 7 } as const

export interface CachedEvent {
  /** Order of arrival at the server (the replay order). */
  seq: number
  code: number
  /** The actor that raised it, kept for global events too. */
  sender: number
  global: boolean
  data: PhotonValue | undefined
  /** `code:data` as canonical text: how a replayed event is recognised. */
  key: string
  /** The frame of the RaiseEvent that cached it. */
  frame: number
}

/** Why a cached event left the cache. */
export type Removal =
  | { kind: 'remove'; frame: number; by: number }
  | { kind: 'actors-left'; frame: number; by: number }
  | { kind: 'cleanup'; frame: number; actor: number }

export interface RemoveFilter {
  /** 0 = any code. */
  code: number
  /** Sender actor numbers (RaiseEventOptions.TargetActors); 0 names the global cache. Absent: any sender. */
  senders?: number[]
  /** A Hashtable filter matches data holding all its entries. Absent: any data. */
  data?: PhotonValue
}

export const eventKey = (code: number, data: PhotonValue | undefined) => `${code}:${canon(data)}`

export class EventCache {
  private seq = 0
  readonly events: CachedEvent[] = []
  /** Every event removed, with why, in order. */
  readonly removed: { event: CachedEvent; removal: Removal }[] = []
  /** The frames of the cache-7 requests, in order. */
  readonly actorsLeftRemovals: { frame: number; by: number }[] = []

  add(code: number, sender: number, global: boolean, data: PhotonValue | undefined, frame: number): void {
    this.events.push({ seq: this.seq++, code, sender, global, data, key: eventKey(code, data), frame })
  }

  /** RemoveFromRoomCache: any actor may remove any actor's events (the real sender is what a sender filter matches). */
  remove(f: RemoveFilter, frame: number, by: number): CachedEvent[] {
    return this.drop((e) => matchesFilter(e, f), { kind: 'remove', frame, by })
  }

  /** RemoveFromRoomCacheForActorsLeft: non-global events of actors not in the room; global ones belong to the room. */
  removeForActorsLeft(inRoom: (actor: number) => boolean, frame: number, by: number): CachedEvent[] {
    this.actorsLeftRemovals.push({ frame, by })
    return this.drop((e) => !e.global && !inRoom(e.sender), { kind: 'actors-left', frame, by })
  }

  /** CleanupCacheOnLeave: the departing actor's own (non-global) events. */
  cleanup(actor: number, frame: number): CachedEvent[] {
    return this.drop((e) => !e.global && e.sender === actor, { kind: 'cleanup', frame, actor })
  }

  private drop(match: (e: CachedEvent) => boolean, removal: Removal): CachedEvent[] {
    const gone: CachedEvent[] = []
    for (let i = 0; i < this.events.length; ) {
      if (match(this.events[i])) {
        const [e] = this.events.splice(i, 1)
        gone.push(e)
        this.removed.push({ event: e, removal })
      } else i++
    }
    return gone
  }
}

export function matchesFilter(e: CachedEvent, f: RemoveFilter): boolean {
  if (f.code !== 0 && e.code !== f.code) return false
  if (f.senders && !f.senders.some((s) => s === e.sender || (s === 0 && e.global))) return false
  if (f.data !== undefined && !dataMatches(f.data, e.data)) return false
  return true
}
