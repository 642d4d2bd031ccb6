// FigNet / Entangle message ids, payload models and enums (docs/fignet.md, from the FigNet porting
// guide; enum values from the public v1.0.6 binaries).
// Names keep the code's spelling, typos included (Sucess, RELAIBLE_DATA_CHANNEL), so they match what a
// developer sees in the C# source.

/** Which codec a message's payload uses: core messages the legacy BitBuffer, Entangle MemoryPack. */
export type PayloadCodecName = 'BitBuffer' | 'MemoryPack'

export type MessageKind = 'core' | 'entangle' | 'infrastructure' | 'admin'

export interface FigNetMessageInfo {
  id: number
  name: string
  kind: MessageKind
  /** The payload codec; null when the message has no known payload (reserved/infrastructure ids). */
  codec: PayloadCodecName | null
  /** Typical direction as the guide gives it. */
  direction: string
  /** Client→server (request) payload model, null when there is none. */
  request: string | null
  /** Server→client (response/event) payload model, null when there is none or it is not one model. */
  response: string | null
  description: string
}

export const MSG_REGISTER_IDENTITY = 60000
export const MSG_VALIDATE_IDENTITY = 60001
export const MSG_PING = 60002
export const MSG_APP_KEY = 60304
export const MSG_ROOM_EVENT = 60406

const core = (id: number, name: string, request: string | null, response: string | null, description: string): FigNetMessageInfo => ({
  id,
  name,
  kind: 'core',
  codec: request || response ? 'BitBuffer' : null,
  direction: 'client <-> server',
  request,
  response,
  description
})

const ent = (id: number, name: string, direction: string, request: string | null, response: string | null, description: string): FigNetMessageInfo => ({
  id,
  name,
  kind: 'entangle',
  codec: 'MemoryPack',
  direction,
  request,
  response,
  description
})

const C2S = 'client -> server'
const S2C = 'server -> client'
const BOTH = 'client <-> server'

const MESSAGES: FigNetMessageInfo[] = [
  core(
    60000,
    'RegisterIdentity',
    'RegisterIdentityModel',
    'RegisterIdentityModel',
    'Bootstrap: the client sends peer type, app secret and app name; the server replies on the same id (failure: SecretKey "invalid", AppName = error text)'
  ),
  core(60001, 'ValidateIdentity', null, null, 'Reserved legacy id: not used by the active handshake'),
  core(60002, 'Ping', 'PingModel', 'PingModel', 'Echoes the peer type and callback id'),

  ent(60300, 'CreateRoom', BOTH, 'CreateRoomData', 'CreateRoomResponseData', 'Create a room'),
  ent(60301, 'JoinRoom', BOTH, 'RoomJoinOperationData', 'RoomJoinOperationData', 'Join a room; the response reuses RoomId as the joining player id'),
  ent(60302, 'GetRoomList', BOTH, 'GetRoomListOperationData', 'RoomListData', 'Room list query'),
  ent(60303, 'LeaveRoom', BOTH, 'LeaveRoomOperationData', 'LeaveRoomOperationData', 'Leave the room'),
  ent(
    60304,
    'AppKey',
    BOTH,
    'RegisterAppIdOperationData',
    'RegisterAppIdOperationData',
    'Entangle app key after RegisterIdentity; the reply carries IsSuccess'
  ),
  ent(60305, 'ReJoinRoom', BOTH, 'RoomReJoinOperationData', 'RoomReJoinOperationData', 'Rejoin a room with its auth token'),
  ent(60306, 'ForcedSyncRoomState', C2S, 'NullOperationData', null, 'Ask for a room state replay (answered by a sequence of state messages)'),

  ent(60400, 'OnPlayerJoinRoom', S2C, null, 'OnPlayerJoinRoomOperationData', 'A player joined the room'),
  ent(60401, 'OnPlayerLeftRoom', S2C, null, 'OnPlayerLeaveRoomOperationData', 'A player left the room'),
  ent(
    60402,
    'OnEntityState',
    BOTH,
    'EntityStateChangeOperationData',
    'EntityStateChangeResponseOperationData',
    'Entity state deltas (the response is a batch)'
  ),
  ent(60403, 'OnMasterClientChange', S2C, null, 'MasterClientChangeOperationData', 'The master client changed'),
  ent(60404, 'InstantiateEntity', BOTH, 'InstantiateOperationData', 'InstantiateOperationResponseData', 'Spawn a networked entity'),
  ent(60405, 'DeleteEntity', BOTH, 'DeleteEntityData', 'DeleteEntityData', 'Delete a networked entity'),
  ent(60406, 'RoomEvent', BOTH, 'RoomEventData', 'RoomEventResponseData', 'User event; server→client traffic reuses RoomId as the sender id'),
  ent(
    60407,
    'RequestOwnerShip',
    BOTH,
    'RequestOwnershipOperationData',
    'RequestOwnershipOperationData',
    'Request entity ownership; the broadcast reuses RoomId as the owner id'
  ),
  ent(60408, 'ClearOwnerShip', BOTH, 'ClearOwnershipData', 'ClearOwnershipData', "Clear entity ownership; the broadcast reuses RoomId as the clearer's id"),
  ent(60409, 'OnAgentOwnerShipChange', S2C, null, 'AgentOwnershipChangeOperationData', 'Agent ownership changed'),
  ent(60410, 'RoomStateChange', S2C, null, 'RoomStateChangeOperationData', 'Room state changed'),
  ent(60411, 'PreRoomStateReceived', S2C, null, 'NullOperationData', 'Room state replay starts'),
  ent(60412, 'PostRoomStateReceived', S2C, null, 'NullOperationData', 'Room state replay ends'),
  ent(60413, 'EntityUpdate', BOTH, 'EntityUpdateOperationData', 'EntityUpdateResponseOperationData', 'Transform update (the response is a batch)'),
  ent(60414, 'PresenterMode', 'client -> server, response server -> client', 'PresenterModeData', 'PresenterModeData', 'Presenter mode'),
  ent(60415, 'OnCachedEventRemoved', S2C, null, 'RoomEventData', 'A cached room event was removed'),
  ent(60416, 'CustomGroupOperation', BOTH, 'CustomGroupOperationData', 'CustomGroupOperationData', 'Custom interest group operation'),
  ent(60417, 'Heartbeat', C2S, 'NullOperationData', null, 'Client heartbeat'),
  ent(60418, 'UpdateSeat', C2S, 'UpdateSeatOperationData', null, 'Seat update (propagated as room property/state changes)'),

  ent(60500, 'GameMessage', BOTH, 'GameMessage', 'GameMessage', 'Game extension message (client <-> server/module)'),
  ent(60501, 'GameState', BOTH, 'GameState', 'GameState', 'Game extension state (client <-> server/module)')
]

