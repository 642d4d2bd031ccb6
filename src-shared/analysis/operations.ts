// Requests, responses and their latency per operation, from the pairing the decoders already do: a
// response's value names its request's last frame (`responseTo`) and the time between the two last
// frames (`responseTimeMs`): Photon OperationResponse by operation code, FigNet replies by callback id,
// SFS2X responses by action/command and `_id` (docs/photon.md, docs/fignet.md, docs/sfs2x.md). This module
// says which messages are requests (as each decoder queues them) and aggregates; the app's Statistics and
// `gamewire stats --ops` both use it.

import { actionName, expectsResponse } from '../protocols/sfs2x/names'

/** What the statistics need of a decoded message. */
export interface OperationInput {
  conversation: number
  protocol: string
  direction: string
  frames: readonly number[]
  stack: readonly string[]
  name: string
  value: unknown
}

/** A request or response, once classified. A request's `answered` turns true when its response is seen. */
export interface OperationRow {
  kind: 'request' | 'response'
  protocol: string
  conversation: number
  /** The operation's name, the same for a request and its response (`JoinGame`, `CallExtension mail.read`). */
  op: string
  /** A response's latency in ms (null when the decoder could not time it). */
  ms: number | null
  answered: boolean
}

export interface OperationStat {
  protocol: string
  name: string
  /** Requests. */
  count: number
  /** Responses paired with a request. */
  responses: number
  /** Requests never answered in the capture. */
  unanswered: number
  /** Latency percentiles (nearest rank) and maximum over the timed responses, ms; null without any. */
  p50: number | null
  p95: number | null
  max: number | null
}

type Value = Record<string, unknown>
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined)
const PHOTON_REQUEST_TYPES = new Set([2, 6]) // OperationRequest, InternalOperationRequest (docs/photon.md)

/** The operation a request or response belongs to, or null when the message is neither. */
function classify(m: OperationInput): { kind: 'request' | 'response'; op: string; ms: number | null; requestFrame: number } | null {
  const v = (m.value ?? {}) as Value
  const responseTo = num(v.responseTo)
  const bluebox = v.bluebox as { command?: string; request?: string; packet?: number } | undefined
  if (responseTo !== undefined) {
    // A BlueBox response holding several packets pairs each with the request: count the exchange once.
    if (bluebox && (bluebox.packet ?? 1) > 1) return null
    const ms = num(v.responseTimeMs) ?? null
    return { kind: 'response', op: operationName(m, v, true), ms, requestFrame: responseTo }
  }
  if (!isRequest(m, v, bluebox)) return null
  return { kind: 'request', op: operationName(m, v, false), ms: null, requestFrame: 0 }
}

/** Whether the decoder queued this message as a request waiting for its response. */
function isRequest(m: OperationInput, v: Value, bluebox: { packet?: number } | undefined): boolean {
  switch (m.protocol) {
    case 'photon':
      return PHOTON_REQUEST_TYPES.has(num(v.msgType) ?? -1) && num(v.code) !== undefined
    case 'fignet':
      // Any message with a callback id that answers nothing waits for a reply with the same id.
      return (num(v.callbackId) ?? 0) !== 0
    case 'sfs2x': {
      if (m.direction !== 'c2s') return false
      if (m.stack.includes('bluebox')) return bluebox !== undefined && (bluebox.packet ?? 1) <= 1
      const c = num(v.controllerId)
      const a = num(v.actionId)
      return c !== undefined && a !== undefined && expectsResponse(c, a)
    }
    default:
      return false
  }
}

function operationName(m: OperationInput, v: Value, response: boolean): string {
  if (m.protocol === 'sfs2x') {
    const bluebox = v.bluebox as { command?: string; request?: string } | undefined
    if (m.stack.includes('bluebox') && bluebox) return `BlueBox ${(response ? bluebox.request : undefined) ?? bluebox.command}`
    const c = num(v.controllerId)
    const a = num(v.actionId)
    const base = c !== undefined && a !== undefined ? (actionName(c, a) ?? `Controller ${c} action ${a}`) : m.name
    return typeof v.command === 'string' ? `${base} ${v.command}` : base
  }
  // Photon and FigNet name a response after its request, plus " response".
  return response ? m.name.replace(/ response$/, '') : m.name
}

