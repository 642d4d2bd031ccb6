// Hostile and broken ENet datagrams at every layer: header, sent time, checksum, command header, fixed command
// parts, dataLength, unknown commands, fragment headers (offsets outside the total, counts in the millions),
// memory held by unfinished reassemblies, and every truncation / random mutation of valid datagrams. The
// transport must never throw; errors name the byte offset and keep the fields read so far.
import { describe, it, expect } from 'vitest'
import type { FieldNode } from '../../../../src-shared/model/types'
import type { MessageOut } from '../../../../src-shared/protocols/registry'
import { datagrams, runTransport } from './harness'
import { ack, connect, datagram, envelope, fragment, ping, reliable, unreliable, type HeaderSpec } from './encoder'
import { rng } from '../../helpers/rng'

const V: HeaderSpec = { variant: 'vanilla', peerId: 1, sentTime: 77 }
const one = (bytes: Uint8Array) => runTransport(datagrams([{ dir: 'c2s', bytes }]))

function walk(nodes: FieldNode[], fn: (n: FieldNode) => void): void {
  for (const n of nodes) {
    fn(n)
    if (n.children) walk(n.children, fn)
  }
}

/** No throw happened (we got here); ranges stay inside their sources; every error names an offset. */
function checkSane(messages: MessageOut[], frames?: number): void {
  const problems: string[] = []
  // every datagram is accounted for by at least one message
  if (frames !== undefined) {
    const seen = new Set(messages.flatMap((m) => m.frames))
    for (let f = 1; f <= frames; f++) if (!seen.has(f)) problems.push(`frame ${f} has no message`)
  }
  for (const m of messages) {
    walk(m.draft.tree.roots, (n) => {
      if (n.source === undefined) return
      const src = m.draft.sources[n.source]
      if (!src || n.start! < 0 || n.length! < 0 || n.start! + n.length! > src.bytes.length)
        problems.push(`${m.summary}: ${n.key} [${n.start}, +${n.length}] outside source ${n.source}`)
    })
    // Decode errors name a byte offset; a payload that never completed names its missing fragments instead.
    if (m.draft.error !== null && m.name !== 'Incomplete fragmented payload' && !/offset \d+/.test(m.draft.error))
      problems.push(`${m.summary}: error without offset: ${m.draft.error}`)
  }
  expect(problems).toEqual([])
}

const keys = (m: MessageOut) => {
  const out: string[] = []
  walk(m.draft.tree.roots, (n) => out.push(n.key))
  return out
}

