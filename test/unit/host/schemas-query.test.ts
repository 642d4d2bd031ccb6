// The session's schema packs and SQL (the app's Schemas and Query panels), in-process: adding a pack
// re-decodes the open capture (rows renamed, named parameters become filter fields and tree labels, the
// detail replay and exports use it), a refused pack changes nothing, removing one reverts the names; packs
// persist in the config folder (0600) and load at start. SQL runs over the session's own messages (ids of
// the open capture, packs applied), is cut at QUERY_ROW_LIMIT, reports errors in one line, follows changes
// of the rows and can be cancelled. Expectations come from the traffic script (schema-capture.ts).
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionCore, type ExportTarget } from '../../../src-main/host/session-core'
import { InspectorSession, SCHEMA_FILE_NAME } from '../../../src-main/host/inspector-session'
import { QUERY_ROW_LIMIT, type InspectorEvent, type JobInfo } from '../../../src-shared/api'
import { registerSchemaFields } from '../../../src-shared/schema/set'
import { SCRIPT, schemaCapture, TEST_PACK } from '../helpers/schema-capture'

const ROOT = join(__dirname, '../../..')
const ALBION = readFileSync(join(ROOT, 'resources/schemas/albion-online.json'), 'utf8')
const tmp = mkdtempSync(join(tmpdir(), 'gamewire-schemas-test-'))
const CAPTURE = join(tmp, 'albion-style.pcapng')
writeFileSync(CAPTURE, schemaCapture())
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** Message ids of the scripted game messages: the handshake (CONNECT, ACK, VERIFYCONNECT, Init) is 1-4. */
const idOf = (i: number) => i + 5
const ALBION_NAMES: Record<number, string> = { 22: 'Move', 30: 'InventoryMoveItem' }

let events: InspectorEvent[] = []
let core: SessionCore | null = null
afterEach(() => {
  core?.close()
  core = null
  registerSchemaFields([])
})

async function opened(): Promise<SessionCore> {
  events = []
  core = new SessionCore({ emit: (e) => events.push(e), demoCapturePath: () => CAPTURE, tempDir: tmp })
  await core.open(CAPTURE)
  return core
}

async function rows(c: SessionCore, filter = '') {
  const view = await c.setView({ filter, sort: null, columns: [] })
  if (view.error) throw new Error(view.error)
  return c.getRows(view.id, 0, 5000).rows
}

const gameRows = async (c: SessionCore) => (await rows(c)).filter((r) => r.id >= 5)

