// Entangle's TransformLite (docs/fignet.md, guide §9.1): a MemoryPack object {TransformData byte[], ConfigFlags
// ushort, SequenceNumber ushort} whose TransformData is a packed little-endian blob laid out by the flags:
//
//   X, Y (always), Z (bit 0), rotation x,y,z,w as 4 shorts ÷1000 (bit 1), scale X/Y/Z (bits 2/3/4),
//   linear velocity 3 shorts (bit 8), angular velocity 3 shorts (bit 9)
//
// Position and scale values are float32, or a short divided by 1000/100/10 when precision bit 5/6/7 is set.
// Velocities are always shorts, ÷1000, or ÷100 with bit 10; they come after scale, so older readers
// that stop after scale still find position/rotation/scale at the same offsets. Bits 11–15 are reserved.
// The ConfigFlags field was a byte before the "Advanced NetworkTransform" change; bits 0–7 kept their
// meaning. A payload whose 2-byte reading does not fit is tried with the byte-wide field (models.ts).

import { DecodeError, type FieldReader } from '../../bytes/reader'
import { defineField, defineFields, type FieldDef } from '../../bytes/fields'
import type { Typed, TypedFields } from './typed'

export const FLAG_BITS = [
  { bit: 0, key: 'include_z', name: 'IncludeZ' },
  { bit: 1, key: 'include_rotation', name: 'IncludeRotation' },
  { bit: 2, key: 'include_scale_x', name: 'IncludeScaleX' },
  { bit: 3, key: 'include_scale_y', name: 'IncludeScaleY' },
  { bit: 4, key: 'include_scale_z', name: 'IncludeScaleZ' },
  { bit: 5, key: 'half_precision_1000', name: 'HalfPrecision1000' },
  { bit: 6, key: 'half_precision_100', name: 'HalfPrecision100' },
  { bit: 7, key: 'half_precision_10', name: 'HalfPrecision10' },
  { bit: 8, key: 'include_linear_velocity', name: 'IncludeLinearVelocity' },
  { bit: 9, key: 'include_angular_velocity', name: 'IncludeAngularVelocity' },
  { bit: 10, key: 'velocity_half_precision_100', name: 'VelocityHalfPrecision100' }
] as const

export const FLAG = {
  Z: 1 << 0,
  ROTATION: 1 << 1,
  SCALE_X: 1 << 2,
  SCALE_Y: 1 << 3,
  SCALE_Z: 1 << 4,
  P1000: 1 << 5,
  P100: 1 << 6,
  P10: 1 << 7,
  LINEAR_VELOCITY: 1 << 8,
  ANGULAR_VELOCITY: 1 << 9,
  VELOCITY_100: 1 << 10
} as const

export const RESERVED_MASK = 0xf800

const F_FLAG_BITS: Record<string, FieldDef> = {}
for (const f of FLAG_BITS) F_FLAG_BITS[f.key] = defineField(`entangle.config_flags.${f.key}`, f.name, 'bool', { description: `ConfigFlags bit ${f.bit}` })
const F_FLAG_RESERVED = defineField('entangle.config_flags.reserved', 'Reserved bits 11–15', 'u8')
export const F_FLAG_WIDTH = defineField('entangle.config_flags.width', 'ConfigFlags width', 'u8', {
  description: 'Bytes ConfigFlags takes on the wire: 2 (current), 1 (before the Advanced NetworkTransform change)'
})

export const BYTE_FLAGS_WARNING = 'byte-wide ConfigFlags (before the Advanced NetworkTransform change): the 2-byte reading does not fit, the 1-byte one does'

