// One room as Photon runs it (docs/photon.md, Rooms and the event cache): its actors (joined, inactive
// under PlayerTTL, gone), the master client (the lowest active actor number unless property 248 was set
// with the expected current master), room and actor properties with their CAS outcome, and its event cache.

import type { PhotonValue } from '../../protocols/photon/values'
import { EventCache } from './cache'
import type { Divergence, MasterChange, PropertyChange, RoomActor } from './document'
import { byteKey, entries, num } from './values'

export const PROP_MASTER = 248
const MASTER_KEY = `B${PROP_MASTER}`

export interface Actor extends RoomActor {
  state: 'active' | 'inactive' | 'gone'
  /** Capture time (s) it went inactive, for PlayerTTL. */
  inactiveAt?: number
}

export class RoomState {
  readonly actors: Actor[] = []
  readonly cache = new EventCache()
  readonly master: MasterChange[] = []
  readonly properties: PropertyChange[] = []
  /** Divergences of the room as a whole (not of one join). */
  readonly divergences: Divergence[] = []
  /** Final departures: actor number → the frame it left. */
  readonly departed = new Map<number, number>()
  /** Messages of members that could not be read: from then on the cache is not known for sure. */
  unknownSince: number | null = null
  private override: number | null = null
  private readonly roomProps = new Map<string, string>()
  private readonly actorProps = new Map<number, Map<string, string>>()

  constructor(
    readonly name: string,
    readonly server: string,
    readonly cleanupCacheOnLeave: boolean,
    readonly playerTtl: number,
    gameProps: PhotonValue | undefined
  ) {
    for (const [k, v] of entries(gameProps) ?? []) this.roomProps.set(k, v)
  }

  /** Actors in the room: active, or inactive and kept by PlayerTTL. */
  inRoom(actorNr: number): boolean {
    return this.actors.some((a) => a.actorNr === actorNr && a.state !== 'gone')
  }

  holder(actorNr: number): Actor | undefined {
    return this.actors.find((a) => a.actorNr === actorNr && a.state !== 'gone')
  }

  add(a: Actor, props: PhotonValue | undefined): void {
    this.actors.push(a)
    const map = new Map<string, string>()
    for (const [k, v] of entries(props) ?? []) map.set(k, v)
    this.actorProps.set(a.actorNr, map)
    this.updateMaster(a.joinedFrame)
  }

  /** A connection left: inactive when it may come back and PlayerTTL keeps it, else gone for good. */
  leave(a: Actor, frame: number, time: number, mayComeBack: boolean): void {
    if (a.state === 'gone') return
    if (a.state === 'active') a.leftFrame = frame
    if (mayComeBack && this.playerTtl !== 0) {
      if (a.state === 'active') {
        a.state = 'inactive'
        a.ghost = true
        a.inactiveAt = time
        this.updateMaster(frame)
      }
      return
    }
    this.depart(a, frame)
  }

  /** A RejoinOnly join took the actor back: its old connection's entry ends without a departure. */
  resume(a: Actor): void {
    a.state = 'gone'
  }

  depart(a: Actor, frame: number): void {
    a.state = 'gone'
    if (this.inRoom(a.actorNr)) return
    this.departed.set(a.actorNr, frame)
    if (this.cleanupCacheOnLeave) this.cache.cleanup(a.actorNr, frame)
    if (this.override === a.actorNr) this.override = null
    this.updateMaster(frame)
  }

  /** PlayerTTL ran out for inactive actors (negative: kept forever). */
  expire(time: number, frame: number): void {
    if (this.playerTtl < 0) return
    for (const a of this.actors) {
      if (a.state === 'inactive' && time >= (a.inactiveAt ?? 0) + this.playerTtl / 1000) this.depart(a, frame)
    }
  }

  currentMaster(): number | undefined {
    return this.master.length ? this.master[this.master.length - 1].actorNr : undefined
  }

  private updateMaster(frame: number): void {
    const active = this.actors.filter((a) => a.state === 'active').map((a) => a.actorNr)
    if (!active.length) return
    const overridden = this.override !== null && active.includes(this.override)
    const actorNr = overridden ? this.override! : Math.min(...active)
    if (actorNr !== this.currentMaster()) this.master.push({ frame, actorNr, how: overridden ? 'set-properties' : 'lowest-active' })
  }

  /**
   * SetProperties (252): properties 251 for the room (no actor, or 0) or an actor (254), applied unless an
   * expected value (231) differs from the current one. Property 248 is live: its current value is the
   * master, and setting it hands the master on.
   */
  setProperties(conversation: number, frame: number, props: PhotonValue | undefined, target: number, expected: PhotonValue | undefined): PropertyChange {
    const current = target === 0 ? this.roomProps : (this.actorProps.get(target) ?? new Map<string, string>())
    let applied = true
    for (const [k, v] of entries(expected) ?? []) {
      const now = target === 0 && k === MASTER_KEY ? this.currentMaster() : undefined
      if (target === 0 && k === MASTER_KEY) applied &&= now !== undefined && num(byteKey(expected, PROP_MASTER)) === now
      else applied &&= current.get(k) === v
    }
    const set = entries(props) ?? new Map<string, string>()
    const change: PropertyChange = {
      frame,
      conversation,
      target,
      keys: [...set.keys()],
      cas: expected !== undefined,
      outcome: applied ? 'applied' : 'refused',
      serverReturnCode: null
    }
    this.properties.push(change)
    if (!applied) return change
    for (const [k, v] of set) if (k !== MASTER_KEY || target !== 0) current.set(k, v)
    if (target !== 0) this.actorProps.set(target, current)
    const master = target === 0 ? num(byteKey(props, PROP_MASTER)) : undefined
    if (master !== undefined && this.actors.some((a) => a.actorNr === master && a.state === 'active')) {
      this.override = master
      this.updateMaster(frame)
    }
    return change
  }
}
