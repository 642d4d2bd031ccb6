import { describe, expect, it } from 'vitest'
import { allFields, defineDynamicFields, defineField, indexSubtree, runtimeFieldDef, setSchemaOverlay } from '../../../src-shared/bytes/fields'
import '../../../src-shared/protocols'
import '../../../src-shared/engine/meta-fields'

describe('field registry', () => {
  it('returns the first declaration when a key is declared again the same way', () => {
    const a = defineField('test.same', 'Same', 'u8')
    expect(defineField('test.same', 'Same', 'u8')).toBe(a)
  })

  it('refuses a key declared with another type or name', () => {
    defineField('test.conflict', 'Conflict', 'u8')
    expect(() => defineField('test.conflict', 'Conflict', 'bytes')).toThrow(/test\.conflict declared twice/)
    expect(() => defineField('test.conflict', 'Other name', 'u8')).toThrow(/declared twice/)
  })

  it('loads every protocol module without a conflicting declaration', () => {
    // Importing the protocols above would have thrown; fignet.payload is the payload group node.
    expect(allFields().find((f) => f.key === 'fignet.payload')?.type).toBe('none')
  })

  it('gives the fields under a covering group its presence key, whenever they are declared', () => {
    expect(() => defineField('test.badcover', 'Bad', 'u8', { index: true, covers: true })).toThrow(/presence group/)
    expect(() => defineField('test.badcover2', 'Bad', 'none', { covers: true })).toThrow(/presence group/)
    const before = defineField('test.cov.early', 'Early', 'u8')
    expect(before.within).toBeUndefined()
    defineField('test.cov', 'Covering', 'none', { index: true, covers: true })
    expect(before.within).toBe('has:test.cov')
    expect(defineField('test.cov.late.leaf', 'Late', 'string').within).toBe('has:test.cov')
    expect(runtimeFieldDef('test.cov.made.at.run.time', 'Run time', 'u8').within).toBe('has:test.cov')
    // a key that only begins with the group's text is not under it
    expect(defineField('test.covered', 'Not under', 'u8').within).toBeUndefined()
    // FigNet's Entangle fields, declared in several modules
    for (const k of ['entangle.room_name', 'entangle.transform', 'entangle.config_flags.width', 'entangle.app_key'])
      expect(allFields().find((f) => f.key === k)?.within, k).toBe('has:entangle')
  })

  it('names the subtrees made of index fields only, which the index answers', () => {
    expect(indexSubtree('photon.ev')).toEqual(['photon.ev.code'])
    expect(indexSubtree('photon.op')).toEqual(['photon.op.code'])
    // a registered group node, other fields beside the index field, a dynamic family, a leaf, a layer
    for (const k of ['photon.cmd', 'photon.msg', 'photon.param', 'sfs2x.p', 'photon.ev.code', 'photon', 'entangle', 'nothing.here'])
      expect(indexSubtree(k), k).toBeUndefined()
    defineField('test.sub.a', 'A', 'u8', { index: true })
    defineField('test.sub.b', 'B', 'u8', { index: true })
    expect(indexSubtree('test.sub')).toEqual(['test.sub.a', 'test.sub.b'])
    // a schema pack's field under the subtree puts keys there that the index does not keep
    setSchemaOverlay([{ key: 'test.sub.named', name: 'Named', type: 'string' }])
    expect(indexSubtree('test.sub')).toBeUndefined()
    setSchemaOverlay([])
    expect(indexSubtree('test.sub')).toEqual(['test.sub.a', 'test.sub.b'])
    // so does a field declared later without the index flag, or a dynamic family
    defineField('test.sub.c', 'C', 'u8')
    expect(indexSubtree('test.sub')).toBeUndefined()
    defineField('test.dyn.a', 'A', 'u8', { index: true })
    expect(indexSubtree('test.dyn')).toEqual(['test.dyn.a'])
    defineDynamicFields('test.dyn.more', 'More')
    expect(indexSubtree('test.dyn')).toBeUndefined()
  })
})
