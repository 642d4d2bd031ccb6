// The conversation list a page at a time (SessionCore.getConversationPage), the way the Conversations and
// key panels ask for it: every sort both ways, pages that start anywhere, the protocol filter and the
// conversation asked first. Expected lists come from the engine's whole list (decodeFile, the CLI's path)
// sorted here by the documented rule: ties keep id order, protocols in name order.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionCore } from '../../../src-main/host/session-core'
import type { ConversationQuery, ConversationSort } from '../../../src-shared/api'
import type { ConversationInfo } from '../../../src-shared/model/types'
import { writeConversationsCapture } from '../../bench/make-conversations-capture.mjs'
import { decodeFile } from '../helpers/decode'

const DEMO = join(__dirname, '../../../resources/demo.pcapng')
const tmp = mkdtempSync(join(tmpdir(), 'gamewire-conversation-pages-'))
const MANY = join(tmp, 'conversations.pcap')
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const span = (c: ConversationInfo) => Math.max(0, c.lastTime - c.firstTime)
const KEYS: Record<ConversationSort, (c: ConversationInfo) => number | string> = {
  id: (c) => c.id,
  protocol: (c) => c.protocol,
  frames: (c) => c.frames,
  bytes: (c) => c.bytes,
  duration: span
}

function sorted(list: ConversationInfo[], sort: ConversationSort, desc: boolean): ConversationInfo[] {
  const key = KEYS[sort]
  return [...list].sort((a, b) => {
    const ka = key(a)
    const kb = key(b)
    const c = typeof ka === 'string' ? ka.localeCompare(kb as string) : ka - (kb as number)
    return (desc ? -c : c) || a.id - b.id
  })
}

let core: SessionCore
function open(file: string, jobs = 1): Promise<unknown> {
  core = new SessionCore({ emit: () => undefined, demoCapturePath: () => DEMO, tempDir: tmp, jobs, shardsInProcess: jobs > 1 })
  return core.open(file)
}
afterEach(() => core?.close())

/** The whole list, read in pages of `size` (not a divisor of the count, so the last is short). */
function readAll(q: Omit<ConversationQuery, 'start' | 'count'>, size: number): { totals: Set<number>; list: ConversationInfo[] } {
  const totals = new Set<number>()
  const list: ConversationInfo[] = []
  for (let start = 0; ; start += size) {
    const page = core.getConversationPage({ ...q, start, count: size })
    totals.add(page.total)
    expect(page.start).toBe(start)
    list.push(...page.conversations)
    if (page.conversations.length < size) return { totals, list }
  }
}

describe('the conversation list in pages', () => {
  let many: ConversationInfo[]
  beforeAll(async () => {
    // 1,500 UDP and 700 TCP conversations: two frame counts, so sorting by frames is mostly ties
    await writeConversationsCapture(MANY, { udp: 1500, tcp: 700 })
    many = decodeFile(MANY).conversations
    expect(many).toHaveLength(2200)
    expect(new Set(many.map((c) => c.frames)).size).toBeLessThan(10)
  }, 60_000)

  for (const jobs of [1, 2])
    it(`gives every sort both ways, in pages from anywhere (${jobs === 1 ? 'one engine' : 'two shards'})`, async () => {
      await open(MANY, jobs)
      for (const sort of Object.keys(KEYS) as ConversationSort[])
        for (const desc of [false, true]) {
          const { totals, list } = readAll({ sort, desc }, 333)
          expect([...totals]).toEqual([2200])
          expect(list, `${sort} ${desc ? 'desc' : 'asc'}`).toEqual(sorted(many, sort, desc))
        }
      // a page from the middle, and past the end
      const bytes = sorted(many, 'bytes', true)
      expect(core.getConversationPage({ sort: 'bytes', desc: true, start: 1234, count: 7 }).conversations).toEqual(bytes.slice(1234, 1241))
      expect(core.getConversationPage({ sort: 'bytes', start: 2198, count: 50 }).conversations).toEqual(sorted(many, 'bytes', false).slice(2198))
      expect(core.getConversationPage({ start: 5000, count: 10 })).toEqual({ total: 2200, start: 5000, conversations: [] })
      expect(core.getConversationPage({ start: 0, count: 0 })).toEqual({ total: 2200, start: 0, conversations: [] })
    })

  it('lists only the protocols asked for, and the conversation asked first at the top', async () => {
    await open(DEMO)
    const all = decodeFile(DEMO).conversations
    const protocols = new Set(all.map((c) => c.protocol))
    expect(protocols.size).toBeGreaterThanOrEqual(3)
    for (const p of protocols) {
      const want = sorted(
        all.filter((c) => c.protocol === p || c.protocol === 'unknown'),
        'bytes',
        true
      )
      expect(core.getConversationPage({ sort: 'bytes', desc: true, start: 0, count: 100, protocols: [p, 'unknown'] })).toEqual({
        total: want.length,
        start: 0,
        conversations: want
      })
    }
    expect(core.getConversationPage({ start: 0, count: 100, protocols: ['litenetlib'] })).toEqual({ total: 0, start: 0, conversations: [] })
    expect(core.getConversationPage({ sort: 'protocol', start: 0, count: 100 }).conversations).toEqual(sorted(all, 'protocol', false))

    // `first`: that conversation, then the rest in order, paged the same way
    const photon = all.filter((c) => c.protocol === 'photon')
    expect(photon.length).toBeGreaterThanOrEqual(3)
    for (const asked of [photon[1], photon[photon.length - 1]]) {
      const withFirst = [asked, ...photon.filter((c) => c !== asked)]
      const q = { start: 0, count: 100, protocols: ['photon'], first: asked.id }
      expect(core.getConversationPage(q)).toEqual({ total: photon.length, start: 0, conversations: withFirst })
      for (let start = 0; start < photon.length; start++)
        expect(core.getConversationPage({ ...q, start, count: 1 }).conversations, `#${asked.id} first, from ${start}`).toEqual([withFirst[start]])
    }
    // a conversation the list does not hold is not added to it
    const other = all.find((c) => c.protocol !== 'photon')!
    expect(core.getConversationPage({ start: 0, count: 100, protocols: ['photon'], first: other.id }).conversations).toEqual(photon)
  })

  it('follows the capture: another decoding changes the list', async () => {
    await open(DEMO)
    const all = decodeFile(DEMO).conversations
    const photon = all.filter((c) => c.protocol === 'photon')
    expect(core.getConversationPage({ start: 0, count: 100, protocols: ['unknown'] }).total).toBe(0)
    await core.setDecodeAs([{ match: photon[0].id, protocol: 'unknown' }])
    const now = core.getConversationPage({ start: 0, count: 100, protocols: ['unknown'] })
    expect(now.conversations.map((c) => c.id)).toEqual([photon[0].id])
    expect(core.getConversationPage({ start: 0, count: 100, protocols: ['photon'] }).total).toBe(photon.length - 1)
  })
})
