// SFS2X controller and action names (docs/sfs2x.md). Source: the official JS SDK
// sfs2x-api 1.8.6, `src/requests/Base.js` (the frozen request-id table) and
// `src/controllers/SystemController.js` (`_initMessageHandlers`, the server-pushed events).

export const CONTROLLER_SYSTEM = 0
export const CONTROLLER_EXTENSION = 1

export const CONTROLLER_NAMES: Readonly<Record<number, string>> = {
  [CONTROLLER_SYSTEM]: 'System',
  [CONTROLLER_EXTENSION]: 'Extension'
}

export const ACTION_HANDSHAKE = 0
export const ACTION_LOGIN = 1
export const ACTION_CALL_EXTENSION = 13
export const ACTION_GENERIC_MESSAGE = 7
export const ACTION_PING_PONG = 29
export const ACTION_GAME_SERVER_CONNECTION_REQUIRED = 600

/** System controller (0): requests; a response reuses its request's id. */
export const SYSTEM_REQUESTS: Readonly<Record<number, string>> = {
  0: 'Handshake',
  1: 'Login',
  2: 'Logout',
  4: 'JoinRoom',
  6: 'CreateRoom',
  7: 'GenericMessage',
  8: 'ChangeRoomName',
  9: 'ChangeRoomPassword',
  11: 'SetRoomVariables',
  12: 'SetUserVariables',
  13: 'CallExtension',
  14: 'LeaveRoom',
  15: 'SubscribeRoomGroup',
  16: 'UnsubscribeRoomGroup',
  17: 'SpectatorToPlayer',
  18: 'PlayerToSpectator',
  19: 'ChangeRoomCapacity',
  24: 'KickUser',
  25: 'BanUser',
  27: 'FindRooms',
  28: 'FindUsers',
  29: 'PingPong',
  30: 'SetUserPosition',
  31: 'QuickJoinOrCreateRoom',
  200: 'InitBuddyList',
  201: 'AddBuddy',
  202: 'BlockBuddy',
  203: 'RemoveBuddy',
  204: 'SetBuddyVariables',
  205: 'GoOnline',
  300: 'InviteUsers',
  301: 'InvitationReply',
  302: 'CreateSFSGame',
  303: 'QuickJoinGame',
  304: 'JoinRoomInvite',
  500: 'ClusterJoinOrCreate',
  502: 'ClusterInviteUsers',
  600: 'GameServerConnectionRequired'
}

/** System controller (0): events the server pushes without a request. */
export const SYSTEM_EVENTS: Readonly<Record<number, string>> = {
  1000: 'UserEnterRoom',
  1001: 'UserCountChange',
  1002: 'UserLost',
  1003: 'RoomLost',
  1004: 'UserExitRoom',
  1005: 'ClientDisconnection',
  1007: 'SetMMOItemVariables',
  1600: 'LoadBalancerError'
}

/**
 * System controller (0): request ids on which the server tells clients about a change, to the requester
 * and to the other users it concerns, named after the event the SDK dispatches for them (SystemController
 * `_fnChangeRoomName` → ROOM_NAME_CHANGE, …). GenericMessage (7) is named by its message type instead.
 * An error reply (`ec`) goes to the requester alone and stays a response.
 */
export const SYSTEM_PUSHES: Readonly<Record<number, string>> = {
  6: 'RoomAdd',
  8: 'RoomNameChange',
  9: 'RoomPasswordStateChange',
  11: 'RoomVariablesUpdate',
  12: 'UserVariablesUpdate',
  19: 'RoomCapacityChange',
  30: 'ProximityListUpdate',
  204: 'BuddyVariablesUpdate',
  205: 'BuddyOnlineStateChange',
  300: 'Invitation'
}

/** GenericMessage (7) from the server: the SDK's event per message type byte `t`. */
export const GENERIC_MESSAGE_EVENTS: Readonly<Record<number, string>> = {
  0: 'PublicMessage',
  1: 'PrivateMessage',
  2: 'ModeratorMessage',
  3: 'AdminMessage',
  4: 'ObjectMessage',
  5: 'BuddyMessage'
}

/** Every system action id with a name (requests and events), for the `sfs2x.action` field's named values. */
export const ACTION_NAMES: Readonly<Record<number, string>> = { ...SYSTEM_REQUESTS, ...SYSTEM_EVENTS }

/** The message type byte (`t`) of GenericMessage (7). */
export const GENERIC_MESSAGE_TYPES: Readonly<Record<number, string>> = {
  0: 'public',
  1: 'private',
  2: 'moderator',
  3: 'admin',
  4: 'object',
  5: 'buddy'
}

export function controllerName(id: number): string | undefined {
  return CONTROLLER_NAMES[id]
}

/**
 * A server→client message's name as a user reads it: `ExtensionResponse` (Extension controller, 13),
 * the event for a push (`UserEnterRoom`, `UserVariablesUpdate`, `PublicMessage`), or `<Request>Response`
 * for the reply to a system request (`LoginResponse`). Undefined when the pair is not known.
 */
export function serverMessageName(controller: number, action: number, p: { error: boolean; messageType?: number }): string | undefined {
  if (controller === CONTROLLER_EXTENSION) return action === ACTION_CALL_EXTENSION ? 'ExtensionResponse' : undefined
  if (controller !== CONTROLLER_SYSTEM) return undefined
  const event = SYSTEM_EVENTS[action]
  if (event) return event
  if (action === ACTION_GAME_SERVER_CONNECTION_REQUIRED) return SYSTEM_REQUESTS[action] // only ever sent by the server
  if (!p.error) {
    if (action === ACTION_GENERIC_MESSAGE && p.messageType !== undefined && GENERIC_MESSAGE_EVENTS[p.messageType]) return GENERIC_MESSAGE_EVENTS[p.messageType]
    if (SYSTEM_PUSHES[action]) return SYSTEM_PUSHES[action]
  }
  const request = SYSTEM_REQUESTS[action]
  return request ? `${request}Response` : undefined
}

/** The action's name for this controller, or undefined when the pair is not known. */
export function actionName(controller: number, action: number): string | undefined {
  if (controller === CONTROLLER_SYSTEM) return ACTION_NAMES[action]
  if (controller === CONTROLLER_EXTENSION) return action === ACTION_CALL_EXTENSION ? 'CallExtension' : undefined
  return undefined
}

/** Whether the server answers this client action with a response (not only a push to the users concerned). */
export function expectsResponse(controller: number, action: number): boolean {
  if (controller === CONTROLLER_EXTENSION) return action === ACTION_CALL_EXTENSION
  return serverMessageName(controller, action, { error: false })?.endsWith('Response') ?? false
}
