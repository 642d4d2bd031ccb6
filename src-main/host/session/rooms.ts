// The Rooms panel: the open capture's Photon rooms (the gamewire-rooms/1 document `gamewire rooms --json`
// prints), from one replay of its frames without trees (values are what the analysis reads), kept until
// the rows change as the statistics' latency pass is. Works the same for a file and a live capture.

import type { RoomsView } from '../../../src-shared/api'
import { analyzeRooms, ROOMS_FORMAT, type RoomsDocument, type RoomsMessage } from '../../../src-shared/analysis/photon-rooms'
import { roomsMessage } from '../capture-rooms'
import { RowsPass } from './analysis-token'
import type { SessionContext } from './context'

/** Every frame number the document names. */
function framesNamed(doc: RoomsDocument): Set<number> {
  const out = new Set<number>()
  for (const r of doc.rooms) {
    for (const a of r.actors) {
      out.add(a.joinedFrame)
      if (a.leftFrame !== null) out.add(a.leftFrame)
    }
    for (const m of r.master) out.add(m.frame)
    for (const j of r.joins) {
      out.add(j.frame)
      for (const x of j.received) out.add(x.frame)
      for (const d of j.divergences) for (const f of d.frames) out.add(f)
    }
    for (const p of r.properties) out.add(p.frame)
    for (const d of r.divergences) for (const f of d.frames) out.add(f)
  }
  for (const u of doc.unknown) out.add(u.frame)
  return out
}

/** The rooms of one set of rows, from one replay without trees. */
const roomsPass = new RowsPass<RoomsView>(async (ctx, rows, token) => {
  const messages: RoomsMessage[] = []
  const engine = await ctx.replayAll({
    token,
    recording: false,
    onMessage: (m) => {
      const r = roomsMessage(m)
      if (r) messages.push(r)
    }
  })
  const doc: RoomsView = analyzeRooms(
    messages,
    Array.from(engine.conversations(), (c) => ({ id: c.id, server: c.server }))
  )
  // The replay numbers messages as the index does unless a live capture's ring dropped frames.
  if (engine.stats.messages === rows.count && ctx.rows === rows) {
    const named = framesNamed(doc)
    const messageAt: Record<string, number> = {}
    for (const m of [...messages].sort((x, y) => x.id - y.id)) {
      for (const f of [m.frames[0], m.frames[m.frames.length - 1]]) if (named.has(f) && !(f in messageAt)) messageAt[f] = m.id
    }
    doc.messageAt = messageAt
  }
  return doc
})

export async function getRooms(ctx: SessionContext): Promise<RoomsView> {
  await ctx.indexing
  if (!ctx.store) return { format: ROOMS_FORMAT, rooms: [], unknown: [] }
  return roomsPass.get(ctx)
}
