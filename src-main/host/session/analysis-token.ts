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
