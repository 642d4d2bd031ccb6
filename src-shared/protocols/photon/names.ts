// Photon / LoadBalancing (Realtime) / PUN code tables, for field names and summaries
// (docs/photon.md). Checked against the Realtime C# LoadBalancingPeer constants
// (ErrorCode, EventCode, ParameterCode, OperationCode, GamePropertyKey, ActorProperties, JoinMode,
// ReceiverGroup, EventCaching, MatchmakingMode, RoomOptionBit), the 2024 LoadBalancing C++ headers
// (ErrorCode Core/ApplicationLayer, LobbyType, room property 244) and PUN's PunEvent class.
// The ENet command types are named elsewhere.

/** byte1 of a message (`F3 type`), without the 0x80 "encrypted" bit. */
export const MESSAGE_TYPES: Readonly<Record<number, string>> = {
  0: 'Init',
  1: 'InitResponse',
  2: 'OperationRequest',
  3: 'OperationResponse',
  4: 'Event',
  5: 'DisconnectMessage',
  6: 'InternalOperationRequest',
  7: 'InternalOperationResponse',
  8: 'Message',
  9: 'RawMessage'
}

export const INTERNAL_OPERATION_INIT_ENCRYPTION = 0
export const INTERNAL_OPERATION_PING = 1

/** Operation codes of InternalOperationRequest/Response (msgType 6/7). */
export const INTERNAL_OPERATIONS: Readonly<Record<number, string>> = {
  0: 'InitEncryption',
  1: 'Ping'
}

/** Parameters of internal operation 0 (InitEncryption). Key 1 is the sender's DH public key. */
export const INIT_ENCRYPTION_PARAMETERS = {
  request: { 1: 'ClientKey', 2: 'ModeKey' } as Readonly<Record<number, string>>,
  response: { 1: 'ServerKey' } as Readonly<Record<number, string>>
}
export const PARAM_CLIENT_KEY = 1
export const PARAM_SERVER_KEY = 1

export const OP_JOIN = 255
export const OP_LEAVE = 254
export const OP_RAISE_EVENT = 253
export const OP_SET_PROPERTIES = 252
export const OP_GET_PROPERTIES = 251
export const OP_CHANGE_GROUPS = 248
export const OP_AUTHENTICATE_ONCE = 231
export const OP_AUTHENTICATE = 230
export const OP_CREATE_GAME = 227
export const OP_JOIN_GAME = 226
export const OP_JOIN_RANDOM_GAME = 225
export const OP_FIND_FRIENDS = 222

/** Operation codes (OperationRequest/Response), LoadBalancing + Lite. */
export const OPERATIONS: Readonly<Record<number, string>> = {
  255: 'Join', // obsolete Lite join; LoadBalancing uses 226/227
  254: 'Leave',
  253: 'RaiseEvent',
  252: 'SetProperties',
  251: 'GetProperties',
  250: 'ExchangeKeysForEncryption', // obsolete: the key exchange is internal operation 0 now
  248: 'ChangeGroups',
  231: 'AuthenticateOnce',
  230: 'Authenticate',
  229: 'JoinLobby',
  228: 'LeaveLobby',
  227: 'CreateGame',
  226: 'JoinGame',
  225: 'JoinRandomGame',
  224: 'CancelJoinRandom', // obsolete
  222: 'FindFriends',
  221: 'GetLobbyStats',
  220: 'GetRegions',
  219: 'WebRpc',
  218: 'ServerSettings',
  217: 'GetGameList'
}

export const EV_JOIN = 255
export const EV_LEAVE = 254
export const EV_PROPERTIES_CHANGED = 253

/**
 * Event codes: LoadBalancing (255 down) and PUN (200 up). 210 is PUN's OwnershipTransfer; the same code
 * was LoadBalancing's AzureNodeInfo, obsolete since TCP routing was removed.
 */
