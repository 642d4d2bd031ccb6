// The timeline view: which rows the display filter keeps, in which order, with which extra columns.
// Rows are answered from the message index where it can; conversations it cannot answer are decoded again.
// Also the stateless filter helpers the UI asks for (fields, filter check).

import type { FieldInfo, FilterCheck, RowBatch, TimelineRow, ViewInfo, ViewSpec } from '../../../src-shared/api'
import { allFields } from '../../../src-shared/bytes/fields'
import { compileFilter, FilterError, type FilterTarget } from '../../../src-shared/filter'
import { ViewMatcher } from '../view-matcher'
import { Cancelled, SLICE_MS, tick, Token } from './cancel'
import { emptyView, type SessionContext, type ViewState } from './context'

export class ViewPart {
  private spec: ViewSpec
  private viewSeq = 0
  private viewToken = new Token()
  private viewRun: { spec: ViewSpec; generation: number; token: Token; promise: Promise<ViewInfo> } | null = null

  constructor(private readonly ctx: SessionContext) {
    this.spec = ctx.view.spec
  }

  emitView(): void {
    this.ctx.opts.emit({ type: 'view', view: this.viewInfo() })
  }

  viewInfo(v: ViewState = this.ctx.view): ViewInfo {
    return {
      id: v.id,
      generation: v.generation,
      filter: v.spec.filter,
      sort: v.spec.sort,
      columns: v.spec.columns,
      count: v.order === null ? this.ctx.rows.count : v.count,
      total: this.ctx.rows.count,
      state: v.state,
      progress: v.progress,
      error: v.error
    }
  }

  /** Makes a new, empty view of the current spec the current one; `extra` overrides its fields. */
  replace(extra: Partial<ViewState>): ViewState {
    const view = { ...emptyView(++this.viewSeq, this.spec, this.ctx.generation), ...extra }
    this.ctx.view = view
    return view
  }

  /** Stops computing the current view. */
  cancel(): void {
    this.viewToken.cancel()
  }

  /** A view is being computed for the current spec and rows. */
  get computing(): boolean {
    const run = this.viewRun
    return !!run && !run.token.cancelled && this.ctx.view.state === 'running'
  }

  async setView(spec: ViewSpec): Promise<ViewInfo> {
    this.spec = spec
    this.viewToken.cancel()
    await this.ctx.indexing
    if (this.spec !== spec) return { ...this.viewInfo(), state: 'superseded' }
    if (this.ctx.phase !== 'ready') {
      // Nothing open: the spec applies to the next capture.
      this.replace({})
      this.emitView()
      return this.viewInfo()
    }
    return this.start()
  }

  /** Computes the view for the current spec, or joins the computation already running for it. */
  start(): Promise<ViewInfo> {
    const run = this.viewRun
    if (run && run.spec === this.spec && run.generation === this.ctx.generation && !run.token.cancelled) return run.promise
    this.viewToken.cancel()
    const token = (this.viewToken = new Token())
    const promise = this.computeView(token)
    this.viewRun = { spec: this.spec, generation: this.ctx.generation, token, promise }
    return promise
  }

  /** Computes the view again even if one for the same spec and rows is running or done (rows were added). */
  recompute(): Promise<ViewInfo> {
    this.viewRun = null
    return this.start()
  }

