// Query: SQL over the open capture's messages (the tables of `gamewire query`, decoded on the host with
// the session's keys and schema packs, cached until the rows change). Run with the button or Ctrl+Enter;
// the result is a virtualised table of at most QUERY_ROW_LIMIT rows; an error is one line. A row with a
// message id (an `id` column of messages, a `message` column of fields) selects that message.

import { useVirtualizer } from '@tanstack/react-virtual'
import { lazy, Suspense, useEffect, useRef, useState } from 'react'
import { QUERY_ROW_LIMIT, type QueryAnswer, type QueryTable } from '../../../src-shared/api'
import { num, plural } from '../format'
import { errorMessage, useInspector } from '../state/store'

const SqlEditor = lazy(() => import('../editor/SqlEditor'))

const SQL_KEY = 'gamewire.query'
const DEFAULT_SQL = 'SELECT name, count(*) AS messages\nFROM messages\nGROUP BY name\nORDER BY messages DESC'
const ROW_HEIGHT = 22

function loadSql(): string {
  try {
    return localStorage.getItem(SQL_KEY) ?? DEFAULT_SQL
  } catch {
    return DEFAULT_SQL
  }
}

function cellText(v: QueryAnswer['rows'][number][number]): string {
  if (v === null) return 'NULL'
  return typeof v === 'string' ? v : JSON.stringify(v)
}

/**
 * The column that holds message ids: `id` unless the statement reads only conversations (whose ids are
 * conversation ids), else a `message` column (fields.message); -1 when none.
 */
export function messageIdColumn(sql: string, columns: QueryAnswer['columns']): number {
  const onlyConversations = /\bconversations\b/i.test(sql) && !/\b(messages|fields)\b/i.test(sql)
  const id = onlyConversations ? -1 : columns.findIndex((c) => c.name === 'id' && /INT/.test(c.type))
  return id >= 0 ? id : columns.findIndex((c) => c.name === 'message' && /INT/.test(c.type))
}

