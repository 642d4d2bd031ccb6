// Trees with an interest (EngineOptions.interest) are what a display filter or a column on a field the index
// does not keep reads, in the app and in `decode --tree none --filter`: only the nodes of the keys it names
// and of the keys under them. A filter must see in them exactly what it sees in the full tree. The oracle is
// the full decode of every committed capture: for every key its trees hold and every dotted prefix of one,
// in groups, the filter target's values and presence for those keys are compared, message by message.
import { describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import type { DecodedMessage, FieldNode } from '../../../src-shared/model/types'
import { targetFromMessage } from '../../../src-shared/filter/target'
import { TreeBuilder, TreeInterest } from '../../../src-shared/bytes/tree'
import { committedCaptures, decodeCaptureFile } from '../helpers/captures'

const ROOT = join(__dirname, '../../..')
const GROUP = 12

function decode(file: string, interest?: readonly string[]): DecodedMessage[] {
  const out: DecodedMessage[] = []
  decodeCaptureFile(file, { labels: false, interest, onMessage: (m) => out.push(m) })
  return out
}

/** Every key a tree holds (and alias), with each of its dotted prefixes; and how many nodes it has. */
function keysOf(nodes: readonly FieldNode[], keys: Set<string>): number {
  let n = 0
  for (const node of nodes) {
    n++
    for (const k of [node.key, node.alias]) {
      if (!k) continue
      for (let dot = k.indexOf('.'); dot > 0; dot = k.indexOf('.', dot + 1)) keys.add(k.slice(0, dot))
      keys.add(k)
    }
    if (node.children) n += keysOf(node.children, keys)
  }
  return n
}

function countNodes(nodes: readonly FieldNode[]): number {
  return nodes.reduce((n, node) => n + 1 + (node.children ? countNodes(node.children) : 0), 0)
}

/** Keys in groups, mixed so that a group holds keys of several protocols and depths. */
function groups(keys: readonly string[]): string[][] {
  const sorted = [...keys].sort()
  const count = Math.max(1, Math.ceil(sorted.length / GROUP))
  return Array.from({ length: count }, (_, g) => sorted.filter((_, i) => i % count === g))
}

describe('trees with an interest', () => {
  it('give a filter on any of their keys what the full trees give, in every committed capture, with far fewer nodes', () => {
    let fullNodes = 0
    let keptNodes = 0
    let decodes = 0
    let compared = 0
    const differences: unknown[] = []
    for (const file of committedCaptures()) {
      const name = file.slice(ROOT.length + 1)
      const full = decode(file)
      const keys = new Set<string>()
      for (const m of full) keysOf(m.tree, keys)
      for (const group of groups([...keys])) {
        const pruned = decode(file, group)
        decodes++
        expect(pruned.length, name).toBe(full.length)
        for (let i = 0; i < full.length; i++) {
          const { tree: fullTree, ...fullRest } = full[i]
          const { tree: prunedTree, ...prunedRest } = pruned[i]
          if (!isDeepStrictEqual(prunedRest, fullRest)) differences.push({ at: `${name}, message ${i + 1}`, message: [prunedRest, fullRest] })
          fullNodes += countNodes(fullTree)
          keptNodes += countNodes(prunedTree)
          const want = targetFromMessage(full[i], undefined, group)
          const got = targetFromMessage(pruned[i], undefined, group)
          for (const k of group) {
            // One expect per difference (the comparisons run by the hundred thousand).
            if (got.has(k) !== want.has(k) || !isDeepStrictEqual(got.values(k), want.values(k)))
              differences.push({ at: `${name}, message ${i + 1}`, key: k, has: [got.has(k), want.has(k)], values: [got.values(k), want.values(k)] })
            compared++
          }
        }
      }
    }
    expect(differences.slice(0, 5)).toEqual([])
    expect(decodes).toBeGreaterThan(100)
    expect(compared).toBeGreaterThan(100_000)
    // Each group keeps only its own keys' nodes (a group with a protocol's name, such as `photon`, keeps all of that protocol's).
    expect(keptNodes).toBeLessThan(fullNodes / 4)
  })

  it('keeps the nodes of the keys it names and of keys under them, and puts the kept nodes of a group it drops in its place', () => {
    const interest = new TreeInterest(['photon.ev', 'photon.param.245'])
    expect(['photon.ev', 'photon.ev.code', 'photon.param.245', 'photon.param.245.x'].map((k) => interest.wants(k))).toEqual([true, true, true, true])
    expect(['photon', 'photon.event', 'photon.param.24', 'photon.param.2450', ''].map((k) => interest.wants(k))).toEqual([false, false, false, false, false])
    expect(interest.keeps({ key: 'photon.param.1', label: '', type: 'none', alias: 'photon.param.245' })).toBe(true)

    const tree = new TreeBuilder(true, false, interest)
    tree.add({ key: 'photon.cmd.type', label: '', type: 'u8', value: 6 })
    // A group named once it is read (as a Photon parameter is): kept by the key it has when it closes.
    const param = tree.open({ key: '', label: '', type: 'none', start: 0 })!
    tree.add({ key: 'photon.key', label: '', type: 'u8', value: 245 })
    param.key = 'photon.param.245'
    tree.add({ key: 'photon.param.245', label: '', type: 'i32', value: 7 })
    tree.close(5)
    // A group it does not keep: its kept nodes take its place, in order.
    tree.open({ key: 'photon.body', label: '', type: 'none' })
    tree.open({ key: 'photon.ev', label: '', type: 'none' })
    tree.add({ key: 'photon.ev.code', label: '', type: 'u8', value: 200 })
    tree.close()
    tree.add({ key: 'photon.other', label: '', type: 'u8', value: 1 })
    tree.add({ key: 'photon.param.245', label: '', type: 'u8', value: 9 })
    tree.close()
    // A group built elsewhere and added whole: the same.
    tree.add({
      key: 'photon.op',
      label: '',
      type: 'none',
      children: [
        { key: 'photon.op.code', label: '', type: 'u8', value: 1 },
        { key: 'photon.param.245', label: '', type: 'u8', value: 3 }
      ]
    })
    const shape = (nodes: readonly FieldNode[]): unknown[] => nodes.map((n) => (n.children ? { [n.key]: shape(n.children) } : `${n.key}=${n.value}`))
    expect(shape(tree.roots)).toEqual([
      { 'photon.param.245': ['photon.param.245=7'] },
      { 'photon.ev': ['photon.ev.code=200'] },
      'photon.param.245=9',
      'photon.param.245=3'
    ])
    expect(param.length).toBe(5)
  })

  it('is left out with schema packs, which name parameter nodes after they are read', async () => {
    const { Engine } = await import('../../../src-shared/engine/engine')
    const { createDefaultRegistry } = await import('../../../src-shared/protocols')
    const { SchemaSet } = await import('../../../src-shared/schema/set')
    const base = { registry: createDefaultRegistry(), labels: false, interest: ['photon.param.245'], onMessage: () => undefined }
    expect(new Engine(base).interest?.keys).toEqual(['photon.param.245'])
    expect(new Engine({ ...base, schemas: new SchemaSet([]) }).interest).toBeNull()
  })
})
