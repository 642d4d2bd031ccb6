// Ending conversations before the end of the capture (bounded memory): closed TCP connections, idle UDP
// conversations and the live limit; what an ended conversation leaves behind, what a later packet on its
// addresses starts, and that none of it changes the decoded output of a capture whose conversations
// never come back: the committed fixtures and a generated capture of 20,000 conversations.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createHash } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Engine, WarningList, type EvictionOptions } from '../../../src-shared/engine/engine'
import { CaptureReader } from '../../../src-shared/capture/reader'
import { ShardPool } from '../../../src-main/host/shard-pool'
import { DecodeSession } from '../../../src-shared/engine/session'
import { JsonExportWriter, messageText } from '../../../src-shared/export/json'
import { createDefaultRegistry } from '../../../src-shared/protocols'
import { ProtocolRegistry, type Pdu, type ProtocolModule } from '../../../src-shared/protocols/registry'
import { MessageDraft } from '../../../src-shared/bytes/tree'
import type { CaptureFrame } from '../../../src-shared/capture/types'
import type { ConversationInfo, DecodedMessage } from '../../../src-shared/model/types'
import { ACK, FIN, PSH, RST, SYN, resetFrames, tcpFrame, udpFrame } from '../helpers/frames'
import { writeConversationsCapture } from '../../bench/make-conversations-capture.mjs'

const C = '10.0.0.1'
const S = '10.0.0.2'

/** Puts a frame at `seconds` of capture time. */
function at(seconds: number, f: CaptureFrame): CaptureFrame {
  f.tsSec = 1_700_000_000 + Math.floor(seconds)
  f.tsNsec = Math.round((seconds % 1) * 1e9)
  return f
}

function run(frames: CaptureFrame[], eviction?: EvictionOptions | false, registry: ProtocolRegistry = createDefaultRegistry()) {
  const messages: DecodedMessage[] = []
  const engine = new Engine({ registry, eviction, onMessage: (m) => messages.push(m) })
  let peak = 0
  for (const f of frames) {
    engine.addFrame(f)
    peak = Math.max(peak, engine.liveConversations)
  }
  engine.finish()
  return { messages, conversations: engine.conversationList(), peak, engine }
}

/** A message as exported, without its id (which counts messages of every conversation). */
const withoutId = (m: DecodedMessage) => messageText({ ...m, id: 0 })

beforeEach(() => resetFrames())

describe('a TCP connection that closed', () => {
  const connection = (from: number) => [
    at(from, tcpFrame(C, 40000, S, 80, 100, SYN)),
    at(from + 0.1, tcpFrame(S, 80, C, 40000, 500, SYN | ACK)),
    at(from + 0.2, tcpFrame(C, 40000, S, 80, 101, ACK | PSH, 'hello')),
    at(from + 0.3, tcpFrame(C, 40000, S, 80, 106, ACK | FIN)),
    at(from + 0.4, tcpFrame(S, 80, C, 40000, 501, ACK | FIN)),
    at(from + 0.5, tcpFrame(C, 40000, S, 80, 107, ACK)) // the last ACK, after both FINs
  ]

  it('keeps its last ACK; a SYN on the same ports opens conversation 2, as Wireshark numbers streams', () => {
    const frames = [...connection(0), at(5, tcpFrame(C, 40000, S, 80, 9000, SYN)), at(5.1, tcpFrame(C, 40000, S, 80, 9001, ACK | PSH, 'again'))]
    const { conversations, messages } = run(frames)
    expect(conversations.map((c) => [c.id, c.frames, c.client, c.server])).toEqual([
      [1, 6, '10.0.0.1:40000', '10.0.0.2:80'],
      [2, 2, '10.0.0.1:40000', '10.0.0.2:80']
    ])
    expect(conversations[0].notes).toEqual([])
    expect(conversations[1].notes).toEqual(['TCP ports reused: conversation 1 on the same addresses had closed'])
    expect(messages.map((m) => [m.conversation, m.direction, m.summary])).toEqual([
      [1, 'c2s', '5 bytes'],
      [2, 'c2s', '5 bytes']
    ])
    // Without eviction both connections are one conversation, as before.
    expect(run(frames, false).conversations.map((c) => c.frames)).toEqual([8])
  })

  it('stays open, ended only by the idle time, so late packets still count with it', () => {
    const { conversations, engine } = run([...connection(0), at(50, tcpFrame(C, 40000, S, 80, 107, ACK))])
    expect(conversations).toHaveLength(1)
    expect(conversations[0].frames).toBe(7)
    expect(engine.conversationCount).toBe(1)
  })

  it('ends on a reset: a retransmission after it is counted, new bytes after it are shown undecoded', () => {
    const { conversations, messages } = run([
      tcpFrame(C, 40000, S, 80, 100, SYN),
      tcpFrame(S, 80, C, 40000, 500, SYN | ACK),
      tcpFrame(C, 40000, S, 80, 101, ACK | PSH, 'abc'),
      tcpFrame(S, 80, C, 40000, 501, RST),
      tcpFrame(C, 40000, S, 80, 101, ACK | PSH, 'abc'),
      tcpFrame(C, 40000, S, 80, 104, ACK | PSH, 'xyz')
    ])
    expect(conversations).toHaveLength(1)
    expect(conversations[0].frames).toBe(6)
    expect(conversations[0].notes).toEqual([
      'data after the connection closed, shown undecoded',
      '1 retransmitted TCP segments ignored',
      'connection reset (RST)'
    ])
    expect(messages.map((m) => [m.summary, m.error])).toEqual([
      ['3 bytes', null],
      ['3 bytes', '3 bytes after the connection closed']
    ])
  })

  it('is not ended before every byte up to both FINs arrived', () => {
    const { conversations, messages } = run([
      tcpFrame(C, 40000, S, 80, 100, SYN),
      tcpFrame(S, 80, C, 40000, 500, SYN | ACK),
      tcpFrame(C, 40000, S, 80, 104, ACK | FIN | PSH, 'def'), // ahead of 'abc'
      tcpFrame(S, 80, C, 40000, 501, ACK | FIN),
      tcpFrame(C, 40000, S, 80, 101, ACK | PSH, 'abc')
    ])
    expect(conversations).toHaveLength(1)
    expect(conversations[0].notes).toEqual(['1 out-of-order TCP segments reordered'])
    expect(messages.map((m) => m.summary)).toEqual(['6 bytes'])
  })
})

