// The Diff panel: the open capture (A, its stored frames replayed without trees, so a live capture works
// too) against a capture file on the host (B, decoded with the session's keys), as `gamewire diff --json`
// reports it, plus each conversation pair's messages side by side. Each side is decoded once for the
// comparison and again only for the values of messages that differ (src-shared/analysis/diff); the sides
// are kept, so more ignored fields compare again without decoding.

import { statSync } from 'node:fs'
import { resolve } from 'node:path'
import { DIFF_PAIRS_PAGE, type CaptureDiff, type ConversationDiff, type DiffWithOptions } from '../../../src-shared/api'
import { compactRows, compareSources, type DiffSides, type DiffSource } from '../../../src-shared/analysis/diff'
import { fileDiffSource } from '../capture-diff'
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
    }
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
    }
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

/** The comparison running for each session: a newer one cancels it. */
const running = new WeakMap<SessionContext, RowsToken>()

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
  const rows = ctx.rows
  running.get(ctx)?.cancel()
  const token = new RowsToken(ctx, rows)
  running.set(ctx, token)
  const b = otherFile(ctx, resolve(path), token)
  const known = knownSides.get(ctx)
  const same = known && known.rows === rows && known.count === rows.count && known.key === b.key
  const { report, ...sides } = await compareSources(
    openCapture(ctx, token),
    b,
    { ignore: options.ignore, noDefaults: options.noDefaults, rows: true },
    same ? known.sides : undefined
  )
  token.check()
  knownSides.set(ctx, { rows, count: rows.count, key: b.key, sides })
  const last: LastReport = { id: nextReport++, rows, pairs: report.conversations }
  lastReports.set(ctx, last)
  // The replay numbers messages as the index does unless a live capture's ring dropped frames.
  const timelineIds = report.a.messages === rows.count && ctx.rows === rows
  return { ...report, conversations: pairsToSend(last, 0, DIFF_PAIRS_PAGE), pairs: last.pairs.length, report: last.id, timelineIds }
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
