// The Diff panel: the open capture (A, its stored frames replayed without trees, so a live capture works
// too) against a capture file on the host (B, decoded with the session's keys), as `gamewire diff --json`
// reports it, plus each conversation pair's messages side by side. Each side is decoded once for the
// comparison and again only for the values of messages that differ (src-shared/analysis/diff); the sides
// are kept, so more ignored fields compare again without decoding.

import { statSync } from 'node:fs'
import { resolve } from 'node:path'
import {
  DIFF_LINES_PAGE,
  DIFF_PAIRS_PAGE,
  type CaptureDiff,
  type ConversationDiff,
  type DiffLine,
  type DiffPairView,
  type DiffWithOptions
} from '../../../src-shared/api'
import {
  compactRows,
  comparePair,
  compareSides,
  diffStream,
  freeValues,
  pairRows,
  type DiffAlignment,
  type DiffRow,
  type PairAlignment,
  type DiffSides,
  type DiffSource
} from '../../../src-shared/analysis/diff'
import type { IgnoreRules } from '../../../src-shared/analysis/diff/rules'
import { fileDiffSource } from '../capture-diff'
import { spilledValuesFor } from '../spilled-values'
import { RowsToken } from './analysis-token'
import { tick } from './cancel'
import type { SessionContext } from './context'
import type { RowIndex } from './row-index'

/** A pair with more lines than this is shown as its differences with CONTEXT lines around them. */
export const FULL_ROWS = 2000
export const CONTEXT_ROWS = 3
/** Most lines a pair's side-by-side view carries. */
export const MAX_ROWS = 5000

/** A: the open capture's messages, replayed without trees. */
function openCapture(ctx: SessionContext, token: RowsToken): DiffSource {
  const source = ctx.source
  return {
    file: source?.kind === 'file' ? source.file : source?.kind === 'interface' ? source.name : undefined,
    async decode(onMessage) {
      const engine = await ctx.replayAll({ token, recording: false, onMessage })
      return engine.conversations()
    },
    valueStore: (count) => spilledValuesFor(count, ctx.opts.tempDir, ctx.opts.diffSpillAt)
  }
}

/** B: a capture file on the host, decoded with the session's keys, packs and endpoint rules; `key` changes with the file. */
function otherFile(ctx: SessionContext, path: string, token: RowsToken): DiffSource & { key: string } {
  let st: ReturnType<typeof statSync>
  try {
    st = statSync(path)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    throw new Error(code === 'ENOENT' ? `no such file: ${path}` : `cannot read ${path} (${code ?? (e as Error).message})`)
  }
  if (st.isDirectory()) throw new Error(`${path} is a directory`)
  const source = fileDiffSource(path, {
    keys: ctx.keys,
    // B is named and laid out by the same packs as A (a pack change re-decodes A: new rows)
    schemas: ctx.schemaPacks.length ? ctx.schemaPacks : undefined,
    // Rules naming conversation ids are about the open capture's conversations; endpoint rules hold for B too.
    decodeAs: ctx.decodeAs.filter((r) => typeof r.match === 'string'),
    pause: async () => {
      await tick()
      token.check()
    },
    spill: { dir: ctx.opts.tempDir, at: ctx.opts.diffSpillAt }
  })
  return { ...source, key: `${path}\u0000${st.size}\u0000${st.mtimeMs}` }
}

/**
 * The last comparison's sides, for the same rows (A's messages; the keys, packs and rules B is decoded
 * with) and the same file B: a comparison that ignores more uses them again.
 */
interface KnownSides {
  rows: RowIndex
  count: number
  key: string
  sides: DiffSides
}
const knownSides = new WeakMap<SessionContext, KnownSides>()

/** Keeps `sides` as the session's last, freeing the values of the sides they replace (a file each, when many). */
function keepSides(ctx: SessionContext, known: KnownSides | undefined): void {
  const old = knownSides.get(ctx)?.sides
  if (old && old !== known?.sides) freeValues(old)
  if (known) knownSides.set(ctx, known)
  else knownSides.delete(ctx)
}

/** Frees the last comparison's sides (the session closes). */
export function forgetDiff(ctx: SessionContext): void {
  keepSides(ctx, undefined)
  lastReports.delete(ctx)
}

/** The comparison running for each session: a newer one cancels it. */
const running = new WeakMap<SessionContext, RowsToken>()

/**
 * The last report, for getDiffPairs and getDiffLines: a capture of 200,000 conversations has as many pairs,
 * and two captures of hours millions of lines, so both go a page at a time. A pair and its lines are made
 * again when asked for, from the alignment (the sides are compact, and hold the values of the messages
 * that differ); the last few pairs' are kept.
 */
interface LastReport {
  id: number
  rows: RowIndex
  alignment: DiffAlignment
  rules: IgnoreRules
  pairs: Map<number, MadePair>
}

/**
 * A pair as the panel is sent it: its counts, and its lines (the first page of them, or all). Not its
 * comparison: two captures of different sessions differ in nearly every message, and a page of pairs held
 * with every changed field of each came to hundreds of megabytes.
 */
interface MadePair {
  view: Omit<DiffPairView, 'rows'>
  rows: DiffLine[]
  /** rows holds every line (else the first DIFF_LINES_PAGE). */
  whole: boolean
}
const lastReports = new WeakMap<SessionContext, LastReport>()
let nextReport = 1
/** Pairs kept made: a page of pairs, and one being read further. */
const KEPT_PAIRS = DIFF_PAIRS_PAGE + 4