describe('an idle conversation', () => {
  const datagrams = (gap: number) => [
    at(0, udpFrame(C, 5000, S, 6000, 'a')),
    at(30, udpFrame(S, 6000, C, 5000, 'b')),
    at(30 + gap, udpFrame(C, 5000, S, 6000, 'c'))
  ]

  it('ends after 60 s of capture time without packets; the next datagram starts a new one, and both say so', () => {
    const { conversations, messages } = run(datagrams(61))
    expect(conversations.map((c) => [c.id, c.frames, c.client])).toEqual([
      [1, 2, '10.0.0.1:5000'],
      [2, 1, '10.0.0.1:5000']
    ])
    expect(conversations[0].notes).toEqual(['ended after 60 s of capture time without packets: later packets on these addresses are conversation 2'])
    expect(conversations[1].notes).toEqual(['continues conversation 1, which was ended after 60 s of capture time without packets'])
    expect(messages.map((m) => m.conversation)).toEqual([1, 1, 2])
  })

  /**
   * Twelve address pairs (client ports 5000-5011), each a datagram and its reply, then idle for longer than
   * 60 s and continued by one more datagram: conversations 1-12, continued as 13-24.
   */
  function continuedPairs(payloads = ['a', 'b', 'c']): CaptureFrame[] {
    const frames: CaptureFrame[] = []
    for (let k = 0; k < 12; k++) frames.push(at(k * 0.1, udpFrame(C, 5000 + k, S, 6000, payloads[0])))
    for (let k = 0; k < 12; k++) frames.push(at(30 + k * 0.1, udpFrame(S, 6000, C, 5000 + k, payloads[1])))
    for (let k = 0; k < 12; k++) frames.push(at(100 + k * 0.1, udpFrame(C, 5000 + k, S, 6000, payloads[2])))
    frames.forEach((f, i) => (f.number = i + 1))
    return frames
  }

  it('is worded with the same conversation ids when shards decode it: the links are renumbered with the merge', async () => {
    // Spread over the shards, a shard's own conversation numbers are not the capture's.
    const frames = continuedPairs()
    const one = run(frames).conversations
    expect(one).toHaveLength(24)
    expect(one[12].notes).toEqual(['continues conversation 1, which was ended after 60 s of capture time without packets'])
    for (const jobs of [2, 3]) {
      const pool = new ShardPool(jobs, { mode: 'index', keys: [] }, { row: () => undefined, warning: () => undefined }, true)
      for (const f of frames) pool.push(f)
      await pool.drain()
      const r = await pool.end()
      expect([...r.conversations.conversations()], `${jobs} shards`).toEqual(one)
      expect(r.conversations.conversationInfos([24, 1, 99])).toEqual([one[23], one[0], undefined])
    }
  })

  it("gives each conversation's sort keys without its summary: the summary's numbers and its own notes, not the links", async () => {
    // Payloads of three sizes, so bytes differ from frames.
    const frames = continuedPairs(['a', 'bb', 'ccc'])
    // A note of its own for the conversations on port 5003 (4, and 16 which continues it).
    const decodeAs = [{ match: `${C}:5003`, protocol: 'no-such-protocol' }]
    type Keys = { id: number; protocol: string; frames: number; bytes: number; firstTime: number; lastTime: number; notes: string[] }
    const keysOf = (list: { visitKeys: Engine['visitKeys'] }) => {
      const keys: Keys[] = []
      list.visitKeys((id, protocol, frames, bytes, firstTime, lastTime, notes) =>
        keys.push({ id, protocol, frames, bytes, firstTime, lastTime, notes: [...notes] })
      )
      return keys
    }
    const LINK = /^(continues conversation \d+|ended after 60 s .* are conversation \d+$)/
    const expected = (list: Iterable<ConversationInfo>) =>
      [...list].map((c) => ({
        id: c.id,
        protocol: c.protocol,
        frames: c.frames,
        bytes: c.bytes,
        firstTime: c.firstTime,
        lastTime: c.lastTime,
        notes: c.notes.filter((n) => !LINK.test(n))
      }))
    // Mid-capture: 1-12 ended, 13-24 open.
    const engine = new Engine({ registry: createDefaultRegistry(), decodeAs, onMessage: () => undefined })
    for (const f of frames) engine.addFrame(f)
    expect(engine.liveConversations).toBe(12)
    const mid = keysOf(engine)
    expect(mid).toEqual(expected(engine.conversations()))
    expect(mid.map((k) => k.id)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1))
    expect(mid.filter((k) => k.notes.length).map((k) => [k.id, k.notes])).toEqual([
      [4, ['decode as no-such-protocol: no such protocol, detecting instead']],
      [16, ['decode as no-such-protocol: no such protocol, detecting instead']]
    ])
    expect(mid.map((k) => k.frames)).toEqual([...Array(12).fill(2), ...Array(12).fill(1)])
    engine.finish()
    const ended = keysOf(engine)
    expect(ended).toEqual(expected(engine.conversations()))
    // Merged from shards, the list's table gives the same keys.
    for (const jobs of [2, 3]) {
      const pool = new ShardPool(jobs, { mode: 'index', keys: [], decodeAs }, { row: () => undefined, warning: () => undefined }, true)
      for (const f of frames) pool.push(f)
      await pool.drain()
      const r = await pool.end()
      expect(keysOf(r.conversations), `${jobs} shards`).toEqual(ended)
    }
  })

  it('names the conversation it continues while still open', () => {
    const engine = new Engine({ registry: createDefaultRegistry(), onMessage: () => undefined })
    for (const f of datagrams(61)) engine.addFrame(f)
    expect(engine.liveConversations).toBe(1)
    expect(engine.conversationList().map((c) => c.notes)).toEqual([
      ['ended after 60 s of capture time without packets: later packets on these addresses are conversation 2'],
      ['continues conversation 1, which was ended after 60 s of capture time without packets']
    ])
  })

  it('does not end when packets come within the idle time, nor without eviction', () => {
    expect(run(datagrams(59)).conversations).toHaveLength(1)
    expect(run(datagrams(61), false).conversations).toHaveLength(1)
    expect(run(datagrams(61), { idleSeconds: 100 }).conversations).toHaveLength(1)
  })

  it('over TCP, stays open however long it is quiet (only closing or the live limit ends a connection)', () => {
    const { conversations } = run([
      at(0, tcpFrame(C, 40000, S, 80, 100, SYN)),
      at(0.1, tcpFrame(C, 40000, S, 80, 101, ACK | PSH, 'one')),
      at(3600, tcpFrame(C, 40000, S, 80, 104, ACK | PSH, 'two'))
    ])
    expect(conversations).toHaveLength(1)
  })
})

