// The scripted sessions of the room analysis tests (photon-room-scenario.ts): one where the server does
// what Photon does, and one per server bug the Rec Room findings describe (docs/photon.md, Rooms and the
// event cache). Each returns its scenario and the frames the test's verdicts name, as the script made them.

import { EV, OP, Scenario, data, pv, roomProps, type Client } from './photon-room-scenario'

export const ROOM = 'arena-7'

/** The creator (actor 1) and a second player (actor 2), joined and replayed as Photon does. */
function twoPlayers(s: Scenario, o: { create?: Parameters<Client['joinRequest']>[2] } = {}) {
  const a = s.client('ann', 'user-ann')
  const aJoinReq = a.joinRequest(ROOM, OP.CREATE_GAME, o.create ?? [])
  const aJoin = a.joinResponse(OP.CREATE_GAME, 1, [1])
  const b = s.client('bob', 'user-bob')
  b.joinRequest(ROOM)
  const bJoin = b.joinResponse(OP.JOIN_GAME, 2, [1, 2])
  a.event(EV.JOIN, [
    [254, pv.int(2)],
    [252, pv.ints([1, 2])]
  ])
  return { a, b, aJoinReq, aJoin, bJoin }
}

/** Live traffic after a join: `from` raises an uncached event and the server delivers it to `to`. */
function live(from: Client, to: Client, tick: number): number {
  from.raise(201, data(['tick', tick]))
  return to.deliver(201, data(['tick', tick]), from.actorNr)
}

/**
 * Five connections of four users on one game server, everything as Photon does it: cached events (4 and 5)
 * replayed in order, globals as actor 0; a RemoveFromRoomCache by a non-master with a sender filter and one
 * with a data filter; the master handed on through property 248 with the expected value; the creator leaving
 * (CleanupCacheOnLeave off: its events stay) and the new master's RemoveFromRoomCacheForActorsLeft (non-global
 * only); a disconnect kept by PlayerTTL and a RejoinOnly rejoin (never replayed its own events); a last joiner.
 */
export function photonSession() {
  const s = new Scenario()
  const { a, b, aJoin, bJoin: _bJoin } = twoPlayers(s, { create: [[235, pv.int(60000)]] })
  void _bJoin
  // the join above replayed nothing: the cache was empty. Now Ann caches a global and an own event.
  const g1 = a.raise(22, data(['round', 1]), 5)
  b.deliver(22, data(['round', 1]), 1)
  const i1 = a.raise(202, data(['view', 1001]), 4)
  b.deliver(202, data(['view', 1001]), 1)
  // Bob caches four events; the server relays each to Ann
  const frames: Record<string, number> = { aJoin: aJoin.response, g1, i1 }
  for (const [code, d, cache] of [
    [29, data(['team', 'red']), 4],
    [31, data(['spawn', 1]), 5],
    [33, data(['k', 1], ['n', 'x']), 4],
    [33, data(['k', 2]), 4]
  ] as const) {
    b.raise(code, d, cache)
    a.deliver(code, d, 2)
  }
  // Ann (not only the master may) removes Bob's global 31 with a sender filter; Bob removes one 33 by data
  frames.remove31 = a.raise(31, undefined, 6, [[252, pv.ints([2])]])
  frames.remove33 = b.raise(33, data(['k', 1]), 6)
  // Bob's try to take master with a stale expected value: Photon refuses it (CAS), the server too
  frames.staleHandoff = b.setProperties(roomProps([248, pv.int(2)]), roomProps([248, pv.int(2)]))
  b.respond(OP.SET_PROPERTIES, -2)
  // master hand-off: property 248 with the current master as the expected value
  frames.handoff = a.setProperties(roomProps([248, pv.int(2)]), roomProps([248, pv.int(1)]))
  a.respond(OP.SET_PROPERTIES, 0)
  a.event(EV.PROPERTIES_CHANGED, [
    [251, roomProps([248, pv.int(2)])],
    [253, pv.int(0)],
    [254, pv.int(1)]
  ])
  b.event(EV.PROPERTIES_CHANGED, [
    [251, roomProps([248, pv.int(2)])],
    [253, pv.int(0)],
    [254, pv.int(1)]
  ])
  // Ann leaves for good; Bob, now master, clears the departed actors' events (Ann's 202, not her global 22)
  frames.aLeave = a.leave()
  a.respond(OP.LEAVE, 0)
  b.event(EV.LEAVE, [
    [254, pv.int(1)],
    [252, pv.ints([2])]
  ])
  frames.clear7 = b.raise(0, undefined, 7)
  // Cy joins: the global 22 as actor 0, Bob's 29 and second 33 as actor 2
  const c = s.client('cy', 'user-cy')
  c.joinRequest(ROOM)
  frames.cJoin = c.joinResponse(OP.JOIN_GAME, 3, [2, 3]).response
  b.event(EV.JOIN, [
    [254, pv.int(3)],
    [252, pv.ints([2, 3])]
  ])
  frames.cReplay22 = c.deliver(22, data(['round', 1]), 0)
  frames.cReplay29 = c.deliver(29, data(['team', 'red']), 2)
  frames.cReplay33 = c.deliver(33, data(['k', 2]), 2)
  live(b, c, 1)
  c.raise(40, data(['hat', 'blue']), 4)
  b.deliver(40, data(['hat', 'blue']), 3)
  // Cy's connection drops: PlayerTTL keeps actor 3 inactive; Cy comes back with RejoinOnly
  frames.cDrop = c.disconnect()
  b.event(EV.LEAVE, [
    [254, pv.int(3)],
    [233, pv.bool(true)],
    [252, pv.ints([2])]
  ])
  s.wait(2000)
  const c2 = s.client('cy', 'user-cy')
  c2.joinRequest(ROOM, OP.JOIN_GAME, [[215, pv.byte(3)]])
  frames.c2Join = c2.joinResponse(OP.JOIN_GAME, 3, [2, 3]).response
  c2.deliver(22, data(['round', 1]), 0)
  c2.deliver(29, data(['team', 'red']), 2)
  c2.deliver(33, data(['k', 2]), 2)
  live(b, c2, 2)
  // Dee joins last and also gets Cy's 40 as actor 3
  const d = s.client('dee', 'user-dee')
  d.joinRequest(ROOM)
  frames.dJoin = d.joinResponse(OP.JOIN_GAME, 4, [2, 3, 4]).response
  d.deliver(22, data(['round', 1]), 0)
  d.deliver(29, data(['team', 'red']), 2)
  d.deliver(33, data(['k', 2]), 2)
  d.deliver(40, data(['hat', 'blue']), 3)
  live(b, d, 3)
  return { s, frames, clients: { a, b, c, c2, d } }
}

