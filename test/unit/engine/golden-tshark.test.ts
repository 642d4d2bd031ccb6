// Golden tests of the network layers against tshark, on captures of real loopback traffic
// (test/fixtures/make-net-fixtures.mjs). tshark is the independent oracle: conversations, frame numbers,
// UDP payloads (after IP reassembly), reassembled TCP streams and WebSocket messages must agree.

import { describe, it, expect } from 'vitest'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { inflateRawSync, constants as zlibConstants } from 'node:zlib'
import { join } from 'node:path'
import { decodeFile } from '../helpers/decode'
import { TCP_OVERLAP_C2S, TCP_OVERLAP_S2C, tcpOverlapPcapng } from '../../fixtures/net/build-tcp-overlap'
import { toHex } from '../../../src-shared/bytes/tree'
import type { DecodedMessage } from '../../../src-shared/model/types'

const NET = join(__dirname, '../../fixtures/net')

function tshark(args: string[]): string {
  return execFileSync('tshark', args, { maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] }).toString()
}

const FIELDS = [
  'frame.number',
  'frame.len',
  'ip.src',
  'ip.dst',
  'ipv6.src',
  'ipv6.dst',
  'udp.srcport',
  'udp.dstport',
  'tcp.srcport',
  'tcp.dstport',
  'udp.payload',
  'ip.reassembled_in',
  'ipv6.reassembled.in',
  'udp.stream',
  'tcp.stream'
]
type Row = Record<string, string>

function tsharkRows(file: string): Row[] {
  const out = tshark(['-2', '-r', file, '-T', 'fields', '-E', 'separator=/t', '-E', 'occurrence=l', ...FIELDS.flatMap((f) => ['-e', f])])
  return out
    .trim()
    .split('\n')
    .map((line) => Object.fromEntries(line.split('\t').map((v, i) => [FIELDS[i], v])))
}

