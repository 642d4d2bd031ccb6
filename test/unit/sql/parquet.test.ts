// `gamewire decode CAPTURE... --format parquet`: the Parquet tables read back by DuckDB on its own and
// compared with the NDJSON export of each capture, message by message, leaf by leaf; partitioned output
// read with Hive partitioning holds the same rows.
import { beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gw } from '../helpers/cli'
import { CONVERSATIONS, FIELDS, MESSAGES, PARTITION_KEYS, type Table } from '../../../src-main/sql/tables'
import { basename, CAPTURES, DEMO_KEYS, duck, leaves, ndjsonExport, type Export } from './helpers'

const tmp = mkdtempSync(join(tmpdir(), 'gw-parquet-'))
const FLAT = join(tmp, 'flat')
const exports = new Map<string, Export>()

beforeAll(() => {
  const r = gw('decode', ...CAPTURES, '--keylog', DEMO_KEYS, '--format', 'parquet', '-o', FLAT)
  expect(r.code, r.stderr).toBe(0)
  expect(r.stdout).toBe('')
  for (const c of CAPTURES) exports.set(basename(c), ndjsonExport(c))
}, 60_000)

const file = (t: string) => `'${join(FLAT, `${t}.parquet`)}'`

describe('decode --format parquet', () => {
  it('writes the three tables with the documented columns and types', async () => {
    expect(readdirSync(FLAT).sort()).toEqual(['conversations.parquet', 'fields.parquet', 'messages.parquet'])
    for (const t of [MESSAGES, FIELDS, CONVERSATIONS] as Table[]) {
      const cols = await duck(`DESCRIBE SELECT * FROM read_parquet(${file(t.name)})`)
      expect(cols.map((c) => [c.column_name, c.column_type])).toEqual(t.columns.map((c) => [c.name, c.type]))
    }
  })

  it('messages: one row per exported message, in export order, each column as the NDJSON export has it', async () => {
    const rows = await duck(
      `SELECT capture, id, conversation, direction, frames, epoch_us(time) AS us, CAST(date AS VARCHAR) AS day, protocol, stack, name, summary, length, value, warnings, error FROM read_parquet(${file('messages')})`
    )
    let total = 0
    const protocols = new Set<string>()
    for (const [capture, exp] of exports) {
      const mine = rows.filter((r) => r.capture === capture)
      expect(mine.length, capture).toBe(exp.messages.length)
      exp.messages.forEach((m, i) => {
        expect(mine[i], `${capture} #${m.id}`).toEqual({
          capture,
          id: m.id,
          conversation: m.conversation,
          direction: m.direction,
          frames: m.frames,
          us: BigInt(Math.round(m.time * 1e6)),
          day: new Date(m.time * 1000).toISOString().slice(0, 10),
          protocol: m.protocol,
          stack: m.stack,
          name: m.name,
          summary: m.summary,
          length: m.sources[0]?.length ?? null,
          // the export's own text, byte for byte (key order included), and the same value parsed
          value: m.valueText,
          warnings: m.warnings,
          error: m.error
        })
        expect(JSON.parse(mine[i].value as string)).toEqual(m.value)
        protocols.add(m.protocol)
      })
      total += exp.messages.length
    }
    expect(rows.length).toBe(total)
    for (const p of ['photon', 'sfs2x', 'fignet', 'enet', 'websocket']) expect(protocols).toContain(p)
    // the demo's login is decrypted with the key file given to the Parquet run
    expect(
      rows.some(
        (r) =>
          r.capture === 'demo.pcapng' &&
          r.name === 'Authenticate' &&
          (r.value as string).includes('"encrypted":true') &&
          !(r.value as string).includes('ciphertext')
      )
    ).toBe(true)
  })

  it('fields: one row per leaf of each message tree, in tree order, with its key, range and value', async () => {
    const rows = await duck(
      `SELECT capture, message, protocol, ord, key, label, type, CAST(int AS VARCHAR) AS int, float, text, bool, lower(hex(bytes)) AS bytes, source, start, length
       FROM read_parquet(${file('fields')}) ORDER BY capture, message, ord`
    )
    const byMessage = new Map<string, Record<string, unknown>[]>()
    for (const r of rows) {
      const k = `${r.capture}#${r.message}`
      byMessage.set(k, [...(byMessage.get(k) ?? []), r])
    }
    const used = { int: 0, float: 0, text: 0, bool: 0, bytes: 0 }
    let total = 0
    for (const [capture, exp] of exports) {
      for (const m of exp.messages) {
        const ls = leaves(m.tree)
        const mine = byMessage.get(`${capture}#${m.id}`) ?? []
        expect(mine.length, `${capture} #${m.id}`).toBe(ls.length)
        total += ls.length
        ls.forEach((leaf, i) => {
          const r = mine[i]
          const where = `${capture} #${m.id} leaf ${i} ${leaf.key}`
          expect(
            { ord: r.ord, key: r.key, label: r.label, type: r.type, protocol: r.protocol, source: r.source, start: r.start, length: r.length },
            where
          ).toEqual({
            ord: i,
            key: leaf.key,
            label: leaf.label,
            type: leaf.type,
            protocol: m.protocol,
            source: leaf.source === undefined ? null : m.sources[leaf.source].name,
            start: leaf.start ?? null,
            length: leaf.length ?? null
          })
          const set = (['int', 'float', 'text', 'bool', 'bytes'] as const).filter((c) => r[c] !== null)
          if (leaf.value === undefined || leaf.value === null) {
            expect(set, where).toEqual([])
            return
          }
          expect(set.length, where).toBe(1)
          const column = set[0]
          used[column]++
          // The export writes 64-bit integers and non-finite numbers as strings, bytes as hex.
          if (column === 'int') expect(String(leaf.value), where).toBe(r.int)
          else if (column === 'float') expect(leaf.value, where).toBe(Number.isFinite(r.float) ? r.float : String(r.float))
          else expect(leaf.value, where).toBe(r[column])
          // an integer-typed field is never a float, nor a float-typed one an int
          if (/^[ui](8|16|32|64)$/.test(leaf.type)) expect(column, where).toBe('int')
          if (/^f(32|64)$/.test(leaf.type)) expect(column, where).toBe('float')
        })
      }
    }
    expect(rows.length).toBe(total)
    for (const [c, n] of Object.entries(used)) expect(n, c).toBeGreaterThan(0)
  })

  it('conversations: one row per exported conversation', async () => {
    const rows = await duck(
      `SELECT capture, id, transport, client, server, role_from, protocol, stack, frames, bytes, epoch_us(first_time) AS first, epoch_us(last_time) AS last, notes FROM read_parquet(${file('conversations')})`
    )
    const expected = [...exports].flatMap(([capture, exp]) =>
      exp.conversations.map((c) => ({
        capture,
        id: c.id,
        transport: c.transport,
        client: c.client,
        server: c.server,
        role_from: c.roleFrom,
        protocol: c.protocol,
        stack: c.stack,
        frames: BigInt(c.frames as number),
        bytes: BigInt(c.bytes as number),
        first: BigInt(Math.round((c.firstTime as number) * 1e6)),
        last: BigInt(Math.round((c.lastTime as number) * 1e6)),
        notes: c.notes ?? []
      }))
    )
    expect(rows).toEqual(expected)
    expect(rows.length).toBeGreaterThan(5)
  })
})

