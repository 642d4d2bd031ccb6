// PUN's registered custom types (photon.md §9, "PUN custom types"). Payloads are big-endian (PUN writes
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

// One scratch view for all payloads (at most 16 bytes): a DataView per value cost more than its reads.
const scratch = new Uint8Array(16)
const scratchView = new DataView(scratch.buffer)

/** Decodes a PUN custom payload when the code is known and the length matches exactly. */
export function decodeCustom(code: number, bytes: Uint8Array): CustomDecode {
  const t = PUN_CUSTOM_TYPES.get(code)
  if (!t) return NOT_PUN
  if (bytes.length !== t.size) return { name: t.name, note: `${bytes.length} bytes where ${t.name} has ${t.size}: not decoded` }
  scratch.set(bytes)
  const decoded: Record<string, number> = {}
  const f32 = t.kind === 'f32'
  for (let i = 0; i < t.fields.length; i++) decoded[t.fields[i]] = f32 ? scratchView.getFloat32(i * 4, false) : scratchView.getInt32(i * 4, false)
  return { name: t.name, decoded }
}
