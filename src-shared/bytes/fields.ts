// The field registry (Wireshark's hf_ idea): every field a decoder reads is declared once with its key,
// display name and type. The same keys are filter fields, column names and JSON tree keys, and the
// registry feeds autocomplete in the filter bar.

export type FieldType =
  | 'u8'
  | 'u16'
  | 'u24'
  | 'u32'
  | 'u64'
  | 'i8'
  | 'i16'
  | 'i32'
  | 'i64'
  | 'f32'
  | 'f64'
  | 'varint'
  | 'bool'
  | 'bytes'
  | 'string'
  | 'none'
  | 'ipv4'
  | 'ipv6'
  | 'flags'

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
   * (message codes and names); every other field needs the full tree. A group (type `none`, no value)
   * declared so is kept as presence: the index answers whether a message has it (`photon.cmd`).
   */
  index?: boolean
  /**
   * A presence group with no node of its own that stands for every field under its key (`entangle`, whose
   * fields sit in FigNet's payload): a message has it when its tree has any field under the key.
   */
  covers?: boolean
  /**
   * For a field under a covering group, that group's presence key (`has:entangle`), set at declaration:
   * reading the field without a tree keeps the presence (FieldReader.record and open).
   */
  within?: string
}

export type FieldOptions = { names?: Record<number, string>; description?: string; index?: boolean; covers?: boolean }

const registry = new Map<string, FieldDef>()
/** Keys of the covering groups (`covers`), in declaration order. */
const covering: string[] = []
/** Every dotted prefix of a registered key (`photon.op` of `photon.op.code`): subtree names a filter may test. */
const subtrees = new Set<string>()
/** indexSubtree's answers, per key; cleared when a field, a dynamic family or the schema overlay changes. */
const indexSubtrees = new Map<string, readonly string[] | null>()

/**
 * A family of keys a decoder makes from the traffic (Photon parameter codes and Hashtable keys, SFSObject
 * entry names): not registered one by one, but a filter naming one is still a valid field reference.
 */
export interface DynamicFields {
  prefix: string
  name: string
  /** The first segment after the prefix must match (`photon.param.<code>`: digits). Any segment when absent. */
  segment?: RegExp
  /**
   * The tree-less pass keeps a first-level key of the family (`photon.param.254`, not `photon.param.254.x`):
   * its value where that is a short scalar (TreeBuilder.keepValue), otherwise only that the message has it
   * (its presence, presenceKey). A message with that presence has values under the key that only its tree
   * holds (a container, whose entries may share its key; bytes; a long string; a value cut short), so a view
   * that reads the key's values decodes it again. The decoder keeps this wherever it makes such a node.
   */
  indexFirstLevel?: boolean
}

const dynamicFamilies = new Map<string, DynamicFields>()

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
  if (opts.covers && (type !== 'none' || !opts.index)) throw new Error(`field ${key}: a covering group is a presence group (type none, index)`)
  const def = fieldDef(key, name, type, opts)
  registry.set(key, def)
  for (let dot = key.indexOf('.'); dot > 0; dot = key.indexOf('.', dot + 1)) subtrees.add(key.slice(0, dot))
  indexSubtrees.clear()
  if (opts.covers) {
    covering.push(key)
    // Fields declared before their covering group (module load order) learn it now; run-time ones anew.
    for (const d of registry.values()) if (d.key.startsWith(`${key}.`)) d.within ??= presenceKey(key)
    runtimeDefs.clear()
  }
  return def
}

/**
 * A definition with every member present, in one order: all definitions then share one object shape, so
 * the reader's reads of `index` and `within` on every field stay monomorphic (with the options spread in,
 * definitions had a dozen shapes and those reads went through V8's megamorphic lookup).
 */
function fieldDef(key: string, name: string, type: FieldType, opts: FieldOptions): FieldDef {
  return {
    key,
    name,
    type,
    names: opts.names,
    description: opts.description,
    index: opts.index,
    covers: opts.covers,
    within: coveringPresence(key)
  }
}

