// The host's field registry mirrored in the renderer, so the shared filter lexer classifies field keys
// and named values exactly as the engine does (highlighting, autocomplete, instant error checks).

import { setSchemaOverlay, type FieldDef } from '../../../src-shared/bytes/fields'
import type { FieldInfo } from '../../../src-shared/api'

/**
 * Mirrors the host's fields, replacing the previous list whole (the overlay of bytes/fields.ts): the
 * fields and value names a schema pack adds (`photon.param.itemId`, `schema.code == Move`) come and go
 * with the pack.
 */
export function registerFields(fields: FieldInfo[]): void {
  setSchemaOverlay(
    fields.map((f): FieldDef => {
      const names = f.names ? Object.fromEntries(Object.entries(f.names).map(([k, v]) => [Number(k), v])) : undefined
      return { key: f.key, name: f.name, type: f.type as FieldDef['type'], ...(names ? { names } : {}) }
    })
  )
}
