// The `gamewire-rooms/1` document (README.md, Photon rooms): what `gamewire rooms --json` prints and what
// analyzeRooms returns. Self-contained plain JSON (numbers, strings, arrays), so the app can show it as is.

export const ROOMS_FORMAT = 'gamewire-rooms/1'

/** Rule ids of divergences from Photon's room and cache behaviour (docs/photon.md, Rooms and the event cache). */
export type RuleId =
  | 'global-replayed-as-sender'
  | 'removal-ignored'
  | 'removal-delivered'
  | 'cleanup-without-option'
  | 'actors-left-removed-global'
  | 'ghost-inherited'
  | 'replay-missing'
  | 'replay-unexpected'
  | 'replay-order'

export interface Divergence {
  rule: RuleId
  detail: string
  /** Capture frame numbers that show it, ascending. */
  frames: number[]
}

export interface RoomActor {
  actorNr: number
  conversation: number
  userId: string | null
  joinedFrame: number
  /** The frame it left the room for good, or went inactive (then `ghost`); null while it is in. */
  leftFrame: number | null
  /** 0 Default, 1 CreateIfNotExists, 2 JoinOrRejoin, 3 RejoinOnly (CreateGame: 0). */
  joinMode: number
  /** Kept in the room without its connection: inactive under PlayerTTL, or still held when its user joined again. */
  ghost: boolean
}

export interface MasterChange {
  frame: number
  actorNr: number
  /** `lowest-active`: Photon's default choice; `set-properties`: property 248 set with the expected value. */
  how: 'lowest-active' | 'set-properties'
}

export interface ExpectedReplay {
  code: number
  /** 0 for a global event (AddToRoomCacheGlobal), else the actor that raised it. */
  sender: number
  /** The RaiseEvent's cache option: 4 AddToRoomCache or 5 AddToRoomCacheGlobal. */
  cache: number
}

export interface ReceivedReplay {
  code: number
  /** The event's sender (parameter 254), null when it has none. */
  sender: number | null
  frame: number
}

export interface RoomJoin {
  frame: number
  actorNr: number
  conversation: number
  expected: ExpectedReplay[]
  received: ReceivedReplay[]
  divergences: Divergence[]
  /** `unknown` when messages it depends on could not be read (encrypted without a key): nothing is guessed. */
  verdict: 'ok' | 'diverges' | 'unknown'
}

/** A SetProperties request and how Photon decides it (CAS on the expected values, parameter 231). */
export interface PropertyChange {
  frame: number
  conversation: number
  /** 0 for room properties, else the actor whose properties are set. */
  target: number
  /** The keys set, as canonical text (`B248` is byte key 248, `"name"` a string key). */
  keys: string[]
  /** Whether it carried expected values. */
  cas: boolean
  /** What Photon does: apply it, or refuse it because an expected value differs. */
  outcome: 'applied' | 'refused'
  /** The server's return code in its response (0 Ok), null when no response was seen. */
  serverReturnCode: number | null
}

export interface Room {
  name: string
  /** The game server's `ip:port`. */
  server: string
  /** CleanupCacheOnLeave as the room was created (op parameter 241 or room property 249; default off). */
  cleanupCacheOnLeave: boolean
  /** PlayerTTL in ms (op parameter 235 or room property 246; default 0, -1 forever). */
  playerTtl: number
  actors: RoomActor[]
  master: MasterChange[]
  joins: RoomJoin[]
  properties: PropertyChange[]
  /** Every divergence in the room: those of its joins and those of the room as a whole, by first frame. */
  divergences: Divergence[]
}

/** A message the analysis could not read. */
export interface UnknownInput {
  conversation: number
  frame: number
  reason: string
}

export interface RoomsDocument {
  format: typeof ROOMS_FORMAT
  rooms: Room[]
  unknown: UnknownInput[]
}