describe('the live limit', () => {
  it('ends the least recently active conversation; ids follow first packets and repeat run to run', () => {
    const frames = () => [
      udpFrame(C, 1, S, 9, 'a'),
      udpFrame(C, 2, S, 9, 'b'),
      udpFrame(C, 1, S, 9, 'a'),
      udpFrame(C, 3, S, 9, 'c'), // ends port 2's conversation, the least recently active
      udpFrame(C, 2, S, 9, 'b'), // ends port 1's
      udpFrame(C, 3, S, 9, 'c')
    ]
    const first = run(frames(), { maxLive: 2 })
    expect(first.peak).toBe(2)
    expect(first.conversations.map((c) => [c.id, c.client, c.frames])).toEqual([
      [1, '10.0.0.1:1', 2],
      [2, '10.0.0.1:2', 1],
      [3, '10.0.0.1:3', 2],
      [4, '10.0.0.1:2', 1]
    ])
    expect(first.conversations[3].notes).toEqual(['continues conversation 2, which was ended when 2 conversations were open'])
    expect(first.conversations[1].notes).toEqual(['ended when 2 conversations were open: later packets on these addresses are conversation 4'])
    resetFrames()
    const again = run(frames(), { maxLive: 2 })
    expect(again.conversations).toEqual(first.conversations)
    expect(again.messages.map(withoutId)).toEqual(first.messages.map(withoutId))
  })
})