export const EVENTS: Readonly<Record<number, string>> = {
  255: 'Join',
  254: 'Leave',
  253: 'PropertiesChanged',
  252: 'Disconnect', // obsolete, replaced by Leave
  251: 'ErrorInfo',
  250: 'CacheSliceChanged',
  230: 'GameList',
  229: 'GameListUpdate',
  228: 'QueueState',
  227: 'Match',
  226: 'AppStats',
  224: 'LobbyStats',
  223: 'AuthEvent',
  // PUN (PunEvent)
  212: 'OwnershipUpdate',
  211: 'VacantViewIds',
  210: 'OwnershipTransfer',
  209: 'OwnershipRequest',
  208: 'AssignMaster', // PUN classic
  207: 'DestroyPlayer',
  206: 'SendSerializeReliable',
  205: 'RemoveCachedRPCs',
  204: 'Destroy',
  203: 'CloseConnection',
  202: 'Instantiation',
  201: 'SendSerialize',
  200: 'RPC'
}

/**
 * Operation/event parameter codes. "A/B" where one code has two meanings; `parameterName` picks one from
 * the operation or event. Codes 1 and 2 (FindFriends lists, InitEncryption keys) are only named in context:
 * custom operations use low codes freely.
 */
export const PARAMETERS: Readonly<Record<number, string>> = {
  255: 'RoomName',
  254: 'ActorNr',
  253: 'TargetActorNr',
  252: 'ActorList',
  251: 'Properties',
  250: 'Broadcast',
  249: 'PlayerProperties',
  248: 'GameProperties',
  247: 'Cache',
  246: 'ReceiverGroup',
  245: 'Data/CustomEventContent',
  244: 'Code',
  241: 'CleanupCacheOnLeave',
  240: 'Group',
  239: 'Remove/PublishUserId',
  238: 'Add',
  237: 'SuppressRoomEvents',
  236: 'EmptyRoomTTL',
  235: 'PlayerTTL',
  234: 'EventForward',
  233: 'IsInactive/IsComingBack',
  232: 'CheckUserOnJoin',
  231: 'ExpectedValues',
  230: 'Address',
  229: 'PeerCount',
  228: 'GameCount',
  227: 'MasterPeerCount',
  225: 'UserId',
  224: 'ApplicationId',
  223: 'Position/MatchMakingType',
  222: 'GameList',
  221: 'Token/Secret',
  220: 'AppVersion',
  218: 'Info',
  217: 'ClientAuthenticationType',
  216: 'ClientAuthenticationParams',
  215: 'JoinMode/CreateIfNotExists',
  214: 'ClientAuthenticationData',
  213: 'LobbyName',
  212: 'LobbyType',
  211: 'LobbyStats',
  210: 'Region',
  209: 'UriPath',
  208: 'WebRpcParameters',
  207: 'WebRpcReturnCode',
  206: 'WebRpcReturnMessage',
  205: 'CacheSliceIndex',
  204: 'Plugins',
  203: 'MasterClientId',
  202: 'NickName',
  201: 'PluginName',
  200: 'PluginVersion',
  196: 'Cluster',
  195: 'ExpectedProtocol',
  194: 'CustomInitData',
  193: 'EncryptionMode',
  192: 'EncryptionData',
  191: 'RoomOptionFlags'
}

/** Well-known byte keys in the room/game property Hashtable (custom properties use string keys). */
export const GAME_PROPERTIES: Readonly<Record<number, string>> = {
  255: 'MaxPlayers',
  254: 'IsVisible',
  253: 'IsOpen',
  252: 'PlayerCount',
  251: 'Removed',
  250: 'PropsListedInLobby',
  249: 'CleanupCacheOnLeave',
  248: 'MasterClientId',
  247: 'ExpectedUsers',
  246: 'PlayerTtl',
  245: 'EmptyRoomTtl',
  244: 'DirectMode'
}

/** Well-known byte keys in the actor/player property Hashtable. */
export const ACTOR_PROPERTIES: Readonly<Record<number, string>> = {
  255: 'PlayerName',
  254: 'IsInactive',
  253: 'UserId'
}

/** Values of parameter 247 (Cache) in RaiseEvent. */
export const EVENT_CACHING: Readonly<Record<number, string>> = {
  0: 'DoNotCache',
  1: 'MergeCache', // 1-3 obsolete
  2: 'ReplaceCache',
  3: 'RemoveCache',
  4: 'AddToRoomCache',
  5: 'AddToRoomCacheGlobal', // stored for actor 0 (the room)
  6: 'RemoveFromRoomCache',
  7: 'RemoveFromRoomCacheForActorsLeft',
  10: 'SliceIncreaseIndex',
  11: 'SliceSetIndex',
  12: 'SlicePurgeIndex',
  13: 'SlicePurgeUpToIndex'
}

