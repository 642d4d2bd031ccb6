// A target told which keys will be asked (a filter's fields, a view's columns) collects only those. Its
// answers must be the full target's for every key: the ones it was told, and any other one asked anyway.
// The oracle is the full target over the same message, for every message of the committed captures
// decoded with trees (and the frames' layers, whose keys nest deepest), with and without trees.
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { DecodeSession } from '../../../src-shared/engine/session'
import { messageMetaFields } from '../../../src-shared/engine/meta-fields'
import { targetFromMessage } from '../../../src-shared/filter'
import { presenceKey } from '../../../src-shared/bytes/fields'
import type { FieldNode, FieldScalar } from '../../../src-shared/model/types'
import { keyStore } from '../helpers/decode'
import { committedCaptures } from '../helpers/captures'

const root = join(__dirname, '../../..')

const files = committedCaptures()
const keys = keyStore(readFileSync(join(root, 'test/fixtures/ui/keys.txt'), 'utf8'))

/** Every key the message's tree, stack and meta fields hold, each dotted prefix of them, and near misses. */
function keysOf(nodes: readonly FieldNode[], extra: Record<string, readonly FieldScalar[]>, layers: readonly string[]): string[] {
  const out = new Set<string>([...Object.keys(extra), ...layers, 'nothing', 'photon.param.99999'])
  const walk = (ns: readonly FieldNode[]) => {
    for (const n of ns) {
      for (const k of [n.key, n.alias]) {
        if (!k) continue
        const parts = k.split('.')
        for (let i = 1; i <= parts.length; i++) out.add(parts.slice(0, i).join('.'))
        // a key cut inside a segment is no prefix of it (`photon.e` of `photon.ev.code`)
        if (k.length > 2) out.add(k.slice(0, -1))
      }
      if (n.children) walk(n.children)
    }
  }
  walk(nodes)
  return [...out]
}

describe('a target that collects only the keys it is told', () => {
  it.each(files.map((f) => [f.slice(root.length + 1), f]))('%s', (_name, file) => {
    let messages = 0
    let compared = 0
    // collected, not asserted in the callback: a corrupt capture's error is caught around the decode below
    const wrong: object[] = []
    for (const recording of [true, false]) {
      const s = new DecodeSession({
        keys,
        recording,
        layers: recording,
        onMessage: (m, conv, dir) => {
          messages++
          const extra = messageMetaFields(m, conv!, dir!)
          const all = targetFromMessage(m, extra)
          const asked = keysOf(m.tree, extra, [...m.stack, m.protocol])
          const together = targetFromMessage(m, extra, asked)
          // told a few keys, asked others too: those come from the full target built on demand
          const few = targetFromMessage(m, extra, asked.slice(0, 2))
          for (const k of asked) {
            const want = { key: k, has: all.has(k), values: all.values(k) }
            for (const t of [together, few, targetFromMessage(m, extra, [k])]) {
              const got = { key: k, has: t.has(k), values: t.values(k) }
              if (got.has !== want.has || got.values.length !== want.values.length || got.values.some((v, i) => v !== want.values[i])) {
                if (wrong.length < 5) wrong.push({ got, want })
              }
            }
            compared++
          }
        }
      })
      try {
        s.push(new Uint8Array(readFileSync(file)))
        s.end()
      } catch {
        // Corrupt-capture fixtures: what was read still counts.
      }
    }
    expect(wrong).toEqual([])
    if (messages) expect(compared).toBeGreaterThan(messages)
  })

  it('counts a key as present only for itself and the keys under it', () => {
    const m = {
      tree: [{ key: 'photon.ev.code', label: '', type: 'u8' as const, value: 253 }],
      protocol: 'photon',
      stack: ['udp'],
      indexed: null
    }
    const t = targetFromMessage(m, undefined, ['photon.ev', 'photon.e', 'photon.ev.code', 'photon', 'udp', 'photon.ev.code.x'])
    expect([t.has('photon.ev'), t.has('photon.e'), t.has('photon.ev.code'), t.has('photon'), t.has('udp'), t.has('photon.ev.code.x')]).toEqual([
      true,
      false,
      true,
      true,
      true,
      false
    ])
    expect(t.values('photon.ev.code')).toEqual([253])
    expect(t.values('photon')).toEqual([true])
    expect(t.values('photon.ev')).toEqual([])
  })

  it('marks a group the tree-less pass kept as present (photon.cmd), with no value', () => {
    const m = { tree: [], protocol: 'photon', stack: ['udp'], indexed: { keys: [presenceKey('photon.cmd')], values: [true] } }
    for (const t of [targetFromMessage(m), targetFromMessage(m, undefined, ['photon.cmd', 'photon'])]) {
      expect([t.has('photon.cmd'), t.has('photon'), t.has('photon.cmd.type')]).toEqual([true, true, false])
      expect(t.values('photon.cmd')).toEqual([])
    }
  })
})
