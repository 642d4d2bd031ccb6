// The Photon room analysis (src-shared/analysis/photon-rooms) on scripted game-server captures: a session
// where the server does what Photon does gives no divergence; each seeded server bug gives exactly its rule
// and the frames the script says show it; an encrypted replay without its key gives "unknown".
import { describe, expect, it } from 'vitest'
import { analyzeRooms, type Room, type RoomsDocument } from '../../../src-shared/analysis/photon-rooms'
import { keyStore, runEngine } from '../helpers/decode'
import type { Scenario } from './helpers/photon-room-scenario'
import {
  ROOM,
  actorsLeftRemovedGlobal,
  cleanupWithoutOption,
  encryptedCacheOperation,
  encryptedReplay,
  ghostInherited,
  globalReplayedAsSender,
  photonSession,
  removalDelivered,
  removalIgnored,
  replayMismatch
} from './helpers/photon-room-sessions'

function analyze(s: Scenario, keys?: string): RoomsDocument {
  const { messages, conversations } = runEngine(s.frames, keys ? keyStore(keys) : undefined, false)
  return analyzeRooms(messages, conversations)
}

function onlyRoom(doc: RoomsDocument): Room {
  expect(doc.rooms.map((r) => r.name)).toEqual([ROOM])
  return doc.rooms[0]
}

/** rule and frames of each divergence (detail is prose). */
const verdicts = (ds: { rule: string; frames: number[] }[]) => ds.map(({ rule, frames }) => ({ rule, frames }))

