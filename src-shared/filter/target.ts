// Builds a FilterTarget from a decoded message: one pass over the tree into a Map, so evaluating any
// number of filters against the message costs one Map lookup per field reference.

import type { DecodedMessage, FieldNode, FieldScalar } from '../model/types'
import type { FilterTarget } from './compile'

const EMPTY: readonly FieldScalar[] = []

class MapTarget implements FilterTarget {
  readonly map = new Map<string, FieldScalar[]>()
  readonly present = new Set<string>()

  values(key: string): readonly FieldScalar[] {
    return this.map.get(key) ?? EMPTY
  }

  has(key: string): boolean {
    return this.present.has(key)
  }

  /** Marks `key` and every dotted prefix of it as present (`a.b.c` -> `a.b.c`, `a.b`, `a`). */
  mark(key: string): void {
    let k = key
    while (!this.present.has(k)) {
      this.present.add(k)
      const dot = k.lastIndexOf('.')
      if (dot <= 0) break
      k = k.slice(0, dot)
    }
  }

  push(key: string, v: FieldScalar): void {
    const arr = this.map.get(key)
    if (arr) arr.push(v)
    else this.map.set(key, [v])
  }
}

/**
 * Flattens a message for filtering: every tree node with a `value` adds it to its key (in tree
 * order), every node counts for `has`, the protocol and each stack layer are present keys with the
 * value `true` (unless the tree gave them values), and `extra` (frame/ip/udp/tcp fields from the
 * engine) adds the keys the tree has no values for: a tree built with the frames' layers holds those
 * same fields per frame, and one key keeps one set of values.
 */
export function targetFromMessage(
  msg: Pick<DecodedMessage, 'tree' | 'protocol' | 'stack' | 'indexed'>,
  extra?: Record<string, readonly FieldScalar[]>
): FilterTarget {
  const t = new MapTarget()
  // iterative pre-order walk (decoded trees can nest deeply)
  const stack: { nodes: FieldNode[]; i: number }[] = [{ nodes: msg.tree, i: 0 }]
  while (stack.length) {
    const top = stack[stack.length - 1]
    if (top.i >= top.nodes.length) {
      stack.pop()
      continue
    }
    const node = top.nodes[top.i++]
    if (node.key) {
      t.mark(node.key)
      if (node.value !== undefined) t.push(node.key, node.value)
      if (node.alias) {
        t.mark(node.alias)
        if (node.value !== undefined) t.push(node.alias, node.value)
      }
    }
    if (node.children?.length) stack.push({ nodes: node.children, i: 0 })
  }
  // Decoded without a tree, a message carries its index fields' values instead, in the order read (a
  // message with a tree has none: the tree holds them).
  const ix = msg.indexed
  if (ix) {
    for (let k = 0; k < ix.keys.length; k++) {
      t.mark(ix.keys[k])
      t.push(ix.keys[k], ix.values[k])
    }
  }
  const layers = msg.protocol ? [...msg.stack, msg.protocol] : msg.stack
  for (const name of layers) {
    if (!name) continue
    t.mark(name)
    if (!t.map.has(name)) t.map.set(name, [true])
  }
  if (extra) {
    for (const key of Object.keys(extra)) {
      const vs = extra[key]
      if (!vs || vs.length === 0 || t.map.has(key)) continue
      t.mark(key)
      for (const v of vs) t.push(key, v)
    }
  }
  return t
}