describe('malformed ENet datagrams', () => {
  it('empty or one-byte datagrams: the header is missing', () => {
    for (const b of [new Uint8Array(0), Uint8Array.from([0x80])]) {
      const run = one(b)
      expect(run.messages).toHaveLength(1)
      expect(run.messages[0].name).toBe('Malformed datagram')
      expect(run.messages[0].draft.error).toBe(`ENet header: needs 2 bytes at offset 0, only ${b.length} present`)
      checkSane(run.messages)
    }
  })

  it('SENT_TIME flagged but cut short; checksum cut short', () => {
    let run = one(Uint8Array.from([0x80, 0x01, 0xb4]))
    expect(run.messages[0].draft.error).toBe('ENet header: the SENT_TIME flag is set but the sent time is cut short at offset 2')
    expect(keys(run.messages[0])).toContain('enet.peer_id')
    // a CONNECT with CRC-32 decides the layout; then a datagram too short for its checksum
    const c = datagram({ variant: 'vanilla', peerId: 0xfff, sentTime: 1, checksum: true }, [connect({ connectId: 1 })])
    run = runTransport(
      datagrams([
        { dir: 'c2s', bytes: c },
        { dir: 'c2s', bytes: Uint8Array.from([0x00, 0x01, 0xaa, 0xbb]) }
      ])
    )
    expect(run.messages[1].draft.error).toBe('ENet checksum: needs 4 bytes at offset 2, only 2 present')
    checkSane(run.messages)
  })

  it('a header with no command after it', () => {
    const run = one(Uint8Array.from([0x80, 0x01, 0x00, 0x10]))
    expect(run.messages.map((m) => m.name)).toEqual(['Empty datagram'])
    expect(run.messages[0].draft.error).toBe('datagram without commands: it ends after the 4-byte header, at offset 4')
    checkSane(run.messages, 1)
  })

  it('a command header cut short, and a CONNECT cut short', () => {
    let run = one(Uint8Array.from([0x00, 0x01, 0x07, 0x00]))
    expect(run.messages.map((m) => m.name)).toEqual(['Malformed command'])
    expect(run.messages[0].draft.error).toBe('command header cut short: 2 of 4 bytes at offset 2')
    const full = datagram({ variant: 'vanilla', peerId: 0xfff, sentTime: 1 }, [connect({ connectId: 1 })])
    run = one(full.subarray(0, 30))
    expect(run.messages[0].draft.error).toBe('CONNECT: needs 48 bytes at offset 4, only 26 present')
    // the command header read before the failure stays in the tree
    expect(keys(run.messages[0])).toEqual(
      expect.arrayContaining(['enet.header', 'enet.cmd', 'enet.cmd.number', 'enet.channel', 'enet.reliable_seq', 'enet.trailing'])
    )
    checkSane(run.messages)
  })

  it('dataLength running past the datagram', () => {
    const d = datagram(V, [ping(2), reliable(0, 1, envelope(60000, 0, [1, 2, 3]))])
    new DataView(d.buffer).setUint16(4 + 4 + 4, 500) // header 4, PING 4, then the SEND_RELIABLE header: dataLength at 12
    const run = one(d)
    expect(run.messages.map((m) => m.name)).toEqual(['PING', 'Malformed command'])
    expect(run.messages[1].draft.error).toBe('SEND_RELIABLE: dataLength 500 at offset 12 runs past the datagram (6 bytes left)')
    expect(run.carried.delivered).toEqual([])
    // the same for an unreliable command and a fragment
    const u = datagram(V, [unreliable(1, 0, 1, envelope(60002, 0))])
    new DataView(u.buffer).setUint16(4 + 6, 0xffff)
    expect(one(u).messages[0].draft.error).toBe('SEND_UNRELIABLE: dataLength 65535 at offset 10 runs past the datagram (3 bytes left)')
    const f = datagram(V, [
      fragment({ reliable: true, channel: 0, seq: 1, startSeq: 1, count: 2, number: 0, totalLength: 20, offset: 0, data: new Uint8Array(10), dataLength: 11 })
    ])
    expect(one(f).messages[0].draft.error).toBe('SEND_FRAGMENT: dataLength 11 at offset 10 runs past the datagram (10 bytes left)')
    checkSane(run.messages)
  })

  it('unknown command numbers stop the datagram after the commands before them', () => {
    for (const byte of [0x00, 0x0d, 0x8f, 0x4e]) {
      const d = datagram(V, [ping(2), Uint8Array.from([byte, 0, 0, 1, 9, 9])])
      const run = one(d)
      expect(run.messages.map((m) => m.name)).toEqual(['PING', 'Malformed command'])
      expect(run.messages[1].draft.error).toBe(`unknown command number ${byte & 0x0f} (byte 0x${byte.toString(16).padStart(2, '0')}) at offset 8`)
      expect(run.messages[0].draft.warnings).toContain('followed by an unreadable command at offset 8 (the next message)')
      const trailing = keys(run.messages[1])
      expect(trailing).toContain('enet.cmd.number')
      expect(trailing).toContain('enet.trailing')
      checkSane(run.messages)
    }
  })

  it('fragments with offsets outside the total, bad numbers, counts in the millions', () => {
    const f = (o: Partial<Parameters<typeof fragment>[0]>) =>
      datagram(V, [
        fragment({ reliable: true, channel: 0, seq: 1, startSeq: 1, count: 3, number: 0, totalLength: 3003, offset: 0, data: new Uint8Array(100), ...o })
      ])
    const cases: [Uint8Array, RegExp][] = [
      [f({ offset: 3000 }), /100 bytes at offset 3000 lie outside the total length 3003/],
      [f({ number: 3 }), /fragment number 3 is outside 0\.\.2/],
      // ENet itself accepts up to 1,048,576 fragments; no real payload needs more than 65536 under the 16 MiB limit
      [f({ count: 2_000_000, totalLength: 3_000_000 }), /fragment count 2000000 is over the limit of 65536/],
      [f({ count: 60_000, totalLength: 100 }), /60000 fragments for only 100 bytes/],
      [f({ count: 0 }), /fragment count 0 is not positive/],
      [f({ totalLength: 0xffffffff }), /total length 4294967295 is over the limit/]
    ]
    for (const [bytes, why] of cases) {
      const run = one(bytes)
      const m = run.messages[0]
      expect(m.name).toBe('SEND_FRAGMENT')
      expect(m.draft.error).toMatch(/^fragment rejected at offset 4: /)
      expect(m.draft.error).toMatch(why)
      expect(m.summary).toMatch(/\(rejected\)$/)
      expect(run.messages.filter((x) => x.name === 'Incomplete fragmented payload')).toEqual([])
      checkSane(run.messages)
    }
  })

  it('memory stays bounded when hundreds of huge fragmented messages never complete', () => {
    const list = Array.from({ length: 400 }, (_, i) => ({
      dir: 'c2s' as const,
      bytes: datagram(V, [
        fragment({ reliable: true, channel: 0, seq: i, startSeq: i, count: 65536, number: 5, totalLength: 16_000_000, offset: 0, data: new Uint8Array(1000) })
      ])
    }))
    // A 1 MiB cap instead of the default 64 MiB, so a few hundred datagrams reach it.
    const run = runTransport(datagrams(list), { fragmentLimits: { maxPendingBytes: 1 << 20 } })
    const gaveUp = run.messages.filter((m) => m.draft.warnings.some((w) => /held too much memory/.test(w)))
    expect(gaveUp.length).toBeGreaterThan(0)
    const incomplete = run.messages.filter((m) => m.name === 'Incomplete fragmented payload')
    expect(incomplete.length).toBeGreaterThan(0)
    expect(incomplete.some((m) => /dropped to bound memory$/.test(m.draft.error!))).toBe(true)
    checkSane(run.messages)
  })

  it('every truncation and thousands of random mutations of valid datagrams: no throw, sane errors', () => {
    const good = [
      datagram({ variant: 'vanilla', peerId: 0xfff, sentTime: 1, checksum: true }, [connect({ connectId: 0x10203040 })]),
      datagram({ variant: 'vanilla', peerId: 1, sentTime: 2, checksum: true, connectId: 0x10203040 }, [
        ack(0xff, 1, 5),
        reliable(0, 1, envelope(60000, 1, [1, 2, 3, 4])),
        unreliable(2, 1, 1, envelope(60002, 0)),
        fragment({ reliable: true, channel: 1, seq: 2, startSeq: 2, count: 2, number: 0, totalLength: 30, offset: 0, data: new Uint8Array(15) })
      ]),
      datagram({ variant: 'csharp', peerId: 1, sentTime: 2, checksum: true, connectId: 7 }, [ping(3), reliable(3, 9, envelope(60001, 2, [5]))])
    ]
    for (const g of good) {
      for (let n = 0; n <= g.length; n++) checkSane(one(g.subarray(0, n)).messages, 1)
    }
    const r = rng(99)
    for (let i = 0; i < 3000; i++) {
      const g = Uint8Array.from(good[i % good.length])
      const flips = 1 + Math.floor(r() * 4)
      for (let k = 0; k < flips; k++) g[Math.floor(r() * g.length)] = Math.floor(r() * 256)
      // a run of several datagrams, so the conversation state is exercised too
      const run = runTransport(
        datagrams([
          { dir: 'c2s', bytes: good[0] },
          { dir: 'c2s', bytes: g },
          { dir: 's2c', bytes: g }
        ])
      )
      checkSane(run.messages, 3)
    }
  })
})
