// Rebuilds every Photon room in a capture from its game-server conversations (one per client) and checks
// each join's replay against Photon's rules (docs/photon.md, Rooms and the event cache). Pure: it reads
// the decoded messages (`value` as the Photon decoder gives it, with `parameters`) in capture order.
// The clients' requests say what Photon would do; the server's responses and events say what it did.

import type { PhotonMessageValue } from '../../protocols/photon/message'
import type { PhotonValue } from '../../protocols/photon/values'
import { CACHE, eventKey, type CachedEvent } from './cache'
import { ROOMS_FORMAT, type Divergence, type Room, type RoomJoin, type RoomsDocument, type UnknownInput } from './document'
import { asExpected, compareReplay, expectedReplay, type Received } from './replay'
import { RoomState, type Actor } from './room'
import { bool, byteKey, ints, num, param, str } from './values'

/** The parts of a decoded message the analysis reads (a DecodedMessage has them all). */
export interface RoomsMessage {
  id: number
  conversation: number
  direction: string
  /** Capture frame numbers that carried it, ascending. */
  frames: number[]
  /** Epoch seconds. */
  time: number
  protocol: string
  value: unknown
  error?: string | null
}

export interface RoomsConversation {
  id: number
  server: string
}

const MSG_REQUEST = 2
const MSG_RESPONSE = 3
const MSG_EVENT = 4
const OP = {
  JOIN_LITE: 255,
  LEAVE: 254,
  RAISE_EVENT: 253,
  SET_PROPERTIES: 252,
  AUTHENTICATE: 230,
  AUTHENTICATE_ONCE: 231,
  CREATE_GAME: 227,
  JOIN_GAME: 226
} as const
const EV_JOIN = 255
const EV_LEAVE = 254
const EV_PROPERTIES_CHANGED = 253
/** LoadBalancing's own events (213-255: Join, Leave, PropertiesChanged, …) are never cached events. */
const FIRST_ROOM_EVENT = 213
const JOIN_MODE_REJOIN_ONLY = 3
const P = {
  ROOM_NAME: 255,
  ACTOR_NR: 254,
  ACTOR_LIST: 252,
  PROPERTIES: 251,
  PLAYER_PROPS: 249,
  GAME_PROPS: 248,
  CACHE: 247,
  DATA: 245,
  CODE: 244,
  CLEANUP: 241,
  PLAYER_TTL: 235,
  IS_INACTIVE: 233,
  EXPECTED: 231,
  USER_ID: 225,
  JOIN_MODE: 215
} as const
const PROP_CLEANUP = 249
const PROP_PLAYER_TTL = 246
const ACTOR_PROP_USER_ID = 253

interface PendingJoin {
  frame: number
  room: string
  joinMode: number
  cleanup: boolean
  playerTtl: number
  gameProps: PhotonValue | undefined
  playerProps: PhotonValue | undefined
}

/** The events a joiner receives after its join response, until live traffic starts. */
interface ReplayWindow {
  join: RoomJoin
  order: number
  cache: CachedEvent[]
  removed: RoomState['cache']['removed']
  actorsLeft: RoomState['cache']['actorsLeftRemovals']
  departed: Map<number, number>
  inherited: boolean
  received: Received[]
  unknown: boolean
}

interface Conv {
  id: number
  userId: string | null
  pendingJoin?: PendingJoin
  room?: RoomState
  actor?: Actor
  window?: ReplayWindow
  pendingProps: Room['properties'][number][]
}

/** One RaiseEvent that reached the server, to tell live events from replayed ones. */
interface Raised {
  order: number
  conversation: number
  key: string
  code: number
  cache: number
  frame: number
  actorNr: number
  delivered: number[]
}

const last = (m: RoomsMessage) => m.frames[m.frames.length - 1] ?? 0

/** Analyses the messages of a capture (any protocols; only Photon ones are read). */
export function analyzeRooms(messages: Iterable<RoomsMessage>, conversations: readonly RoomsConversation[] = []): RoomsDocument {
  const servers = new Map(conversations.map((c) => [c.id, c.server]))
  const list = [...messages].filter((m) => m.protocol === 'photon')
  // Messages held back until roles were known can carry later ids than other conversations' later frames.
  list.sort((a, b) => last(a) - last(b) || a.id - b.id)
  const a = new Analysis(servers)
  list.forEach((m, order) => a.message(m, order))
  return a.finish()
}

