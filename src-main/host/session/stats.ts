// Statistics of the open capture: messages over time, by name, by protocol and by conversation, from the
// message index alone, over the rows the timeline's display filter keeps (or all of them); and requests,
// responses and latencies per operation, from a pass over the values.
//
// The operations pass: the decoders pair a response with its request and put the pair in the response's
// value; src-shared/analysis/operations.ts says which rows are requests or responses of which operation
// (the same code as `gamewire stats --ops`). The index does not keep values, so the first statistics
// request of a capture replays its frames once without trees (ctx.replayAll, as a re-decode does) and keeps
// each row's role; later requests, filtered or not, reuse it until the rows change (a new capture, a
// re-decode, live rows arriving). A request row knows whether it was answered even when a filter hides
// its response.

import { STATS_TOP_N, type CaptureStatistics, type ConversationStat, type OthersStat, type StatsOptions } from '../../../src-shared/api'
import { OperationAggregator, OperationTracker, type OperationRow } from '../../../src-shared/analysis/operations'
import type { SessionContext } from './context'
import type { RowIndex } from './row-index'
import { Token } from './cancel'

export { nearestRank } from '../../../src-shared/analysis/operations'

const TIMELINE_BUCKETS = 240

/** Each row's role in a request/response pair (undefined for other rows). */
type RowOperations = (OperationRow | undefined)[]
interface Operations {
  rows: RowIndex
  count: number
  promise: Promise<RowOperations | null>
}
const operationsCache = new WeakMap<SessionContext, Operations>()

/** Each row's request/response role, from one tree-less replay of the capture per set of rows. */
export function rowOperations(ctx: SessionContext): Promise<RowOperations | null> {
  const known = operationsCache.get(ctx)
  if (known && known.rows === ctx.rows && known.count === ctx.rows.count) return known.promise
  const rows = ctx.rows
  const count = rows.count
  const promise = (async () => {
    const out: RowOperations = new Array(count)
    if (!ctx.store || count === 0) return out
    const tracker = new OperationTracker()
    let messages = 0
    try {
      await ctx.replayAll({
        token: new Token(),
        recording: false,
        onMessage: (m) => {
          messages++
          const row = tracker.add(m)
          if (row && m.id >= 1 && m.id <= count) out[m.id - 1] = row
        }
      })
    } catch {
      return null // the capture was replaced or closed meanwhile
    }
    // A live capture whose ring dropped frames numbers its rows differently from a replay: no pairing then.
    return messages >= count && ctx.rows === rows ? out : null
  })()
  operationsCache.set(ctx, { rows, count, promise })
  return promise
}

function others(list: { messages: number; bytes: number }[]): OthersStat {
  let messages = 0
  let bytes = 0
  for (const c of list) {
    messages += c.messages
    bytes += c.bytes
  }
  return { items: list.length, messages, bytes }
}

export async function getStats(ctx: SessionContext, options: StatsOptions = {}): Promise<CaptureStatistics> {
  const roles = await rowOperations(ctx)
  const index = ctx.rows.index
  const total = index.count
  const view = ctx.view
  // The view's rows in view order (a sort only permutes them); null order = every row.
  const filtered = !options.all && view.spec.filter.trim() !== '' && view.state === 'done' && view.generation === ctx.generation
  const order = filtered ? view.order : null
  const n = order ? Math.min(view.count, order.length) : total
  const rowAt = order ? (k: number) => order[k] : (k: number) => k

  let first = Infinity
  let last = -Infinity
  const byName = new Map<string, { protocol: string; name: string; count: number; bytes: number }>()
  const byProtocol = new Map<string, number>()
  const byConv = new Map<number, { messages: number; bytes: number }>()
  const ops = new OperationAggregator()
  for (let k = 0; k < n; k++) {
    const i = rowAt(k)
    if (i >= total) continue
    const time = index.timeAt(i)
    if (time < first) first = time
    if (time > last) last = time
    const protocol = index.protocolAt(i)
    const name = index.nameAt(i)
    const length = index.lengthAt(i)
    const key = `${protocol}\u0000${name}`
    const e = byName.get(key)
    if (e) {
      e.count++
      e.bytes += length
    } else byName.set(key, { protocol, name, count: 1, bytes: length })
    byProtocol.set(protocol, (byProtocol.get(protocol) ?? 0) + 1)
    const conv = index.conversationAt(i)
    const c = byConv.get(conv)
    if (c) {
      c.messages++
      c.bytes += length
    } else byConv.set(conv, { messages: 1, bytes: length })
    const role = roles?.[i]
    if (role) ops.add(role)
  }

  let timeline: CaptureStatistics['timeline'] = { start: 0, step: 1, counts: [] }
  if (Number.isFinite(first)) {
    const span = Math.max(last - first, 1e-3)
    const step = niceStep(span / TIMELINE_BUCKETS)
    const start = Math.floor(first / step) * step
    const counts = new Array<number>(Math.floor((last - start) / step) + 1).fill(0)
    for (let k = 0; k < n; k++) {
      const i = rowAt(k)
      if (i < total) counts[Math.min(counts.length - 1, Math.floor((index.timeAt(i) - start) / step))]++
    }
    timeline = { start, step, counts }
  }

  const names = [...byName.values()].sort((a, b) => b.count - a.count || a.name.localeCompare(b.name))
  const info = new Map<number, { client: string; server: string; protocol: string }>()
  for (const c of ctx.conversations.conversations()) if (byConv.has(c.id)) info.set(c.id, { client: c.client, server: c.server, protocol: c.protocol })
  const convs: ConversationStat[] = [...byConv].map(([id, s]) => ({
    id,
    client: '',
    server: '',
    protocol: 'unknown',
    ...info.get(id),
    messages: s.messages,
    bytes: s.bytes
  }))
  const byBytes = [...convs].sort((a, b) => b.bytes - a.bytes || a.id - b.id)
  const byMessages = [...convs].sort((a, b) => b.messages - a.messages || a.id - b.id)
  const operations = roles ? ops.stats() : null
  return {
    scope: { filter: filtered ? view.spec.filter : '', messages: n, total },
    timeline,
    byName: names.slice(0, STATS_TOP_N),
    otherNames: {
      items: Math.max(0, names.length - STATS_TOP_N),
      messages: names.slice(STATS_TOP_N).reduce((a, x) => a + x.count, 0),
      bytes: names.slice(STATS_TOP_N).reduce((a, x) => a + x.bytes, 0)
    },
    byProtocol: [...byProtocol].map(([protocol, count]) => ({ protocol, count })).sort((a, b) => b.count - a.count),
    topByBytes: byBytes.slice(0, STATS_TOP_N),
    topByMessages: byMessages.slice(0, STATS_TOP_N),
    othersByBytes: others(byBytes.slice(STATS_TOP_N)),
    othersByMessages: others(byMessages.slice(STATS_TOP_N)),
    conversations: convs.length,
    operations
  }
}

/** 1, 2 or 5 times a power of ten, at least `x`. */
export function niceStep(x: number): number {
  const p = 10 ** Math.floor(Math.log10(x))
  for (const m of [1, 2, 5, 10]) if (m * p >= x) return m * p
  return 10 * p
}