/** Values of parameter 246 (ReceiverGroup) in RaiseEvent; absent = Others. */
export const RECEIVER_GROUP: Readonly<Record<number, string>> = {
  0: 'Others',
  1: 'All',
  2: 'MasterClient'
}

/** Values of parameter 215 (JoinMode) in JoinGame. */
export const JOIN_MODE: Readonly<Record<number, string>> = {
  0: 'Default',
  1: 'CreateIfNotExists',
  2: 'JoinOrRejoin',
  3: 'RejoinOnly'
}

/** Values of parameter 223 (MatchMakingType) in JoinRandomGame. */
export const MATCHMAKING_MODE: Readonly<Record<number, string>> = {
  0: 'FillRoom',
  1: 'SerialMatching',
  2: 'RandomMatching'
}

/** Values of parameter 212 (LobbyType). */
export const LOBBY_TYPE: Readonly<Record<number, string>> = {
  0: 'Default',
  2: 'SqlLobby',
  3: 'AsyncRandomLobby'
}

/** Bits of parameter 191 (RoomOptionFlags) in CreateGame/JoinGame. */
export const ROOM_OPTION_FLAGS: Readonly<Record<number, string>> = {
  0x01: 'CheckUserOnJoin',
  0x02: 'DeleteCacheOnLeave',
  0x04: 'SuppressRoomEvents',
  0x08: 'PublishUserId',
  0x10: 'DeleteNullProps',
  0x20: 'BroadcastPropsChangeToAll',
  0x40: 'SuppressPlayerInfo'
}

/** Names of the set bits of a RoomOptionFlags value, low bit first; unknown bits as hex. */
export function roomOptionFlagNames(flags: number): string[] {
  const out: string[] = []
  for (let bit = 1; bit !== 0 && bit <= flags >>> 0; bit = (bit << 1) >>> 0) {
    if ((flags & bit) >>> 0) out.push(ROOM_OPTION_FLAGS[bit] ?? `0x${bit.toString(16)}`)
  }
  return out
}

/** OperationResponse returnCode (int16). 0 Ok; Photon core errors are negative, LoadBalancing ones count down from 32767. */
export const RETURN_CODES: Readonly<Record<number, string>> = {
  0: 'Ok',
  // Photon core (server, low level)
  [-1]: 'InternalServerError',
  [-2]: 'InvalidOperation',
  [-3]: 'OperationNotAllowedInCurrentState',
  [-4]: 'ArgumentOutOfRange',
  [-6]: 'InvalidRequestParameters',
  [-7]: 'NotReady',
  [-8]: 'Overload',
  [-9]: 'Backoff',
  [-10]: 'Maintenance',
  [-11]: 'SendBufferFull',
  [-12]: 'UnexpectedData',
  [-13]: 'SerializationLimitError',
  [-14]: 'WrongInitRequestData',
  [-15]: 'ResponseParseError',
  [-16]: 'CryptoProviderNotSet',
  [-17]: 'DecryptionFailure',
  [-18]: 'InvalidEncryptionParameters',
  [-30]: 'IncomingDataRateExceeded',
  [-31]: 'IncomingMsgRateExceeded',
  [-32]: 'IncomingMaxMsgSizeExceeded',
  [-34]: 'OperationMaxCountExceeded',
  [-35]: 'OperationRateExceeded',
  [-36]: 'OperationDataRateExceeded',
  [-37]: 'OperationBlocked',
  [-38]: 'OperationSizeLimitExceeded',
  [-39]: 'OperationParametersLimitExceeded',
  [-40]: 'MessagesRateExceeded',
  [-41]: 'MessagesDataRateExceeded',
  [-42]: 'MessagesBlocked',
  [-43]: 'MessageSizeLimitExceeded',
  // LoadBalancing (application)
  32767: 'InvalidAuthentication',
  32766: 'GameIdAlreadyExists',
  32765: 'GameFull',
  32764: 'GameClosed',
  32763: 'AlreadyMatched',
  32762: 'ServerFull',
  32761: 'UserBlocked',
  32760: 'NoRandomMatchFound',
  32758: 'GameDoesNotExist',
  32757: 'MaxCcuReached',
  32756: 'InvalidRegion',
  32755: 'CustomAuthenticationFailed',
  32753: 'AuthenticationTicketExpired',
  32752: 'PluginReportedError',
  32751: 'PluginMismatch',
  32750: 'JoinFailedPeerAlreadyJoined',
  32749: 'JoinFailedFoundInactiveJoiner',
  32748: 'JoinFailedWithRejoinerNotFound',
  32747: 'JoinFailedFoundExcludedUserId',
  32746: 'JoinFailedFoundActiveJoiner',
  32745: 'HttpLimitReached',
  32744: 'ExternalHttpCallFailed',
  32743: 'OperationLimitReached',
  32742: 'SlotError',
  32741: 'InvalidEncryptionParameters',
  32667: 'ClientVersionTooOld',
  32666: 'ClientVersionInvalid',
  32665: 'DashboardVersionInvalid'
}

