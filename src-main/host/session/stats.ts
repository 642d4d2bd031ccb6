// Statistics of the open capture: messages over time, by name, by protocol and by conversation, from the
// message index alone, over the rows the timeline's display filter keeps (or all of them); and request/
// response latencies per operation, from a latency pass.
//
// The latency pass: the decoders pair a response with its request and put the pair in the response's
// value (`responseTo`, the request's frame, and `responseTimeMs`: Photon OperationResponse by operation
// code, FigNet replies by callback id, SFS2X BlueBox HTTP responses). The index does not keep values, so
// the first statistics request of a capture replays its frames once without trees (ctx.replayAll, as a
// re-decode does) and keeps each row's response time; later requests, filtered or not, reuse it until the
// rows change (a new capture, a re-decode, live rows arriving).

import { STATS_TOP_N, type CaptureStatistics, type ConversationStat, type OperationStat, type OthersStat, type StatsOptions } from '../../../src-shared/api'
import type { SessionContext } from './context'
import type { RowIndex } from './row-index'
import { Token } from './cancel'

const TIMELINE_BUCKETS = 240

/** Response time (ms) by row, NaN for rows that are not a paired response. */
interface Latencies {
  rows: RowIndex
  count: number
  promise: Promise<Float64Array | null>
}
const latencyCache = new WeakMap<SessionContext, Latencies>()

/** Each row's response time, from one tree-less replay of the capture per set of rows. */
export function rowLatencies(ctx: SessionContext): Promise<Float64Array | null> {
  const known = latencyCache.get(ctx)
  if (known && known.rows === ctx.rows && known.count === ctx.rows.count) return known.promise
  const rows = ctx.rows
  const count = rows.count
  const promise = (async () => {
    if (!ctx.store || count === 0) return new Float64Array(count).fill(NaN)
    const out = new Float64Array(count).fill(NaN)
    let messages = 0
    try {
      await ctx.replayAll({
        token: new Token(),
        recording: false,
        onMessage: (m) => {
          messages++
          const ms = (m.value as { responseTimeMs?: unknown } | undefined)?.responseTimeMs
          if (typeof ms === 'number' && m.id >= 1 && m.id <= count) out[m.id - 1] = ms
        }
      })
    } catch {
      return null // the capture was replaced or closed meanwhile
    }
    // A live capture whose ring dropped frames numbers its rows differently from a replay: no pairing then.
    return messages >= count && ctx.rows === rows ? out : null
  })()
  latencyCache.set(ctx, { rows, count, promise })
  return promise
}

/** The q-quantile of ascending `sorted` by nearest rank: the smallest value with at least q of them at or below it. */
export function nearestRank(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]
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
  const latencies = await rowLatencies(ctx)
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
  const latencyByOp = new Map<string, { protocol: string; name: string; ms: number[] }>()
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
    const ms = latencies?.[i]
    if (ms !== undefined && !Number.isNaN(ms)) {
      const op = name.replace(/ response$/i, '')
      const opKey = `${protocol}\u0000${op}`
      const o = latencyByOp.get(opKey)
      if (o) o.ms.push(ms)
      else latencyByOp.set(opKey, { protocol, name: op, ms: [ms] })
    }
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
  const convs: ConversationStat[] = [...byConv].map(([id, s]) => ({ id, client: '', server: '', protocol: 'unknown', ...info.get(id), messages: s.messages, bytes: s.bytes }))
  const byBytes = [...convs].sort((a, b) => b.bytes - a.bytes || a.id - b.id)
  const byMessages = [...convs].sort((a, b) => b.messages - a.messages || a.id - b.id)
  const operations: OperationStat[] | null = latencies
    ? [...latencyByOp.values()]
        .map((o) => {
          const sorted = Float64Array.from(o.ms).sort()
          return { protocol: o.protocol, name: o.name, pairs: sorted.length, p50: nearestRank(sorted, 0.5), p95: nearestRank(sorted, 0.95), max: sorted[sorted.length - 1] }
        })
        .sort((a, b) => b.pairs - a.pairs || a.name.localeCompare(b.name))
    : null
  return {
    scope: { filter: filtered ? view.spec.filter : '', messages: n, total },
    timeline,
    byName: names.slice(0, STATS_TOP_N),
    otherNames: { items: Math.max(0, names.length - STATS_TOP_N), messages: names.slice(STATS_TOP_N).reduce((a, x) => a + x.count, 0), bytes: names.slice(STATS_TOP_N).reduce((a, x) => a + x.bytes, 0) },
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
  const p = Math.pow(10, Math.floor(Math.log10(x)))
  for (const m of [1, 2, 5, 10]) if (m * p >= x) return m * p
  return 10 * p
}