const endpoint = (ip: string, port: string) => (ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`)

/** tshark's conversations, with fragment frames counted in the conversation of the datagram they complete. */
function tsharkConversations(rows: Row[]): Map<string, { frames: number; bytes: number }> {
  const byFrame = new Map(rows.map((r) => [r['frame.number'], r]))
  const convs = new Map<string, { frames: number; bytes: number }>()
  for (const r of rows) {
    const owner = byFrame.get(r['ip.reassembled_in'] || r['ipv6.reassembled.in'] || r['frame.number'])!
    const transport = owner['udp.srcport'] ? 'udp' : owner['tcp.srcport'] ? 'tcp' : ''
    if (!transport) continue
    const src = endpoint(owner['ip.src'] || owner['ipv6.src'], owner[`${transport}.srcport`])
    const dst = endpoint(owner['ip.dst'] || owner['ipv6.dst'], owner[`${transport}.dstport`])
    const key = `${transport} ${[src, dst].sort().join(' ')}`
    const c = convs.get(key) ?? { frames: 0, bytes: 0 }
    c.frames++
    c.bytes += Number(r['frame.len'])
    convs.set(key, c)
  }
  return convs
}

/** `tshark -z follow,tcp,raw` as the bytes each side sent. */
function tsharkFollow(file: string, stream: number): { client: string; server: string } {
  const out = tshark(['-r', file, '-q', '-z', `follow,tcp,raw,${stream}`])
  const lines = out.split('\n').filter((l) => /^\t?[0-9a-f]+$/.test(l))
  return {
    client: lines.filter((l) => !l.startsWith('\t')).join(''),
    server: lines
      .filter((l) => l.startsWith('\t'))
      .map((l) => l.slice(1))
      .join('')
  }
}

function streamOf(messages: DecodedMessage[], conv: number, dir: string): string {
  return messages
    .filter((m) => m.conversation === conv && m.direction === dir)
    .map((m) => {
      if (m.protocol === 'unknown') return toHex((m.value as { hex: Uint8Array }).hex)
      // The HTTP upgrade of a fake-preamble connection is part of the raw stream too.
      if (m.name.startsWith('HTTP')) return toHex(m.sources[0].bytes)
      return ''
    })
    .join('')
}

const FIXTURES = [
  'loopback.pcapng',
  'link-raw.pcap',
  'link-ipv4.pcap',
  'link-null.pcap',
  'link-loop.pcap',
  'link-sll.pcap',
  'link-sll2.pcap',
  'link-vlan.pcap',
  'tcp-reordered.pcapng',
  'tcp-overlap.pcapng'
]

describe.each(FIXTURES)('%s against tshark', (name) => {
  const file = join(NET, name)
  const ours = decodeFile(file)
  const rows = tsharkRows(file)

  it('reads every frame tshark reads', () => {
    expect(ours.frames).toBe(rows.length)
  })

  it('finds the same conversations with the same frame and byte counts', () => {
    const expected = tsharkConversations(rows)
    const actual = new Map(ours.conversations.map((c) => [`${c.transport} ${[c.client, c.server].sort().join(' ')}`, { frames: c.frames, bytes: c.bytes }]))
    expect(actual).toEqual(expected)
  })

  it('gives every UDP datagram, reassembled from its IP fragments, with all its frames', () => {
    const byFrame = new Map(rows.map((r) => [r['frame.number'], r]))
    const expected = rows
      .filter((r) => r['udp.srcport'])
      .map((r) => {
        const frames = rows.filter((f) => (f['ip.reassembled_in'] || f['ipv6.reassembled.in']) === r['frame.number']).map((f) => Number(f['frame.number']))
        if (!frames.includes(Number(r['frame.number']))) frames.push(Number(r['frame.number']))
        return { frames: frames.sort((a, b) => a - b), hex: r['udp.payload'] }
      })
    const actual = ours.messages.filter((m) => m.stack[0] === 'udp').map((m) => ({ frames: m.frames, hex: toHex((m.value as { hex: Uint8Array }).hex) }))
    expect(actual).toEqual(expected)
    expect(byFrame.size).toBe(rows.length)
  })
})

describe('TCP stream reassembly against tshark', () => {
  it('reassembles plain TCP streams byte for byte, both directions (IPv4 and IPv6)', () => {
    const file = join(NET, 'loopback.pcapng')
    const ours = decodeFile(file)
    const tcpConvs = ours.conversations.filter((c) => c.transport === 'tcp' && c.stack.length === 1)
    expect(tcpConvs.length).toBe(2)
    for (const c of tcpConvs) {
      const stream = Number(
        tsharkRows(file).find((r) => r['tcp.srcport'] && [endpoint(r['ip.src'] || r['ipv6.src'], r['tcp.srcport'])].includes(c.client))!['tcp.stream']
      )
      const follow = tsharkFollow(file, stream)
      expect(follow.client.length).toBeGreaterThan(0)
      expect(streamOf(ours.messages, c.id, 'c2s')).toBe(follow.client)
      expect(streamOf(ours.messages, c.id, 's2c')).toBe(follow.server)
    }
  })

  it('puts reordered and retransmitted segments back in sequence (oracle: tshark on the original in-order capture)', () => {
    // tcp-reordered.pcapng is the 40003 connection with segments moved and one repeated (mergecap);
    // tshark's follow does not reorder, so the expected bytes come from the untouched capture.
    const original = join(NET, 'loopback.pcapng')
    const stream = Number(tsharkRows(original).find((r) => r['tcp.dstport'] === '40003')!['tcp.stream'])
    const expected = tsharkFollow(original, stream)
    const ours = decodeFile(join(NET, 'tcp-reordered.pcapng'))
    const conv = ours.conversations[0]
    expect(ours.conversations).toHaveLength(1)
    expect(streamOf(ours.messages, conv.id, 'c2s')).toBe(expected.client)
    expect(streamOf(ours.messages, conv.id, 's2c')).toBe(expected.server)
    expect(conv.notes.some((n) => /retransmitted/.test(n))).toBe(true)
    expect(conv.notes.some((n) => /out-of-order/.test(n))).toBe(true)
  })

  it('trims partial overlaps and drops retransmissions at their exact boundaries (tcp-overlap.pcapng, hand-built; oracle: tshark follow)', () => {
    const file = join(NET, 'tcp-overlap.pcapng')
    expect(Buffer.from(tcpOverlapPcapng()).equals(readFileSync(file)), 'committed file = build-tcp-overlap.ts output').toBe(true)
    const follow = tsharkFollow(file, 0)
    // tshark agrees with what the sender sent (the generator's streams) ...
    expect(follow.client).toBe(toHex(TCP_OVERLAP_C2S))
    expect(follow.server).toBe(toHex(TCP_OVERLAP_S2C))
    // ... and so does gamewire
    const ours = decodeFile(file)
    expect(ours.conversations).toHaveLength(1)
    const conv = ours.conversations[0]
    expect(conv.stack).toEqual(['tcp'])
    expect(streamOf(ours.messages, conv.id, 'c2s')).toBe(follow.client)
    expect(streamOf(ours.messages, conv.id, 's2c')).toBe(follow.server)
    // counted from the generator's plan: 500-1000 again, 300-700 and 1400-2100 bring nothing new (two of them
    // end exactly at the delivered end); 1700-2100 and 1550-1800 wait behind the hole; overlaps are not retransmissions
    expect(conv.notes).toEqual(['3 retransmitted TCP segments ignored', '2 out-of-order TCP segments reordered'])
  })

  it('recognises the one-shot HTTP upgrade preamble and hands on the raw bytes after it', () => {
    const file = join(NET, 'loopback.pcapng')
    const ours = decodeFile(file)
    const conv = ours.conversations.find((c) => c.server.endsWith(':40007'))!
    expect(conv.stack).toEqual(['tcp', 'http-preamble'])
    const stream = Number(tsharkRows(file).find((r) => r['tcp.dstport'] === '40007')!['tcp.stream'])
    const follow = tsharkFollow(file, stream)
    expect(streamOf(ours.messages, conv.id, 'c2s')).toBe(follow.client)
    expect(streamOf(ours.messages, conv.id, 's2c')).toBe(follow.server)
    const raw = ours.messages.filter((m) => m.conversation === conv.id && m.protocol === 'unknown')
    expect(raw.map((m) => toHex((m.value as { hex: Uint8Array }).hex))).toEqual([
      '800004' + toHex(new TextEncoder().encode('ping')),
      '800005' + toHex(new TextEncoder().encode('reply'))
    ])
  })
})

describe('WebSocket against tshark', () => {
  const file = join(NET, 'loopback.pcapng')
  const ours = decodeFile(file)
  const WS_FIELDS = ['tcp.stream', 'tcp.srcport', 'websocket.opcode', 'websocket.payload.text', 'data.data', 'websocket.payload.close.status_code']

  for (const [port, deflate] of [
    ['40005', false],
    ['40006', true]
  ] as const) {
    it(`decodes every message of the session on ${port} (${deflate ? 'permessage-deflate' : 'no compression'}) exactly as tshark does`, () => {
      const conv = ours.conversations.find((c) => c.server.endsWith(`:${port}`))!
      expect(conv.stack).toEqual(['tcp', 'websocket'])
      const rows = tshark([
        '-r',
        file,
        '-Y',
        `websocket && tcp.port == ${port}`,
        '-T',
        'fields',
        '-E',
        'separator=/t',
        '-E',
        'aggregator=|',
        ...WS_FIELDS.flatMap((f) => ['-e', f])
      ])
        .trim()
        .split('\n')
        .map((l) => l.split('\t'))
      for (const dir of ['c2s', 's2c'] as const) {
        const fromClient = (srcport: string) => srcport !== port
        // tshark puts text payloads in websocket.payload.text and binary (joined, inflated) ones in data.data.
        // tshark 4.0 joins a fragmented compressed message but does not inflate it: node:zlib does that.
        const inflateIfFragmented = (r: string[], hex: string) =>
          deflate && r[2].split('|').includes('0')
            ? inflateRawSync(Buffer.from(hex + '0000ffff', 'hex'), { finishFlush: zlibConstants.Z_SYNC_FLUSH }).toString('hex')
            : hex
        const expected = rows
          .filter((r) => fromClient(r[1]) === (dir === 'c2s'))
          .flatMap((r) => [
            ...(r[3] ? r[3].split('|').map((t) => toHex(new TextEncoder().encode(t))) : []),
            ...(r[4] ? r[4].split('|').map((h) => inflateIfFragmented(r, h)) : [])
          ])
          .sort()
        const actual = ours.messages
          .filter((m) => m.conversation === conv.id && m.direction === dir && m.protocol === 'unknown')
          .map((m) => toHex((m.value as { hex: Uint8Array }).hex))
          .sort()
        expect(actual).toEqual(expected)
        expect(actual.length).toBeGreaterThanOrEqual(5)
      }
      const names = ours.messages.filter((m) => m.conversation === conv.id && m.protocol === 'websocket').map((m) => `${m.direction} ${m.name}`)
      expect(names).toEqual(
        expect.arrayContaining([
          'c2s HTTP Upgrade request',
          's2c HTTP 101 response',
          'c2s WebSocket Ping',
          's2c WebSocket Pong',
          'c2s WebSocket Close',
          's2c WebSocket Close'
        ])
      )
      const upgrade = ours.messages.find((m) => m.conversation === conv.id && m.name === 'HTTP Upgrade request')!
      expect(upgrade.value).toMatchObject({ path: '/BlueBox/websocket', protocols: ['gamewire-test'] })
    })
  }

  it('keeps byte ranges that point at the right bytes of each source', () => {
    const msg = ours.messages.find((m) => m.protocol === 'unknown' && m.stack.includes('websocket'))!
    const walk = (nodes: DecodedMessage['tree']): void => {
      for (const n of nodes) {
        if (n.source !== undefined) {
          const src = msg.sources[n.source]
          expect(n.start! + n.length!).toBeLessThanOrEqual(src.bytes.length)
          if (n.key === 'data.data') expect(toHex(src.bytes.subarray(n.start!, n.start! + n.length!))).toBe(toHex((msg.value as { hex: Uint8Array }).hex))
          if (n.key === 'websocket.opcode') expect(src.bytes[n.start!] & 0x0f).toBe(n.value)
        }
        walk(n.children ?? [])
      }
    }
    walk(msg.tree)
  })
})
