// `gamewire query`: SQL over captures (decoded into a scratch DuckDB database) or over Parquet directories
// (views over read_parquet), run by DuckDB, the result written as an aligned table, CSV or JSON.

import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DuckDBInstance, DuckDBTypeId, type DuckDBConnection, type DuckDBType, type Json } from '@duckdb/node-api'
import { SqlError, sqlErrorMessage } from './errors'
import { loadCaptures, type LoadedCapture, type LoadOptions } from './load'
import { openParquet } from './parquet'

/** A DuckDB database file in a scratch folder, deleted on close(): tables larger than memory spill there. */
export class ScratchDb {
  private constructor(
    readonly instance: DuckDBInstance,
    readonly connection: DuckDBConnection,
    private readonly dir: string,
    private readonly ownDir: boolean
  ) {}

  /** In `dir` (which the caller owns), or else in a new folder under the system's temp dir. */
  static async open(dir?: string): Promise<ScratchDb> {
    const own = dir === undefined
    const folder = dir ?? mkdtempSync(join(tmpdir(), 'gamewire-sql-'))
    try {
      // DuckDB takes 80 % of the machine's memory by default: bounded here, it spills to the scratch file.
      const instance = await DuckDBInstance.create(join(folder, SCRATCH), { memory_limit: SCRATCH_MEMORY })
      return new ScratchDb(instance, await instance.connect(), folder, own)
    } catch (e) {
      if (own) rmSync(folder, { recursive: true, force: true })
      throw new SqlError(`cannot open a DuckDB database in ${folder}: ${sqlErrorMessage(e)}`)
    }
  }

  close(): void {
    this.connection.closeSync()
    this.instance.closeSync()
    if (this.ownDir) rmSync(this.dir, { recursive: true, force: true })
    else for (const f of [SCRATCH, `${SCRATCH}.wal`]) rmSync(join(this.dir, f), { force: true })
  }
}

const SCRATCH = '.gamewire-scratch.duckdb'
/** DuckDB's memory for one scratch database (its buffer pool; more spills to the scratch file). */
const SCRATCH_MEMORY = '512MB'

export type SourceKind = 'capture' | 'parquet'

/** A directory is a Parquet directory, anything else a capture file; all sources must be of one kind. */
export function sourceKind(sources: readonly string[]): SourceKind {
  const kinds = new Set(
    sources.map((s) => {
      try {
        return statSync(s).isDirectory() ? 'parquet' : 'capture'
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code
        throw new SqlError(code === 'ENOENT' ? `source not found: ${s}` : `cannot read ${s} (${code})`)
      }
    })
  )
  if (kinds.size > 1) throw new SqlError('give either capture files or Parquet directories, not both')
  return [...kinds][0] as SourceKind
}

/** Whether a statement may read the fields table: if not, a capture is decoded without its leaf rows. */
export function readsFields(sql: string): boolean {
  return /\bfields\b/i.test(sql)
}

/**
 * Makes messages, fields and conversations available to `db`: captures decoded into it, or views over
 * Parquet directories. Returns the captures loaded (none for Parquet).
 */
export async function openSources(db: ScratchDb, sources: readonly string[], opts: LoadOptions = {}): Promise<LoadedCapture[]> {
  if (sourceKind(sources) === 'parquet') {
    await openParquet(db.connection, sources)
    return []
  }
  return loadCaptures(db.connection, sources, opts)
}

/** Checks that `sql` parses, before any capture is decoded for it. */
export async function checkSql(connection: DuckDBConnection, sql: string): Promise<void> {
  try {
    const statements = await connection.extractStatements(sql)
    if (statements.count === 0) throw new SqlError('--sql holds no statement')
  } catch (e) {
    if (e instanceof SqlError) throw e
    throw new SqlError(sqlErrorMessage(e).replace(/^Failed to extract statements: /, ''))
  }
}

export type QueryFormat = 'table' | 'csv' | 'json'
export const QUERY_FORMATS: readonly QueryFormat[] = ['table', 'csv', 'json']

/** A result's columns and rows as DuckDB's JSON-friendly values (timestamps as text, BIGINT as decimal text). */
export interface QueryResult {
  columns: { name: string; type: string; json: boolean; integer: boolean }[]
  rows: Json[][]
}

const BIG_INTEGERS = new Set([DuckDBTypeId.BIGINT, DuckDBTypeId.UBIGINT, DuckDBTypeId.HUGEINT, DuckDBTypeId.UHUGEINT])