  private async computeView(token: Token): Promise<ViewInfo> {
    const spec = this.spec
    const total = this.ctx.rows.count
    const view = this.replace({ spec, state: 'running', progress: 0 })
    let matcher: ViewMatcher
    try {
      matcher = new ViewMatcher(spec.filter, spec.columns)
    } catch (e) {
      view.state = 'error'
      view.error = e instanceof FilterError ? e.message : (e as Error).message
      this.emitView()
      return this.viewInfo(view)
    }
    try {
      if (matcher.trivial) {
        view.order = null
        view.count = total
      } else {
        this.emitView()
        const cells: string[][] = spec.columns.map(() => new Array<string>(total).fill(''))
        view.cells = cells
        const matched = await this.evaluateRows(matcher, total, token, (p) => {
          view.progress = p
          this.emitView()
        }, cells)
        let count = 0
        for (let r = 0; r < total; r++) count += matched[r]
        const order = new Uint32Array(count)
        for (let r = 0, k = 0; r < total; r++) if (matched[r]) order[k++] = r
        view.order = order
        view.count = count
      }
      if (spec.sort) {
        await tick()
        token.check()
        const sorted = this.sortRows(view.order ?? identity(total), spec.sort.column, spec.sort.desc, view)
        view.order = sorted
        view.count = sorted.length
      }
    } catch (e) {
      if (e instanceof Cancelled) return { ...this.viewInfo(view), state: 'superseded' }
      view.state = 'error'
      view.error = (e as Error).message
      this.emitView()
      return this.viewInfo(view)
    }
    view.state = 'done'
    view.progress = 1
    const live = this.ctx.live
    if (live) {
      // Later live messages join this view as they arrive when that needs neither trees nor sorting;
      // otherwise the view is recomputed now and then (live.ts).
      const incremental = !matcher.trivial && !matcher.needsTree && !spec.sort
      live.view = incremental ? { view, matcher, upTo: total } : null
      live.viewStale = !matcher.trivial && this.ctx.rows.count > total
    }
    this.emitView()
    return this.viewInfo(view)
  }

  /**
   * Which of the first `total` rows the matcher's filter matches (1 per matching row), filling `cells`
   * with its columns. Rows are answered from the index where it holds every field the view reads; only
   * the conversations with rows it cannot answer are decoded again, with trees, one conversation at a time
   * (or in one pass over the capture when that is most of it).
   */
  async evaluateRows(matcher: ViewMatcher, total: number, token: Token, onProgress: (p: number) => void, cells: string[][] = []): Promise<Uint8Array> {
    const ctx = this.ctx
    const index = ctx.rows.index
    const matched = new Uint8Array(total)
    const target = index.target()
    /** Conversations with a row the index cannot answer. */
    const replay = new Set<number>()
    let sliceStart = performance.now()
    for (let r = 0; r < total; r++) {
      if (!matcher.indexAnswers(index, r)) {
        replay.add(index.conversationAt(r))
        continue
      }
      target.at(r)
      if (cells.length) {
        const values = matcher.cells(target)
        for (let c = 0; c < cells.length; c++) cells[c][r] = values[c]
      }
      if (matcher.matches(target)) matched[r] = 1
      if ((r & 4095) === 0 && performance.now() - sliceStart > SLICE_MS) {
        await tick()
        token.check()
        sliceStart = performance.now()
        if (ctx.throttled()) onProgress((0.1 * r) / total)
      }
    }
    if (replay.size === 0) return matched
    const fromTree = (row: number, t: FilterTarget) => {
      if (row >= total || !replay.has(index.conversationAt(row))) return
      if (cells.length) {
        const values = matcher.cells(t)
        for (let c = 0; c < cells.length; c++) cells[c][row] = values[c]
      }
      matched[row] = matcher.matches(t) ? 1 : 0
    }
    const recording = matcher.needsTree
    if (replay.size * 2 > ctx.conversations.conversationCount) {
      await ctx.replayAll({
        token,
        recording,
        layers: matcher.needsLayers,
        onMessage: (m, conv, dir) => fromTree(m.id - 1, matcher.target(m, conv, dir)),
        onProgress: (p) => onProgress(0.1 + 0.9 * p)
      })
      return matched
    }
    const rowsOf = new Map<number, number[]>()
    for (const c of replay) rowsOf.set(c, [])
    for (let r = 0; r < total; r++) rowsOf.get(index.conversationAt(r))?.push(r)
    let done = 0
    for (const [conversation, rows] of rowsOf) {
      let k = 0
      const engine = ctx.conversationEngine(conversation, recording, (m, conv, dir) => {
        if (k < rows.length) fromTree(rows[k++], matcher.target(m, conv, dir))
      }, matcher.needsLayers)
      const store = ctx.requireStore()
      for (const f of store.framesOf(conversation)) engine.addFrame(store.get(f))
      engine.finish()
      done++
      if (performance.now() - sliceStart > SLICE_MS) {
        await tick()
        token.check()
        sliceStart = performance.now()
        if (ctx.throttled()) onProgress(0.1 + (0.9 * done) / replay.size)
      }
    }
    return matched
  }

