// The field registry (Wireshark's hf_ idea): every field a decoder reads is declared once with its key,
// display name and type. The same keys are filter fields, column names and JSON tree keys, and the
// registry feeds autocomplete in the filter bar.

export type FieldType =
  | 'u8' | 'u16' | 'u24' | 'u32' | 'u64'
  | 'i8' | 'i16' | 'i32' | 'i64'
  | 'f32' | 'f64'
  | 'varint' | 'bool' | 'bytes' | 'string' | 'none' | 'ipv4' | 'ipv6' | 'flags'

export interface FieldDef {
  key: string
  name: string
  type: FieldType
  /** Named values for integer fields: shown in labels ("Message id: 60000 (RegisterIdentity)") and offered in autocomplete. */
  names?: Readonly<Record<number, string>>
  description?: string
  /**
   * Kept by the tree-less index pass (the row's columns), so display filters, sorting and added columns
   * on this field answer from the index without decoding again. For the few fields users filter on most
   * (message codes and names); every other field needs the full tree.
   */
  index?: boolean
}

export type FieldOptions = { names?: Record<number, string>; description?: string; index?: boolean }

const registry = new Map<string, FieldDef>()

/**
 * Declares a field. Redeclaring a key with the same name and type returns the first declaration (modules
 * may be re-imported); a different name or type is a programming error, thrown at load time, because one
 * key must mean one thing to the filter, the columns and the export.
 */
export function defineField(key: string, name: string, type: FieldType, opts: FieldOptions = {}): FieldDef {
  const existing = registry.get(key)
  if (existing) {
    if (existing.name !== name || existing.type !== type || !!existing.index !== !!opts.index) {
      throw new Error(`field ${key} declared twice: as ${JSON.stringify(existing.name)} (${existing.type}) and as ${JSON.stringify(name)} (${type})`)
    }
    return existing
  }
  const def: FieldDef = { key, name, type, ...opts }
  registry.set(key, def)
  return def
}

/** Declares a family of fields under one prefix: `defineFields('udp', { srcport: ['Source port', 'u16'] })`. */
export function defineFields<K extends string>(
  prefix: string,
  specs: Record<K, [name: string, type: FieldType, opts?: FieldOptions]>
): Record<K, FieldDef> {
  const out = {} as Record<K, FieldDef>
  for (const k of Object.keys(specs) as K[]) {
    const [name, type, opts] = specs[k]
    out[k] = defineField(`${prefix}.${k}`, name, type, opts)
  }
  return out
}

/** True for a field the index pass keeps (declared with `index: true`). */
export function isIndexField(key: string): boolean {
  return registry.get(key)?.index === true
}

export function lookupField(key: string): FieldDef | undefined {
  return registry.get(key)
}

export function allFields(): FieldDef[] {
  return [...registry.values()].sort((a, b) => a.key.localeCompare(b.key))
}
