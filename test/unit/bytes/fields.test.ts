import { describe, expect, it } from 'vitest'
import { allFields, defineField } from '../../../src-shared/bytes/fields'
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
})
