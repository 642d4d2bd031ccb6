// Photon name tables: spot checks against the Realtime/LoadBalancing/PUN constants, and the
// context rules of parameterName for overloaded parameter codes.
import { describe, it, expect } from 'vitest'
import {
  ACTOR_PROPERTIES,
  CLIENT_SDK_IDS,
  DISCONNECT_REASONS,
  EVENTS,
  EVENT_CACHING,
  GAME_PROPERTIES,
  INTERNAL_OPERATIONS,
  JOIN_MODE,
  LOBBY_TYPE,
  MATCHMAKING_MODE,
  MESSAGE_TYPES,
  OPERATIONS,
  PARAMETERS,
  RECEIVER_GROUP,
  RETURN_CODES,
  ROOM_OPTION_FLAGS,
  nameOf,
  parameterName,
  roomOptionFlagNames
} from '../../../../src-shared/protocols/photon/names'

const REQ = 2
const RESP = 3
const EVENT = 4
const INT_REQ = 6
const INT_RESP = 7

describe('tables', () => {
  it('message types and internal operations', () => {
    expect(MESSAGE_TYPES[0]).toBe('Init')
    expect(MESSAGE_TYPES[3]).toBe('OperationResponse')
    expect(MESSAGE_TYPES[7]).toBe('InternalOperationResponse')
    expect(MESSAGE_TYPES[9]).toBe('RawMessage')
    expect(Object.keys(MESSAGE_TYPES)).toHaveLength(10)
    expect(INTERNAL_OPERATIONS).toEqual({ 0: 'InitEncryption', 1: 'Ping' })
  })

  it('operations', () => {
    expect(OPERATIONS[253]).toBe('RaiseEvent')
    expect(OPERATIONS[252]).toBe('SetProperties')
    expect(OPERATIONS[230]).toBe('Authenticate')
    expect(OPERATIONS[226]).toBe('JoinGame')
    expect(OPERATIONS[227]).toBe('CreateGame')
    expect(OPERATIONS[217]).toBe('GetGameList')
    expect(OPERATIONS[250]).toBe('ExchangeKeysForEncryption')
  })

  it('events: LoadBalancing and PUN', () => {
    expect(EVENTS[255]).toBe('Join')
    expect(EVENTS[253]).toBe('PropertiesChanged')
    expect(EVENTS[226]).toBe('AppStats')
    expect(EVENTS[223]).toBe('AuthEvent')
    expect(EVENTS[200]).toBe('RPC')
    expect(EVENTS[202]).toBe('Instantiation')
    expect(EVENTS[206]).toBe('SendSerializeReliable')
    expect(EVENTS[210]).toBe('OwnershipTransfer')
    expect(EVENTS[212]).toBe('OwnershipUpdate')
    // game events (Rec Room uses 22..36) have no names
    expect(EVENTS[22]).toBeUndefined()
  })

  it('parameters (plain table)', () => {
    expect(PARAMETERS[255]).toBe('RoomName')
    expect(PARAMETERS[254]).toBe('ActorNr')
    expect(PARAMETERS[244]).toBe('Code')
    expect(PARAMETERS[245]).toBe('Data/CustomEventContent')
    expect(PARAMETERS[239]).toBe('Remove/PublishUserId')
    expect(PARAMETERS[233]).toBe('IsInactive/IsComingBack')
    expect(PARAMETERS[223]).toBe('Position/MatchMakingType')
    expect(PARAMETERS[215]).toBe('JoinMode/CreateIfNotExists')
    expect(PARAMETERS[221]).toBe('Token/Secret')
    expect(PARAMETERS[191]).toBe('RoomOptionFlags')
    expect(PARAMETERS[192]).toBe('EncryptionData')
    // low codes are only named in context
    expect(PARAMETERS[1]).toBeUndefined()
    expect(PARAMETERS[2]).toBeUndefined()
  })

  it('room and actor properties', () => {
    expect(GAME_PROPERTIES[255]).toBe('MaxPlayers')
    expect(GAME_PROPERTIES[253]).toBe('IsOpen')
    expect(GAME_PROPERTIES[250]).toBe('PropsListedInLobby')
    expect(GAME_PROPERTIES[248]).toBe('MasterClientId')
    expect(GAME_PROPERTIES[245]).toBe('EmptyRoomTtl')
    expect(ACTOR_PROPERTIES).toEqual({ 255: 'PlayerName', 254: 'IsInactive', 253: 'UserId' })
  })

  it('value enums', () => {
    expect(EVENT_CACHING[4]).toBe('AddToRoomCache')
    expect(EVENT_CACHING[5]).toBe('AddToRoomCacheGlobal')
    expect(EVENT_CACHING[6]).toBe('RemoveFromRoomCache')
    expect(EVENT_CACHING[7]).toBe('RemoveFromRoomCacheForActorsLeft')
    expect(EVENT_CACHING[8]).toBeUndefined()
    expect(EVENT_CACHING[10]).toBe('SliceIncreaseIndex')
    expect(EVENT_CACHING[13]).toBe('SlicePurgeUpToIndex')
    expect(RECEIVER_GROUP).toEqual({ 0: 'Others', 1: 'All', 2: 'MasterClient' })
    expect(JOIN_MODE).toEqual({ 0: 'Default', 1: 'CreateIfNotExists', 2: 'JoinOrRejoin', 3: 'RejoinOnly' })
    expect(MATCHMAKING_MODE[2]).toBe('RandomMatching')
    expect(LOBBY_TYPE[2]).toBe('SqlLobby')
    expect(DISCONNECT_REASONS).toEqual({ 1: 'ServerLogic', 2: 'Timeout', 3: 'UserLimit' })
    expect(CLIENT_SDK_IDS[15]).toBe('CSharp')
  })

  it('return codes (signed int16)', () => {
    expect(RETURN_CODES[0]).toBe('Ok')
    expect(RETURN_CODES[-1]).toBe('InternalServerError')
    expect(RETURN_CODES[-2]).toBe('InvalidOperation')
    expect(RETURN_CODES[-3]).toBe('OperationNotAllowedInCurrentState')
    expect(RETURN_CODES[-17]).toBe('DecryptionFailure')
    expect(RETURN_CODES[32767]).toBe('InvalidAuthentication')
    expect(RETURN_CODES[32758]).toBe('GameDoesNotExist')
    expect(RETURN_CODES[32753]).toBe('AuthenticationTicketExpired')
    expect(RETURN_CODES[32746]).toBe('JoinFailedFoundActiveJoiner')
    expect(RETURN_CODES[32742]).toBe('SlotError')
    expect(RETURN_CODES[32741]).toBe('InvalidEncryptionParameters')
    expect(RETURN_CODES[32759]).toBeUndefined()
    expect(RETURN_CODES[32754]).toBeUndefined()
  })

  it('room option flags and nameOf', () => {
    // Rec Room's JoinGame sends RoomOptionFlags 59
    expect(roomOptionFlagNames(59)).toEqual(['CheckUserOnJoin', 'DeleteCacheOnLeave', 'PublishUserId', 'DeleteNullProps', 'BroadcastPropsChangeToAll'])
    expect(roomOptionFlagNames(0)).toEqual([])
    expect(roomOptionFlagNames(0x140)).toEqual(['SuppressPlayerInfo', '0x100'])
    expect(roomOptionFlagNames(-1)).toHaveLength(32)
    expect(ROOM_OPTION_FLAGS[0x04]).toBe('SuppressRoomEvents')
    expect(nameOf(OPERATIONS, 253)).toBe('RaiseEvent')
    expect(nameOf(OPERATIONS, 0)).toBeUndefined()
    expect(nameOf(PARAMETERS, Number('constructor'))).toBeUndefined()
  })
})

