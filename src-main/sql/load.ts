// Decodes captures into the SQL tables (tables.ts) of a DuckDB database: the export's pipeline
// (decodeOnThread) with DuckDB appenders as the consumer. Rows go to DuckDB as they are decoded and the
// appenders are flushed between input chunks, so no capture is ever held in JS memory; DuckDB itself
// spills to its database file when the tables outgrow its memory limit.

import { basename } from 'node:path'
import { DuckDBDateValue, DuckDBTimestampValue, INTEGER, LIST, VARCHAR, type DuckDBAppender, type DuckDBConnection } from '@duckdb/node-api'
import { CaptureFormatError } from '../../src-shared/capture/types'
import type { DecodeAsRule } from '../../src-shared/engine/engine'
import { withSessionLinks } from '../../src-shared/engine/session-links'
import { jsonText } from '../../src-shared/export/json'
import type { KeyEntry } from '../../src-shared/keys/keyfile'
import { KeyStore } from '../../src-shared/keys/store'
import type { ConversationInfo, DecodedMessage, FieldNode, FieldScalar } from '../../src-shared/model/types'
import { decodeOnThread, jobKeys, type HeldFrames } from '../host/run-decode'
import type { SchemaPack } from '../../src-shared/schema/types'
import { SqlError } from './errors'
import { CONVERSATIONS, createTableSql, FIELDS, MESSAGES } from './tables'

export interface LoadOptions {
  /** Key-file text (already checked). */
  keylog?: string
  /** Keys as entries, instead of `keylog` (the app's session keys; see DecodeJob.keys). */
  keys?: readonly KeyEntry[]
  schemas?: SchemaPack[]
  filter?: string
  decodeAs?: DecodeAsRule[]
  /** Each message's frame layers in its tree (and so in `fields`). */
  layers?: boolean
  /** Fill `fields` (default true); a query that never reads it skips its rows. */
  fields?: boolean
  progress?(p: { capture: string; bytes: number; total: number; messages: number }): void
  /** Awaited between input pieces (the app's session yields to its event loop and checks for cancellation). */
  pause?(): Promise<void>
}

export interface LoadedCapture {
  capture: string
  frames: number
  messages: number
  errors: number
  warnings: string[]
}

/** Appended rows are handed to DuckDB (flushSync) once this many are waiting, at the next input chunk. */
const FLUSH_ROWS = 50_000

const INT_LIST = LIST(INTEGER)
const TEXT_LIST = LIST(VARCHAR)
const FLOAT_TYPE = /^(f32|f64|float|double|float32|float64)$/
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

/** The capture column's value: the file's name, which must tell the run's captures apart. */
export function captureNames(files: readonly string[]): string[] {
  const names = files.map((f) => basename(f))
  const seen = new Set<string>()
  for (const n of names) {
    if (seen.has(n)) throw new SqlError(`two captures are named ${n}: rows are told apart by the file name, rename one`)
    seen.add(n)
  }
  return names
}

/** Creates the three tables in `connection`'s database and fills them from `files`, one capture after another. */
export async function loadCaptures(connection: DuckDBConnection, files: readonly string[], opts: LoadOptions = {}): Promise<LoadedCapture[]> {
  const names = captureNames(files)
  return loadInto(
    connection,
    files.map((file, i) => ({ file, capture: names[i] })),
    opts
  )
}

/**
 * The same tables from frames already held in memory or spilled by the app's session (its open capture,
 * with the session's keys and packs): the app's Query panel. Message ids are the session's.
 */
export async function loadHeld(connection: DuckDBConnection, held: HeldFrames, opts: LoadOptions = {}): Promise<LoadedCapture> {
  const [loaded] = await loadInto(connection, [{ file: held.name, capture: held.name, held }], opts)
  return loaded
}

async function loadInto(
  connection: DuckDBConnection,
  inputs: { file: string; capture: string; held?: HeldFrames }[],
  opts: LoadOptions
): Promise<LoadedCapture[]> {
  for (const t of [MESSAGES, FIELDS, CONVERSATIONS]) await connection.run(createTableSql(t))
  const rows = new TableRows(
    await connection.createAppender(MESSAGES.name),
    await connection.createAppender(FIELDS.name),
    await connection.createAppender(CONVERSATIONS.name),
    opts.fields !== false
  )
  const keys = new KeyStore()
  keys.addAll(jobKeys(opts))
  const loaded: LoadedCapture[] = []
  try {
    for (const input of inputs) {
      const capture = input.capture
      let lastProgress = 0
      const session = await decodeOnThread(
        { file: input.file, format: 'ndjson', filter: opts.filter, decodeAs: opts.decodeAs, layers: opts.layers, schemas: opts.schemas },
        {
          keys,
          held: input.held,
          recording: opts.fields !== false,
          onMessage: (m) => rows.message(capture, m),
          pause: async (bytes, total, s) => {
            rows.flush(FLUSH_ROWS)
            await opts.pause?.()
            const now = Date.now()
            if (opts.progress && now - lastProgress > 200) {
              lastProgress = now
              opts.progress({ capture, bytes, total, messages: s.matched })
            }
          }
        }
      ).catch((e) => {
        // Not a capture, or a broken one: name the file, as several may be loaded.
        if (e instanceof CaptureFormatError) throw new SqlError(`${input.file}: ${e.message}`)
        throw e
      })
      for (const c of withSessionLinks(session.engine)) rows.conversation(capture, c)
      rows.flush(0)
      const s = session.engine.stats
      loaded.push({ capture, frames: s.frames, messages: session.matched, errors: s.errors, warnings: [...s.warnings] })
    }
  } finally {
    rows.close()
  }
  return loaded
}