class Analysis {
  private readonly convs = new Map<number, Conv>()
  private readonly rooms = new Map<string, RoomState>()
  private readonly joins = new Map<RoomState, RoomJoin[]>()
  private readonly raised = new Map<RoomState, Raised[]>()
  private readonly unknown: UnknownInput[] = []

  constructor(private readonly servers: Map<number, string>) {}

  private conv(id: number): Conv {
    let c = this.convs.get(id)
    if (!c) this.convs.set(id, (c = { id, userId: null, pendingProps: [] }))
    return c
  }

  message(m: RoomsMessage, order: number): void {
    const v = m.value as PhotonMessageValue | null
    if (!v || typeof v !== 'object') return
    const frame = last(m)
    for (const room of this.rooms.values()) room.expire(m.time, frame)
    const c = this.conv(m.conversation)
    if (v.command === 'DISCONNECT' && m.direction === 'c2s') return this.gone(c, frame, m.time, true)
    const t = v.msgType
    if (t !== MSG_REQUEST && t !== MSG_RESPONSE && t !== MSG_EVENT) return
    if ((v.encrypted && v.ciphertext) || (m.error && !v.parameters)) {
      this.unreadable(c, frame, t === MSG_REQUEST, v.encrypted && v.ciphertext ? 'encrypted, no key decrypts it' : `not decoded: ${m.error}`)
      return
    }
    if (t === MSG_REQUEST) this.request(c, v, frame, m.time, order)
    else if (t === MSG_RESPONSE) this.response(c, v, frame, order)
    else this.event(c, v, frame, m.time, order)
  }

  /** An unread event or response leaves its joiner's replay unknown; an unread request (maybe a cache operation) every later join's. */
  private unreadable(c: Conv, frame: number, request: boolean, reason: string): void {
    this.unknown.push({ conversation: c.id, frame, reason })
    if (c.window) c.window.unknown = true
    if (request && c.room && c.room.unknownSince === null) c.room.unknownSince = frame
  }

  private request(c: Conv, v: PhotonMessageValue, frame: number, time: number, order: number): void {
    switch (v.code) {
      case OP.AUTHENTICATE:
      case OP.AUTHENTICATE_ONCE:
        c.userId ??= str(param(v, P.USER_ID)) ?? null
        return
      case OP.CREATE_GAME:
      case OP.JOIN_GAME:
      case OP.JOIN_LITE: {
        const room = str(param(v, P.ROOM_NAME))
        if (room === undefined) return
        const gameProps = param(v, P.GAME_PROPS)
        const playerProps = param(v, P.PLAYER_PROPS)
        c.userId ??= str(byteKey(playerProps, ACTOR_PROP_USER_ID)) ?? null
        c.pendingJoin = {
          frame,
          room,
          joinMode: v.code === OP.CREATE_GAME ? 0 : (num(param(v, P.JOIN_MODE)) ?? (bool(param(v, P.JOIN_MODE)) ? 1 : 0)),
          // PUN sends 241 / property 249 only when CleanupCacheOnLeave is true: absent means off.
          cleanup: bool(param(v, P.CLEANUP)) ?? bool(byteKey(gameProps, PROP_CLEANUP)) ?? false,
          playerTtl: num(param(v, P.PLAYER_TTL)) ?? num(byteKey(gameProps, PROP_PLAYER_TTL)) ?? 0,
          gameProps,
          playerProps
        }
        return
      }
      case OP.LEAVE:
        if (c.actor) this.gone(c, frame, time, bool(param(v, P.IS_INACTIVE)) === true)
        return
      case OP.SET_PROPERTIES: {
        if (!c.room) return
        const change = c.room.setProperties(c.id, frame, param(v, P.PROPERTIES), num(param(v, P.ACTOR_NR)) ?? 0, param(v, P.EXPECTED))
        c.pendingProps.push(change)
        return
      }
      case OP.RAISE_EVENT:
        return this.raise(c, v, frame, order)
    }
  }