  private sortRows(rows: Uint32Array, column: string, desc: boolean, view: ViewState): Uint32Array<ArrayBuffer> {
    const out = Uint32Array.from(rows)
    const extra = view.spec.columns.indexOf(column)
    const dir = desc ? -1 : 1
    if (extra >= 0) {
      const cells = view.cells[extra] ?? []
      const numeric = (s: string) => (s !== '' && Number.isFinite(Number(s)) ? Number(s) : NaN)
      const keys = Array.from(out, (r) => cells[r] ?? '')
      const nums = keys.map(numeric)
      const allNumeric = nums.every((n, i) => !Number.isNaN(n) || keys[i] === '')
      const pos = new Map<number, number>()
      out.forEach((r, i) => pos.set(r, i))
      return out.sort((a, b) => {
        const i = pos.get(a)!
        const j = pos.get(b)!
        const c = allNumeric ? (nums[i] || 0) - (nums[j] || 0) : keys[i].localeCompare(keys[j])
        return c !== 0 ? c * dir : a - b
      })
    }
    const index = this.ctx.rows.index
    let keys: Float64Array | Uint32Array
    if (column === 'id' || column === 'time' || column === 'conversation' || column === 'length') {
      const numeric = new Float64Array(index.count)
      const at = column === 'time' ? (r: number) => index.timeAt(r) : column === 'conversation' ? (r: number) => index.conversationAt(r) : column === 'length' ? (r: number) => index.lengthAt(r) : (r: number) => r
      for (const r of out) numeric[r] = at(r)
      keys = numeric
    } else if (column === 'direction' || column === 'protocol' || column === 'name' || column === 'summary') {
      keys = index.textRanks(column)
    } else {
      return out
    }
    // Ties keep capture order, so the sort is stable whichever way it goes.
    return out.sort((a, b) => {
      const c = keys[a] - keys[b]
      return c !== 0 ? c * dir : a - b
    })
  }

  getRows(viewId: number, start: number, count: number): RowBatch {
    const v = this.ctx.view
    const index = this.ctx.rows.index
    if (viewId !== v.id) return { viewId: v.id, start, rows: [] }
    const size = v.order === null ? this.ctx.rows.count : v.count
    const end = Math.min(size, start + count)
    const rows: TimelineRow[] = []
    for (let i = start; i < end; i++) {
      const r = v.order === null ? i : v.order[i]
      rows.push({ ...index.row(r), cells: v.cells.map((c) => c[r] ?? '') })
    }
    return { viewId: v.id, start, rows }
  }

  findRow(viewId: number, messageId: number): number {
    const v = this.ctx.view
    if (viewId !== v.id) return -1
    const row = messageId - 1
    if (v.order === null) return row < this.ctx.rows.count ? row : -1
    for (let i = 0; i < v.count; i++) if (v.order[i] === row) return i
    return -1
  }
}

export function getFields(): FieldInfo[] {
  return allFields().map((f) => {
    const out: FieldInfo = { key: f.key, name: f.name, type: f.type }
    if (f.names) out.names = Object.fromEntries(Object.entries(f.names).map(([k, v]) => [k, String(v)]))
    return out
  })
}

export function checkFilter(text: string): FilterCheck {
  if (!text.trim()) return { ok: true, fields: [] }
  try {
    return { ok: true, fields: compileFilter(text).fields }
  } catch (e) {
    if (e instanceof FilterError) return { ok: false, message: e.message, start: e.start, end: e.end }
    return { ok: false, message: (e as Error).message, start: 0, end: text.length }
  }
}

function identity(n: number): Uint32Array {
  const a = new Uint32Array(n)
  for (let i = 0; i < n; i++) a[i] = i
  return a
}
