// PUN's registered custom types (docs/photon.md, What is decoded: custom types). Payloads are big-endian (PUN writes
// them with Protocol.Serialize) in both protocol versions; in Protocol18 they arrive as slim customs
// 0x80 + code (Vector3 'V' 0x56 → 0xD6). Other codes stay bytes. A payload is decoded only when its
// length is exactly the type's size: a game may register its own type under the same letter.

export interface PunCustomType {
  code: number
  name: string
  size: number
  fields: readonly string[]
  /** 'f32' fields or one 'i32'. */
  kind: 'f32' | 'i32'
}

export const PUN_CUSTOM_TYPES: ReadonlyMap<number, PunCustomType> = new Map(
  (
    [
      { code: 0x57, name: 'Vector2', size: 8, fields: ['x', 'y'], kind: 'f32' },
      { code: 0x56, name: 'Vector3', size: 12, fields: ['x', 'y', 'z'], kind: 'f32' },
      { code: 0x51, name: 'Quaternion', size: 16, fields: ['w', 'x', 'y', 'z'], kind: 'f32' },
      { code: 0x50, name: 'Player', size: 4, fields: ['actorNr'], kind: 'i32' }
    ] as const
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

/** Decodes a PUN custom payload when the code is known and the length matches exactly. */
export function decodeCustom(code: number, bytes: Uint8Array): CustomDecode {
  const t = PUN_CUSTOM_TYPES.get(code)
  if (!t) return NOT_PUN
  if (bytes.length !== t.size) return { name: t.name, note: `${bytes.length} bytes where ${t.name} has ${t.size}: not decoded` }
  const decoded: Record<string, number> = {}
  const f32 = t.kind === 'f32'
  for (let i = 0; i < t.fields.length; i++) {
    const o = i * 4
    const bits = (bytes[o] << 24) | (bytes[o + 1] << 16) | (bytes[o + 2] << 8) | bytes[o + 3]
    if (f32) {
      word[0] = bits
      decoded[t.fields[i]] = wordAsFloat[0]
    } else decoded[t.fields[i]] = bits
  }
  return { name: t.name, decoded }
}
