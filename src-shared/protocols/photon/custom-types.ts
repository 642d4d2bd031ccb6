// PUN's registered custom types (docs/photon.md, What is decoded: custom types). Payloads are big-endian (PUN writes
// them with Protocol.Serialize) in both protocol versions; in Protocol18 they arrive as slim customs
// 0x80 + code (Vector3 'V' 0x56 → 0xD6). Other codes stay bytes. A payload is decoded only when its
// length is exactly the type's size: a game may register its own type under the same letter.

interface PunCustomType {
  code: number
  name: string
  /** Payload bytes: four per member (float32, or the Player's int32). */
  size: number
  /**
   * The members from `size` big-endian bytes, in wire order, as an object literal: one object shape
   * per type, where storing by member name in a loop sent every store through V8's megamorphic lookup.
   */
  read: (b: Uint8Array) => Record<string, number>
}

const PUN_CUSTOM_TYPES: ReadonlyMap<number, PunCustomType> = new Map(
  (
    [
      { code: 0x57, name: 'Vector2', size: 8, read: (b) => ({ x: f32(b, 0), y: f32(b, 4) }) },
      { code: 0x56, name: 'Vector3', size: 12, read: (b) => ({ x: f32(b, 0), y: f32(b, 4), z: f32(b, 8) }) },
      { code: 0x51, name: 'Quaternion', size: 16, read: (b) => ({ w: f32(b, 0), x: f32(b, 4), y: f32(b, 8), z: f32(b, 12) }) },
      { code: 0x50, name: 'Player', size: 4, read: (b) => ({ actorNr: i32(b, 0) }) }
    ] as const satisfies readonly PunCustomType[]
  ).map((t) => [t.code, t])
)

export interface CustomDecode {
  /** The PUN type name when the code is a known one. */
  name?: string
  decoded?: Record<string, number>
  /** Why a known code was not decoded. */
  note?: string
}

const NOT_PUN: CustomDecode = Object.freeze({})

// Floats are rebuilt from their big-endian bits through one shared word: no DataView or copy per value.
const word = new Int32Array(1)
const wordAsFloat = new Float32Array(word.buffer)

/** The big-endian int32 at b[o]. */
function i32(b: Uint8Array, o: number): number {
  return (b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]
}

/** The big-endian float32 at b[o]. */
function f32(b: Uint8Array, o: number): number {
  word[0] = i32(b, o)
  return wordAsFloat[0]
}

/** Decodes a PUN custom payload when the code is known and the length matches exactly. */
export function decodeCustom(code: number, bytes: Uint8Array): CustomDecode {
  const t = PUN_CUSTOM_TYPES.get(code)
  if (!t) return NOT_PUN
  if (bytes.length !== t.size) return { name: t.name, note: `${bytes.length} bytes where ${t.name} has ${t.size}: not decoded` }
  return { name: t.name, decoded: t.read(bytes) }
}