/** After Ann (actor 1) and Bob (actor 2): Cy joins as actor 3; returns Cy and the join response frame. */
function third(s: Scenario): { c: Client; join: number } {
  const c = s.client('cy', 'user-cy')
  c.joinRequest(ROOM)
  return { c, join: c.joinResponse(OP.JOIN_GAME, 3, [1, 2, 3]).response }
}

/** The server replays a global event with its sender's actor number (seed: every global event replays as actor 0). */
export function globalReplayedAsSender() {
  const s = new Scenario()
  const { a, b } = twoPlayers(s)
  a.raise(22, data(['round', 1]), 5)
  b.deliver(22, data(['round', 1]), 1)
  const { c } = third(s)
  const replay = c.deliver(22, data(['round', 1]), 1) // bug: Photon replays it as actor 0
  live(b, c, 1)
  return { s, frames: { replay } }
}

/** A RemoveFromRoomCache from a non-master is ignored: the removed global event is still replayed. */
export function removalIgnored() {
  const s = new Scenario()
  const { a, b } = twoPlayers(s)
  a.raise(22, data(['round', 1]), 5)
  b.deliver(22, data(['round', 1]), 1)
  const removal = b.raise(22, undefined, 6) // Bob is not master; Photon still removes it
  const { c } = third(s)
  const replay = c.deliver(22, data(['round', 1]), 0)
  live(b, c, 1)
  return { s, frames: { removal, replay } }
}

/** A RemoveFromRoomCache with a data filter is delivered to the others as an event. */
export function removalDelivered() {
  const s = new Scenario()
  const { a, b } = twoPlayers(s)
  a.raise(33, data(['k', 1]), 4)
  b.deliver(33, data(['k', 1]), 1)
  const removal = b.raise(33, data(['k', 1]), 6)
  const delivered = a.deliver(33, data(['k', 1]), 2) // bug: Photon never sends a removal
  const { c } = third(s)
  live(b, c, 1)
  return { s, frames: { removal, delivered } }
}