  private raise(c: Conv, v: PhotonMessageValue, frame: number, order: number): void {
    const room = c.room
    const actor = c.actor
    if (!room || !actor) return
    const code = num(param(v, P.CODE)) ?? 0
    const cache = num(param(v, P.CACHE)) ?? 0
    const data = param(v, P.DATA)
    if (cache === CACHE.ADD || cache === CACHE.ADD_GLOBAL) room.cache.add(code, actor.actorNr, cache === CACHE.ADD_GLOBAL, data, frame)
    else if (cache === CACHE.REMOVE) room.cache.remove({ code, senders: ints(param(v, P.ACTOR_LIST)), data }, frame, actor.actorNr)
    else if (cache === CACHE.REMOVE_FOR_ACTORS_LEFT) room.cache.removeForActorsLeft((n) => room.inRoom(n), frame, actor.actorNr)
    let raised = this.raised.get(room)
    if (!raised) this.raised.set(room, (raised = []))
    raised.push({ order, conversation: c.id, key: eventKey(code, data), code, cache, frame, actorNr: actor.actorNr, delivered: [] })
  }

  private response(c: Conv, v: PhotonMessageValue, frame: number, order: number): void {
    if (v.code === OP.SET_PROPERTIES) {
      const change = c.pendingProps.shift()
      if (change) change.serverReturnCode = v.returnCode ?? null
      return
    }
    if (v.code !== OP.CREATE_GAME && v.code !== OP.JOIN_GAME && v.code !== OP.JOIN_LITE) return
    const p = c.pendingJoin
    c.pendingJoin = undefined
    const actorNr = num(param(v, P.ACTOR_NR))
    if (!p || v.returnCode !== 0 || actorNr === undefined) return
    this.join(c, p, actorNr, frame, order)
  }

  private join(c: Conv, p: PendingJoin, actorNr: number, frame: number, order: number): void {
    const server = this.servers.get(c.id) ?? ''
    const id = `${server} ${p.room}`
    let room = this.rooms.get(id)
    if (!room) {
      room = new RoomState(p.room, server, p.cleanup, p.playerTtl, p.gameProps)
      this.rooms.set(id, room)
      this.joins.set(room, [])
    }
    this.closeWindow(c)
    const holder = room.holder(actorNr)
    const inherited =
      holder !== undefined && holder.conversation !== c.id && p.joinMode !== JOIN_MODE_REJOIN_ONLY && c.userId !== null && holder.userId === c.userId
    const divergences: Divergence[] = []
    if (holder && p.joinMode === JOIN_MODE_REJOIN_ONLY && holder.state === 'inactive') room.resume(holder)
    else if (inherited) {
      divergences.push({
        rule: 'ghost-inherited',
        detail: `a join with JoinMode ${p.joinMode} (not RejoinOnly) was given actor ${actorNr}, still held by conversation ${holder.conversation} of the same user ${JSON.stringify(c.userId)}`,
        frames: [holder.joinedFrame, frame]
      })
      holder.ghost = true
      holder.state = 'gone'
    }
    const actor: Actor = {
      actorNr,
      conversation: c.id,
      userId: c.userId,
      joinedFrame: frame,
      leftFrame: null,
      joinMode: p.joinMode,
      ghost: false,
      state: 'active'
    }
    const cache = [...room.cache.events]
    const join: RoomJoin = {
      frame,
      actorNr,
      conversation: c.id,
      expected: expectedReplay(cache, actorNr).map(asExpected),
      received: [],
      divergences,
      verdict: 'ok'
    }
    this.joins.get(room)!.push(join)
    room.add(actor, p.playerProps)
    c.room = room
    c.actor = actor
    c.window = {
      join,
      order,
      cache,
      removed: [...room.cache.removed],
      actorsLeft: [...room.cache.actorsLeftRemovals],
      departed: new Map(room.departed),
      inherited,
      received: [],
      unknown: room.unknownSince !== null
    }
  }