/**
 * The reserved byte of a server's DISCONNECT command (ENet command type 4). The client maps 1/2/3 to
 * DisconnectByServerLogic/Timeout/UserLimit; any other value is "reason unknown" (4 is the default
 * reserved byte of every command).
 */
export const DISCONNECT_REASONS: Readonly<Record<number, string>> = {
  1: 'ServerLogic',
  2: 'Timeout',
  3: 'UserLimit'
}

/**
 * Client SDK ids in the Init message (byte 4 = id << 1 | build flag). Only the C# client library's default
 * (15, used by PUN and Realtime .NET) is confirmed; other SDKs set their own.
 */
export const CLIENT_SDK_IDS: Readonly<Record<number, string>> = {
  15: 'CSharp'
}

/**
 * The name of parameter `paramCode` of an operation (msgType 2/3), internal operation (6/7) or event (4)
 * with code `code`, choosing between the meanings of an overloaded code. `valueType` (the decoded type
 * name, e.g. 'Boolean') separates the old bool CreateIfNotExists from the JoinMode byte. Falls back to
 * PARAMETERS; undefined when the code is not known.
 */
export function parameterName(msgType: number, code: number, paramCode: number, valueType?: string): string | undefined {
  const t = msgType & 0x7f
  const request = t === 2 || t === 6
  const response = t === 3 || t === 7
  const op = request || response
  if (t === 6 || t === 7) {
    if (code === INTERNAL_OPERATION_INIT_ENCRYPTION) {
      return (request ? INIT_ENCRYPTION_PARAMETERS.request : INIT_ENCRYPTION_PARAMETERS.response)[paramCode] ?? PARAMETERS[paramCode]
    }
    return PARAMETERS[paramCode]
  }
  switch (paramCode) {
    case 1:
    case 2:
      if (op && code === OP_FIND_FRIENDS) {
        if (request) return paramCode === 1 ? 'FindFriendsRequestList' : 'FindFriendsOptions'
        return paramCode === 1 ? 'FindFriendsResponseOnlineList' : 'FindFriendsResponseRoomIdList'
      }
      return undefined
    case 245:
      if (t === 4) return 'CustomEventContent'
      if (op && code === OP_RAISE_EVENT) return 'Data'
      break
    case 223:
      if (op && code === OP_JOIN_RANDOM_GAME) return 'MatchMakingType'
      break
    case 239:
      if (op && code === OP_CHANGE_GROUPS) return 'Remove'
      if (op && (code === OP_CREATE_GAME || code === OP_JOIN_GAME || code === OP_JOIN_RANDOM_GAME || code === OP_JOIN)) return 'PublishUserId'
      break
    case 233:
      if (t === 4 && code === EV_LEAVE) return 'IsInactive'
      if (op && code === OP_LEAVE) return 'IsComingBack'
      break
    case 215:
      if (valueType === 'Boolean') return 'CreateIfNotExists'
      if (op && (code === OP_JOIN_GAME || code === OP_JOIN || code === OP_CREATE_GAME || code === OP_JOIN_RANDOM_GAME)) return 'JoinMode'
      break
  }
  return PARAMETERS[paramCode]
}

/** `table[code]`, or undefined (no prototype lookups for odd codes). */
export function nameOf(table: Readonly<Record<number, string>>, code: number): string | undefined {
  return Object.hasOwn(table, code) ? table[code] : undefined
}