export async function diffWith(ctx: SessionContext, path: string, options: DiffWithOptions = {}): Promise<CaptureDiff> {
  await ctx.indexing
  if (!ctx.store) throw new Error('no capture is open')
  const rows = ctx.rows
  running.get(ctx)?.cancel()
  const token = new RowsToken(ctx, rows)
  running.set(ctx, token)
  const b = otherFile(ctx, resolve(path), token)
  const known = knownSides.get(ctx)
  const same = known && known.rows === rows && known.count === rows.count && known.key === b.key
  const diffOptions = { ignore: options.ignore, noDefaults: options.noDefaults }
  const sides = await compareSides(openCapture(ctx, token), b, diffOptions, same ? known.sides : undefined)
  try {
    token.check()
  } catch (e) {
    // A newer comparison or capture took over: these sides are not kept, so their values go now.
    if (sides !== known?.sides) freeValues(sides)
    throw e
  }
  keepSides(ctx, { rows, count: rows.count, key: b.key, sides })
  // The totals and the per-operation summary: every pair compared once, the first page's kept.
  const stream = diffStream(sides.A, sides.B, diffOptions, sides.alignment)
  const last: LastReport = { id: nextReport++, rows, alignment: sides.alignment, rules: stream.rules, pairs: new Map() }
  for (const { index, aligned, diff } of stream.pairs) if (index < DIFF_PAIRS_PAGE) keep(last, index, aligned, diff, false)
  lastReports.set(ctx, last)
  // The replay numbers messages as the index does unless a live capture's ring dropped frames.
  const timelineIds = stream.head.a.messages === rows.count && ctx.rows === rows
  return {
    ...stream.head,
    conversations: pairViews(last, 0, DIFF_PAIRS_PAGE),
    ...stream.tail(),
    pairs: last.alignment.pairs.length,
    report: last.id,
    timelineIds
  }
}

function current(ctx: SessionContext, id: number): LastReport {
  const last = lastReports.get(ctx)
  if (!last || last.id !== id || last.rows !== ctx.rows) throw new Error('that comparison is no longer current: compare again')
  return last
}

/** Pairs [start, start + count) of report `id`, the open capture's last; an older one is gone. */
export function diffPairs(ctx: SessionContext, id: number, start: number, count: number): DiffPairView[] {
  return pairViews(current(ctx, id), start, count)
}

/** Lines [start, start + count) of pair `pair` of report `id`. */
export function diffLines(ctx: SessionContext, id: number, pair: number, start: number, count: number): DiffLine[] {
  const last = current(ctx, id)
  const n = last.alignment.pairs.length
  if (pair >= n) throw new Error(`the comparison has ${n} conversation pairs, not ${pair + 1}`)
  return pairOf(last, pair, start + count > DIFF_LINES_PAGE).rows.slice(start, start + count)
}

function pairViews(last: LastReport, start: number, count: number): DiffPairView[] {
  const out: DiffPairView[] = []
  for (let k = start; k < Math.min(last.alignment.pairs.length, start + count); k++) {
    const { view, rows } = pairOf(last, k, false)
    out.push({ ...view, rows: rows.slice(0, DIFF_LINES_PAGE) })
  }
  return out
}

/**
 * Pair k compared, and its lines: every compared message, or for a long pair its differences with context
 * lines around them. `whole`: every line is wanted, not only the first page.
 */
function pairOf(last: LastReport, k: number, whole: boolean): MadePair {
  const made = last.pairs.get(k)
  if (made && (made.whole || !whole)) return made
  const aligned = last.alignment.align(k)
  return keep(last, k, aligned, comparePair(last.alignment, aligned, last.rules), whole)
}

/** Pair k's counts and lines (all, or the first page) made from its comparison, kept (the last KEPT_PAIRS). */
function keep(last: LastReport, k: number, aligned: PairAlignment, diff: ConversationDiff, whole: boolean): MadePair {
  const all = pairRows(last.alignment, aligned, diff.changed)
  const lines = all.length > FULL_ROWS ? compactRows(all, CONTEXT_ROWS, MAX_ROWS) : all
  const made: MadePair = {
    view: {
      index: k,
      protocol: diff.protocol,
      a: diff.a,
      b: diff.b,
      pairedBy: diff.pairedBy,
      aligned: diff.aligned,
      changed: diff.changed.filter((x) => x.fields.length > 0).length,
      onlyA: diff.onlyA.length,
      onlyB: diff.onlyB.length,
      lines: lines.length
    },
    rows: (whole ? lines : lines.slice(0, DIFF_LINES_PAGE)).map((r) => line(r, diff)),
    whole: whole || lines.length <= DIFF_LINES_PAGE
  }
  last.pairs.delete(k)
  if (last.pairs.size >= KEPT_PAIRS) last.pairs.delete(last.pairs.keys().next().value!)
  last.pairs.set(k, made)
  return made
}

/** A line as the panel takes it: a changed line with its change. */
function line(r: DiffRow, c: ConversationDiff): DiffLine {
  if ('gap' in r) return r
  return r.changed === undefined ? { a: r.a, b: r.b } : { a: r.a, b: r.b, change: c.changed[r.changed] }
}
