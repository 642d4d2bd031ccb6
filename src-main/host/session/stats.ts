// Statistics of the open capture, from the message index alone: messages over time, by name, by
// protocol and by conversation.

import type { CaptureStatistics } from '../../../src-shared/api'
import type { SessionContext } from './context'

const TIMELINE_BUCKETS = 240

export function getStats(ctx: SessionContext): CaptureStatistics {
  const index = ctx.rows.index
  const n = index.count
  let first = Infinity
  let last = -Infinity
  const byName = new Map<string, { protocol: string; name: string; count: number }>()
  const byProtocol = new Map<string, number>()
  for (let i = 0; i < n; i++) {
    const time = index.timeAt(i)
    if (time < first) first = time
    if (time > last) last = time
    const protocol = index.protocolAt(i)
    const name = index.nameAt(i)
    const k = `${protocol}\u0000${name}`
    const e = byName.get(k)
    if (e) e.count++
    else byName.set(k, { protocol, name, count: 1 })
    byProtocol.set(protocol, (byProtocol.get(protocol) ?? 0) + 1)
  }
  let timeline: CaptureStatistics['timeline'] = { start: 0, step: 1, counts: [] }
  if (n > 0) {
    const span = Math.max(last - first, 1e-3)
    const step = niceStep(span / TIMELINE_BUCKETS)
    const start = Math.floor(first / step) * step
    const counts = new Array<number>(Math.floor((last - start) / step) + 1).fill(0)
    for (let i = 0; i < n; i++) counts[Math.min(counts.length - 1, Math.floor((index.timeAt(i) - start) / step))]++
    timeline = { start, step, counts }
  }
  return {
    timeline,
    byName: [...byName.values()].sort((a, b) => b.count - a.count || a.name.localeCompare(b.name)).slice(0, 100),
    byProtocol: [...byProtocol].map(([protocol, count]) => ({ protocol, count })).sort((a, b) => b.count - a.count),
    byConversation: Array.from(ctx.conversations.conversations(), (c) => ({
      id: c.id,
      client: c.client,
      server: c.server,
      protocol: c.protocol,
      frames: c.frames,
      bytes: c.bytes,
      messages: ctx.rows.messagesIn(c.id)
    }))
  }
}

/** 1, 2 or 5 times a power of ten, at least `x`. */
export function niceStep(x: number): number {
  const p = Math.pow(10, Math.floor(Math.log10(x)))
  for (const m of [1, 2, 5, 10]) if (m * p >= x) return m * p
  return 10 * p
}
