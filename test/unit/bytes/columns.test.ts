// Typed-array columns kept as one table (bytes/columns.ts): made, grown, cut and reordered from one list of
// the columns, with rows that take more than one entry in a column.
import { describe, expect, it } from 'vitest'
import { reorderedColumns, resizedColumns } from '../../../src-shared/bytes/columns'

const SHAPE = {
  id: [new Uint32Array(0), 1],
  flag: [new Uint8Array(0), 1],
  pair: [new Uint16Array(0), 2]
} as const

describe('column tables', () => {
  it('makes zeroed columns with room for the rows, each as many entries a row as it takes', () => {
    const c = resizedColumns(SHAPE, 3)
    expect(c.id).toEqual(new Uint32Array(3))
    expect(c.flag).toEqual(new Uint8Array(3))
    expect(c.pair).toEqual(new Uint16Array(6))
  })

  it('grows and cuts copies, keeping the rows it has room for; the original stays as it was', () => {
    const c = resizedColumns(SHAPE, 2)
    c.id.set([7, 8])
    c.flag.set([1, 0])
    c.pair.set([10, 11, 20, 21])
    const grown = resizedColumns(SHAPE, 4, c)
    expect([...grown.id]).toEqual([7, 8, 0, 0])
    expect([...grown.flag]).toEqual([1, 0, 0, 0])
    expect([...grown.pair]).toEqual([10, 11, 20, 21, 0, 0, 0, 0])
    const cut = resizedColumns(SHAPE, 1, c)
    expect([...cut.id]).toEqual([7])
    expect([...cut.pair]).toEqual([10, 11])
    cut.id[0] = 99
    expect(c.id[0]).toBe(7)
  })

  it('reorders whole rows: row `to` of the result is row order[to]', () => {
    const c = resizedColumns(SHAPE, 3)
    c.id.set([5, 6, 7])
    c.flag.set([1, 2, 3])
    c.pair.set([50, 51, 60, 61, 70, 71])
    const r = reorderedColumns(SHAPE, c, [2, 0, 1])
    expect([...r.id]).toEqual([7, 5, 6])
    expect([...r.flag]).toEqual([3, 1, 2])
    expect([...r.pair]).toEqual([70, 71, 50, 51, 60, 61])
    expect(r.id).toBeInstanceOf(Uint32Array)
    expect(r.pair).toBeInstanceOf(Uint16Array)
    // fewer rows in the order than in the columns: only those
    expect([...reorderedColumns(SHAPE, c, [1]).pair]).toEqual([60, 61])
  })
})