/** Appends messages, their tree leaves and conversations as rows, column by column in table order. */
class TableRows {
  private waiting = 0

  constructor(
    private readonly messages: DuckDBAppender,
    private readonly fields: DuckDBAppender,
    private readonly conversations: DuckDBAppender,
    private readonly withFields: boolean
  ) {}

  message(capture: string, m: DecodedMessage): void {
    const a = this.messages
    const date = dayOf(m.time)
    a.appendVarchar(capture)
    a.appendInteger(m.id)
    a.appendInteger(m.conversation)
    a.appendVarchar(m.direction)
    a.appendList(m.frames, INT_LIST)
    a.appendTimestamp(timestamp(m.time))
    a.appendDate(date)
    a.appendVarchar(m.protocol)
    a.appendList(m.stack, TEXT_LIST)
    a.appendVarchar(m.name)
    a.appendVarchar(m.summary)
    const source = m.sources[m.layerSources ?? 0]
    if (source) a.appendInteger(source.bytes.length)
    else a.appendNull()
    // The export's own serialiser: the column holds exactly the `value` text of `--format ndjson`.
    a.appendVarchar(jsonText(m.value))
    a.appendList(m.warnings, TEXT_LIST)
    if (m.error === null) a.appendNull()
    else a.appendVarchar(m.error)
    a.endRow()
    this.waiting++
    if (this.withFields) this.leaves(capture, m, date)
  }

  private leaves(capture: string, m: DecodedMessage, date: DuckDBDateValue): void {
    const a = this.fields
    let ord = 0
    const walk = (nodes: FieldNode[]): void => {
      for (const n of nodes) {
        if (n.children?.length) {
          walk(n.children)
          continue
        }
        a.appendVarchar(capture)
        a.appendInteger(m.id)
        a.appendVarchar(m.protocol)
        a.appendDate(date)
        a.appendInteger(ord++)
        a.appendVarchar(n.key)
        a.appendVarchar(n.label)
        a.appendVarchar(n.type)
        appendScalar(a, n.value, n.type)
        const source = n.source === undefined ? undefined : m.sources[n.source]
        if (source) a.appendVarchar(source.name)
        else a.appendNull()
        if (n.start === undefined) a.appendNull()
        else a.appendInteger(n.start)
        if (n.length === undefined) a.appendNull()
        else a.appendInteger(n.length)
        a.endRow()
        this.waiting++
      }
    }
    walk(m.tree)
  }

  conversation(capture: string, c: ConversationInfo): void {
    const a = this.conversations
    a.appendVarchar(capture)
    a.appendInteger(c.id)
    a.appendVarchar(c.transport)
    a.appendVarchar(c.client)
    a.appendVarchar(c.server)
    a.appendVarchar(c.roleFrom)
    a.appendVarchar(c.protocol)
    a.appendList(c.stack, TEXT_LIST)
    a.appendBigInt(BigInt(c.frames))
    a.appendBigInt(BigInt(c.bytes))
    a.appendTimestamp(timestamp(c.firstTime))
    a.appendTimestamp(timestamp(c.lastTime))
    a.appendDate(dayOf(c.firstTime))
    a.appendList(c.notes, TEXT_LIST)
    a.endRow()
    this.waiting++
  }

  /** Hands the appended rows to DuckDB when at least `min` are waiting. */
  flush(min: number): void {
    if (this.waiting === 0 || this.waiting < min) return
    this.messages.flushSync()
    this.fields.flushSync()
    this.conversations.flushSync()
    this.waiting = 0
  }

  close(): void {
    this.messages.closeSync()
    this.fields.closeSync()
    this.conversations.closeSync()
  }
}

/** The value in one of the five typed columns (int, float, text, bool, bytes), the others NULL. */
function appendScalar(a: DuckDBAppender, v: FieldScalar | undefined, type: string): void {
  let column = -1
  if (typeof v === 'number') {
    column = Number.isInteger(v) && !FLOAT_TYPE.test(type) && Math.abs(v) < 2 ** 63 ? 0 : 1
  } else if (typeof v === 'bigint') column = v >= INT64_MIN && v <= INT64_MAX ? 0 : 2
  else if (typeof v === 'string') column = 2
  else if (typeof v === 'boolean') column = 3
  else if (v instanceof Uint8Array) column = 4
  for (let i = 0; i < 5; i++) {
    if (i !== column) a.appendNull()
    else if (i === 0) a.appendBigInt(BigInt(v as number | bigint))
    else if (i === 1) a.appendDouble(v as number)
    else if (i === 2)
      a.appendVarchar(String(v)) // a string, or an integer beyond BIGINT in decimal
    else if (i === 3) a.appendBoolean(v as boolean)
    else a.appendBlob(v as Uint8Array)
  }
}

/** Epoch seconds as a TIMESTAMP (microseconds; pcapng nanoseconds are rounded). */
function timestamp(seconds: number): DuckDBTimestampValue {
  return new DuckDBTimestampValue(BigInt(Math.round(seconds * 1e6)))
}

function dayOf(seconds: number): DuckDBDateValue {
  return new DuckDBDateValue(Math.floor(seconds / 86400))
}
