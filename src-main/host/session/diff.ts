// The Diff panel: the open capture (A, its stored frames replayed without trees, so a live capture works
// too) against a capture file on the host (B, decoded with the session's keys), as `gamewire diff --json`
// reports it, plus each conversation pair's messages side by side. Both sides' decoded messages are kept
// until the rows change, so a new ignore list compares again without decoding again.

import { statSync } from 'node:fs'
import { resolve } from 'node:path'
import type { CaptureDiff, DiffWithOptions } from '../../../src-shared/api'
import { compactRows, diffCaptures, diffMessage, type DiffMessageInput, type DiffSideInput } from '../../../src-shared/analysis/diff'
import { diffSide } from '../capture-diff'
import { RowsToken } from './analysis-token'
import { tick } from './cancel'
import type { SessionContext } from './context'
import type { RowIndex } from './row-index'

/** A pair with more lines than this is shown as its differences with CONTEXT lines around them. */
export const FULL_ROWS = 2000
export const CONTEXT_ROWS = 3
/** Most lines a pair's side-by-side view carries. */
export const MAX_ROWS = 5000

interface SideA {
  rows: RowIndex
  count: number
  token: RowsToken
  promise: Promise<{ side: DiffSideInput; timelineIds: boolean }>
}
interface SideB {
  rows: RowIndex
  /** The file and its size and time: a changed file is decoded again. */
  key: string
  token: RowsToken
  promise: Promise<DiffSideInput>
}
const sidesA = new WeakMap<SessionContext, SideA>()
const sidesB = new WeakMap<SessionContext, SideB>()

/** Drops a cache entry whose work failed or was cancelled, so the next request starts again. */
function forgetOnFailure<T>(map: WeakMap<SessionContext, T>, ctx: SessionContext, entry: T & { promise: Promise<unknown> }): void {
  entry.promise.catch(() => map.get(ctx) === entry && map.delete(ctx))
}

function sideA(ctx: SessionContext): SideA['promise'] {
  const known = sidesA.get(ctx)
  if (known && known.rows === ctx.rows && known.count === ctx.rows.count) return known.promise
  known?.token.cancel()
  const rows = ctx.rows
  const token = new RowsToken(ctx, rows)
  const promise = (async () => {
    const messages: DiffMessageInput[] = []
    const engine = await ctx.replayAll({
      token,
      recording: false,
      onMessage: (m) => messages.push(diffMessage(m))
    })
    messages.sort((x, y) => x.id - y.id)
    const conversations = engine.conversationList().map((c) => ({ id: c.id, protocol: c.protocol, client: c.client, server: c.server }))
    const source = ctx.source
    const file = source?.kind === 'file' ? source.file : source?.kind === 'interface' ? source.name : undefined
    // The replay numbers messages as the index does unless a live capture's ring dropped frames.
    return { side: { ...(file !== undefined ? { file } : {}), conversations, messages }, timelineIds: messages.length === rows.count && ctx.rows === rows }
  })()
  const entry: SideA = { rows, count: rows.count, token, promise }
  sidesA.set(ctx, entry)
  forgetOnFailure(sidesA, ctx, entry)
  return promise
}

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
  forgetOnFailure(sidesB, ctx, entry)
  return promise
}

export async function diffWith(ctx: SessionContext, path: string, options: DiffWithOptions = {}): Promise<CaptureDiff> {
  await ctx.indexing
  if (!ctx.store) throw new Error('no capture is open')
  const target = resolve(path)
  const [a, b] = await Promise.all([sideA(ctx), sideB(ctx, target)])
  const report = diffCaptures(a.side, b, { ignore: options.ignore, noDefaults: options.noDefaults, rows: true })
  for (const c of report.conversations) {
    if (c.rows && c.rows.length > FULL_ROWS) c.rows = compactRows(c.rows, CONTEXT_ROWS, MAX_ROWS)
  }
  return { ...report, timelineIds: a.timelineIds }
}