describe('schema packs in the session', () => {
  it('adding a pack re-decodes: rows renamed, named parameters filter, label the tree and reach exports; removing reverts', async () => {
    const c = await opened()
    expect((await gameRows(c)).map((r) => r.name)).toEqual(SCRIPT.map((m) => (m.kind === 'request' ? 'Operation 1' : 'Event 22')))
    const generation = c.status().generation

    const albion = await c.addSchema(ALBION)
    expect(albion.redecoded).toEqual([1])
    expect(albion.schemas).toEqual([
      expect.objectContaining({
        id: 'Albion Online (operations, partial)',
        protocols: ['photon'],
        appliesTo: 'all conversations',
        contents: '28 operations',
        covers: [1]
      })
    ])
    expect(c.status().generation).toBeGreaterThan(generation)
    expect((await gameRows(c)).map((r) => r.name)).toEqual(SCRIPT.map((m) => (m.kind === 'request' ? ALBION_NAMES[m.code] : 'Event 22')))
    // the packs' names for the real code complete in the filter bar
    expect(c.getFields().find((f) => f.key === 'schema.code')?.names).toMatchObject({ 22: 'Move', 30: 'InventoryMoveItem' })
    expect(c.checkFilter('photon.param.itemId == 7')).toMatchObject({ ok: false })

    const test = await c.addSchema(JSON.stringify(TEST_PACK))
    expect(test.schemas.map((s) => [s.name, s.appliesTo, s.contents])).toEqual([
      ['Albion Online (operations, partial)', 'all conversations', '28 operations'],
      ['Test items', 'port 5056', '1 event, 2 global parameters']
    ])
    expect(c.getFields().map((f) => f.key)).toEqual(expect.arrayContaining(['photon.param.itemId', 'photon.param.slot']))
    const sevens = SCRIPT.flatMap((m, i) => (m.itemId === 7 ? [idOf(i)] : []))
    expect(sevens.length).toBeGreaterThan(1)
    const hits = await rows(c, 'photon.param.itemId == 7')
    expect(hits.map((r) => r.id)).toEqual(sevens)
    expect(hits.map((r) => r.summary)).toEqual(
      SCRIPT.filter((m) => m.itemId === 7).map((m) => `${m.kind === 'request' ? ALBION_NAMES[m.code] : 'ItemDropped event'} itemId=7 slot=${m.slot}`)
    )
    // the detail replay (one conversation's frames) labels the named parameter
    const detail = c.getMessage(sevens[0])
    const labels = JSON.stringify(detail.tree)
    expect(labels).toContain('itemId (1): ')
    // an export (of the filtered view) runs the CLI's decode with the packs
    const exported = join(tmp, 'export.ndjson')
    const job = c.startExport({ format: 'ndjson', scope: 'filtered', tree: 'none' }, { path: exported, fileName: 'export.ndjson' } satisfies ExportTarget)
    await jobDone(job.id)
    const lines = readFileSync(exported, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => l.id)
    expect(lines.map((l) => l.id)).toEqual(sevens)
    // filters on the index field answer from the index (the name the pack gave)
    expect((await rows(c, 'schema.name == "Move"')).map((r) => r.id)).toEqual(
      SCRIPT.flatMap((m, i) => (m.kind === 'request' && m.code === 22 ? [idOf(i)] : []))
    )

    const removed = await c.removeSchema('Test items')
    expect(removed.schemas.map((s) => s.name)).toEqual(['Albion Online (operations, partial)'])
    expect(c.checkFilter('photon.param.itemId == 7')).toMatchObject({ ok: false })
    expect((await gameRows(c)).map((r) => r.name)).toEqual(SCRIPT.map((m) => (m.kind === 'request' ? ALBION_NAMES[m.code] : 'Event 22')))
    await c.removeSchema('Albion Online (operations, partial)')
    expect((await gameRows(c)).map((r) => r.name)).toEqual(SCRIPT.map((m) => (m.kind === 'request' ? 'Operation 1' : 'Event 22')))
    await expect(c.removeSchema('Albion Online (operations, partial)')).rejects.toThrow(/no schema pack named/)
  })

  it('a capture opened in shards after a pack is added is decoded with it (the shard workers get the packs)', async () => {
    core = new SessionCore({ emit: () => undefined, demoCapturePath: () => CAPTURE, tempDir: tmp, jobs: 2, shardsInProcess: true })
    await core.addSchema(ALBION)
    await core.open(CAPTURE)
    expect((await gameRows(core)).map((r) => r.name)).toEqual(SCRIPT.map((m) => (m.kind === 'request' ? ALBION_NAMES[m.code] : 'Event 22')))
  })

  it('a pack that does not validate is refused with its JSON path and nothing changes', async () => {
    const c = await opened()
    await c.addSchema(JSON.stringify(TEST_PACK))
    const generation = c.status().generation
    const bad = { ...TEST_PACK, name: 'Bad', photon: { events: [{ code: 300, name: 'Big' }] } }
    const err = await c.addSchema(JSON.stringify(bad)).then(
      () => null,
      (e: Error) => e
    )
    expect(err).toMatchObject({ name: 'SchemaError', path: '$.photon.events[0].code' })
    expect(err!.message).toMatch(/^\$\.photon\.events\[0\]\.code: /)
    await expect(c.addSchema('{"format": ')).rejects.toMatchObject({ name: 'SchemaError', path: '$' })
    expect(c.listSchemas().map((s) => s.name)).toEqual(['Test items'])
    expect(c.status().generation).toBe(generation)
    expect(c.checkFilter('photon.param.itemId == 7')).toMatchObject({ ok: true })
  })

  it('a pack of the same name replaces the loaded one', async () => {
    const c = await opened()
    await c.addSchema(JSON.stringify(TEST_PACK))
    const renamed = { ...TEST_PACK, photon: { ...TEST_PACK.photon, parameters: { '1': 'thing' } } }
    const change = await c.addSchema(JSON.stringify(renamed))
    expect(change.schemas.map((s) => [s.name, s.contents])).toEqual([['Test items', '1 event, 1 global parameter']])
    expect(c.checkFilter('photon.param.thing == 7')).toMatchObject({ ok: true })
    expect(c.checkFilter('photon.param.itemId == 7')).toMatchObject({ ok: false })
  })

  it('persists packs in the config folder (0600) and loads them at start; a refused pack is not saved', async () => {
    const dir = join(tmp, 'config')
    const exportTarget = async () => null
    const a = new InspectorSession({ keysDir: dir, inProcess: true, exportTarget, demoCapturePath: () => CAPTURE })
    await a.addSchema(JSON.stringify(TEST_PACK))
    await expect(a.addSchema('{"format":"gamewire-schema/1","name":"x"}')).rejects.toMatchObject({ name: 'SchemaError' })
    await a.close()
    const file = join(dir, SCHEMA_FILE_NAME)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual([TEST_PACK])
    registerSchemaFields([])
    const b = new InspectorSession({ keysDir: dir, inProcess: true, exportTarget, demoCapturePath: () => CAPTURE })
    expect((await b.listSchemas()).map((s) => s.name)).toEqual(['Test items'])
    await b.openCapture(CAPTURE)
    expect((await b.checkFilter('photon.param.itemId == 7')).ok).toBe(true)
    await b.removeSchema('Test items')
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual([])
    await b.close()
  })
})