describe('decode --format parquet --partition-by', () => {
  it.each(PARTITION_KEYS)('by %s: Hive-style KEY=VALUE folders that DuckDB reads back as the same rows', async (key) => {
    const dir = join(tmp, `by-${key}`)
    const r = gw('decode', ...CAPTURES, '--keylog', DEMO_KEYS, '--format', 'parquet', '--partition-by', key, '-o', dir)
    expect(r.code, r.stderr).toBe(0)
    expect(readdirSync(dir).sort()).toEqual(['conversations', 'fields', 'messages'])
    for (const t of [MESSAGES, FIELDS, CONVERSATIONS]) {
      // one folder per distinct value of the key in the unpartitioned table
      const values = (await duck(`SELECT DISTINCT CAST("${key}" AS VARCHAR) AS v FROM read_parquet(${file(t.name)}) ORDER BY v`)).map((x) => `${key}=${x.v}`)
      expect(readdirSync(join(dir, t.name)).sort(), `${t.name} by ${key}`).toEqual(values)
      const cols = t.columns.map((c) => `"${c.name}"`).join(', ')
      const hive = `(SELECT ${cols} FROM read_parquet('${join(dir, t.name)}/**/*.parquet', hive_partitioning = true))`
      const flat = `(SELECT ${cols} FROM read_parquet(${file(t.name)}))`
      const [counts] = await duck(`SELECT (SELECT count(*) FROM ${hive}) AS hive, (SELECT count(*) FROM ${flat}) AS flat,
        (SELECT count(*) FROM (FROM ${hive} EXCEPT ALL FROM ${flat})) AS extra, (SELECT count(*) FROM (FROM ${flat} EXCEPT ALL FROM ${hive})) AS missing`)
      expect(counts, `${t.name} by ${key}`).toEqual({ hive: counts.flat, flat: counts.flat, extra: 0n, missing: 0n })
      expect(counts.flat as bigint).toBeGreaterThan(0n)
    }
  })
})
