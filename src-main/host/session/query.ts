// The Query panel's SQL: the open capture's frames decoded into the SQL tables (src-main/sql/tables.ts) of
// a scratch DuckDB database by the same row writers as `gamewire query` (load.ts, with the session's keys,
// decode-as rules and schema packs), kept until the session's rows change, then the statement run with
// a row limit for the UI. One query at a time: a new one, or cancelQuery, interrupts the running one.
// DuckDB (a native module) is loaded only when the first query runs.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { QUERY_ROW_LIMIT, type QueryAnswer, type QueryTable } from '../../../src-shared/api'
import { SqlError, sqlErrorMessage } from '../../sql/errors'
import type { ScratchDb } from '../../sql/query'
import { TABLES } from '../../sql/tables'
import type { HeldFrames } from '../run-decode'
import { Cancelled, tick, Token } from './cancel'
import type { SessionContext } from './context'

/** Characters of one cell a result carries (a message's `value` JSON can be megabytes). */
export const QUERY_CELL_CHARS = 4096

/** What the tables were loaded from: the session's rows at one moment, with or without `fields`. */
interface Loaded {
  generation: number
  rows: number
  fields: boolean
}

type Cell = QueryAnswer['rows'][number][number]

function capCell(v: unknown): Cell {
  if (typeof v === 'string') return v.length > QUERY_CELL_CHARS ? `${v.slice(0, QUERY_CELL_CHARS)}…` : v
  if (v === null || typeof v === 'number' || typeof v === 'boolean') return v
  const text = JSON.stringify(v)
  return text.length > QUERY_CELL_CHARS ? `${text.slice(0, QUERY_CELL_CHARS)}…` : (v as Cell)
}

export function queryTables(): QueryTable[] {
  return TABLES.map((t) => ({ name: t.name, doc: t.doc, columns: t.columns.map((c) => ({ name: c.name, type: c.type, doc: c.doc })) }))
}

export class QueryPart {
  private db: ScratchDb | null = null
  private dir: string | null = null
  private loaded: Loaded | null = null
  private token = new Token()
  /** The query running now (settled when none). */
  private running: Promise<unknown> = Promise.resolve()

  constructor(private readonly ctx: SessionContext) {}

  private async open(): Promise<ScratchDb> {
    if (this.db) return this.db
    const { ScratchDb } = await import('../../sql/query')
    // A folder of its own (the scratch file has a fixed name), removed on close.
    const dir = mkdtempSync(join(this.ctx.opts.tempDir ?? tmpdir(), 'gamewire-query-'))
    try {
      this.db = await ScratchDb.open(dir)
    } catch (e) {
      rmSync(dir, { recursive: true, force: true })
      throw e
    }
    this.dir = dir
    return this.db
  }

  async runQuery(sql: string): Promise<QueryAnswer> {
    this.cancel()
    await this.running.catch(() => undefined)
    const token = (this.token = new Token())
    const run = this.run(sql, token)
    this.running = run
    try {
      return await run
    } catch (e) {
      if (e instanceof Cancelled || token.cancelled) throw new SqlError('cancelled')
      throw e
    }
  }

  private async run(sql: string, token: Token): Promise<QueryAnswer> {
    const ctx = this.ctx
    if (!ctx.store || !ctx.source || ctx.phase === 'empty') throw new SqlError('no capture is open')
    await ctx.indexing
    token.check()
    if (ctx.phase !== 'ready') throw new SqlError(ctx.phase === 'error' ? `the capture could not be read: ${ctx.error}` : 'the capture is still opening')
    if (!sql.trim()) throw new SqlError('no SQL statement')
    const db = await this.open()
    const { checkSql, readsFields } = await import('../../sql/query')
    try {
      await checkSql(db.connection, sql)
    } catch (e) {
      throw new SqlError((e as Error).message.replace('--sql holds no statement', 'no SQL statement'))
    }
    const started = performance.now()
    const fields = readsFields(sql)
    const l = this.loaded
    if (!l || l.generation !== ctx.generation || l.rows !== ctx.rows.count || (fields && !l.fields)) await this.load(db, fields, token)
    const loadMs = performance.now() - started
    token.check()
    const begin = performance.now()
    const columns: QueryAnswer['columns'] = []
    const rows: QueryAnswer['rows'] = []
    let truncated = false
    try {
      const result = await db.connection.stream(sql)
      const types = result.columnTypes()
      for (const [i, name] of result.columnNames().entries()) columns.push({ name, type: types[i].toString() })
      for await (const chunk of result.yieldRowsJson()) {
        token.check()
        for (const r of chunk) {
          if (rows.length === QUERY_ROW_LIMIT) {
            truncated = true
            break
          }
          rows.push(r.map(capCell))
        }
        if (truncated) break
      }
    } catch (e) {
      if (e instanceof Cancelled || token.cancelled) throw new Cancelled()
      throw new SqlError(sqlErrorMessage(e))
    }
    return { columns, rows, truncated, loadMs: Math.round(loadMs), runMs: Math.round(performance.now() - begin) }
  }

  /** Decodes the session's frames into fresh tables. */
  private async load(db: ScratchDb, fields: boolean, token: Token): Promise<void> {
    const ctx = this.ctx
    const store = ctx.requireStore()
    const source = ctx.source!
    this.loaded = null
    for (const t of TABLES) await db.connection.run(`DROP TABLE IF EXISTS ${t.name}`)
    const want: Loaded = { generation: ctx.generation, rows: ctx.rows.count, fields }
    const held: HeldFrames = {
      name: source.kind === 'file' ? source.file : source.name,
      count: store.count,
      frames: () => store.range(1, store.count),
      warnings: ctx.readerWarnings
    }
    const { loadHeld } = await import('../../sql/load')
    await loadHeld(db.connection, held, {
      keys: ctx.keys.size ? ctx.keys.list() : undefined,
      schemas: ctx.schemaPacks.length ? ctx.schemaPacks : undefined,
      decodeAs: ctx.decodeAs.length ? ctx.decodeAs : undefined,
      fields,
      pause: async () => {
        await tick()
        token.check()
      }
    })
    // The rows changed while decoding (a live capture, a re-decode): load again next time.
    if (ctx.store === store && ctx.generation === want.generation) this.loaded = want
  }

  /** Stops the running query, if any. */
  cancel(): void {
    this.token.cancel()
    try {
      this.db?.connection.interrupt()
    } catch {
      // nothing running
    }
  }

  close(): void {
    this.cancel()
    try {
      this.db?.close()
    } catch {
      // closing anyway
    }
    this.db = null
    this.loaded = null
    if (this.dir) rmSync(this.dir, { recursive: true, force: true })
    this.dir = null
  }
}