/** True when `key` lies under `prefix`, a dotted prefix of it (`photon.ev.code` under `photon.ev`). */
export function isUnder(key: string, prefix: string): boolean {
  return key.length > prefix.length && key.charCodeAt(prefix.length) === 0x2e && key.startsWith(prefix)
}

/** The presence key of the covering group `key` lies under, if any. */
function coveringPresence(key: string): string | undefined {
  for (const c of covering) if (isUnder(key, c)) return presenceKey(c)
  return undefined
}

/**
 * The definition of a field made at run time (keys from the traffic or a schema pack: map keys, parameter
 * codes, pack names), not registered: its family is a dynamic one. Cached so each key/name/type has one
 * object; bounded, since the keys follow the traffic.
 */
const runtimeDefs = new Map<string, FieldDef>()
export function runtimeFieldDef(key: string, name: string, type: FieldType, names?: Readonly<Record<number, string>>): FieldDef {
  const id = `${key}\u0000${name}\u0000${type}`
  let def = runtimeDefs.get(id)
  if (!def) {
    def = fieldDef(key, name, type, { names })
    if (runtimeDefs.size > 20_000) runtimeDefs.clear()
    runtimeDefs.set(id, def)
  }
  return def
}

/** Declares a family of keys built at run time under `prefix` (`defineDynamicFields('sfs2x.p', 'SFSObject entry')`). */
export function defineDynamicFields(prefix: string, name: string, opts: { segment?: RegExp; indexFirstLevel?: boolean } = {}): DynamicFields {
  const existing = dynamicFamilies.get(prefix)
  if (existing) return existing
  const family: DynamicFields = { prefix, name, ...opts }
  dynamicFamilies.set(prefix, family)
  indexSubtrees.clear()
  return family
}

/** The dynamic family `key` belongs to (`photon.param.255.x` -> photon.param), if any. */
export function dynamicFamilyOf(key: string): DynamicFields | undefined {
  for (let dot = key.lastIndexOf('.'); dot > 0; dot = key.lastIndexOf('.', dot - 1)) {
    const family = dynamicFamilies.get(key.slice(0, dot))
    if (!family) continue
    const rest = key.slice(dot + 1)
    const segment = rest.split('.', 1)[0]
    if (segment && (!family.segment || family.segment.test(segment))) return family
  }
  return undefined
}

export function allDynamicFields(): DynamicFields[] {
  return [...dynamicFamilies.values()]
}

const protocols = new Set<string>()

/** Declares protocol and layer names (`photon`, `websocket`): a filter may test for them. */
export function defineProtocols(names: Iterable<string>): void {
  for (const n of names) protocols.add(n)
}

/**
 * True when a filter may name `key`, as Wireshark accepts a field or a protocol: a registered field, a
 * subtree of registered fields (`photon.op`), a protocol or layer name, or a key of a dynamic family.
 */
export function isKnownKey(key: string): boolean {
  return registry.has(key) || overlay.has(key) || subtrees.has(key) || protocols.has(key) || dynamicFamilies.has(key) || dynamicFamilyOf(key) !== undefined
}

