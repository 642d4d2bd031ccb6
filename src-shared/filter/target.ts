// Builds a FilterTarget from a decoded message: one pass over the tree, collecting every key into a Map
// (any filter can then ask anything), or only the keys a given filter and view read.

import type { DecodedMessage, FieldNode, FieldScalar } from '../model/types'
import type { FilterTarget } from './compile'
import { isUnder, presenceOf } from '../bytes/fields'

const EMPTY: readonly FieldScalar[] = []

/** What the walk over a message gives a target: each key met (with its value, if it has one). */
interface Collector {
  /** `key` occurs; `value`, when defined, is one of its values. */
  add(key: string, value: FieldScalar | undefined): void
  /** True when `key` has a value so far. */
  hasValues(key: string): boolean
}

class MapTarget implements FilterTarget, Collector {
  readonly map = new Map<string, FieldScalar[]>()
  readonly present = new Set<string>()

  values(key: string): readonly FieldScalar[] {
    return this.map.get(key) ?? EMPTY
  }

  has(key: string): boolean {
    return this.present.has(key)
  }

  hasValues(key: string): boolean {
    return this.map.has(key)
  }

  add(key: string, value: FieldScalar | undefined): void {
    this.mark(key)
    if (value === undefined) return
    const arr = this.map.get(key)
    if (arr) arr.push(value)
    else this.map.set(key, [value])
  }

  /** Marks `key` and every dotted prefix of it as present (`a.b.c` -> `a.b.c`, `a.b`, `a`). */
  private mark(key: string): void {
    let k = key
    while (!this.present.has(k)) {
      this.present.add(k)
      const dot = k.lastIndexOf('.')
      if (dot <= 0) break
      k = k.slice(0, dot)
    }
  }
}

/**
 * A target that keeps only the keys it is told will be asked (a filter's fields and a view's columns):
 * MapTarget's answers for them, without a Map entry and a presence mark for every node of the tree (about a
 * fifth of the time a view took to decode a message again and match it). Any other key is answered by a
 * MapTarget built when first asked.
 */
class KeysTarget implements FilterTarget, Collector {
  /** Values per told key, allocated at the first one. */
  private readonly found: (FieldScalar[] | undefined)[]
  private readonly present: Uint8Array
  private full: FilterTarget | undefined

  constructor(
    private readonly keys: readonly string[],
    private readonly msg: TargetMessage,
    private readonly extra: Record<string, readonly FieldScalar[]> | undefined
  ) {
    this.found = new Array(keys.length)
    this.present = new Uint8Array(keys.length)
  }

  add(key: string, value: FieldScalar | undefined): void {
    const keys = this.keys
    for (let i = 0; i < keys.length; i++) {
      const w = keys[i]
      if (key === w) {
        this.present[i] = 1
        if (value !== undefined) (this.found[i] ??= []).push(value)
      } else if (this.present[i] === 0 && isUnder(key, w)) {
        this.present[i] = 1 // `w` is a dotted prefix of `key`
      }
    }
  }

  hasValues(key: string): boolean {
    const i = this.keys.indexOf(key)
    return i >= 0 && this.found[i] !== undefined
  }

  values(key: string): readonly FieldScalar[] {
    const i = this.keys.indexOf(key)
    if (i >= 0) return this.found[i] ?? EMPTY
    return this.fallback().values(key)
  }

  has(key: string): boolean {
    const i = this.keys.indexOf(key)
    if (i >= 0) return this.present[i] === 1
    return this.fallback().has(key)
  }

  private fallback(): FilterTarget {
    this.full ??= collect(new MapTarget(), this.msg, this.extra)
    return this.full
  }
}

type TargetMessage = Pick<DecodedMessage, 'tree' | 'protocol' | 'stack' | 'indexed'>

/**
 * Flattens a message for filtering: every tree node with a `value` adds it to its key (in tree
 * order), every node counts for `has`, the protocol and each stack layer are present keys with the
 * value `true` (unless the tree gave them values), and `extra` (frame/ip/udp/tcp fields from the
 * engine) adds the keys the tree has no values for: a tree built with the frames' layers holds those
 * same fields per frame, and one key keeps one set of values. With `keys` (the fields a filter and the
 * columns read), only those keys are collected; the target still answers any other key, more slowly.
 */
export function targetFromMessage(msg: TargetMessage, extra?: Record<string, readonly FieldScalar[]>, keys?: readonly string[]): FilterTarget {
  return collect(keys ? new KeysTarget(keys, msg, extra) : new MapTarget(), msg, extra)
}

function collect<T extends Collector>(t: T, msg: TargetMessage, extra?: Record<string, readonly FieldScalar[]>): T {
  // iterative pre-order walk (decoded trees can nest deeply): the open lists and the position in each
  const lists: FieldNode[][] = [msg.tree]
  const at: number[] = [0]
  let depth = 0
  while (depth >= 0) {
    const nodes = lists[depth]
    const i = at[depth]
    if (i >= nodes.length) {
      depth--
      continue
    }
    at[depth] = i + 1
    const node = nodes[i]
    if (node.key) {
      t.add(node.key, node.value)
      if (node.alias) t.add(node.alias, node.value)
    }
    if (node.children?.length) {
      depth++
      lists[depth] = node.children
      at[depth] = 0
    }
  }
  // Decoded without a tree, a message carries its index fields' values instead, in the order read (a
  // message with a tree has none: the tree holds them).
  const ix = msg.indexed
  if (ix) {
    for (let k = 0; k < ix.keys.length; k++) {
      // a group's presence (photon.cmd) marks the group, which has no value
      const group = presenceOf(ix.keys[k])
      if (group !== undefined) t.add(group, undefined)
      else t.add(ix.keys[k], ix.values[k])
    }
  }
  for (const name of msg.stack) if (name) t.add(name, t.hasValues(name) ? undefined : true)
  if (msg.protocol) t.add(msg.protocol, t.hasValues(msg.protocol) ? undefined : true)
  if (extra) {
    for (const key of Object.keys(extra)) {
      const vs = extra[key]
      if (!vs || vs.length === 0 || t.hasValues(key)) continue
      for (const v of vs) t.add(key, v)
    }
  }
  return t
}
