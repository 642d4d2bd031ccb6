// The timeline view: which rows the display filter keeps, in which order, with which extra columns.
// Rows are answered from the message index where it can; conversations it cannot answer are decoded again.
// Also the stateless filter helpers the UI asks for (fields, filter check).

import type { FieldInfo, FilterCheck, RowBatch, TimelineRow, ViewInfo, ViewSpec } from '../../../src-shared/api'
import { allFields } from '../../../src-shared/bytes/fields'
import { compileFilter, FilterError, type FilterTarget } from '../../../src-shared/filter'
import type { Conversation } from '../../../src-shared/engine/conversation'
import type { DecodedMessage, WireDir } from '../../../src-shared/model/types'
import { LayeredTarget, lastFrameGroups } from '../../../src-shared/net/layers'
import { TreeInterest } from '../../../src-shared/bytes/tree'
import { layerOfFamily, ViewMatcher } from '../view-matcher'
import { Cancelled, SLICE_MS, tick, Token } from './cancel'
import { emptyView, type EngineDepth, type SessionContext, type ViewState } from './context'
import { sortByKey, sortByRank } from './rank-sort'

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

  /** The view being computed, to wait for (null when none is). */
  running(): Promise<ViewInfo> | null {
    return this.computing ? this.viewRun!.promise : null
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
    const prev = this.ctx.view
    const view = this.replace({ spec, state: 'running', progress: 0 })
    let matcher: ViewMatcher
    try {
      matcher = new ViewMatcher(spec.filter, spec.columns, this.ctx.messageFrames())
    } catch (e) {
      view.state = 'error'
      view.error = e instanceof FilterError ? e.message : (e as Error).message
      this.emitView()
      return this.viewInfo(view)
    }
    try {
      // Only the sort changed: the rows the filter kept and the column values are still good.
      const reuse =
        prev.unsorted &&
        prev.unsorted.total === total &&
        prev.generation === this.ctx.generation &&
        prev.spec.filter === spec.filter &&
        sameColumns(prev.spec.columns, spec.columns)
          ? prev.unsorted
          : null
      if (reuse) {
        view.order = reuse.order
        view.count = reuse.count
        view.cells = prev.cells
      } else if (matcher.trivial) {
        view.order = null
        view.count = total
      } else {
        this.emitView()
        const cells: string[][] = spec.columns.map(() => new Array<string>(total).fill(''))
        view.cells = cells
        const matched = await this.evaluateRows(
          matcher,
          total,
          token,
          (p) => {
            view.progress = p
            this.emitView()
          },
          cells
        )
        let count = 0
        for (let r = 0; r < total; r++) count += matched[r]
        const order = new Uint32Array(count)
        for (let r = 0, k = 0; r < total; r++) if (matched[r]) order[k++] = r
        view.order = order
        view.count = count
      }
      view.unsorted = { order: view.order, count: view.count, total }
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
      // Later live messages join this view as they arrive when that needs neither trees nor sorting (a live
      // message, decoded without a tree, carries its meta and index fields, and its frames are stored before
      // it is decoded, for header fields); otherwise the view is recomputed now and then (live.ts).
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
    // The stored frames give frame.len and frame.cap_len without reading a frame, and header fields (ip.ttl)
    // by reading and parsing a row's frames.
    const stored = ctx.messageFrames()
    const target = index.target(stored?.lengths)
    const layers = matcher.plan.frameLayers.length &&
      stored?.frames && { frames: stored.frames, iface: stored.iface, interest: new TreeInterest(matcher.keys), last: lastFrameGroups() }
    /** Conversations with a row the index cannot answer. */
    const replay = new Set<number>()
    let sliceStart = performance.now()
    for (let r = 0; r < total; r++) {
      if (!matcher.indexAnswers(index, r)) {
        replay.add(index.conversationAt(r))
        continue
      }
      target.at(r)
      let t: FilterTarget = target
      if (layers) {
        t = new LayeredTarget(target, index.framesAt(r), layers.frames, layers.interest, { iface: layers.iface }, layers.last)
      }
      if (cells.length) {
        const values = matcher.cells(t)
        for (let c = 0; c < cells.length; c++) cells[c][r] = values[c]
      }
      if (matcher.matches(t)) matched[r] = 1
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
    // Trees only for the keys the view reads, and their values: without labels, and without other keys' nodes.
    // Header fields (tcp.seq) come from the stored frames beside each message (matcher.target), not its tree.
    const depth: EngineDepth = { recording: matcher.needsTree, labels: false, interest: matcher.keys }
    // Each replayed conversation's rows, in typed arrays (4 bytes a row on big captures).
    let n = 0
    for (let r = 0; r < total; r++) if (replay.has(index.conversationAt(r))) n++
    const replayed = new Uint32Array(n)
    for (let r = 0, k = 0; r < total; r++) if (replay.has(index.conversationAt(r))) replayed[k++] = r
    const rowsOf = ctx.rows.byConversation(replayed)
    const next = new Map<number, number>()
    // A message decoded again is its conversation's next row (a conversation decodes alone as in the index).
    const onMessage = (m: DecodedMessage, conv: Conversation, dir: WireDir) => {
      const rows = rowsOf.get(m.conversation)
      const k = next.get(m.conversation) ?? 0
      if (!rows || k >= rows.length) return
      next.set(m.conversation, k + 1)
      fromTree(rows[k], matcher.target(m, conv, dir))
    }
    if (replay.size * 2 > ctx.conversations.conversationCount) {
      // Most conversations: one pass over the capture in order, skipping the others' frames.
      await ctx.replayConversations(replay, { ...depth, token, onMessage, onProgress: (p) => onProgress(0.1 + 0.9 * p) })
      return matched
    }
    let done = 0
    for (const conversation of replay) {
      const engine = ctx.conversationEngine(conversation, { ...depth, onMessage })
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

  /**
   * The rows in the order of a column (ties in capture order, either way). Each row gets its key's rank (a
   * text column's rank among its texts; a number's among the numbers, from sortByKey) and a counting sort
   * places the rows (sortByRank), so millions of rows sort in a fraction of a second.
   */
  sortRows(rows: Uint32Array, column: string, desc: boolean, view: ViewState): Uint32Array<ArrayBuffer> {
    const n = rows.length
    const extra = view.spec.columns.indexOf(column)
    const index = this.ctx.rows.index
    if (extra >= 0) {
      // The cells' ranks are the keys' ranks already.
      const cells = view.cells[extra] ?? []
      const rankOf = cellRanks(rows, cells)
      const ranks = new Uint32Array(n)
      let last: string | undefined
      let lastRank = 0
      for (let i = 0; i < n; i++) {
        const cell = cells[rows[i]] ?? ''
        // Neighbouring rows often show the same text; the same string skips the lookup.
        if (cell !== last) {
          last = cell
          lastRank = rankOf.get(cell)!
        }
        ranks[i] = lastRank
      }
      return sortByRank(rows, ranks, rankOf.size, desc)
    }
    if (column === 'id') {
      // Rows are in capture order already.
      const out = Uint32Array.from(rows)
      return desc ? out.reverse() : out
    }
    if (column === 'direction' || column === 'protocol' || column === 'name' || column === 'summary') {
      return sortByRank(rows, index.textRanks(column, rows), index.textRankCount(column), desc)
    }
    const keys = new Float64Array(n)
    if (column === 'time') {
      for (let i = 0; i < n; i++) keys[i] = index.timeAt(rows[i])
    } else if (column === 'conversation') {
      for (let i = 0; i < n; i++) keys[i] = index.conversationAt(rows[i])
    } else if (column === 'length') {
      for (let i = 0; i < n; i++) keys[i] = index.lengthAt(rows[i])
    } else {
      return Uint32Array.from(rows)
    }
    return sortByKey(rows, keys, desc)
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

/** Every registered field; with `present` (the families in the open capture), those fields are marked. */
export function getFields(present?: ReadonlySet<string>): FieldInfo[] {
  return allFields().map((f) => {
    const out: FieldInfo = { key: f.key, name: f.name, type: f.type }
    const family = f.key.split('.', 1)[0]
    if (present?.has(layerOfFamily(family))) out.present = true
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

function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((c, i) => c === b[i])
}

/**
 * The rank of each distinct cell text of these rows: empty first, then numbers by value, then other text
 * as the built-in text columns sort (localeCompare), so a numeric column sorts as numbers. A cell of several
 * numbers (a field that occurs more than once, as `frame.len` of a message in two frames: "1514, 80") sorts
 * among the numbers by its first value, then its next: 1514 < "1514, 80" < "1514, 785" < 1515.
 */
function cellRanks(rows: Uint32Array, cells: readonly string[]): Map<string, number> {
  const distinct = new Set<string>()
  for (let i = 0; i < rows.length; i++) distinct.add(cells[rows[i]] ?? '')
  const texts = [...distinct]
  const nums = new Map(texts.map((t) => [t, cellNumbers(t)]))
  texts.sort((a, b) => {
    if (a === '' || b === '') return a === b ? 0 : a === '' ? -1 : 1
    const x = nums.get(a)
    const y = nums.get(b)
    if (x && y) {
      for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i]
      if (x.length !== y.length) return x.length - y.length
    }
    if (!x !== !y) return x ? -1 : 1
    return a.localeCompare(b)
  })
  return new Map(texts.map((t, i) => [t, i]))
}

/** The numbers a cell shows (formatCell joins a field's values with ", "), or undefined when it is not all numbers. */
function cellNumbers(cell: string): number[] | undefined {
  const out: number[] = []
  for (const part of cell.split(', ')) {
    const n = part.trim() === '' ? NaN : Number(part)
    if (!Number.isFinite(n)) return undefined
    out.push(n)
  }
  return out
}

function identity(n: number): Uint32Array {
  const a = new Uint32Array(n)
  for (let i = 0; i < n; i++) a[i] = i
  return a
}
