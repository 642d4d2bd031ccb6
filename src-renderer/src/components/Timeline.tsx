// The timeline: @tanstack/react-table owns the columns (sizes, resizing), useRowWindow (row-window.ts)
// renders only the visible rows, of any number, which come from the row cache in blocks. A header click
// sorts ascending, again descending, a third time back to capture order; the host sorts (the view spec's
// sort), never the renderer. Keyboard: arrows, Page Up/Down, Home/End move the selection; Ctrl/Cmd+click
// picks extra rows, Shift+click a range.

import { useEffect, useMemo, useRef, useState } from 'react'
import { columnResizingFeature, columnSizingFeature, createColumnHelper, tableFeatures, useTable } from '@tanstack/react-table'
import { MAX_ROWS_PER_REQUEST, type TimelineRow } from '../../../src-shared/api'
import { clock, DIRECTION_ARROW, num, protocolClass, relative } from '../format'
import { rowCache, useInspector } from '../state/store'
import { ColumnPicker } from './ColumnPicker'
import { FrameLinks } from './FrameLinks'
import { useRowWindow } from './row-window'

const ROW_HEIGHT = 24
const features = tableFeatures({ columnSizingFeature, columnResizingFeature })
const helper = createColumnHelper<typeof features, TimelineRow>()
const NO_DATA: TimelineRow[] = []

interface ColumnMeta {
  className?: string
  render(row: TimelineRow, ctx: { timeBase: number; relativeTime: boolean }): React.ReactNode
}

const BUILTIN: { id: string; header: string; size: number; meta: ColumnMeta }[] = [
  { id: 'id', header: 'No.', size: 64, meta: { className: 'num', render: (r) => r.id } },
  {
    id: 'time',
    header: 'Time',
    size: 112,
    meta: { className: 'num mono', render: (r, c) => (c.relativeTime ? relative(r.time, c.timeBase) : clock(r.time)) }
  },
  { id: 'conversation', header: 'Conv', size: 52, meta: { className: 'num', render: (r) => r.conversation } },
  {
    id: 'direction',
    header: 'Dir',
    size: 52,
    meta: {
      className: 'dir',
      render: (r) => (
        <span className={`dir-${r.direction}`} title={r.direction}>
          {DIRECTION_ARROW[r.direction]} {r.direction}
        </span>
      )
    }
  },
  {
    id: 'protocol',
    header: 'Protocol',
    size: 92,
    meta: { render: (r) => <span className={`proto-badge ${protocolClass(r.protocol)}`}>{r.protocol}</span> }
  },
  { id: 'name', header: 'Message', size: 190, meta: { className: 'name', render: (r) => r.name } },
  { id: 'length', header: 'Length', size: 64, meta: { className: 'num', render: (r) => r.length } },
  { id: 'summary', header: 'Summary', size: 520, meta: { className: 'summary', render: (r) => <FrameLinks text={r.summary} /> } }
]