async function jobDone(id: number): Promise<JobInfo> {
  for (let i = 0; i < 2000; i++) {
    const e = events.find((x): x is Extract<InspectorEvent, { type: 'job' }> => x.type === 'job' && x.job.id === id && x.job.state !== 'running')
    if (e) return e.job
    await new Promise((r) => setTimeout(r, 5))
  }
  throw new Error(`job ${id} did not finish`)
}

describe('SQL over the open capture', () => {
  it("answers from the session's messages with the packs applied, and follows a pack change", async () => {
    const c = await opened()
    const before = await c.runQuery("SELECT id, name FROM messages WHERE protocol = 'photon' AND id >= 5 ORDER BY id")
    expect(before.columns).toEqual([
      { name: 'id', type: 'INTEGER' },
      { name: 'name', type: 'VARCHAR' }
    ])
    expect(before.rows).toEqual(SCRIPT.map((m, i) => [idOf(i), m.kind === 'request' ? 'Operation 1' : 'Event 22']))
    expect(before.truncated).toBe(false)
    await c.addSchema(ALBION)
    await c.addSchema(JSON.stringify(TEST_PACK))
    const after = await c.runQuery("SELECT id, name FROM messages WHERE name IN ('Move', 'InventoryMoveItem') ORDER BY id")
    expect(after.rows).toEqual(SCRIPT.flatMap((m, i) => (m.kind === 'request' ? [[idOf(i), ALBION_NAMES[m.code]]] : [])))
    // fields: every leaf, here the real code the pack read from parameter 253
    const codes = await c.runQuery("SELECT message, int FROM fields WHERE key = 'schema.code' ORDER BY message")
    expect(codes.rows).toEqual(SCRIPT.flatMap((m, i) => (m.kind === 'request' ? [[idOf(i), String(m.code)]] : [])))
    // value: the export's JSON, here the itemId parameter
    const items = await c.runQuery(`SELECT id, (value->>'$.parameters."1".value')::INTEGER FROM messages WHERE id >= 5 ORDER BY id`)
    expect(items.rows).toEqual(SCRIPT.map((m, i) => [idOf(i), m.itemId]))
    const perName = await c.runQuery('SELECT name, count(*)::INTEGER AS n FROM messages WHERE id >= 5 GROUP BY name ORDER BY name')
    const counts = new Map<string, number>()
    for (const m of SCRIPT) {
      const n = m.kind === 'request' ? ALBION_NAMES[m.code] : 'ItemDropped event'
      counts.set(n, (counts.get(n) ?? 0) + 1)
    }
    expect(perName.rows).toEqual([...counts].sort((a, b) => a[0].localeCompare(b[0])))
  })

  it('cuts results at the row limit, says so, and reports errors in one line', async () => {
    const c = await opened()
    const big = await c.runQuery(`SELECT range AS n FROM range(${QUERY_ROW_LIMIT + 5})`)
    expect(big.rows.length).toBe(QUERY_ROW_LIMIT)
    expect(big.truncated).toBe(true)
    expect(big.rows.at(-1)).toEqual([String(QUERY_ROW_LIMIT - 1)])
    const exact = await c.runQuery(`SELECT range AS n FROM range(${QUERY_ROW_LIMIT})`)
    expect(exact.truncated).toBe(false)
    for (const sql of ['SELEC 1', 'SELECT nope FROM messages', 'SELECT * FROM nothing_here']) {
      const e = await c.runQuery(sql).then(
        () => null,
        (x: Error) => x
      )
      expect(e).toMatchObject({ name: 'SqlError' })
      expect(e!.message).not.toContain('\n')
      expect(e!.message.length).toBeGreaterThan(5)
    }
    await expect(c.runQuery('   ')).rejects.toThrow(/no SQL statement/)
  })

  it('a running query is cancelled by cancelQuery and by the next query', async () => {
    const c = await opened()
    await c.runQuery('SELECT 1')
    const slow = c.runQuery('SELECT sum(a.range * b.range) FROM range(200000) a, range(200000) b')
    await new Promise((r) => setTimeout(r, 200))
    c.cancelQuery()
    await expect(slow).rejects.toThrow('cancelled')
    const slow2 = c.runQuery('SELECT sum(a.range * b.range) FROM range(200000) a, range(200000) b').then(
      () => null,
      (e: Error) => e
    )
    await new Promise((r) => setTimeout(r, 200))
    const next = await c.runQuery('SELECT count(*)::INTEGER FROM messages')
    expect(await slow2).toMatchObject({ name: 'SqlError', message: 'cancelled' })
    expect(next.rows).toEqual([[SCRIPT.length + 4]])
  })

  it('says when no capture is open', async () => {
    core = new SessionCore({ emit: () => undefined, demoCapturePath: () => CAPTURE, tempDir: tmp })
    await expect(core.runQuery('SELECT 1')).rejects.toThrow('no capture is open')
    expect(core.queryTables().map((t) => t.name)).toEqual(['messages', 'fields', 'conversations'])
  })
})