describe('an ended conversation', () => {
  // Holds datagrams starting "hold" until the end, and frames a stream as 1-byte-length records.
  const held: ProtocolModule = {
    id: 'held',
    name: 'Held',
    carriers: ['udp', 'tcp'],
    probe: ({ bytes }) => (bytes[0] === 0x68 || bytes[0] === 0x6e || bytes[0] < 0x10 ? 90 : 0),
    create: () => {
      const waiting: Pdu[] = []
      const out = (pdu: Pdu, name: string) => ({
        dir: pdu.dir,
        frames: pdu.frames,
        time: pdu.time,
        protocol: 'held',
        stack: pdu.stack,
        name,
        summary: new TextDecoder().decode(pdu.bytes),
        value: null,
        draft: pdu.draft
      })
      return {
        datagram(pdu, emit) {
          if (pdu.bytes[0] === 0x68) waiting.push(pdu)
          else emit(out(pdu, 'Now'))
        },
        stream(dir, stream, stack, emit) {
          while (stream.available >= 1 && stream.available >= 1 + stream.byteAt(0)) {
            const t = stream.take(1 + stream.byteAt(0))
            const draft = new MessageDraft()
            draft.addSource('TCP payload', t.bytes)
            emit({ dir, frames: t.frames, time: t.time, protocol: 'held', stack, name: 'Record', summary: `${t.bytes.length - 1} bytes`, value: null, draft })
          }
        },
        finish(emit) {
          for (const pdu of waiting.splice(0)) emit(out(pdu, 'Held'))
        }
      }
    }
  }
  const registry = () => {
    const r = new ProtocolRegistry()
    r.register(held)
    return r
  }

  it('is finished as at the end of the capture: the same messages, only earlier', () => {
    const frames = () => [
      at(0, udpFrame(C, 5000, S, 6000, 'hold me')),
      at(0, tcpFrame(C, 40000, S, 80, 100, SYN)),
      at(0.1, tcpFrame(S, 80, C, 40000, 500, SYN | ACK)),
      at(0.2, tcpFrame(C, 40000, S, 80, 101, ACK | PSH, Uint8Array.from([2, 1, 2, 5, 1]))), // a record and a partial one
      at(0.3, tcpFrame(C, 40000, S, 80, 106, ACK | FIN)),
      at(0.4, tcpFrame(S, 80, C, 40000, 501, ACK | FIN)),
      ...[20, 40, 60, 80, 100].map((t) => at(t, udpFrame(C, 5001, S, 6000, `now ${t}`)))
    ]
    const early = run(frames(), undefined, registry())
    resetFrames()
    const late = run(frames(), false, registry())
    expect(early.conversations).toEqual(late.conversations)
    const byConversation = (ms: DecodedMessage[]) => [1, 2, 3].map((c) => ms.filter((m) => m.conversation === c).map(withoutId))
    expect(byConversation(early.messages)).toEqual(byConversation(late.messages))
    expect(late.messages.map((m) => m.name)).toEqual(['Record', 'Now', 'Now', 'Now', 'Now', 'Now', 'Held', 'TCP payload'])
    // Closing flushed the partial record at once; 60 s of quiet flushed the held datagram.
    expect(early.messages.map((m) => m.name)).toEqual(['Record', 'TCP payload', 'Now', 'Now', 'Now', 'Held', 'Now', 'Now'])
    expect(early.messages[1].error).toBe('2 bytes at the end of the stream did not complete a message')
  })
})

