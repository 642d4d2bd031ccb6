// Trees without labels (EngineOptions.labels = false) are what display filters and columns on fields the
// index does not keep are read from, in the app and in `decode --tree none --filter`. They must hold exactly
// the full trees' nodes: the same keys, values, types and byte ranges in the same order, and the messages
// the same names, summaries, values, warnings and errors. The oracle is the full decode of every committed
// capture; labels are then blanked on both sides before the comparison.
import { describe, expect, it } from 'vitest'
import { join } from 'node:path'
import type { DecodedMessage, FieldNode } from '../../../src-shared/model/types'
import { committedCaptures, decodeCaptureFile } from '../helpers/captures'

const ROOT = join(__dirname, '../../..')

function decode(file: string, labels: boolean): DecodedMessage[] {
  const out: DecodedMessage[] = []
  decodeCaptureFile(file, { labels, onMessage: (m) => out.push(m) })
  return out
}

/** The tree with every label blanked, and how many nodes had one. */
function unlabelled(nodes: readonly FieldNode[], count = { labelled: 0, nodes: 0 }): { tree: FieldNode[]; count: typeof count } {
  const tree = nodes.map((n) => {
    count.nodes++
    if (n.label) count.labelled++
    const copy: FieldNode = { ...n, label: '' }
    if (n.children) copy.children = unlabelled(n.children, count).tree
    return copy
  })
  return { tree, count }
}

describe('trees without labels', () => {
  it('hold the full trees but their labels, in every committed capture, and leave out the labels of the fields the decoders read', () => {
    const fullCount = { labelled: 0, nodes: 0 }
    const bareCount = { labelled: 0, nodes: 0 }
    for (const file of committedCaptures()) {
      const name = file.slice(ROOT.length + 1)
      const full = decode(file, true)
      const bare = decode(file, false)
      expect(bare.length, name).toBe(full.length)
      for (let i = 0; i < full.length; i++) {
        const { tree: fullTree, ...fullRest } = full[i]
        const { tree: bareTree, ...bareRest } = bare[i]
        expect(bareRest, `${name}, message ${i + 1}`).toEqual(fullRest)
        expect(unlabelled(bareTree, bareCount).tree, `${name}, message ${i + 1}`).toEqual(unlabelled(fullTree, fullCount).tree)
      }
    }
    expect(bareCount.nodes).toBe(fullCount.nodes)
    expect(fullCount.nodes).toBeGreaterThan(10_000)
    // What keeps a label is a node a decoder adds itself with a fixed name, or a WebSocket frame's fields.
    expect(bareCount.labelled).toBeLessThan(fullCount.labelled / 10)
  })
})
