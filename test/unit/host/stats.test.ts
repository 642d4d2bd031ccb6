// Statistics in the session: they follow the display filter (or cover everything with `all`), cut the
// conversation and name lists to the top STATS_TOP_N with the rest summed as "others", and give request/
// response latencies per operation from the decoders' pairing, checked against a capture whose response
// times are chosen (test/fixtures/ui/latency-capture.ts) and a capture of 3,000 conversations.
import { afterAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionCore } from '../../../src-main/host/session-core'
import { nearestRank } from '../../../src-main/host/session/stats'
import { STATS_TOP_N } from '../../../src-shared/api'
import { ApiArgumentError, validateRequest } from '../../../src-shared/api-validate'
import { LATENCY_EXPECTED, LATENCY_PLAN, latencyCapture } from '../../fixtures/ui/latency-capture'
import { writeConversationsCapture } from '../../bench/make-conversations-capture.mjs'

const PHOTON = join(__dirname, '../../fixtures/ui/photon-session.pcapng')
const tmp = mkdtempSync(join(tmpdir(), 'gamewire-stats-test-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

function core(): SessionCore {
  return new SessionCore({ emit: () => undefined, demoCapturePath: () => PHOTON, tempDir: tmp })
}

describe('statistics', () => {
  it('getStats takes no argument or { all: boolean } from the untrusted side', () => {
    expect(validateRequest('getStats', [])).toEqual([])
    expect(validateRequest('getStats', [undefined])).toEqual([])
    expect(validateRequest('getStats', [{ all: true }])).toEqual([{ all: true }])
    expect(validateRequest('getStats', [{}])).toEqual([{}])
    for (const bad of [[{ all: 'yes' }], [null], [[true]], ['all'], [{ all: true }, 1]])
      expect(() => validateRequest('getStats', bad)).toThrow(ApiArgumentError)
  })

  it('nearest-rank percentiles', () => {
    expect(nearestRank([10, 20, 30, 40, 100], 0.5)).toBe(30)
    expect(nearestRank([10, 20, 30, 40, 100], 0.95)).toBe(100)
    expect(nearestRank([1, 2], 0.5)).toBe(1)
    expect(nearestRank([7], 0.95)).toBe(7)
    expect(nearestRank([], 0.5)).toBeNaN()
  })

  it('per-operation request/response latencies match the capture built with known response times', async () => {
    const file = join(tmp, 'latency.pcapng')
    writeFileSync(file, latencyCapture())
    const c = core()
    await c.open(file)
    const s = await c.getStats()
    expect(s.operations).not.toBeNull()
    const round = (x: number | null) => (x === null ? null : Math.round(x * 1000) / 1000)
    const ops = s.operations!.map((o) => ({ ...o, p50: round(o.p50), p95: round(o.p95), max: round(o.max) }))
    expect(ops).toEqual(LATENCY_EXPECTED)
    // the requests counted are the request rows
    const requests = s.byName.find((n) => n.name === 'JoinGame')
    expect(requests?.count).toBe(LATENCY_PLAN[0].ms.length)
    // a filter narrows the table to the responses it keeps
    await c.setView({ filter: 'gamewire.name == "JoinLobby response"', sort: null, columns: [] })
    const f = await c.getStats()
    expect(f.scope).toEqual({ filter: 'gamewire.name == "JoinLobby response"', messages: 3, total: s.scope.total })
    expect(f.operations!.map((o) => [o.name, o.count, o.responses, o.unanswered, o.max])).toEqual([['JoinLobby', 0, 3, 0, 250]])
    // requests alone still know whether they were answered (their responses are filtered out)
    await c.setView({ filter: 'photon.msg.type == 2', sort: null, columns: [] })
    const q = await c.getStats()
    expect(q.operations!.map((o) => [o.name, o.count, o.responses, o.unanswered, o.p50])).toEqual([
      ['JoinGame', 5, 0, 0, null],
      ['JoinLobby', 3, 0, 0, null],
      ['RaiseEvent', 1, 0, 1, null]
    ])
    // …and `all` ignores the filter
    expect((await c.getStats({ all: true })).operations!.length).toBe(3)
    c.close()
  })

  it('follows the display filter: counts, time buckets, names, protocols and conversations', async () => {
    const c = core()
    await c.open(PHOTON)
    const all = await c.getStats()
    expect(all.scope.messages).toBe(485)
    await c.setView({ filter: 'photon.op.code == 253', sort: { column: 'time', desc: true }, columns: [] })
    const s = await c.getStats()
    expect(s.scope).toEqual({ filter: 'photon.op.code == 253', messages: 150, total: 485 })
    expect(s.timeline.counts.reduce((a, b) => a + b, 0)).toBe(150)
    expect(s.byName.map((n) => [n.name, n.count])).toEqual([['RaiseEvent', 150]])
    expect(s.byProtocol).toEqual([{ protocol: 'photon', count: 150 }])
    expect(s.topByMessages.map((x) => [x.id, x.messages])).toEqual([[1, 150]])
    expect(s.otherNames).toEqual({ items: 0, messages: 0, bytes: 0 })
    const unfiltered = await c.getStats({ all: true })
    expect(unfiltered.scope).toEqual({ filter: '', messages: 485, total: 485 })
    expect(unfiltered.byName).toEqual(all.byName)
    c.close()
  })

  it('keeps the top conversations by bytes and by messages and sums the rest as others', { timeout: 60_000 }, async () => {
    const file = join(tmp, 'conversations.pcap')
    await writeConversationsCapture(file, { udp: 1500, tcp: 1500 })
    const c = core()
    await c.open(file)
    const rows = (await c.setView({ filter: '', sort: null, columns: [] })).total
    const s = await c.getStats()
    expect(s.conversations).toBe(3000)
    expect(s.topByBytes.length).toBe(STATS_TOP_N)
    expect(s.topByMessages.length).toBe(STATS_TOP_N)
    for (const list of [s.topByBytes, s.topByMessages]) expect(new Set(list.map((x) => x.id)).size).toBe(STATS_TOP_N)
    // ordered biggest first, and top + others add up to every row
    const bytes = s.topByBytes.map((x) => x.bytes)
    expect([...bytes].sort((a, b) => b - a)).toEqual(bytes)
    const totalBytes = (await c.getRows((await c.setView({ filter: '', sort: null, columns: [] })).id, 0, rows)).rows.reduce((a, r) => a + r.length, 0)
    expect(s.othersByBytes.items).toBe(3000 - STATS_TOP_N)
    expect(s.othersByBytes.bytes + bytes.reduce((a, b) => a + b, 0)).toBe(totalBytes)
    expect(s.othersByMessages.messages + s.topByMessages.reduce((a, x) => a + x.messages, 0)).toBe(rows)
    // the biggest conversation by bytes really is: recount from the rows of its own filter
    const top = s.topByBytes[0]
    const v = await c.setView({ filter: `gamewire.conversation == ${top.id}`, sort: null, columns: [] })
    expect(c.getRows(v.id, 0, v.count).rows.reduce((a, r) => a + r.length, 0)).toBe(top.bytes)
    c.close()
  })
})
