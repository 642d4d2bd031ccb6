// Sorting the timeline on the host: every built-in column and added field columns, both ways, ties in
// capture order, with and without a filter. The reference is the unsorted view's own rows sorted here
// with a plain comparator (numbers by value, text by localeCompare, an added column's empty cells first,
// then numbers, cells of several numbers among them value by value, then text).
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionCore } from '../../../src-main/host/session-core'
import { sortByKey } from '../../../src-main/host/session/rank-sort'
import { BUILTIN_COLUMNS, type TimelineRow, type ViewSpec } from '../../../src-shared/api'
import { rng } from '../helpers/rng'

const ROOT = join(__dirname, '../../..')
const DEMO = join(ROOT, 'resources/demo.pcapng')
const KEYS = readFileSync(join(ROOT, 'test/fixtures/ui/keys.txt'), 'utf8')
const tmp = mkdtempSync(join(tmpdir(), 'gamewire-view-sort-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

let core: SessionCore | undefined
afterEach(() => core?.close())

async function openDemo(): Promise<SessionCore> {
  core = new SessionCore({ emit: () => undefined, demoCapturePath: () => DEMO, tempDir: tmp })
  await core.open(DEMO)
  await core.addKeys(KEYS)
  return core
}

async function rowsOf(c: SessionCore, spec: ViewSpec): Promise<TimelineRow[]> {
  const view = await c.setView(spec)
  expect(view.state).toBe('done')
  return c.getRows(view.id, 0, 100_000).rows
}

/** A cell's numbers when every value it lists (joined by ", ") is one, compared value by value. */
function cellOrder(a: string, b: string): number {
  if (a === '' || b === '') return a === b ? 0 : a === '' ? -1 : 1
  const numbers = (s: string) => {
    const parts = s.split(', ').map((p) => (p.trim() === '' ? NaN : Number(p)))
    return parts.every(Number.isFinite) ? parts : undefined
  }
  const x = numbers(a)
  const y = numbers(b)
  if (x && y) {
    const k = x.findIndex((v, i) => i >= y.length || v !== y[i])
    if (k >= 0) return k >= y.length ? 1 : x[k] - y[k]
    if (x.length !== y.length) return -1
  }
  if (!x !== !y) return x ? -1 : 1
  return a.localeCompare(b)
}

function expected(rows: TimelineRow[], column: string, columns: string[], desc: boolean): number[] {
  const extra = columns.indexOf(column)
  const cmp = (a: TimelineRow, b: TimelineRow): number => {
    if (extra >= 0) return cellOrder(a.cells[extra], b.cells[extra])
    const x = a[column as keyof TimelineRow]
    const y = b[column as keyof TimelineRow]
    return typeof x === 'number' ? x - (y as number) : String(x).localeCompare(String(y))
  }
  return [...rows].sort((a, b) => (desc ? -cmp(a, b) : cmp(a, b)) || a.id - b.id).map((r) => r.id)
}

describe('sorting the timeline on the host', () => {
  it('sorts every built-in and added column both ways; no sort is capture order', async () => {
    const c = await openDemo()
    // photon.key lists a message's parameter codes: cells of several numbers ("245, 254")
    const columns = ['photon.ev.code', 'gamewire.name', 'photon.param.245', 'photon.key']
    for (const filter of ['', 'photon || sfs2x.cmd']) {
      const base = await rowsOf(c, { filter, sort: null, columns })
      expect(base.map((r) => r.id)).toEqual([...base.map((r) => r.id)].sort((a, b) => a - b))
      for (const column of [...BUILTIN_COLUMNS, ...columns]) {
        for (const desc of [false, true]) {
          const got = (await rowsOf(c, { filter, sort: { column, desc }, columns })).map((r) => r.id)
          expect(got, `${filter} ${column} ${desc}`).toEqual(expected(base, column, columns, desc))
        }
      }
      // the orders above are real sorts: not capture order, and descending keeps ties in capture order
      // (so it is not capture order reversed)
      for (const column of ['direction', 'name', 'photon.ev.code', 'gamewire.name']) {
        expect(expected(base, column, columns, false), column).not.toEqual(base.map((r) => r.id))
      }
      expect(expected(base, 'conversation', columns, true)).not.toEqual(base.map((r) => r.id).reverse())
    }
  })

  it('sorts a filter that needs trees again without changing its rows', async () => {
    const c = await openDemo()
    const base = await rowsOf(c, { filter: 'photon.param.245', sort: null, columns: [] })
    expect(base.length).toBeGreaterThan(3)
    const desc = await rowsOf(c, { filter: 'photon.param.245', sort: { column: 'name', desc: true }, columns: [] })
    expect(desc.map((r) => r.id)).toEqual(expected(base, 'name', [], true))
    const back = await rowsOf(c, { filter: 'photon.param.245', sort: null, columns: [] })
    expect(back.map((r) => r.id)).toEqual(base.map((r) => r.id))
  })

  it('sortByKey orders by key with ties in row order, both ways, on many rows', () => {
    const rand = rng(7)
    const n = 50_000
    // Fractions and negatives (ranked through a sorted copy); small whole numbers with many ties (their own
    // ranks); small fractions; fractions already in order; whole numbers too large to be ranks; a few keys
    // past 2^32.
    let t = 1.7e9
    const kinds: [string, () => number][] = [
      ['mixed', () => (rand() < 0.5 ? Math.floor(rand() * 100) : rand() * 1e9 - 5e8)],
      ['small whole', () => Math.floor(rand() * 300)],
      ['small fractions', () => rand() * 100],
      // in order already, with ties (times in capture order)
      ['ascending', () => (t += rand() < 0.3 ? 0 : rand() * 0.01)],
      ['large whole', () => Math.floor(rand() * 1e9)],
      ['past 2^32', () => (rand() < 0.001 ? 2 ** 32 + 5 : Math.floor(rand() * 50))]
    ]
    for (const [kind, key] of kinds) {
      const rows = new Uint32Array(n)
      const keys = new Float64Array(n)
      for (let i = 0; i < n; i++) {
        rows[i] = i * 3
        keys[i] = key()
      }
      for (const desc of [false, true]) {
        const want = Array.from(rows.keys())
          .sort((a, b) => (desc ? keys[b] - keys[a] : keys[a] - keys[b]) || a - b)
          .map((i) => rows[i])
        expect(Array.from(sortByKey(rows, keys, desc)), `${kind} ${desc}`).toEqual(want)
      }
    }
    expect(Array.from(sortByKey(new Uint32Array(0), new Float64Array(0), false))).toEqual([])
  })
})
