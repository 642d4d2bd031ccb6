// `gamewire stats` writes its conversation list a summary at a time: the JSON must be exactly what
// JSON.stringify(report, null, 2) gives, the text must list what `decode` lists, and neither may read the
// whole list before writing it.
import { describe, it, expect } from 'vitest'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { captureStats, type CaptureStats } from '../../../src-main/host/capture-stats'
import { statsJson, statsText } from '../../../src-main/cli/stats-output'
import type { ConversationList } from '../../../src-shared/engine/conversation-table'
import type { ConversationInfo } from '../../../src-shared/model/types'
import { ROOT, gw } from '../helpers/cli'

const DEMO = join(ROOT, 'resources/demo.pcapng')
// A pcap of its file header only (microseconds, Ethernet): no frames, no conversations.
const EMPTY = join(mkdtempSync(join(tmpdir(), 'gw-stats-')), 'empty.pcap')
writeFileSync(EMPTY, Buffer.from('d4c3b2a1020004000000000000000000ffff000001000000', 'hex'))

/** The report as one object, as stringified before the list was streamed. */
const whole = (s: CaptureStats) => ({ ...s, conversations: [...s.conversations.conversations()] })

function conversation(id: number): ConversationInfo {
  return {
    id,
    transport: id % 2 ? 'udp' : 'tcp',
    client: `10.0.${id >> 8}.${id & 255}:${40000 + (id % 1000)}`,
    server: '10.1.0.1:5055',
    roleFrom: 'port',
    protocol: id % 3 ? 'photon' : 'unknown',
    stack: ['udp', 'photon'],
    frames: id * 3,
    bytes: id * 100,
    firstTime: id / 10,
    lastTime: id / 5,
    notes: id % 7 ? [] : [`continues conversation ${id - 1}`, 'a "quoted"\nnote']
  }
}

/** A list that records how many summaries were made, so a test can see when they are read. */
function countingList(n: number): ConversationList & { made: number } {
  const list = {
    made: 0,
    conversationCount: n,
    *conversations() {
      for (let id = 1; id <= n; id++) {
        list.made++
        yield conversation(id)
      }
    },
    conversationInfos: (ids: readonly number[]) => ids.map((id) => (id >= 1 && id <= n ? conversation(id) : undefined)),
    visitKeys: () => {
      throw new Error('stats does not sort the list')
    }
  }
  return list
}

const report = (conversations: ConversationList): CaptureStats => ({
  file: 'x.pcapng',
  bytes: 1,
  frames: 2,
  messages: 3,
  errors: 0,
  seconds: 0.5,
  protocols: { photon: 3 },
  conversations,
  warnings: ['one', 'two'],
  index: { bytesPerMessage: 1, columnBytesPerMessage: 2, heapBytesPerMessage: 3 }
})

describe('gamewire stats output', () => {
  it('writes JSON byte-identical to JSON.stringify of the whole report (demo capture, with and without --ops)', async () => {
    for (const ops of [false, true]) {
      const s = await captureStats(DEMO, { ops })
      expect(s.conversations.conversationCount).toBeGreaterThan(3)
      if (ops) expect(s.operations?.conversations.length).toBeGreaterThan(0)
      expect([...statsJson(s)].join('')).toBe(`${JSON.stringify(whole(s), null, 2)}\n`)
    }
  })

  it('writes an empty list as [] and notes with quotes and newlines as JSON.stringify does', async () => {
    const empty = await captureStats(EMPTY)
    expect(empty.conversations.conversationCount).toBe(0)
    expect([...statsJson(empty)].join('')).toBe(`${JSON.stringify(whole(empty), null, 2)}\n`)
    const s = report(countingList(30))
    expect([...statsJson(s)].join('')).toBe(`${JSON.stringify(whole(s), null, 2)}\n`)
  })

  it('reads the list one summary at a time while writing it, JSON and text', () => {
    for (const write of [statsJson, statsText]) {
      const list = countingList(5000)
      let written = 0
      for (const piece of write(report(list))) {
        // A piece naming conversation k is written when k summaries (and no more) have been made.
        const id = /#(\d+) |"id": (\d+),/.exec(piece)
        if (id) expect(list.made).toBe(Number(id[1] ?? id[2]))
        if (id) written++
      }
      expect(written).toBe(5000)
      expect(list.made).toBe(5000)
    }
  })

  it('lists in text what `decode` lists as the capture’s conversations', () => {
    const doc = JSON.parse(gw('decode', DEMO, '--tree', 'none').stdout)
    const text = gw('stats', DEMO)
    expect(text.code).toBe(0)
    const lines = text.stdout.split('\n')
    expect(lines).toContain(`conversations: ${doc.conversations.length}`)
    const listed = lines.filter((l) => l.startsWith('  #'))
    expect(listed).toEqual(
      doc.conversations.map(
        (c: ConversationInfo) => `  #${c.id} ${c.transport} ${c.client} -> ${c.server} ${c.stack.join('/')} ${c.frames} frames ${c.bytes} bytes`
      )
    )
    // --ops heads each conversation's table with its id and endpoints.
    const ops = gw('stats', DEMO, '--ops').stdout.split('\n')
    const heads = ops.filter((l) => l.startsWith('operations in #'))
    expect(heads.length).toBeGreaterThan(1)
    for (const head of heads) {
      const id = Number(/#(\d+)/.exec(head)?.[1])
      const c = doc.conversations.find((x: ConversationInfo) => x.id === id)
      expect(head).toBe(`operations in #${id} ${c.client} -> ${c.server}:`)
    }
  })
})
