// Builds the decoded field tree while a decoder reads. A builder with `recording = false` keeps nothing,
// so the same decoder code serves the fast row pass and the full-detail pass. A tree read only for its keys
// and values (a display filter or a column on a field the index does not keep) is built without `labels`,
// as Wireshark builds an invisible tree to filter on: the same nodes, byte ranges and values, every label ''.
// Such a tree can also keep only the nodes of the keys the filter reads (an `interest`), as Wireshark
// creates only a filter's "interesting" fields in a tree nobody sees.

import type { FieldNode, FieldScalar, DataSource, IndexedValues } from '../model/types'
import { INDEXED_STRING_MAX, isIndexField, isUnder, presenceKey, type FieldDef } from './fields'

export class TreeBuilder {
  readonly roots: FieldNode[] = []
  private stack: FieldNode[] = []
  /**
   * Without a tree, the values of index fields (declared `index: true`) in the order read: what the
   * index pass keeps of a message for filters and columns. Allocated on the first such value.
   */
  indexed: IndexedValues | null = null
  /** The last presence kept, and in which values: every field under a covering group keeps the same one. */
  private lastPresent: string | null = null
  private lastPresentIn: IndexedValues | null = null

  /** With `recording`: whether its nodes get their label texts (never without). */
  readonly labels: boolean
  /** With `recording`: the keys whose nodes it keeps (null: all). */
  readonly interest: TreeInterest | null

  constructor(
    readonly recording = true,
    labels = true,
    interest: TreeInterest | null = null
  ) {
    this.labels = recording && labels
    this.interest = recording ? interest : null
  }

  /** Keeps an index field's value when no tree is built (with a tree, the tree holds it). */
  indexValue(def: FieldDef, value: FieldScalar): void {
    if (!this.recording && def.index) this.pushIndexed(def.key, value)
  }

  /** Keeps that the message has a group declared `index: true` (type `none`) when no tree is built. */
  present(def: FieldDef): void {
    if (this.recording || !def.index || def.type !== 'none') return
    this.presentKey(presenceKey(def.key))
  }

  /**
   * Keeps a value under a key made from the traffic (`photon.param.254`) when no tree is built; a string
   * longer than the index keeps (INDEXED_STRING_MAX) is kept as the key's presence instead.
   */
  keepValue(key: string, value: FieldScalar): void {
    if (typeof value === 'string' && value.length > INDEXED_STRING_MAX) this.presentKey(presenceKey(key))
    else if (!this.recording) this.pushIndexed(key, value)
  }

  /** Keeps a presence entry (`has:…`) once per message when no tree is built. */
  presentKey(key: string): void {
    if (this.recording || (key === this.lastPresent && this.indexed === this.lastPresentIn && this.indexed !== null)) return
    if (!this.indexed?.keys.includes(key)) this.pushIndexed(key, true)
    this.lastPresent = key
    this.lastPresentIn = this.indexed
  }

  private pushIndexed(key: string, value: FieldScalar): void {
    const ix = (this.indexed ??= { keys: [], values: [] })
    ix.keys.push(key)
    ix.values.push(value)
  }

  /** Takes over another builder's top-level nodes and index values (a decode attempt that was chosen). */
  append(other: TreeBuilder): void {
    for (const n of other.roots) this.add(n)
    const ix = other.indexed
    if (ix && !this.recording) for (let i = 0; i < ix.keys.length; i++) this.pushIndexed(ix.keys[i], ix.values[i])
  }

  private get siblings(): FieldNode[] {
    const top = this.stack[this.stack.length - 1]
    if (!top) return this.roots
    return (top.children ??= [])
  }

  /**
   * Adds a leaf (or a group already built). Returns it, or null when not recording or when the interest
   * does not keep it (a group's kept nodes are then added in its place).
   */
  add(node: FieldNode): FieldNode | null {
    if (!this.recording) {
      if (node.value !== undefined && isIndexField(node.key)) this.pushIndexed(node.key, node.value)
      return null
    }
    if (this.interest !== null && !this.interest.keeps(node)) {
      if (node.children) for (const c of node.children) this.add(c)
      return null
    }
    this.siblings.push(node)
    return node
  }

  /**
   * Opens a group node; fields added until `close` become its children. With an interest, whether the
   * group is kept is decided when it closes: decoders name some groups once they have read them (a Photon
   * parameter's key follows its code). So a decoder gives a group all its fields before closing it.
   */
  open(node: FieldNode): FieldNode | null {
    if (!this.recording) {
      if (node.value !== undefined && isIndexField(node.key)) this.pushIndexed(node.key, node.value)
      return null
    }
    node.children ??= []
    this.siblings.push(node)
    this.stack.push(node)
    return node
  }

  /** Closes the innermost group, fixing its length to end at `end` (same source as its start). */
  close(end?: number): void {
    if (!this.recording) return
    const node = this.stack.pop()
    if (!node) return
    if (end !== undefined && node.start !== undefined) node.length = Math.max(0, end - node.start)
    if (this.interest !== null && !this.interest.keeps(node)) this.unwrap(node)
  }