describe('a capture of 20,000 conversations', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'gamewire-eviction-'))
  const file = join(tmp, 'conversations.pcap')
  afterAll(() => rmSync(tmp, { recursive: true, force: true }))
  // 50 new conversations a second of each kind: 200 s of capture time, so the idle time matters.
  beforeAll(() => writeConversationsCapture(file, { udp: 10_000, tcp: 10_000, rate: 50, seed: 7 }))

  /** The decoded-JSON export's digest, and the most conversations the engine held open at once. */
  function exportOf(eviction?: EvictionOptions | false) {
    const hash = createHash('sha256')
    const writer = new JsonExportWriter({ format: 'json' }, (c) => hash.update(c))
    writer.begin()
    let peak = 0
    let messages = 0
    const session: DecodeSession = new DecodeSession({
      eviction,
      onMessage: (m) => {
        messages++
        writer.message(m)
      },
      onFrame: () => {
        peak = Math.max(peak, session.engine.liveConversations)
      }
    })
    const bytes = readFileSync(file)
    for (let i = 0; i < bytes.length; i += 1 << 16) session.push(bytes.subarray(i, i + (1 << 16)))
    peak = Math.max(peak, session.engine.liveConversations)
    session.end()
    const stats = session.engine.stats
    writer.end({ file: 'conversations.pcap', frames: stats.frames, linkTypes: stats.linkTypes, warnings: stats.warnings }, session.engine.conversations(), {
      messages,
      errors: stats.errors
    })
    return { digest: hash.digest('hex'), peak, messages, conversations: session.engine.conversationCount }
  }

  /** The same export through shards (in-process), which end idle conversations by the ticks of other shards' frames. */
  async function shardedExportOf(jobs: number) {
    const hash = createHash('sha256')
    const writer = new JsonExportWriter({ format: 'json' }, (c) => hash.update(c))
    writer.begin()
    const warnings = new WarningList()
    let messages = 0
    const pool = new ShardPool(
      jobs,
      { mode: 'export', keys: [] },
      {
        body: (id, conv, body) => {
          messages++
          writer.messageBody(id, conv, body!)
        },
        warning: (w) => warnings.add(w)
      },
      true
    )
    const reader = new CaptureReader({ onFrame: (f) => pool.push(f), onWarning: (w) => pool.warn(w) })
    const bytes = readFileSync(file)
    for (let i = 0; i < bytes.length; i += 1 << 16) {
      reader.push(bytes.subarray(i, i + (1 << 16)))
      await pool.drain()
    }
    reader.end()
    const r = await pool.end()
    writer.end({ file: 'conversations.pcap', frames: r.frames, linkTypes: r.linkTypes, warnings: warnings.list }, r.conversations.conversations(), {
      messages,
      errors: r.errors
    })
    return { digest: hash.digest('hex'), messages, conversations: r.conversations.conversationCount }
  }

  it('ends idle conversations in shards exactly where one engine does: the same export for 1, 2 and 3 shards', async () => {
    const one = exportOf()
    for (const jobs of [1, 2, 3]) expect(await shardedExportOf(jobs)).toEqual({ digest: one.digest, messages: one.messages, conversations: one.conversations })
  })

  it('ends conversations as it goes, and exports exactly what a run that keeps them all open exports', () => {
    const all = exportOf(false)
    expect(all).toMatchObject({ peak: 20_000, conversations: 20_000, messages: 40_000 })
    const idle = exportOf()
    // 60 s of 50 UDP conversations and 50 closed connections a second, and the ones a little younger.
    expect(idle.peak).toBeLessThan(6_500)
    expect(idle.digest).toBe(all.digest)
    const limited = exportOf({ maxLive: 1_000 })
    expect(limited.peak).toBe(1_000)
    expect(limited.digest).toBe(all.digest)
  })
})

describe('the committed captures', () => {
  const root = join(__dirname, '../../..')
  const captures = [join(root, 'resources/demo.pcapng')]
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name)
      if (statSync(p).isDirectory()) walk(p)
      else if (/\.pcap(ng)?$/.test(name)) captures.push(p)
    }
  }
  walk(join(root, 'test/fixtures'))

  it.each(captures.map((c) => [c.slice(root.length + 1), c]))('%s decodes the same with and without eviction', (_name, file) => {
    const decode = (eviction?: false) => {
      const messages: string[] = []
      const s = new DecodeSession({ eviction, onMessage: (m) => messages.push(messageText(m)) })
      try {
        s.push(new Uint8Array(readFileSync(file)))
        s.end()
      } catch {
        // Broken fixtures are decoded as far as they go, either way.
      }
      return { messages, conversations: s.engine.conversationList() }
    }
    expect(decode()).toEqual(decode(false))
  })
})
