import { describe, expect, test } from 'vitest'
import { KeyStore } from '../../../src-shared/keys/store'
import { parseKeyFile, type KeyEntry } from '../../../src-shared/keys/keyfile'

const key = (n: number, len = 32) => new Uint8Array(len).fill(n)

function entry(partial: Partial<KeyEntry> & Pick<KeyEntry, 'type'>): KeyEntry {
  return { conversation: '*', key: key(1), line: 0, ...partial }
}

describe('KeyStore', () => {
  test('find: exact conversation first, then swapped, then wildcard', () => {
    const s = new KeyStore()
    const wild = entry({ type: 'PHOTON_AES_KEY', key: key(1) })
    const swapped = entry({ type: 'PHOTON_AES_KEY', conversation: { client: '10.0.0.5:5055', server: '127.0.0.1:50000' }, key: key(2) })
    const exact = entry({ type: 'PHOTON_AES_KEY', conversation: { client: '127.0.0.1:50000', server: '10.0.0.5:5055' }, key: key(3) })
    const other = entry({ type: 'PHOTON_AES_KEY', conversation: { client: '127.0.0.1:50001', server: '10.0.0.5:5055' }, key: key(4) })
    const otherType = entry({ type: 'PHOTON_SECRET', key: key(5) })
    s.addAll([wild, swapped, exact, other, otherType])
    expect(s.find('PHOTON_AES_KEY', '127.0.0.1:50000', '10.0.0.5:5055').map((e) => e.key[0])).toEqual([3, 2, 1])
    expect(s.find('PHOTON_AES_KEY', '10.0.0.5:5055', '127.0.0.1:50000').map((e) => e.key[0])).toEqual([2, 3, 1])
    expect(s.find('PHOTON_AES_KEY', '1.1.1.1:1', '2.2.2.2:2').map((e) => e.key[0])).toEqual([1])
    expect(s.find('PHOTON_SECRET', '1.1.1.1:1', '2.2.2.2:2').map((e) => e.key[0])).toEqual([5])
    expect(s.find('SFS2X_AES', '1.1.1.1:1', '2.2.2.2:2')).toEqual([])
  })

  test('endpoints are normalised: IPv6 case', () => {
    const s = new KeyStore()
    s.add(entry({ type: 'PHOTON_SECRET', conversation: { client: '[FE80::A]:1', server: '[::1]:2' } }))
    expect(s.list()[0].conversation).toEqual({ client: '[fe80::a]:1', server: '[::1]:2' })
    expect(s.find('PHOTON_SECRET', '[fe80::a]:1', '[::1]:2')).toHaveLength(1)
    expect(s.find('PHOTON_SECRET', '[FE80::a]:1', '[::1]:2')).toHaveLength(1)
    expect(s.find('PHOTON_SECRET', '[::1]:2', '[fe80::A]:1')).toHaveLength(1)
  })

  test('find by direction: FigNet keys for that direction or both', () => {
    const s = new KeyStore()
    const { keys } = parseKeyFile(
      [`FIGNET_KEY * c2s ${'11'.repeat(32)}`, `FIGNET_KEY * s2c ${'22'.repeat(32)}`, `FIGNET_KEY * both ${'33'.repeat(32)}`].join('\n')
    )
    s.addAll(keys)
    const first = (d?: 'c2s' | 's2c' | 'both') => s.find('FIGNET_KEY', '1.1.1.1:1', '2.2.2.2:2', d).map((e) => e.key[0])
    expect(first('c2s')).toEqual([0x11, 0x33])
    expect(first('s2c')).toEqual([0x22, 0x33])
    expect(first('both')).toEqual([0x11, 0x22, 0x33])
    expect(first()).toEqual([0x11, 0x22, 0x33])
  })

  test('add ignores duplicates; remove matches by content; version and onChange', () => {
    const s = new KeyStore()
    const seen: number[] = []
    const off = s.onChange((st) => seen.push(st.version))
    expect(s.version).toBe(0)
    const a = entry({ type: 'PHOTON_SECRET', key: key(7, 4), line: 3 })
    expect(s.add(a)).toBe(true)
    expect(s.add({ ...a, key: key(7, 4), line: 9 })).toBe(false) // same key from another line
    expect(s.size).toBe(1)
    expect(s.addAll([a, entry({ type: 'PHOTON_SECRET', key: key(8, 4) })])).toBe(1)
    expect(seen).toEqual([1, 2]) // one notification per effective change
    expect(s.remove({ ...a, key: key(7, 4) })).toBe(true)
    expect(s.remove(a)).toBe(false)
    expect(s.list().map((e) => e.key[0])).toEqual([8])
    expect(seen).toEqual([1, 2, 3])
    off()
    s.clear()
    expect(s.size).toBe(0)
    expect(s.version).toBe(4)
    expect(seen).toEqual([1, 2, 3])
  })

  test('list is a copy', () => {
    const s = new KeyStore()
    s.add(entry({ type: 'PHOTON_SECRET' }))
    const l = s.list() as KeyEntry[]
    l.pop()
    expect(s.size).toBe(1)
  })
})
