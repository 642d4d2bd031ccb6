// The message model of the decoded-JSON contract (README.md, The decoded JSON).
// Everything the CLI exports, the UI shows and the filter matches is expressed in these types.

/** Who sent a message: c2s/s2c when evidence (handshake, semantics, port) decided the roles, else a2b/b2a. */
export type Direction = 'c2s' | 's2c' | 'a2b' | 'b2a'

/** Wire direction inside a conversation: a = the side seen first (or the SYN's sender). */
export type WireDir = 'a2b' | 'b2a'

export type Transport = 'udp' | 'tcp'

/** One named byte buffer a message's fields point into (frame payload, reassembled, decompressed, decrypted). */
export interface DataSource {
  name: string
  bytes: Uint8Array
}

/** Scalar values a field may carry. 64-bit integers travel as bigint and are exported as decimal strings. */
export type FieldScalar = number | bigint | string | boolean | Uint8Array | null

/** One node of the decoded tree. Leaves read from bytes always carry source/start/length. */
export interface FieldNode {
  key: string
  label: string
  type: string
  value?: FieldScalar
  source?: number
  start?: number
  length?: number
  children?: FieldNode[]
  /** Another key the node answers to in filters: a schema pack's name (`photon.param.itemId` of `photon.param.1`). */
  alias?: string
}

/** Index-field values of one message decoded without a tree, in the order read (a key repeats per occurrence). */
export interface IndexedValues {
  keys: string[]
  values: FieldScalar[]
}

export interface DecodedMessage {
  id: number
  conversation: number
  direction: Direction
  /** 1-based frame numbers of every frame that carried a byte of the message, ascending. */
  frames: number[]
  /** Epoch seconds of the last of `frames`. */
  time: number
  protocol: string
  stack: string[]
  name: string
  summary: string
  /** The protocol's typed value (see the contract); `{hex}` for unknown payloads. */
  value: unknown
  tree: FieldNode[]
  sources: DataSource[]
  warnings: string[]
  error: string | null
  /** With the frames' layers (net/layers.ts): how many `Frame N` sources come first in `sources`. */
  layerSources?: number
  /** Decoded without a tree (the index pass): the values of the index fields; the tree is then empty. */
  indexed?: IndexedValues | null
}

/**
 * What decided a conversation's client and server, strongest first: a handshake (TCP SYN, ENet CONNECT,
 * Photon Init, ...), message semantics (only a Photon server sends events), a protocol's well-known server
 * port, or only the first packet seen (its sender is taken as the client).
 */
export type RoleFrom = 'handshake' | 'semantics' | 'port' | 'first-packet'

export interface ConversationInfo {
  id: number
  transport: Transport
  /** `ip:port` (IPv6 in brackets) of the client and the server, as `roleFrom` decided them. */
  client: string
  server: string
  /** What decided client and server (the strongest evidence seen while the roles could still change). */
  roleFrom: RoleFrom
  protocol: string
  stack: string[]
  frames: number
  bytes: number
  firstTime: number
  lastTime: number
  /** Notes about the conversation as a whole (TLS not decodable, decode-as override, gaps...). */
  notes: string[]
}
