// What a joiner should have been replayed, next to what it got (docs/photon.md, Rooms and the event
// cache). Photon replays the cached events in the order they reached the server, every global event as
// actor 0 and the others as their real sender, and never a joiner's own events. Each received event is
// recognised by its code and data; what differs is explained by the most specific rule that fits.

import type { CachedEvent, Removal } from './cache'
import type { Divergence, ExpectedReplay, ReceivedReplay } from './document'

export interface Received extends ReceivedReplay {
  key: string
}

export interface ReplayContext {
  joinFrame: number
  actorNr: number
  /** The cache at the join, in order. */
  cache: readonly CachedEvent[]
  /** Everything removed from the cache before the join, with why. */
  removed: readonly { event: CachedEvent; removal: Removal }[]
  /** Cache-7 requests before the join. */
  actorsLeftRemovals: readonly { frame: number; by: number }[]
  /** Actors gone for good before the join → the frame they left. */
  departed: ReadonlyMap<number, number>
  cleanupCacheOnLeave: boolean
  /** Set when the join was given an actor its user's other connection still held. */
  inherited: boolean
}

/** The replay Photon defines for actor `actorNr`: its own non-global events are never sent back to it. */
export function expectedReplay(cache: readonly CachedEvent[], actorNr: number): CachedEvent[] {
  return cache.filter((e) => e.global || e.sender !== actorNr)
}

export function asExpected(e: CachedEvent): ExpectedReplay {
  return { code: e.code, sender: e.global ? 0 : e.sender, cache: e.global ? 5 : 4 }
}

const sorted = (xs: number[]) => [...new Set(xs)].sort((a, b) => a - b)

/** The divergences between the expected replay and the events received, grouped by rule and cause. */
export function compareReplay(ctx: ReplayContext, received: readonly Received[]): Divergence[] {
  const expected = expectedReplay(ctx.cache, ctx.actorNr)
  const used = new Array<boolean>(expected.length).fill(false)
  const groups = new Map<string, Divergence>()
  const add = (group: string, d: Omit<Divergence, 'frames'>, frames: number[]) => {
    const g = groups.get(group)
    if (g) g.frames.push(...frames)
    else groups.set(group, { ...d, frames: [...frames] })
  }

  let maxMatched = -1
  for (const r of received) {
    const i = expected.findIndex((e, j) => !used[j] && e.key === r.key)
    if (i >= 0) {
      used[i] = true
      const e = expected[i]
      if (i < maxMatched) add('order', { rule: 'replay-order', detail: 'cached events replayed out of the order they reached the server' }, [r.frame])
      maxMatched = Math.max(maxMatched, i)
      if (e.global && r.sender !== 0) {
        add(
          'global-sender',
          { rule: 'global-replayed-as-sender', detail: `global events (AddToRoomCacheGlobal) replayed with their sender's actor number instead of 0` },
          [r.frame]
        )
      } else if (!e.global && r.sender !== e.sender) {
        add('unexpected', { rule: 'replay-unexpected', detail: 'replayed events that differ from the cache (unexpected or with another sender)' }, [r.frame])
      }
      continue
    }
    unexplained(ctx, r, add)
  }
  expected.forEach((e, i) => {
    if (!used[i]) missing(ctx, e, add)
  })
  return [...groups.values()].map((d) => ({ ...d, frames: sorted(d.frames) }))
}

type Add = (group: string, d: Omit<Divergence, 'frames'>, frames: number[]) => void

/** A received event that is not in the expected replay. */
function unexplained(ctx: ReplayContext, r: Received, add: Add): void {
  const gone = ctx.removed.find((x) => x.event.key === r.key)
  if (gone && gone.removal.kind === 'remove') {
    add(
      `removal ${gone.removal.frame}`,
      { rule: 'removal-ignored', detail: `events that the RemoveFromRoomCache of actor ${gone.removal.by} matched were replayed` },
      [gone.removal.frame, r.frame]
    )
    return
  }
  const own = ctx.cache.find((e) => e.key === r.key && !e.global && e.sender === ctx.actorNr)
  if (own && ctx.inherited) {
    add('ghost-own', { rule: 'ghost-inherited', detail: `replayed the inherited actor ${ctx.actorNr}'s own earlier events` }, [r.frame])
    return
  }
  add('unexpected', { rule: 'replay-unexpected', detail: 'replayed events that differ from the cache (unexpected or with another sender)' }, [r.frame])
}

/** An expected event the joiner did not receive. */
function missing(ctx: ReplayContext, e: CachedEvent, add: Add): void {
  const clear = e.global ? ctx.actorsLeftRemovals.find((x) => x.frame >= e.frame) : undefined
  if (clear) {
    add(
      `actors-left ${clear.frame}`,
      {
        rule: 'actors-left-removed-global',
        detail: `global events missing after the RemoveFromRoomCacheForActorsLeft of actor ${clear.by}; it must keep them`
      },
      [clear.frame, ctx.joinFrame]
    )
    return
  }
  const left = ctx.departed.get(e.sender)
  if (left !== undefined && !ctx.cleanupCacheOnLeave) {
    add(
      `cleanup ${e.sender}`,
      { rule: 'cleanup-without-option', detail: `cached events of actor ${e.sender}, who left, missing although CleanupCacheOnLeave was not set` },
      [left, ctx.joinFrame]
    )
    return
  }
  add('missing', { rule: 'replay-missing', detail: 'cached events missing from the replay' }, [e.frame, ctx.joinFrame])
}
