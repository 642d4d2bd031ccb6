// Photon rooms: rooms, actors, master client and the event-cache replay each joiner should get, checked
// against what it got (docs/photon.md, Rooms and the event cache).
export { analyzeRooms, type RoomsConversation, type RoomsMessage } from './analyze'
export { roomsText } from './report'
export * from './document'