function columnInfo(name: string, t: DuckDBType): QueryResult['columns'][number] {
  return { name, type: t.toString(), json: t.alias === 'JSON', integer: BIG_INTEGERS.has(t.typeId) }
}

/** Runs `sql` (its last statement's result), handing rows to `onRows` chunk by chunk. */
export async function runSql(
  connection: DuckDBConnection,
  sql: string,
  onRows: (columns: QueryResult['columns'], rows: Json[][]) => void | Promise<void>
): Promise<QueryResult['columns']> {
  try {
    const result = await connection.stream(sql)
    const types = result.columnTypes()
    const columns = result.columnNames().map((n, i) => columnInfo(n, types[i]))
    for await (const rows of result.yieldRowsJson()) await onRows(columns, rows)
    return columns
  } catch (e) {
    throw new SqlError(sqlErrorMessage(e))
  }
}

/** All of a result in memory (the table format, the app's panel, tests). */
export async function querySql(connection: DuckDBConnection, sql: string): Promise<QueryResult> {
  const rows: Json[][] = []
  const columns = await runSql(connection, sql, (_, chunk) => {
    rows.push(...chunk)
  })
  return { columns, rows }
}

// ---- output ----

/** A cell as a JSON value: a BIGINT that fits a double as a number, a JSON column as its own value. */
function cellJson(v: Json, c: QueryResult['columns'][number]): string {
  if (v === null) return 'null'
  if (c.json && typeof v === 'string') return v
  if (c.integer && typeof v === 'string' && Number.isSafeInteger(Number(v))) return v
  return JSON.stringify(v)
}

function cellText(v: Json): string {
  if (v === null) return ''
  return typeof v === 'string' ? v : JSON.stringify(v)
}

function csvCell(v: Json): string {
  const s = cellText(v)
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s
}

/** Writes rows as they come (csv, json) or, for the table, once all are known (its columns are aligned). */
export class ResultWriter {
  private count = 0
  private readonly held: Json[][] = []

  constructor(
    private readonly format: QueryFormat,
    private readonly write: (text: string) => void | Promise<void>
  ) {}

  async rows(columns: QueryResult['columns'], rows: Json[][]): Promise<void> {
    if (this.format === 'table') {
      this.held.push(...rows)
      return
    }
    let out = ''
    if (this.count === 0) out += this.start(columns)
    for (const r of rows) {
      if (this.format === 'csv') out += `${r.map(csvCell).join(',')}\r\n`
      else out += `${this.count ? ',\n' : ''}{${r.map((v, i) => `${JSON.stringify(columns[i].name)}:${cellJson(v, columns[i])}`).join(',')}}`
      this.count++
    }
    if (out) await this.write(out)
  }

  private start(columns: QueryResult['columns']): string {
    return this.format === 'csv' ? `${columns.map((c) => csvCell(c.name)).join(',')}\r\n` : '[\n'
  }

  /** The end of the output; `columns` for a result with no rows. */
  async end(columns: QueryResult['columns']): Promise<void> {
    if (this.format === 'table') return this.write(formatTable(columns, this.held))
    let out = this.count === 0 ? this.start(columns) : ''
    if (this.format === 'json') out += `${this.count ? '\n' : ''}]\n`
    if (out) await this.write(out)
  }
}

const CELL_MAX = 60

/** Aligned columns, numbers right-aligned, cells cut at CELL_MAX characters, then the row count. */
export function formatTable(columns: QueryResult['columns'], rows: Json[][]): string {
  const clip = (s: string): string => {
    const flat = s.replace(/[\r\n\t]/g, ' ')
    return flat.length > CELL_MAX ? `${flat.slice(0, CELL_MAX - 1)}…` : flat
  }
  const text = rows.map((r) => r.map((v) => (v === null ? 'NULL' : clip(cellText(v)))))
  const widths = columns.map((c, i) => Math.max(c.name.length, ...text.map((r) => r[i].length)))
  const numeric = columns.map(
    (c, i) => rows.some((r) => r[i] !== null) && rows.every((r) => r[i] === null || typeof r[i] === 'number' || (c.integer && typeof r[i] === 'string'))
  )
  const line = (cells: string[]): string =>
    cells
      .map((s, i) => (numeric[i] ? s.padStart(widths[i]) : s.padEnd(widths[i])))
      .join('  ')
      .trimEnd()
  const out = [line(columns.map((c) => c.name)), widths.map((w) => '-'.repeat(w)).join('  '), ...text.map(line)]
  out.push(`(${rows.length} ${rows.length === 1 ? 'row' : 'rows'})`)
  return `${out.join('\n')}\n`
}
