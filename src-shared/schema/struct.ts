// Reads a schema pack's declared struct layout (docs/schema-packs.md, "Struct layouts") through the shared
// FieldReader, so every field is a tree leaf `<prefix>.<name>` with its byte range. Used for Photon custom
// types and byte[] parameters declared `"format": "struct"`.

import { runtimeFieldDef } from '../bytes/fields'
import type { FieldReader } from '../bytes/reader'
import type { StructLayout } from './types'

export type StructValue = Record<string, number | bigint | boolean | Uint8Array>

/** The definition of a pack-made field (not registered: its family is the protocol's dynamic one). */
export const packFieldDef = runtimeFieldDef

/** Reads `layout` from r's position; throws DecodeError (from the reader) when the bytes run out. */
export function readStruct(r: FieldReader, layout: StructLayout, prefix: string): StructValue {
  const le = layout.endian === 'little'
  const out: StructValue = {}
  for (const f of layout.fields) {
    const key = `${prefix}.${f.name}`
    switch (f.type) {
      case 'u8':
        out[f.name] = r.u8(packFieldDef(key, f.name, 'u8'))
        break
      case 'i8':
        out[f.name] = r.i8(packFieldDef(key, f.name, 'i8'))
        break
      case 'u16':
        out[f.name] = r.u16(packFieldDef(key, f.name, 'u16'), le)
        break
      case 'i16':
        out[f.name] = r.i16(packFieldDef(key, f.name, 'i16'), le)
        break
      case 'u32':
        out[f.name] = r.u32(packFieldDef(key, f.name, 'u32'), le)
        break
      case 'i32':
        out[f.name] = r.i32(packFieldDef(key, f.name, 'i32'), le)
        break
      case 'u64':
        out[f.name] = r.u64(packFieldDef(key, f.name, 'u64'), le)
        break
      case 'i64':
        out[f.name] = r.i64(packFieldDef(key, f.name, 'i64'), le)
        break
      case 'f32':
        out[f.name] = r.f32(packFieldDef(key, f.name, 'f32'), le)
        break
      case 'f64':
        out[f.name] = r.f64(packFieldDef(key, f.name, 'f64'), le)
        break
      case 'bool': {
        const at = r.pos
        const b = r.u8(null)
        r.record(packFieldDef(key, f.name, 'bool'), b !== 0, at, 1)
        out[f.name] = b !== 0
        break
      }
      case 'bytes':
        out[f.name] = r.bytesField(packFieldDef(key, f.name, 'bytes'), f.length ?? r.remaining)
        break
    }
  }
  return out
}

/** The fixed size of a layout, or null when its last field takes the rest. */
export function structSize(layout: StructLayout): number | null {
  let n = 0
  for (const f of layout.fields) {
    if (f.type === 'bytes') {
      if (f.length === undefined) return null
      n += f.length
    } else n += f.type === 'u8' || f.type === 'i8' || f.type === 'bool' ? 1 : f.type === 'u16' || f.type === 'i16' ? 2 : f.type.endsWith('64') ? 8 : 4
  }
  return n
}