/** The creator leaves a room made without CleanupCacheOnLeave and the server drops its cached events. */
export function cleanupWithoutOption(withOption = false) {
  const s = new Scenario()
  const { a, b } = twoPlayers(s, { create: withOption ? [[241, pv.bool(true)]] : [] })
  a.raise(202, data(['view', 1001]), 4)
  b.deliver(202, data(['view', 1001]), 1)
  const leave = a.leave()
  a.respond(OP.LEAVE, 0)
  b.event(EV.LEAVE, [
    [254, pv.int(1)],
    [252, pv.ints([2])]
  ])
  const { c, join } = third(s)
  // the server replays nothing: right only when the room was created with CleanupCacheOnLeave
  live(b, c, 1)
  return { s, frames: { leave, join } }
}

/** After the creator left, the master's RemoveFromRoomCacheForActorsLeft also drops the creator's global events. */
export function actorsLeftRemovedGlobal() {
  const s = new Scenario()
  const { a, b } = twoPlayers(s)
  a.raise(22, data(['round', 1]), 5)
  b.deliver(22, data(['round', 1]), 1)
  a.raise(202, data(['view', 1001]), 4)
  b.deliver(202, data(['view', 1001]), 1)
  a.leave()
  a.respond(OP.LEAVE, 0)
  b.event(EV.LEAVE, [
    [254, pv.int(1)],
    [252, pv.ints([2])]
  ])
  const clear = b.raise(0, undefined, 7)
  const { c, join } = third(s)
  // bug: the global 22 went with Ann's 202; Photon keeps it (it belongs to the room) and replays it as actor 0
  live(b, c, 1)
  return { s, frames: { clear, join } }
}

/** Ann's game restarts while her old connection is still in the room: a normal join takes over actor 1. */
export function ghostInherited() {
  const s = new Scenario()
  const { a, b, aJoin } = twoPlayers(s)
  a.raise(202, data(['view', 1001]), 4)
  b.deliver(202, data(['view', 1001]), 1)
  const a2 = s.client('ann', 'user-ann')
  a2.joinRequest(ROOM, OP.JOIN_GAME, [[215, pv.byte(1)]])
  const join = a2.joinResponse(OP.JOIN_GAME, 1, [1, 2]).response // bug: Photon gives a new actor
  const ownReplay = a2.deliver(202, data(['view', 1001]), 1) // and replays actor 1's own spawn to it
  live(b, a2, 1)
  return { s, frames: { oldJoin: aJoin.response, join, ownReplay } }
}

/** A replay out of order, with one cached event missing and one that was never cached. */
export function replayMismatch() {
  const s = new Scenario()
  const { a, b } = twoPlayers(s)
  const raised: number[] = []
  for (const n of [40, 41, 42]) {
    raised.push(a.raise(n, data(['n', n]), 4))
    b.deliver(n, data(['n', n]), 1)
  }
  const { c, join } = third(s)
  c.deliver(41, data(['n', 41]), 1)
  const late = c.deliver(40, data(['n', 40]), 1)
  const stray = c.deliver(43, data(['n', 43]), 1)
  live(b, c, 1)
  return { s, frames: { raised42: raised[2], join, late, stray } }
}

/**
 * The joiner's events are encrypted (the key is in the scenario's key file) and its replay carries the
 * global event as its sender: without the key the verdict is unknown, with it the bug shows.
 */
export function encryptedReplay() {
  const s = new Scenario()
  const { a, b } = twoPlayers(s)
  a.raise(22, data(['round', 1]), 5)
  b.deliver(22, data(['round', 1]), 1)
  const c = s.client('cy', 'user-cy')
  c.encrypt('cy')
  c.joinRequest(ROOM)
  const { response: join, joinEvent } = c.joinResponse(OP.JOIN_GAME, 3, [1, 2, 3])
  const replay = c.deliver(22, data(['round', 1]), 1)
  const liveEvent = live(b, c, 1)
  return { s, frames: { join, joinEvent, replay, live: liveEvent } }
}

/**
 * Bob's RemoveFromRoomCache is encrypted (key in the key file) and the server ignores it: without the key
 * nobody can say what the cache held at Cy's join, so her verdict is unknown; with it, removal-ignored.
 */
export function encryptedCacheOperation() {
  const s = new Scenario()
  const { a, b } = twoPlayers(s)
  a.raise(22, data(['round', 1]), 5)
  b.deliver(22, data(['round', 1]), 1)
  b.encrypt('bob', 'requests')
  const removal = b.raise(22, undefined, 6)
  const { c } = third(s)
  const replay = c.deliver(22, data(['round', 1]), 0)
  live(a, c, 1)
  return { s, frames: { removal, replay } }
}
