// The Diff panel: the open capture (A, its stored frames replayed without trees, so a live capture works
// too) against a capture file on the host (B, decoded with the session's keys), as `gamewire diff --json`
// reports it, plus each conversation pair's messages side by side. Both sides' decoded messages are kept
// until the rows change, so a new ignore list compares again without decoding again.

import { statSync } from 'node:fs'
import { resolve } from 'node:path'
import { DIFF_PAIRS_PAGE, type CaptureDiff, type ConversationDiff, type DiffWithOptions } from '../../../src-shared/api'
import { compactRows, diffCaptures, diffMessage, diffSideOf, type DiffMessageInput, type DiffSideInput } from '../../../src-shared/analysis/diff'
import { diffSide } from '../capture-diff'
import { RowsPass, RowsToken } from './analysis-token'
import { tick } from './cancel'
import type { SessionContext } from './context'
import type { RowIndex } from './row-index'

/** A pair with more lines than this is shown as its differences with CONTEXT lines around them. */
export const FULL_ROWS = 2000
export const CONTEXT_ROWS = 3
/** Most lines a pair's side-by-side view carries. */
export const MAX_ROWS = 5000

interface SideB {
  rows: RowIndex
  /** The file and its size and time: a changed file is decoded again. */
  key: string
  token: RowsToken
  promise: Promise<DiffSideInput>
}
const sidesB = new WeakMap<SessionContext, SideB>()

/** A: the open capture's messages, from one replay without trees per set of rows. */
const sideA = new RowsPass<{ side: DiffSideInput; timelineIds: boolean }>(async (ctx, rows, token) => {
  const messages: DiffMessageInput[] = []
  const engine = await ctx.replayAll({
    token,
    recording: false,
    onMessage: (m) => messages.push(diffMessage(m))
  })
  const source = ctx.source
  const file = source?.kind === 'file' ? source.file : source?.kind === 'interface' ? source.name : undefined
  // The replay numbers messages as the index does unless a live capture's ring dropped frames.
  return { side: diffSideOf(messages, engine.conversations(), file), timelineIds: messages.length === rows.count && ctx.rows === rows }
})

function sideB(ctx: SessionContext, path: string): SideB['promise'] {
  let st: ReturnType<typeof statSync>
  try {
    st = statSync(path)
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    throw new Error(code === 'ENOENT' ? `no such file: ${path}` : `cannot read ${path} (${code ?? (e as Error).message})`)
  }
  if (st.isDirectory()) throw new Error(`${path} is a directory`)
  const key = `${path}\u0000${st.size}\u0000${st.mtimeMs}`
  const known = sidesB.get(ctx)
  if (known && known.rows === ctx.rows && known.key === key) return known.promise
  known?.token.cancel()
  const rows = ctx.rows
  const token = new RowsToken(ctx, rows)
  // Rules naming conversation ids are about the open capture's conversations; endpoint rules hold for B too.
  const decodeAs = ctx.decodeAs.filter((r) => typeof r.match === 'string')
  const promise = diffSide(path, {
    keys: ctx.keys,
    // B is named and laid out by the same packs as A (a pack change re-decodes A: new rows, a new B)
    schemas: ctx.schemaPacks.length ? ctx.schemaPacks : undefined,
    decodeAs,
    pause: async () => {
      await tick()
      token.check()
    }
  })
  const entry: SideB = { rows, key, token, promise }
  sidesB.set(ctx, entry)
  // A failed or cancelled decode is not kept: the next request starts again.
  promise.catch(() => sidesB.get(ctx) === entry && sidesB.delete(ctx))
  return promise
}

/**
 * The last report's pairs, for getDiffPairs: a capture of 200,000 conversations has as many pairs, and the
 * whole report at once stalled the page until the browser ran out of memory.
 */
interface LastReport {
  id: number
  rows: RowIndex
  pairs: ConversationDiff[]
}
const lastReports = new WeakMap<SessionContext, LastReport>()
let nextReport = 1

export async function diffWith(ctx: SessionContext, path: string, options: DiffWithOptions = {}): Promise<CaptureDiff> {
  await ctx.indexing
  if (!ctx.store) throw new Error('no capture is open')
  const target = resolve(path)
  const [a, b] = await Promise.all([sideA.get(ctx), sideB(ctx, target)])
  const report = diffCaptures(a.side, b, { ignore: options.ignore, noDefaults: options.noDefaults, rows: true })
  const last: LastReport = { id: nextReport++, rows: ctx.rows, pairs: report.conversations }
  lastReports.set(ctx, last)
  return { ...report, conversations: pairsToSend(last, 0, DIFF_PAIRS_PAGE), pairs: last.pairs.length, report: last.id, timelineIds: a.timelineIds }
}

/** Pairs [start, start + count) of report `id`, the open capture's last; an older one is gone. */
export function diffPairs(ctx: SessionContext, id: number, start: number, count: number): ConversationDiff[] {
  const last = lastReports.get(ctx)
  if (!last || last.id !== id || last.rows !== ctx.rows) throw new Error('that comparison is no longer current: compare again')
  return pairsToSend(last, start, count)
}

/** Long pairs go as their differences with context lines around them. */
function pairsToSend(last: LastReport, start: number, count: number): ConversationDiff[] {
  return last.pairs
    .slice(start, start + count)
    .map((c) => (c.rows && c.rows.length > FULL_ROWS ? { ...c, rows: compactRows(c.rows, CONTEXT_ROWS, MAX_ROWS) } : c))
}