/** Declares a family of fields under one prefix: `defineFields('udp', { srcport: ['Source port', 'u16'] })`. */
export function defineFields<K extends string>(prefix: string, specs: Record<K, [name: string, type: FieldType, opts?: FieldOptions]>): Record<K, FieldDef> {
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

/**
 * The index fields under `key` when `key` is a subtree that holds nothing else (`photon.ev`, whose only
 * field is `photon.ev.code`): no field is registered as `key` itself, every registered field under it is
 * an index field, and no schema field or dynamic family can put other keys there. A message then has the
 * subtree exactly when it has one of those fields, which the index keeps, so a bare `photon.ev` filter is
 * answered without decoding again. Undefined for any other key.
 */
export function indexSubtree(key: string): readonly string[] | undefined {
  let found = indexSubtrees.get(key)
  if (found === undefined) {
    found = findIndexSubtree(key)
    indexSubtrees.set(key, found)
  }
  return found ?? undefined
}

function findIndexSubtree(key: string): string[] | null {
  if (!subtrees.has(key) || registry.has(key) || dynamicFamilies.has(key) || dynamicFamilyOf(key)) return null
  const under = `${key}.`
  for (const prefix of dynamicFamilies.keys()) if (prefix.startsWith(under)) return null
  for (const k of overlay.keys()) if (k === key || k.startsWith(under)) return null
  const fields: string[] = []
  for (const [k, def] of registry) {
    if (!k.startsWith(under)) continue
    if (!def.index) return null
    fields.push(k)
  }
  return fields.length ? fields : null
}

/**
 * Where the tree-less pass keeps that a message has a group declared `index: true` (it has no value to
 * keep): a key no filter can name, so the group's own key gives no values, as in its tree.
 */
const PRESENCE = 'has:'
const presenceKeys = new Map<string, string>()

/** The longest string the index keeps as a value (kept once, by id); a longer one costs its own memory per row. */
export const INDEXED_STRING_MAX = 64

export function presenceKey(key: string): string {
  let k = presenceKeys.get(key)
  if (k === undefined) presenceKeys.set(key, (k = PRESENCE + key))
  return k
}

/**
 * True for a key whose presence the index keeps: a group (type `none`) declared `index: true` (covering or
 * not), or a first-level key of a family declared `indexFirstLevel` (`photon.param.245`).
 */
export function isPresenceField(key: string): boolean {
  const def = registry.get(key)
  if (def) return def.index === true && def.type === 'none'
  return isIndexedFirstLevel(key)
}

/**
 * True for a first-level key of a family declared `indexFirstLevel` (`photon.param.245`): the index keeps
 * whether a message has it, and its values on every message without its presence entry (presenceKey).
 */
export function isIndexedFirstLevel(key: string): boolean {
  const dot = key.lastIndexOf('.')
  if (dot <= 0 || dot === key.length - 1 || registry.has(key)) return false
  const family = dynamicFamilies.get(key.slice(0, dot))
  return family?.indexFirstLevel === true && (!family.segment || family.segment.test(key.slice(dot + 1)))
}

/** The group key a presence key stands for, or undefined for any other key. */
export function presenceOf(indexKey: string): string | undefined {
  return indexKey.startsWith(PRESENCE) ? indexKey.slice(PRESENCE.length) : undefined
}

/** True for an index field, or a subtree of index fields only (indexSubtree): keys the index answers. */
export function isIndexKey(key: string): boolean {
  return isIndexField(key) || indexSubtree(key) !== undefined
}

export function lookupField(key: string): FieldDef | undefined {
  return overlay.get(key) ?? registry.get(key)
}

export function allFields(): FieldDef[] {
  const out = new Map(registry)
  for (const [k, d] of overlay) out.set(k, d)
  return [...out.values()].sort((a, b) => a.key.localeCompare(b.key))
}

/**
 * Fields that come from the loaded schema packs (src-shared/schema): named parameters (`photon.param.itemId`)
 * and the packs' names for existing fields' values (`photon.ev.code == ItemPicked`). One set per process (a
 * process decodes one session); replaced whole when the packs change. Never index fields: the registry
 * alone says what the index pass keeps.
 */
const overlay = new Map<string, FieldDef>()

export function setSchemaOverlay(defs: Iterable<FieldDef>): void {
  overlay.clear()
  indexSubtrees.clear()
  for (const d of defs) {
    const base = registry.get(d.key)
    // An existing field keeps its type and index flag; the pack adds value names (its own win).
    overlay.set(d.key, base ? { ...base, names: { ...base.names, ...d.names } } : { ...d, index: false })
  }
}