// Load balancer / room registry and admin panel ids: the guide names only the ranges.
for (let id = 60050; id <= 60055; id++) {
  MESSAGES.push({
    id,
    name: `Infrastructure${id}`,
    kind: 'infrastructure',
    codec: null,
    direction: 'server <-> server',
    request: null,
    response: null,
    description: 'Load balancer / room registry infrastructure message (EntangleCommon/OperationCode.cs 60050–60055); payload not documented'
  })
}
for (let id = 62000; id <= 62002; id++) {
  MESSAGES.push({
    id,
    name: `Admin${id}`,
    kind: 'admin',
    codec: null,
    direction: 'admin panel <-> server',
    request: null,
    response: null,
    description: 'Admin panel message (EntangleAdminPanel/OperationCode.cs 62000–62002); payload not documented'
  })
}

const BY_ID = new Map(MESSAGES.map((m) => [m.id, m]))

export function messageInfo(id: number): FigNetMessageInfo | undefined {
  return BY_ID.get(id)
}

export function allMessages(): readonly FigNetMessageInfo[] {
  return MESSAGES
}

/** id → name, for the message id field's named values. */
export const MESSAGE_NAMES: Readonly<Record<number, string>> = Object.fromEntries(MESSAGES.map((m) => [m.id, m.name]))

/** The message's name, or `Message <id>` for an id outside the registry. */
export function messageName(id: number): string {
  return BY_ID.get(id)?.name ?? `Message ${id}`
}

// ---- enums ----

/** FigNet.Core.PeerType (byte). */
export const PEER_TYPE: Readonly<Record<number, string>> = { 0: 'Server', 1: 'Client', 2: 'Unknown' }

/** FigNetCommon.RoomResponseCode (byte). "Sucess" is the code's spelling. */
export const ROOM_RESPONSE_CODE: Readonly<Record<number, string>> = {
  0: 'Sucess',
  1: 'InvalidPassword',
  2: 'RoomLocked',
  3: 'RoomFull',
  4: 'Unknown',
  5: 'Failure'
}

/** FigNetCommon.EntityType (byte). */
export const ENTITY_TYPE: Readonly<Record<number, string>> = { 0: 'Player', 1: 'Agent', 2: 'Item' }

/** FigNet.Core.DeliveryMethod (FigNet's own numbering, not LiteNetLib's). */
export const DELIVERY_METHOD: Readonly<Record<number, string>> = { 0: 'Unreliable', 1: 'Reliable', 2: 'ReliableUnordered', 3: 'Sequenced' }

/** Entangle's fixed channel ids (EntangleCommon/Misc/FNConstants.cs). RELAIBLE is the code's spelling. */
export const ENTANGLE_CHANNELS: Readonly<Record<number, string>> = {
  0: 'RELAIBLE_DATA_CHANNEL',
  1: 'ENTITY_STATE_CHANNEL',
  2: 'ROOM_EVENT_CHANNEL',
  3: 'UPDATE_CHANNEL'
}

/** What each Entangle channel typically carries (docs/fignet.md, guide §4.2). */
export const ENTANGLE_CHANNEL_USE: Readonly<Record<number, string>> = {
  0: 'control and reliable room data',
  1: 'entity state deltas',
  2: 'room events and cached-event traffic',
  3: 'transform/entity update stream'
}

/** FigNetCommon.RoomQuery (byte), v1.0.6. "Avaliable" is the code's spelling. */
export const ROOM_QUERY: Readonly<Record<number, string>> = { 0: 'All', 1: 'Avaliable' }