/**
 * Classifies messages in decode order and marks each request answered when its response comes: the
 * response names the request's last frame, so requests wait per conversation, operation and frame.
 */
export class OperationTracker {
  private readonly waiting = new Map<string, OperationRow[]>()

  add(m: OperationInput): OperationRow | null {
    const c = classify(m)
    if (!c) return null
    const row: OperationRow = { kind: c.kind, protocol: m.protocol, conversation: m.conversation, op: c.op, ms: c.ms, answered: false }
    const prefix = `${m.conversation}\u0000${m.protocol}\u0000${c.op}\u0000`
    if (c.kind === 'request') {
      // Under each of its frames: a decoder names the frame that completed the request, which for
      // fragments that arrived out of order is not always the highest number.
      for (const f of new Set(m.frames)) {
        const q = this.waiting.get(prefix + f)
        if (q) q.push(row)
        else this.waiting.set(prefix + f, [row])
      }
    } else {
      const key = prefix + c.requestFrame
      const q = this.waiting.get(key)
      if (q) {
        while (q.length && q[0].answered) q.shift()
        const req = q.shift()
        if (req) req.answered = true
        if (q.length === 0) this.waiting.delete(key)
      }
    }
    return row
  }
}

/** The q-quantile of ascending `sorted` by nearest rank: the smallest value with at least q of them at or below it. */
export function nearestRank(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]
}

interface Acc {
  protocol: string
  name: string
  count: number
  responses: number
  unanswered: number
  ms: number[]
}

/** Sums rows into per-operation statistics. Read `answered` only after the tracker saw every message. */
export class OperationAggregator {
  private readonly ops = new Map<string, Acc>()

  add(row: OperationRow): void {
    const key = `${row.protocol}\u0000${row.op}`
    let a = this.ops.get(key)
    if (!a) this.ops.set(key, (a = { protocol: row.protocol, name: row.op, count: 0, responses: 0, unanswered: 0, ms: [] }))
    if (row.kind === 'request') {
      a.count++
      if (!row.answered) a.unanswered++
    } else {
      a.responses++
      if (row.ms !== null) a.ms.push(row.ms)
    }
  }

  get size(): number {
    return this.ops.size
  }

  /** Most requests first, then by name. */
  stats(): OperationStat[] {
    return [...this.ops.values()]
      .map((a) => {
        const sorted = Float64Array.from(a.ms).sort()
        const timed = sorted.length > 0
        return {
          protocol: a.protocol,
          name: a.name,
          count: a.count,
          responses: a.responses,
          unanswered: a.unanswered,
          p50: timed ? nearestRank(sorted, 0.5) : null,
          p95: timed ? nearestRank(sorted, 0.95) : null,
          max: timed ? sorted[sorted.length - 1] : null
        }
      })
      .sort((x, y) => y.count - x.count || y.responses - x.responses || x.protocol.localeCompare(y.protocol) || x.name.localeCompare(y.name))
  }
}

export interface OperationsReport {
  overall: OperationStat[]
  conversations: { conversation: number; protocol: string; operations: OperationStat[] }[]
}

/** Per-operation statistics over every message of a capture (in decode order), overall and per conversation. */
export class OperationsCollector {
  private readonly tracker = new OperationTracker()
  private readonly rows: OperationRow[] = []

  add(m: OperationInput): void {
    const row = this.tracker.add(m)
    if (row) this.rows.push(row)
  }

  report(): OperationsReport {
    const overall = new OperationAggregator()
    const per = new Map<number, { protocol: string; agg: OperationAggregator }>()
    for (const row of this.rows) {
      overall.add(row)
      let c = per.get(row.conversation)
      if (!c) per.set(row.conversation, (c = { protocol: row.protocol, agg: new OperationAggregator() }))
      c.agg.add(row)
    }
    return {
      overall: overall.stats(),
      conversations: [...per].sort((a, b) => a[0] - b[0]).map(([conversation, c]) => ({ conversation, protocol: c.protocol, operations: c.agg.stats() }))
    }
  }
}
