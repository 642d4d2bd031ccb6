// The conversation list, a page at a time: sorted and filtered here, so the app asks only for the entries it
// shows. Sent whole, a million conversations were 230 MB of JSON, and serve peaked at 2.1 GB sending them.
// One pass over the list (a scan) keeps each conversation's sort keys in typed arrays and finds the BlueBox
// sessions that span conversations; each sort order is built from those once. Both stay until the list
// changes: another capture state (generation), more conversations, or, while capturing, a second passing.

import type { ConversationPage, ConversationQuery, ConversationSort } from '../../../src-shared/api'
import { sessionLinker } from '../../../src-shared/engine/session-links'
import type { ConversationInfo } from '../../../src-shared/model/types'
import type { ConversationList } from '../../../src-shared/engine/conversation-table'
import type { SessionContext } from './context'
import { sortByKey } from './rank-sort'

/** A live capture's list changes all the time: its scan is redone when older than this. */
const LIVE_SCAN_MS = 1000
/** `protocol` of an id the list does not have. */
const ABSENT = 0xffff

interface Scan {
  source: ConversationList
  count: number
  generation: number
  at: number
  link: (c: ConversationInfo) => ConversationInfo
  /** Distinct protocol names in sort order; `protocol[id - 1]` is an index into it (ABSENT: no such conversation). */
  names: string[]
  protocol: Uint16Array
  frames: Float64Array
  bytes: Float64Array
  duration: Float64Array
  /** Conversation ids in the order a query asks for, by sortKey(). */
  orders: Map<string, Uint32Array>
}

function scanList(ctx: SessionContext): Scan {
  const source = ctx.conversations
  const count = source.conversationCount
  const protocol = new Uint16Array(count).fill(ABSENT)
  const frames = new Float64Array(count)
  const bytes = new Float64Array(count)
  const duration = new Float64Array(count)
  const nameIndex = new Map<string, number>()
  const found: string[] = []
  // Only conversations with notes of their own can share a BlueBox session (sessionLinker).
  const noted: { id: number; notes: readonly string[] }[] = []
  // The keys are read from the list's columns, in one pass: making each summary (endpoint texts, notes)
  // took 337 ms of the first page for a million conversations.
  source.visitKeys((id, name, f, b, firstTime, lastTime, notes) => {
    if (notes.length) noted.push({ id, notes })
    const i = id - 1
    if (i < 0 || i >= count) return
    let n = nameIndex.get(name)
    if (n === undefined) nameIndex.set(name, (n = found.push(name) - 1))
    protocol[i] = n
    frames[i] = f
    bytes[i] = b
    duration[i] = Math.max(0, lastTime - firstTime)
  })
  const link = sessionLinker(noted)
  // Protocols numbered in name order, so sorting by protocol compares numbers.
  const names = [...found].sort((a, b) => a.localeCompare(b))
  const rank = found.map((n) => names.indexOf(n))
  for (let i = 0; i < count; i++) if (protocol[i] !== ABSENT) protocol[i] = rank[protocol[i]]
  return { source, count, generation: ctx.generation, at: performance.now(), link, names, protocol, frames, bytes, duration, orders: new Map() }
}

function sortKey(q: ConversationQuery): string {
  return `${q.sort ?? 'id'}|${q.desc === true}|${q.protocols ? [...q.protocols].sort().join(',') : '*'}`
}

/** The ids of the conversations `q` lists, in its order; ties keep id order either way. */
function orderFor(scan: Scan, q: ConversationQuery): Uint32Array {
  const wanted = q.protocols ? new Set(q.protocols.map((p) => scan.names.indexOf(p)).filter((n) => n >= 0)) : null
  let n = 0
  const ids = new Uint32Array(scan.count)
  for (let i = 0; i < scan.count; i++) {
    const p = scan.protocol[i]
    if (p !== ABSENT && (!wanted || wanted.has(p))) ids[n++] = i + 1
  }
  const order = ids.subarray(0, n)
  const sort: ConversationSort = q.sort ?? 'id'
  const dir = q.desc ? -1 : 1
  if (sort === 'id') {
    if (dir < 0) order.reverse()
    return order
  }
  const column = sort === 'protocol' ? scan.protocol : scan[sort]
  const keys = new Float64Array(n)
  for (let i = 0; i < n; i++) keys[i] = column[order[i] - 1]
  return sortByKey(order, keys, dir < 0)
}

export class ConversationPages {
  private scan: Scan | null = null

  constructor(private readonly ctx: SessionContext) {}

  private current(): Scan {
    const ctx = this.ctx
    const s = this.scan
    const fresh =
      s &&
      s.source === ctx.conversations &&
      s.count === ctx.conversations.conversationCount &&
      s.generation === ctx.generation &&
      (ctx.source?.kind !== 'interface' || performance.now() - s.at < LIVE_SCAN_MS)
    if (!fresh) this.scan = scanList(ctx)
    return this.scan!
  }

  page(q: ConversationQuery): ConversationPage {
    const scan = this.current()
    const key = sortKey(q)
    let order = scan.orders.get(key)
    if (!order) scan.orders.set(key, (order = orderFor(scan, q)))
    const total = order.length
    const end = Math.min(total, q.start + q.count)
    // With `first`, the list is that conversation, then the order without it.
    const at = q.first === undefined ? -1 : order.indexOf(q.first)
    const ids: number[] = []
    for (let i = q.start; i < end; i++) {
      if (at < 0) ids.push(order[i])
      else if (i === 0) ids.push(order[at])
      else ids.push(order[i - 1 < at ? i - 1 : i])
    }
    const conversations: ConversationInfo[] = []
    for (const c of scan.source.conversationInfos(ids)) if (c) conversations.push(scan.link(c))
    return { total, start: q.start, conversations }
  }
}