export function Timeline() {
  const view = useInspector((s) => s.view)
  const spec = useInspector((s) => s.spec)
  const status = useInspector((s) => s.status)
  const selectedId = useInspector((s) => s.selectedId)
  const picked = useInspector((s) => s.picked)
  const timeMode = useInspector((s) => s.timeMode)
  const timeOrigin = useInspector((s) => s.status?.timeOrigin ?? null)
  useInspector((s) => s.rowsVersion) // re-render when rows land
  const { select, selectRange, setSort, removeColumn, toggleTimeMode } = useInspector.getState()
  const scroller = useRef<HTMLDivElement>(null)
  const [cursor, setCursor] = useState(-1)
  /** Where a Shift+click range starts: the row last clicked without Shift (view index). */
  const anchor = useRef(-1)
  const anchorView = useRef(-1)
  const rangeSeq = useRef(0)
  const [picker, setPicker] = useState(false)

  const count = view?.count ?? 0

  const columns = useMemo(
    () => [
      ...BUILTIN.map((c) => helper.display({ id: c.id, header: c.header, size: c.size, minSize: 36, meta: c.meta } as never)),
      ...spec.columns.map((key, i) =>
        helper.display({
          id: key,
          header: key,
          size: 140,
          minSize: 48,
          meta: { className: 'extra mono', render: (r: TimelineRow) => r.cells[i] ?? '' } satisfies ColumnMeta
        } as never)
      )
    ],
    [spec.columns]
  )
  const table = useTable({ features, columns, data: NO_DATA, columnResizeMode: 'onChange' })
  /** Ascending, then descending, then capture order again. */
  const cycleSort = (column: string) => {
    const s = spec.sort
    setSort(s?.column !== column ? { column, desc: false } : !s.desc ? { column, desc: true } : null)
  }
  const headers = table.getHeaderGroups()[0]?.headers ?? []
  const totalWidth = table.getTotalSize()

  const rowWindow = useRowWindow(scroller, count, ROW_HEIGHT, 20)
  const items = rowWindow.rows
  const first = items[0]?.index ?? 0
  const last = items[items.length - 1]?.index ?? -1

  useEffect(() => {
    if (last >= first) rowCache.ensure(Math.max(0, first - 50), last + 100, count)
  })
  // The view shown is 'done' only once it is the one asked for (a new filter's view is on its way) and its
  // visible rows have arrived.
  const rowsShown = items.every((i) => rowCache.get(i.index) !== undefined)
  const asked =
    !view ||
    (view.filter === spec.filter && JSON.stringify(view.sort) === JSON.stringify(spec.sort) && view.columns.join('\u0000') === spec.columns.join('\u0000'))
  const viewState = view?.state === 'done' && (!rowsShown || !asked) ? 'loading' : (view?.state ?? 'none')

  // Keep the cursor on the selected message when the view changes (filter, sort, new rows).
  useEffect(() => {
    const api = useInspector.getState().api
    if (!api || !view || selectedId === null) return
    let live = true
    const newView = anchorView.current !== view.id
    anchorView.current = view.id
    void api.findRow(view.id, selectedId).then((i) => {
      if (!live) return
      setCursor(i)
      // the rows moved: a range now starts at the selected row
      if (newView) anchor.current = i
      if (i >= 0) rowWindow.scrollToIndex(i)
    })
    return () => {
      live = false
    }
  }, [view?.id, view?.state, selectedId])

  /** Selects the rows between the anchor and view index `to` (both included), fetching ids not in the cache. */
  const selectTo = async (to: number, focus: number) => {
    const api = useInspector.getState().api
    if (!api || !view) return
    const from = anchor.current >= 0 && anchor.current < count ? anchor.current : to
    const lo = Math.min(from, to)
    const hi = Math.max(from, to)
    const seq = ++rangeSeq.current
    const ids: number[] = []
    for (let i = lo; i <= hi; ) {
      const row = rowCache.get(i)
      if (row) {
        ids.push(row.id)
        i++
        continue
      }
      const batch = await api.getRows(view.id, i, Math.min(MAX_ROWS_PER_REQUEST, hi - i + 1))
      if (seq !== rangeSeq.current || batch.viewId !== view.id || batch.rows.length === 0) return
      for (const r of batch.rows) ids.push(r.id)
      i += batch.rows.length
    }
    if (seq === rangeSeq.current) selectRange(focus, ids)
  }

  const moveTo = (i: number) => {
    if (count === 0) return
    const idx = Math.max(0, Math.min(count - 1, i))
    anchor.current = idx
    setCursor(idx)
    rowWindow.scrollToIndex(idx)
    const row = rowCache.get(idx)
    if (row) select(row.id)
    else {
      // not fetched yet: fetch it, then select
      rowCache.ensure(idx, idx + 1, count)
      const api = useInspector.getState().api
      if (api && view) void api.getRows(view.id, idx, 1).then((b) => b.rows[0] && select(b.rows[0].id))
    }
  }

  const onKeyDown = (e: React.KeyboardEvent) => {
    const page = Math.max(1, Math.floor((scroller.current?.clientHeight ?? 400) / ROW_HEIGHT) - 1)
    const keys: Record<string, () => void> = {
      ArrowDown: () => moveTo(cursor + 1),
      ArrowUp: () => moveTo(cursor - 1),
      PageDown: () => moveTo(cursor + page),
      PageUp: () => moveTo(cursor - page),
      Home: () => moveTo(0),
      End: () => moveTo(count - 1)
    }
    const fn = keys[e.key]
    if (fn) {
      e.preventDefault()
      fn()
    }
  }

  const ctx = { timeBase: timeOrigin ?? 0, relativeTime: timeMode === 'relative' && timeOrigin !== null }
  const phase = status?.phase ?? 'empty'
  let empty: React.ReactNode = null
  if (count === 0) {
    // An open that failed leaves an error view too: say what failed to open, not that a filter did.
    if (phase === 'error')
      empty = (
        <>
          <strong>Could not open the capture</strong>
          <p data-testid="open-error">{status?.error}</p>
        </>
      )
    else if (view?.state === 'error')
      empty = (
        <>
          <strong>The filter has an error</strong>
          <p>{view.error}</p>
        </>
      )
    else if (phase === 'opening' || view?.state === 'running')
      empty = (
        <>
          <div className="spinner" />
          <p>{phase === 'opening' ? 'Reading the capture…' : 'Filtering…'}</p>
        </>
      )
    else if (phase === 'empty')
      empty = (
        <>
          <strong>No capture open</strong>
          <p>Open a .pcap or .pcapng file, or drop one here.</p>
        </>
      )
    else if (spec.filter)
      empty = (
        <>
          <strong>No messages match the filter</strong>
          <p className="mono">{spec.filter}</p>
        </>
      )
    else
      empty = (
        <>
          <strong>No game messages in this capture</strong>
          <p>Frames were read, but no conversation carried a decodable payload.</p>
        </>
      )
  }

  return (
    <div className="timeline" data-testid="timeline" data-count={count} data-view-state={viewState}>
      <div className="timeline-head" role="row" style={{ width: totalWidth + 40 }}>
        {headers.map((h) => {
          const sorted = spec.sort?.column === h.column.id ? (spec.sort.desc ? 'desc' : 'asc') : false
          const extra = spec.columns.includes(h.column.id)
          return (
            <div
              key={h.id}
              role="columnheader"
              className={`th ${sorted ? 'sorted' : ''}`}
              style={{ width: h.getSize() }}
              aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : 'none'}
            >
              <button
                type="button"
                className="th-label"
                data-testid="column-header"
                data-column={h.column.id}
                onClick={() => cycleSort(h.column.id)}
                title={extra ? `${h.column.id} (click to sort)` : 'Click to sort'}
              >
                {h.column.columnDef.header as string}
                {sorted && <span className="sort-mark">{sorted === 'asc' ? '▲' : '▼'}</span>}
              </button>
              {h.column.id === 'time' && (
                // Beside the sort button, not in it: a button of its own, reachable by Tab and Enter.
                <button
                  type="button"
                  className="chip th-chip"
                  data-testid="time-mode"
                  title={`Showing ${timeMode} time: click for ${timeMode === 'relative' ? 'absolute' : 'relative'} time`}
                  onClick={toggleTimeMode}
                >
                  {timeMode === 'relative' ? 'rel' : 'abs'}
                </button>
              )}
              {extra && (
                <button type="button" className="th-remove" title="Remove column" onClick={() => removeColumn(h.column.id)}>
                  ×
                </button>
              )}
              <div
                className={`resizer ${h.column.getIsResizing() ? 'active' : ''}`}
                onMouseDown={h.getResizeHandler()}
                onTouchStart={h.getResizeHandler()}
                onDoubleClick={() => h.column.resetSize()}
              />
            </div>
          )
        })}
        <div className="th th-add">
          <button type="button" title="Add a column from any field" onClick={() => setPicker((p) => !p)}>
            +
          </button>
          {picker && <ColumnPicker onClose={() => setPicker(false)} />}
        </div>
      </div>
      <div className="timeline-body" ref={scroller} tabIndex={0} onKeyDown={onKeyDown} role="grid" aria-rowcount={count}>
        {empty ? (
          <div className="empty-state">{empty}</div>
        ) : (
          <div className="timeline-rows" style={{ height: rowWindow.height, width: totalWidth, position: 'relative' }}>
            {items.map((item) => {
              const row = rowCache.get(item.index)
              if (!row) {
                return <div key={item.index} className="tr loading" style={{ transform: `translateY(${item.top}px)`, width: totalWidth }} />
              }
              const selected = row.id === selectedId
              const classes = [
                'tr',
                protocolClass(row.protocol),
                selected && 'selected',
                picked.includes(row.id) && 'picked',
                row.error && 'has-error',
                row.warning && 'has-warning',
                item.index % 2 && 'odd'
              ]
              return (
                <div
                  key={item.index}
                  role="row"
                  data-testid="timeline-row"
                  data-id={row.id}
                  data-index={item.index}
                  aria-selected={selected}
                  className={classes.filter(Boolean).join(' ')}
                  style={{ transform: `translateY(${item.top}px)`, width: totalWidth }}
                  title={row.error ? 'Decode error (see the detail tree)' : row.warning ? 'Decoded with warnings' : undefined}
                  onMouseDown={(e) => {
                    if (e.button !== 0) return
                    if (e.shiftKey) {
                      e.preventDefault() // no text selection
                      void selectTo(item.index, row.id)
                    } else if (e.ctrlKey || e.metaKey) {
                      anchor.current = item.index
                      select(row.id, 'toggle')
                    } else {
                      anchor.current = item.index
                      setCursor(item.index)
                      select(row.id)
                    }
                  }}
                >
                  {headers.map((h) => {
                    const meta = h.column.columnDef.meta as ColumnMeta
                    return (
                      <div key={h.id} role="gridcell" className={`td ${meta.className ?? ''}`} style={{ width: h.getSize() }}>
                        {meta.render(row, ctx)}
                      </div>
                    )
                  })}
                </div>
              )
            })}
          </div>
        )}
      </div>
      <div className="timeline-foot">
        {view && view.state === 'running' && <div className="progress inline" style={{ width: `${Math.round(view.progress * 100)}%` }} />}
        <span>
          {num(count)} {spec.filter || view?.count !== view?.total ? `of ${num(view?.total ?? 0)} ` : ''}
          messages
        </span>
        {picked.length > 0 && (
          <span className="picked-count" data-testid="selected-count">
            {num(picked.length + (selectedId !== null && !picked.includes(selectedId) ? 1 : 0))} selected (Shift+click a range, Ctrl+click one)
          </span>
        )}
      </div>
    </div>
  )
}