describe('a session where the server behaves as Photon does', () => {
  const { s, frames } = photonSession()
  const doc = analyze(s)
  const room = onlyRoom(doc)

  it('finds no divergence and reads everything', () => {
    expect(doc.format).toBe('gamewire-rooms/1')
    expect(doc.unknown).toEqual([])
    expect(room.divergences).toEqual([])
    expect(room.joins.map((j) => j.verdict)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok'])
    expect(room.server).toBe('10.20.0.1:5056')
    expect(room.cleanupCacheOnLeave).toBe(false)
    expect(room.playerTtl).toBe(60000)
  })

  it('rebuilds the actors: the creator leaving, a disconnect kept by PlayerTTL, the RejoinOnly rejoin', () => {
    expect(
      room.actors.map(({ actorNr, conversation, userId, leftFrame, joinMode, ghost }) => ({ actorNr, conversation, userId, leftFrame, joinMode, ghost }))
    ).toEqual([
      { actorNr: 1, conversation: 1, userId: 'user-ann', leftFrame: frames.aLeave, joinMode: 0, ghost: false },
      { actorNr: 2, conversation: 2, userId: 'user-bob', leftFrame: null, joinMode: 0, ghost: false },
      { actorNr: 3, conversation: 3, userId: 'user-cy', leftFrame: frames.cDrop, joinMode: 0, ghost: true },
      { actorNr: 3, conversation: 4, userId: 'user-cy', leftFrame: null, joinMode: 3, ghost: false },
      { actorNr: 4, conversation: 5, userId: 'user-dee', leftFrame: null, joinMode: 0, ghost: false }
    ])
    expect(room.actors.map((a) => a.joinedFrame)).toEqual([frames.aJoin, expect.any(Number), frames.cJoin, frames.c2Join, frames.dJoin])
  })

  it('hands the master on through property 248 with the expected value, and refuses a stale one', () => {
    expect(room.master).toEqual([
      { frame: frames.aJoin, actorNr: 1, how: 'lowest-active' },
      { frame: frames.handoff, actorNr: 2, how: 'set-properties' }
    ])
    expect(room.properties.map(({ frame, target, keys, cas, outcome, serverReturnCode }) => ({ frame, target, keys, cas, outcome, serverReturnCode }))).toEqual(
      [
        { frame: frames.staleHandoff, target: 0, keys: ['B248'], cas: true, outcome: 'refused', serverReturnCode: -2 },
        { frame: frames.handoff, target: 0, keys: ['B248'], cas: true, outcome: 'applied', serverReturnCode: 0 }
      ]
    )
  })

  it('expects the cache after both removals and the actors-left clear: globals as 0, never the joiner its own events', () => {
    const [, , cy, cyAgain, dee] = room.joins
    const bob = [
      { code: 29, sender: 2, cache: 4 },
      { code: 33, sender: 2, cache: 4 }
    ]
    expect(cy.expected).toEqual([{ code: 22, sender: 0, cache: 5 }, ...bob])
    expect(cy.received).toEqual([
      { code: 22, sender: 0, frame: frames.cReplay22 },
      { code: 29, sender: 2, frame: frames.cReplay29 },
      { code: 33, sender: 2, frame: frames.cReplay33 }
    ])
    // the rejoining actor 3 is not sent its own 40; the next joiner is, as actor 3
    expect(cyAgain.expected).toEqual(cy.expected)
    expect(dee.expected).toEqual([...cy.expected, { code: 40, sender: 3, cache: 4 }])
  })
})

describe('each seeded server bug gives its rule and frames', () => {
  it('global-replayed-as-sender', () => {
    const { s, frames } = globalReplayedAsSender()
    const room = onlyRoom(analyze(s))
    expect(verdicts(room.divergences)).toEqual([{ rule: 'global-replayed-as-sender', frames: [frames.replay] }])
    expect(room.joins[2].verdict).toBe('diverges')
    expect(room.joins[2].expected).toEqual([{ code: 22, sender: 0, cache: 5 }])
  })

  it('removal-ignored', () => {
    const { s, frames } = removalIgnored()
    const room = onlyRoom(analyze(s))
    expect(verdicts(room.divergences)).toEqual([{ rule: 'removal-ignored', frames: [frames.removal, frames.replay] }])
    expect(room.joins[2].expected).toEqual([])
  })

  it('removal-delivered', () => {
    const { s, frames } = removalDelivered()
    const room = onlyRoom(analyze(s))
    expect(verdicts(room.divergences)).toEqual([{ rule: 'removal-delivered', frames: [frames.removal, frames.delivered] }])
    expect(room.joins.every((j) => j.divergences.length === 0)).toBe(true)
  })

  it('cleanup-without-option, and nothing when the room was created with CleanupCacheOnLeave', () => {
    const bug = cleanupWithoutOption()
    const room = onlyRoom(analyze(bug.s))
    expect(verdicts(room.divergences)).toEqual([{ rule: 'cleanup-without-option', frames: [bug.frames.leave, bug.frames.join] }])
    expect(room.joins[2].expected).toEqual([{ code: 202, sender: 1, cache: 4 }])
    const right = onlyRoom(analyze(cleanupWithoutOption(true).s))
    expect(right.cleanupCacheOnLeave).toBe(true)
    expect(right.divergences).toEqual([])
    expect(right.joins[2].expected).toEqual([])
  })

  it('actors-left-removed-global', () => {
    const { s, frames } = actorsLeftRemovedGlobal()
    const room = onlyRoom(analyze(s))
    expect(verdicts(room.divergences)).toEqual([{ rule: 'actors-left-removed-global', frames: [frames.clear, frames.join] }])
    expect(room.joins[2].expected).toEqual([{ code: 22, sender: 0, cache: 5 }])
  })

  it('ghost-inherited: the actor taken over, and its own events replayed to it', () => {
    const { s, frames } = ghostInherited()
    const room = onlyRoom(analyze(s))
    expect(verdicts(room.divergences)).toEqual([
      { rule: 'ghost-inherited', frames: [frames.oldJoin, frames.join] },
      { rule: 'ghost-inherited', frames: [frames.ownReplay] }
    ])
    expect(room.actors.map((a) => [a.actorNr, a.conversation, a.ghost])).toEqual([
      [1, 1, true],
      [2, 2, false],
      [1, 3, false]
    ])
  })

  it('replay-order, replay-missing and replay-unexpected', () => {
    const { s, frames } = replayMismatch()
    const room = onlyRoom(analyze(s))
    expect(verdicts(room.divergences)).toEqual([
      { rule: 'replay-missing', frames: [frames.raised42, frames.join] },
      { rule: 'replay-order', frames: [frames.late] },
      { rule: 'replay-unexpected', frames: [frames.stray] }
    ])
  })
})

describe('input it cannot read', () => {
  const { s, frames } = encryptedReplay()

  it('says unknown for a replay encrypted without its key, and lists the messages', () => {
    const doc = analyze(s)
    const room = onlyRoom(doc)
    const cy = room.joins[2]
    expect(cy.verdict).toBe('unknown')
    expect(cy.divergences).toEqual([])
    expect(cy.received).toEqual([])
    expect(room.divergences).toEqual([])
    expect(doc.unknown.map((u) => [u.conversation, u.frame])).toEqual([
      [3, frames.joinEvent],
      [3, frames.replay],
      [3, frames.live]
    ])
  })

  it('with the key, the same capture shows the bug it hid', () => {
    const doc = analyze(s, s.keyFile())
    expect(doc.unknown).toEqual([])
    expect(verdicts(onlyRoom(doc).divergences)).toEqual([{ rule: 'global-replayed-as-sender', frames: [frames.replay] }])
  })

  it('an unread request of a member (maybe a cache operation) leaves every later join unknown', () => {
    const enc = encryptedCacheOperation()
    const without = analyze(enc.s)
    const room = onlyRoom(without)
    expect(room.joins.map((j) => j.verdict)).toEqual(['ok', 'ok', 'unknown'])
    expect(room.joins[2].received).toEqual([{ code: 22, sender: 0, frame: enc.frames.replay }])
    expect(room.divergences).toEqual([])
    expect(without.unknown.map((u) => [u.conversation, u.frame])).toEqual([[2, enc.frames.removal]])
    const withKey = onlyRoom(analyze(enc.s, enc.s.keyFile()))
    expect(verdicts(withKey.divergences)).toEqual([{ rule: 'removal-ignored', frames: [enc.frames.removal, enc.frames.replay] }])
  })
})