export const F_TRANSFORM_ROOT = defineField('entangle.transform', 'TransformData (unpacked)', 'none')
export const F_TRANSFORM = defineFields('entangle.transform', {
  x: ['X', 'f64'],
  y: ['Y', 'f64'],
  z: ['Z', 'f64'],
  rot_x: ['Rotation x', 'f64'],
  rot_y: ['Rotation y', 'f64'],
  rot_z: ['Rotation z', 'f64'],
  rot_w: ['Rotation w', 'f64'],
  scale_x: ['Scale X', 'f64'],
  scale_y: ['Scale Y', 'f64'],
  scale_z: ['Scale Z', 'f64'],
  vel_x: ['Linear velocity x', 'f64'],
  vel_y: ['Linear velocity y', 'f64'],
  vel_z: ['Linear velocity z', 'f64'],
  ang_x: ['Angular velocity x', 'f64'],
  ang_y: ['Angular velocity y', 'f64'],
  ang_z: ['Angular velocity z', 'f64'],
  leftover: ['Leftover bytes', 'bytes', { description: 'TransformData bytes the ConfigFlags do not account for' }]
})

/** Names of the set flag bits (reserved bits as `bit<n>`). */
export function configFlagNames(flags: number): string[] {
  const out: string[] = FLAG_BITS.filter((f) => flags & (1 << f.bit)).map((f) => f.name)
  for (let b = 11; b < 16; b++) if (flags & (1 << b)) out.push(`bit${b}`)
  return out
}

/** The scale of position/scale shorts, or null for float32; the first precision bit wins when several are set. */
export function positionScale(flags: number): number | null {
  if (flags & FLAG.P1000) return 1000
  if (flags & FLAG.P100) return 100
  if (flags & FLAG.P10) return 10
  return null
}

export function velocityScale(flags: number): number {
  return flags & FLAG.VELOCITY_100 ? 100 : 1000
}

/** TransformData's size in bytes for these flags. */
export function transformDataLength(flags: number): number {
  const p = positionScale(flags) === null ? 4 : 2
  let n = 2 * p
  if (flags & FLAG.Z) n += p
  if (flags & FLAG.ROTATION) n += 8
  // Three tests, not a loop over an array literal: this runs for every entity update.
  if (flags & FLAG.SCALE_X) n += p
  if (flags & FLAG.SCALE_Y) n += p
  if (flags & FLAG.SCALE_Z) n += p
  if (flags & FLAG.LINEAR_VELOCITY) n += 6
  if (flags & FLAG.ANGULAR_VELOCITY) n += 6
  return n
}

/**
 * Records ConfigFlags' bits as flag fields: each bit's range is the byte of the little-endian ushort holding
 * it. The byte-wide field of older builds (`width` 1) holds bits 0–7 only.
 */
export function recordConfigFlagBits(r: FieldReader, flags: number, at: number, width: 1 | 2 = 2): void {
  if (!r.tree.recording) return
  for (const f of FLAG_BITS) {
    if (f.bit >> 3 >= width) continue
    const set = (flags & (1 << f.bit)) !== 0
    r.record(F_FLAG_BITS[f.key], set, at + (f.bit >> 3), 1, () => `${f.name} (bit ${f.bit}): ${set ? 'yes' : 'no'}`)
  }
  if (width === 1) return
  const reserved = (flags & RESERVED_MASK) >> 11
  r.record(
    F_FLAG_RESERVED,
    reserved,
    at + 1,
    1,
    () => `Reserved bits 11–15: ${reserved}${reserved ? ' (set: unknown flags, or a reader/writer version mismatch)' : ''}`
  )
}

export interface UnpackedTransform {
  values: TypedFields
  warnings: string[]
  /** Set when the blob ended before the flags' fields (the values read so far are kept). */
  error?: DecodeError
}

