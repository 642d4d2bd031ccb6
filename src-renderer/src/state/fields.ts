// The host's field registry mirrored in the renderer, so the shared filter lexer classifies field keys
// and named values exactly as the engine does (highlighting, autocomplete, instant error checks).

import { defineField, type FieldDef } from '../../../src-shared/bytes/fields'
import type { FieldInfo } from '../../../src-shared/api'

export function registerFields(fields: FieldInfo[]): void {
  for (const f of fields) {
    const names = f.names ? Object.fromEntries(Object.entries(f.names).map(([k, v]) => [Number(k), v])) : undefined
    defineField(f.key, f.name, f.type as FieldDef['type'], names ? { names } : {})
  }
}