describe('parameterName', () => {
  it('245: Data in RaiseEvent, CustomEventContent in events', () => {
    expect(parameterName(REQ, 253, 245)).toBe('Data')
    expect(parameterName(EVENT, 22, 245)).toBe('CustomEventContent')
    expect(parameterName(EVENT, 200, 245)).toBe('CustomEventContent')
    expect(parameterName(REQ, 100, 245)).toBe('Data/CustomEventContent')
  })

  it('223: MatchMakingType in JoinRandomGame, else both names', () => {
    expect(parameterName(REQ, 225, 223)).toBe('MatchMakingType')
    expect(parameterName(RESP, 230, 223)).toBe('Position/MatchMakingType')
  })

  it('239: Remove in ChangeGroups, PublishUserId when joining/creating', () => {
    expect(parameterName(REQ, 248, 239)).toBe('Remove')
    expect(parameterName(REQ, 226, 239)).toBe('PublishUserId')
    expect(parameterName(REQ, 227, 239)).toBe('PublishUserId')
    expect(parameterName(EVENT, 255, 239)).toBe('Remove/PublishUserId')
  })

  it('233: IsInactive in the Leave event, IsComingBack in the Leave operation', () => {
    expect(parameterName(EVENT, 254, 233)).toBe('IsInactive')
    expect(parameterName(REQ, 254, 233)).toBe('IsComingBack')
    expect(parameterName(EVENT, 253, 233)).toBe('IsInactive/IsComingBack')
  })

  it('215: JoinMode in JoinGame, CreateIfNotExists when it is a bool', () => {
    expect(parameterName(REQ, 226, 215)).toBe('JoinMode')
    expect(parameterName(REQ, 226, 215, 'Byte')).toBe('JoinMode')
    expect(parameterName(REQ, 226, 215, 'Boolean')).toBe('CreateIfNotExists')
    expect(parameterName(REQ, 100, 215)).toBe('JoinMode/CreateIfNotExists')
  })

  it('InitEncryption keys and FindFriends lists', () => {
    expect(parameterName(INT_REQ, 0, 1)).toBe('ClientKey')
    expect(parameterName(INT_REQ, 0, 2)).toBe('ModeKey')
    expect(parameterName(INT_RESP, 0, 1)).toBe('ServerKey')
    expect(parameterName(INT_RESP | 0x80, 0, 1)).toBe('ServerKey') // encrypted flag ignored
    expect(parameterName(INT_REQ, 1, 1)).toBeUndefined()
    expect(parameterName(REQ, 222, 1)).toBe('FindFriendsRequestList')
    expect(parameterName(REQ, 222, 2)).toBe('FindFriendsOptions')
    expect(parameterName(RESP, 222, 1)).toBe('FindFriendsResponseOnlineList')
    expect(parameterName(RESP, 222, 2)).toBe('FindFriendsResponseRoomIdList')
    expect(parameterName(REQ, 253, 1)).toBeUndefined()
    expect(parameterName(EVENT, 22, 2)).toBeUndefined()
  })

  it('falls back to the plain table', () => {
    expect(parameterName(REQ, 253, 244)).toBe('Code')
    expect(parameterName(EVENT, 253, 254)).toBe('ActorNr')
    expect(parameterName(RESP | 0x80, 230, 221)).toBe('Token/Secret')
    expect(parameterName(REQ, 253, 100)).toBeUndefined()
  })
})
