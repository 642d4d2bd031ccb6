// The Rooms panel: the open capture's Photon rooms (the gamewire-rooms/1 document `gamewire rooms --json`
// prints), from one replay of its frames without trees (values are what the analysis reads), kept until
// the rows change as the statistics' latency pass is. Works the same for a file and a live capture.

import { analyzeRooms, ROOMS_FORMAT, type RoomsDocument, type RoomsMessage } from '../../../src-shared/analysis/photon-rooms'
import { roomsMessage } from '../capture-rooms'
import { RowsToken } from './analysis-token'
import type { SessionContext } from './context'
import type { RowIndex } from './row-index'

interface Computed {
  rows: RowIndex
  count: number
  token: RowsToken
  promise: Promise<RoomsDocument>
}
const cache = new WeakMap<SessionContext, Computed>()

export async function getRooms(ctx: SessionContext): Promise<RoomsDocument> {
  await ctx.indexing
  if (!ctx.store) return { format: ROOMS_FORMAT, rooms: [], unknown: [] }
  const known = cache.get(ctx)
  if (known && known.rows === ctx.rows && known.count === ctx.rows.count) return known.promise
  // Rows arrived (a live capture) or were replaced: the running pass is for rows no longer shown.
  known?.token.cancel()
  const rows = ctx.rows
  const token = new RowsToken(ctx, rows)
  const promise = (async () => {
    const messages: RoomsMessage[] = []
    const engine = await ctx.replayAll({
      token,
      recording: false,
      onMessage: (m) => {
        const r = roomsMessage(m)
        if (r) messages.push(r)
      }
    })
    return analyzeRooms(messages, engine.conversationList().map((c) => ({ id: c.id, server: c.server })))
  })()
  const entry: Computed = { rows, count: rows.count, token, promise }
  cache.set(ctx, entry)
  // A failed or cancelled pass is not kept: the next request starts again.
  promise.catch(() => cache.get(ctx) === entry && cache.delete(ctx))
  return promise
}