  private event(c: Conv, v: PhotonMessageValue, frame: number, time: number, order: number): void {
    const code = v.code ?? -1
    const room = c.room
    if (code === EV_LEAVE && room) {
      const nr = num(param(v, P.ACTOR_NR))
      const who = nr === undefined ? undefined : room.holder(nr)
      if (who) room.leave(who, frame, time, bool(param(v, P.IS_INACTIVE)) === true)
    }
    if (code >= FIRST_ROOM_EVENT) {
      // Another actor joining or leaving, or properties changing, is live room traffic: the replay is over.
      const own = code === EV_JOIN && num(param(v, P.ACTOR_NR)) === c.actor?.actorNr
      if (!own && (code === EV_JOIN || code === EV_LEAVE || code === EV_PROPERTIES_CHANGED)) this.closeWindow(c)
      return
    }
    if (!room) return
    const data = param(v, P.DATA)
    const key = eventKey(code, data)
    const sender = num(param(v, P.ACTOR_NR)) ?? null
    const raised = this.raised.get(room) ?? []
    // A cache-6 RaiseEvent is only a filter: Photon never delivers it.
    const removal = raised.find((r) => r.cache === CACHE.REMOVE && r.conversation !== c.id && r.key === key && r.actorNr === sender && r.order < order)
    if (removal) return void removal.delivered.push(frame)
    const w = c.window
    if (!w) return
    // The replay ends where live traffic starts: an event raised by someone else after this join, or one
    // sent unreliably (Photon sends cached events reliably).
    const unreliable = v.command === 'SEND_UNRELIABLE' || v.command === 'SEND_UNSEQUENCED'
    const live = unreliable || raised.some((r) => r.order > w.order && r.conversation !== c.id && r.key === key && r.cache !== CACHE.REMOVE)
    if (live) return this.closeWindow(c)
    w.received.push({ code, sender, frame, key })
  }

  /** The connection left (Leave, or disconnected): with `mayComeBack`, PlayerTTL may keep its actor. */
  private gone(c: Conv, frame: number, time: number, mayComeBack: boolean): void {
    this.closeWindow(c)
    if (c.room && c.actor) c.room.leave(c.actor, frame, time, mayComeBack)
    c.actor = undefined
    c.room = undefined
  }

  private closeWindow(c: Conv): void {
    const w = c.window
    if (!w) return
    c.window = undefined
    const room = c.room!
    w.join.received = w.received.map(({ code, sender, frame }) => ({ code, sender, frame }))
    if (w.unknown) {
      w.join.verdict = 'unknown'
    } else {
      w.join.divergences.push(
        ...compareReplay(
          {
            joinFrame: w.join.frame,
            actorNr: w.join.actorNr,
            cache: w.cache,
            removed: w.removed,
            actorsLeftRemovals: w.actorsLeft,
            departed: w.departed,
            cleanupCacheOnLeave: room.cleanupCacheOnLeave,
            inherited: w.inherited
          },
          w.received
        )
      )
    }
    if (w.join.verdict !== 'unknown' && w.join.divergences.length) w.join.verdict = 'diverges'
  }

  finish(): RoomsDocument {
    for (const c of this.convs.values()) this.closeWindow(c)
    const rooms: Room[] = []
    for (const room of this.rooms.values()) {
      const joins = this.joins.get(room)!
      for (const r of this.raised.get(room) ?? []) {
        if (r.cache === CACHE.REMOVE && r.delivered.length) {
          room.divergences.push({
            rule: 'removal-delivered',
            detail: `the RemoveFromRoomCache of actor ${r.actorNr} (event ${r.code}) was delivered to other actors as an event`,
            frames: [r.frame, ...new Set(r.delivered)].sort((x, y) => x - y)
          })
        }
      }
      const all = [...joins.flatMap((j) => j.divergences), ...room.divergences].sort((x, y) => x.frames[0] - y.frames[0])
      rooms.push({
        name: room.name,
        server: room.server,
        cleanupCacheOnLeave: room.cleanupCacheOnLeave,
        playerTtl: room.playerTtl,
        actors: room.actors.map(({ actorNr, conversation, userId, joinedFrame, leftFrame, joinMode, ghost }) => ({
          actorNr,
          conversation,
          userId,
          joinedFrame,
          leftFrame,
          joinMode,
          ghost
        })),
        master: [...room.master],
        joins,
        properties: [...room.properties],
        divergences: all
      })
    }
    return { format: ROOMS_FORMAT, rooms, unknown: this.unknown }
  }
}