export function QueryPanel() {
  const api = useInspector((s) => s.api)
  const dark = useInspector((s) => s.theme) === 'dark'
  const selectedId = useInspector((s) => s.selectedId)
  const [tables, setTables] = useState<QueryTable[]>([])
  const [answer, setAnswer] = useState<{ sql: string; result: QueryAnswer } | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [running, setRunning] = useState(false)
  const sql = useRef(loadSql())
  /** The row the arrow keys are on (-1: none yet). */
  const [cursor, setCursor] = useState(-1)
  const scroller = useRef<HTMLDivElement>(null)
  const runSeq = useRef(0)

  useEffect(() => {
    if (api) void api.queryTables().then(setTables, () => undefined)
  }, [api])

  const run = async (text: string) => {
    if (!api) return
    const seq = ++runSeq.current
    setRunning(true)
    setError(null)
    try {
      const result = await api.runQuery(text)
      if (seq !== runSeq.current) return
      setAnswer({ sql: text, result })
      setCursor(-1)
      scroller.current?.scrollTo({ top: 0 })
    } catch (e) {
      if (seq !== runSeq.current) return
      setError(errorMessage(e).split('\n')[0])
    } finally {
      if (seq === runSeq.current) setRunning(false)
    }
  }

  const result = answer?.result
  const idColumn = answer && result ? messageIdColumn(answer.sql, result.columns) : -1
  const virtualizer = useVirtualizer({
    count: result?.rows.length ?? 0,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12
  })
  const columns = result?.columns ?? []
  // One width per column for every row (each row is its own grid): from the name and the first rows.
  const widths = columns.map((c, i) => {
    let w = c.name.length
    for (const r of result!.rows.slice(0, 200)) w = Math.max(w, cellText(r[i]).length)
    return `calc(${Math.min(48, w) + 1}ch + 18px)`
  })
  const grid = { gridTemplateColumns: widths.join(' ') }
  const idOf = (index: number): number | null => {
    const row = result?.rows[index]
    return row && idColumn >= 0 && typeof row[idColumn] === 'number' ? (row[idColumn] as number) : null
  }
  /** Puts the cursor on a row, in view, and selects its message when it has one (as a click does). */
  const moveTo = (index: number) => {
    setCursor(index)
    // Rows sit one line down (the sticky header is the grid's first line).
    const el = scroller.current
    if (el) {
      const top = (index + 1) * ROW_HEIGHT
      if (top - ROW_HEIGHT < el.scrollTop) el.scrollTop = top - ROW_HEIGHT
      else if (top + ROW_HEIGHT > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW_HEIGHT - el.clientHeight
    }
    const id = idOf(index)
    if (id !== null) useInspector.getState().select(id)
  }
  // The results take the keyboard as the timeline does: arrows, Page Up/Down, Home/End move the cursor.
  const onKeyDown = (e: React.KeyboardEvent) => {
    const count = result?.rows.length ?? 0
    if (count === 0) return
    const page = Math.max(1, Math.floor((scroller.current?.clientHeight ?? ROW_HEIGHT * 10) / ROW_HEIGHT) - 1)
    const steps: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page, Home: -count, End: count }
    if (e.key in steps) {
      e.preventDefault()
      moveTo(Math.min(count - 1, Math.max(0, (cursor < 0 ? -1 : cursor) + steps[e.key])))
    } else if (e.key === 'Enter' && cursor >= 0) {
      e.preventDefault()
      moveTo(cursor)
    }
  }

  return (
    <section className="side-panel query-panel" data-testid="query-panel" aria-label="SQL query">
      <header className="side-head">
        <h2>Query</h2>
        <span className="muted">SQL over the open capture</span>
        <span className="spacer" />
        {running && (
          <button type="button" className="button small" onClick={() => void api?.cancelQuery()} data-testid="query-cancel">
            Cancel
          </button>
        )}
        <button
          type="button"
          className="button small primary"
          onClick={() => void run(sql.current)}
          disabled={running}
          title="Run (Ctrl+Enter)"
          data-testid="query-run"
        >
          {running ? 'Running…' : 'Run'}
        </button>
      </header>
      <div className="query-editor-box">
        <Suspense fallback={<pre className="mono sql-editor">{sql.current}</pre>}>
          <SqlEditor
            initial={sql.current}
            dark={dark}
            tables={tables}
            onChange={(t) => {
              sql.current = t
              try {
                localStorage.setItem(SQL_KEY, t)
              } catch {
                // storage disabled: the text lasts until the page is closed
              }
            }}
            onRun={(t) => void run(t)}
          />
        </Suspense>
      </div>
      {error !== null && (
        <div className="query-error field-error" role="alert" title={error} data-testid="query-error">
          {error}
        </div>
      )}
      {result && error === null && (
        <div className="query-status muted small" data-testid="query-status" data-rows={result.rows.length} data-truncated={result.truncated}>
          {result.truncated ? `first ${num(QUERY_ROW_LIMIT)} rows shown (the result has more: narrow it or add LIMIT)` : plural(result.rows.length, 'row')} ·
          decoded in {num(result.loadMs)} ms · ran in {num(result.runMs)} ms
          {idColumn >= 0 && ' · click a row (or use the arrow keys) to select its message'}
        </div>
      )}
      <div
        className="query-results"
        ref={scroller}
        data-testid="query-results"
        role="grid"
        aria-rowcount={result ? result.rows.length + 1 : 0}
        tabIndex={0}
        onKeyDown={onKeyDown}
      >
        {result && (
          <div className="query-grid" style={{ height: (result.rows.length + 1) * ROW_HEIGHT }}>
            <div className="query-row query-head" style={grid} role="row">
              {columns.map((c, i) => (
                <span key={i} title={c.type} data-testid="query-column" role="columnheader">
                  {c.name}
                </span>
              ))}
            </div>
            {virtualizer.getVirtualItems().map((v) => {
              const row = result.rows[v.index]
              const id = idOf(v.index)
              return (
                <div
                  key={v.key}
                  role="row"
                  aria-selected={v.index === cursor}
                  className={`query-row ${id !== null ? 'linked' : ''} ${id !== null && id === selectedId ? 'selected' : ''} ${v.index === cursor ? 'cursor' : ''}`}
                  style={{ ...grid, transform: `translateY(${(v.index + 1) * ROW_HEIGHT}px)` }}
                  onClick={() => moveTo(v.index)}
                  data-testid="query-row"
                  data-index={v.index}
                >
                  {row.map((cell, i) => (
                    <span key={i} role="gridcell" className={cell === null ? 'muted' : typeof cell === 'number' ? 'num' : ''}>
                      {cellText(cell)}
                    </span>
                  ))}
                </div>
              )
            })}
          </div>
        )}
      </div>
      <details className="query-tables" data-testid="query-tables">
        <summary>Tables</summary>
        {tables.map((t) => (
          <div key={t.name} className="query-table">
            <div className="mono strong" title={t.doc}>
              {t.name} <span className="muted small">{t.doc}</span>
            </div>
            <ul>
              {t.columns.map((c) => (
                <li key={c.name} className="mono small" title={c.doc}>
                  {c.name} <span className="muted">{c.type}</span>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </details>
    </section>
  )
}