  /** Puts a closed group's children where it was: it is the last node of its parent's list (its fields went into it). */
  private unwrap(node: FieldNode): void {
    const list = this.siblings
    const at = list.lastIndexOf(node)
    if (at < 0) return
    const children = node.children ?? []
    if (at === list.length - 1) {
      list.pop()
      for (const c of children) list.push(c)
    } else list.splice(at, 1, ...children)
  }

  /** Closes every group still open (after an error), ending each at `end` when given. */
  closeAll(end?: number): void {
    while (this.stack.length) this.close(end)
  }

  get depth(): number {
    return this.stack.length
  }
}

/** Formats a value for a label: named codes in parentheses, bytes as short hex. */
export function formatValue(def: Pick<FieldDef, 'names' | 'type'>, value: FieldScalar): string {
  if (value instanceof Uint8Array) {
    const hex = toHex(value.subarray(0, 24))
    return value.length > 24 ? `${hex}… (${value.length} bytes)` : `${hex || '(empty)'}`
  }
  if (typeof value === 'string') return JSON.stringify(value)
  if (value === null) return 'null'
  const named = typeof value === 'number' ? def.names?.[value] : undefined
  return named !== undefined ? `${value} (${named})` : String(value)
}

export function label(def: Pick<FieldDef, 'name' | 'names' | 'type'>, value: FieldScalar): string {
  return `${def.name}: ${formatValue(def, value)}`
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))
// Two ASCII codes per byte value, for the bulk path below.
const HEX_CODES = new Uint16Array(256)
for (let i = 0; i < 256; i++) HEX_CODES[i] = HEX[i].charCodeAt(0) | (HEX[i].charCodeAt(1) << 8)
const latin1 = new TextDecoder('latin1')

/** Lowercase hex. Long inputs go through one native decode instead of a string per byte (exports are hex-heavy). */
export function toHex(bytes: Uint8Array): string {
  if (bytes.length < 32) {
    let s = ''
    for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i]]
    return s
  }
  const out = new Uint16Array(bytes.length) // little-endian pairs: low byte is the first character
  for (let i = 0; i < bytes.length; i++) out[i] = HEX_CODES[bytes[i]]
  return latin1.decode(new Uint8Array(out.buffer))
}

export function fromHex(hex: string): Uint8Array {
  const clean = hex.replace(/\s+/g, '')
  if (clean.length % 2 !== 0 || /[^0-9a-fA-F]/.test(clean)) throw new Error('not a hex string')
  const out = new Uint8Array(clean.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(clean.slice(i * 2, i * 2 + 2), 16)
  return out
}

/**
 * Whether trees are built for the messages started now, read per message: the engine's switch, which a detail
 * replay turns on at the message it wants; and whether their nodes get labels. An object rather than a
 * callback, so that a copy of an engine's state (engine/state-copy.ts) maps it to the copy's own. A
 * TreeBuilder is one too: a draft made beside another takes its depth.
 */
export interface TreeSwitch {
  readonly recording: boolean
  readonly labels: boolean
  /** The keys the trees keep (absent or null: every node). */
  readonly interest?: TreeInterest | null
}

/** With trees and labels: what a display or an export needs. */
export const FULL_TREES: TreeSwitch = Object.freeze({ recording: true, labels: true })

/**
 * The keys a tree read only by a filter and columns keeps: a node is kept when its key (or its alias) is
 * one of them or lies under one (`photon.ev.code` under `photon.ev`, which makes `photon.ev` present).
 * The filter target (filter/target.ts) reads a tree as keys and values, not as a shape, so a node that is
 * not kept only moves its kept descendants up to its place.
 */
export class TreeInterest {
  constructor(readonly keys: readonly string[]) {}

  // Asked for every node: a filter names a few keys, and comparing with each costs less than hashing the
  // node's key (many are made per message, such as SFS2X paths) to look an answer up.
  wants(key: string): boolean {
    const keys = this.keys
    for (let i = 0; i < keys.length; i++) if (key === keys[i] || isUnder(key, keys[i])) return true
    return false
  }

  keeps(node: FieldNode): boolean {
    return this.wants(node.key) || (node.alias !== undefined && this.wants(node.alias))
  }
}

/** A message under construction: lower layers add their sources and fields, the protocol decoder finishes it. */
export class MessageDraft {
  /** Replaced, not pushed to, by the first addSource: a push onto [] reserves 16 slots, and most drafts have one source. */
  sources: DataSource[] = []
  readonly tree: TreeBuilder
  readonly warnings: string[] = []
  error: string | null = null

  /** `trees`: the depth, as a switch (its current state), or true (full trees) or false (none). */
  constructor(trees: TreeSwitch | boolean = true) {
    this.tree = typeof trees === 'boolean' ? new TreeBuilder(trees) : new TreeBuilder(trees.recording, trees.labels, trees.interest)
  }

  addSource(name: string, bytes: Uint8Array): number {
    if (this.sources.length === 0) {
      this.sources = [{ name, bytes }]
      return 0
    }
    this.sources.push({ name, bytes })
    return this.sources.length - 1
  }

  warn(text: string): void {
    if (!this.warnings.includes(text)) this.warnings.push(text)
  }
}