const T = F_TRANSFORM
/** Unpacks TransformData; the reader's window is exactly the blob's bytes. Never throws DecodeError. */
// Runs for every entity update: no closure or array per call, labels only with a tree.
export function unpackTransformData(r: FieldReader, flags: number): UnpackedTransform {
  const values: TypedFields = {}
  const warnings: string[] = []
  const out: UnpackedTransform = { values, warnings }
  const expected = transformDataLength(flags)
  const have = r.remaining
  const pScale = positionScale(flags)
  const vScale = velocityScale(flags)
  const precisionBits = (flags & FLAG.P1000 ? 1 : 0) + (flags & FLAG.P100 ? 1 : 0) + (flags & FLAG.P10 ? 1 : 0)
  if (precisionBits > 1) warnings.push(`ConfigFlags 0x${flags.toString(16)} set ${precisionBits} precision bits; read with scale ${pScale}`)
  if (flags & RESERVED_MASK) warnings.push(`ConfigFlags 0x${flags.toString(16)} set reserved bits 11–15`)
  if (have !== expected) warnings.push(`TransformData has ${have} bytes, ConfigFlags 0x${flags.toString(16)} describe ${expected}`)

  r.open(F_TRANSFORM_ROOT, r.tree.labels ? `TransformData (unpacked, flags 0x${flags.toString(16).padStart(4, '0')})` : undefined)
  try {
    values.X = position(r, T.x, pScale)
    values.Y = position(r, T.y, pScale)
    if (flags & FLAG.Z) values.Z = position(r, T.z, pScale)
    // Named stores (not values[name]): each site stays monomorphic, a computed key over all these shapes does not.
    if (flags & FLAG.ROTATION) {
      values.RotX = scaled(r, T.rot_x, 1000)
      values.RotY = scaled(r, T.rot_y, 1000)
      values.RotZ = scaled(r, T.rot_z, 1000)
      values.RotW = scaled(r, T.rot_w, 1000)
    }
    if (flags & FLAG.SCALE_X) values.ScaleX = position(r, T.scale_x, pScale)
    if (flags & FLAG.SCALE_Y) values.ScaleY = position(r, T.scale_y, pScale)
    if (flags & FLAG.SCALE_Z) values.ScaleZ = position(r, T.scale_z, pScale)
    if (flags & FLAG.LINEAR_VELOCITY) {
      values.VelX = scaled(r, T.vel_x, vScale)
      values.VelY = scaled(r, T.vel_y, vScale)
      values.VelZ = scaled(r, T.vel_z, vScale)
    }
    if (flags & FLAG.ANGULAR_VELOCITY) {
      values.AngVelX = scaled(r, T.ang_x, vScale)
      values.AngVelY = scaled(r, T.ang_y, vScale)
      values.AngVelZ = scaled(r, T.ang_z, vScale)
    }
    if (r.remaining > 0) r.bytesField(T.leftover, r.remaining)
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e
    out.error = e
    r.pos = r.end
  } finally {
    r.close()
  }
  return out
}

/** A position or scale value: float32, or a short over the precision scale. */
function position(r: FieldReader, def: FieldDef, scale: number | null): Typed {
  return scale === null ? float(r, def) : scaled(r, def, scale)
}

function float(r: FieldReader, def: FieldDef): Typed {
  r.need(4, def.name)
  const at = r.pos
  const v = r.f32(null, true)
  // A string made only with labels (record reads it at once): a closure here would cost a context per call.
  if (r.tree.labels) r.record(def, v, at, 4, `${def.name}: ${v} (float32)`)
  else r.record(def, v, at, 4)
  return { type: 'float', value: v }
}

/** The `wire` text of each scale, made once. */
const WIRE_TEXT = new Map<number, string>()

function scaled(r: FieldReader, def: FieldDef, scale: number): Typed {
  r.need(2, def.name)
  const at = r.pos
  const raw = r.i16(null, true)
  const v = raw / scale
  if (r.tree.labels) r.record(def, v, at, 2, `${def.name}: ${v} (short ${raw} ÷ ${scale})`)
  else r.record(def, v, at, 2)
  let wire = WIRE_TEXT.get(scale)
  if (wire === undefined) {
    wire = `short÷${scale}`
    WIRE_TEXT.set(scale, wire)
  }
  return { type: 'float', value: v, wire, raw }
}
