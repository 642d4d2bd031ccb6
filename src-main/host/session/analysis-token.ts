// The game-level analyses (rooms, diff) replay the open capture like the statistics' latency pass; their
// work stops by itself once the rows it was for are replaced (another capture, a re-decode).

import { Token } from './cancel'
import type { SessionContext } from './context'
import type { RowIndex } from './row-index'

/** A token that is also cancelled when the session's rows are no longer `rows`. */
export class RowsToken extends Token {
  constructor(
    private readonly ctx: SessionContext,
    private readonly rows: RowIndex
  ) {
    super()
  }

  override check(): void {
    if (this.ctx.rows !== this.rows) this.cancel()
    super.check()
  }
}

interface PassEntry<T> {
  rows: RowIndex
  count: number
  token: RowsToken
  promise: Promise<T>
}

/**
 * A result computed once per set of rows (one replay of the capture, say), kept until the rows change: a
 * new capture, a re-decode, live rows arriving. A newer request cancels a pass for rows no longer shown; a
 * failed or cancelled pass is not kept, so the next request starts again.
 */
export class RowsPass<T> {
  private readonly cache = new WeakMap<SessionContext, PassEntry<T>>()

  constructor(private readonly compute: (ctx: SessionContext, rows: RowIndex, token: RowsToken) => Promise<T>) {}

  get(ctx: SessionContext): Promise<T> {
    const known = this.cache.get(ctx)
    if (known && known.rows === ctx.rows && known.count === ctx.rows.count) return known.promise
    known?.token.cancel()
    const rows = ctx.rows
    const token = new RowsToken(ctx, rows)
    const entry: PassEntry<T> = { rows, count: rows.count, token, promise: this.compute(ctx, rows, token) }
    this.cache.set(ctx, entry)
    entry.promise.catch(() => this.cache.get(ctx) === entry && this.cache.delete(ctx))
    return entry.promise
  }
}
