// The frame under each message (net/layers.ts) against tshark's own dissection of the committed captures:
// every frame, link, IP and UDP/TCP field gamewire records must be one tshark shows for that frame, with
// the same value at the same offset and size (`tshark -T pdml`), and the fields tshark shows must be there.

import { describe, it, expect } from 'vitest'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { DecodeSession } from '../../../src-shared/engine/session'
import type { DecodedMessage, FieldNode, FieldScalar } from '../../../src-shared/model/types'
import { checkRanges } from '../helpers/decode'
import { macText } from '../../../src-shared/net/layer-fields'

const FIXTURES = join(__dirname, '../../fixtures')
const CAPTURES = [
  'net/link-ipv4.pcap',
  'net/link-loop.pcap',
  'net/link-null.pcap',
  'net/link-raw.pcap',
  'net/link-sll.pcap',
  'net/link-sll2.pcap',
  'net/link-vlan.pcap',
  'net/loopback.pcapng',
  'net/tcp-reordered.pcapng',
  'enet/enet-fignet-loopback.pcapng',
  'sfs2x/lastwar-tcp.pcapng'
]

/** Keys compared both ways (tshark's fields must be recorded too); values shown as tshark's `show`. */
const COMPARED = new Set([
  'frame.number',
  'frame.len',
  'frame.cap_len',
  'frame.interface_id',
  'frame.interface_name',
  'frame.time_epoch',
  'eth.dst',
  'eth.src',
  'eth.type',
  'vlan.priority',
  'vlan.dei',
  'vlan.id',
  'vlan.etype',
  'sll.pkttype',
  'sll.hatype',
  'sll.halen',
  'sll.src.eth',
  'sll.unused',
  'sll.etype',
  'sll.ifindex',
  'null.family',
  'ip.version',
  'ip.hdr_len',
  'ip.dsfield',
  'ip.dsfield.dscp',
  'ip.dsfield.ecn',
  'ip.len',
  'ip.id',
  'ip.flags',
  'ip.flags.rb',
  'ip.flags.df',
  'ip.flags.mf',
  'ip.frag_offset',
  'ip.ttl',
  'ip.proto',
  'ip.checksum',
  'ip.src',
  'ip.dst',
  'ipv6.version',
  'ipv6.tclass',
  'ipv6.flow',
  'ipv6.plen',
  'ipv6.nxt',
  'ipv6.hlim',
  'ipv6.src',
  'ipv6.dst',
  'ipv6.fraghdr.nxt',
  'ipv6.fraghdr.offset',
  'ipv6.fraghdr.more',
  'ipv6.fraghdr.ident',
  'udp.srcport',
  'udp.dstport',
  'udp.length',
  'udp.checksum',
  'tcp.srcport',
  'tcp.dstport',
  'tcp.seq',
  'tcp.seq_raw',
  'tcp.ack',
  'tcp.ack_raw',
  'tcp.hdr_len',
  'tcp.flags',
  'tcp.flags.urg',
  'tcp.flags.ack',
  'tcp.flags.push',
  'tcp.flags.reset',
  'tcp.flags.syn',
  'tcp.flags.fin',
  'tcp.window_size_value',
  'tcp.checksum',
  'tcp.urgent_pointer',
  'tcp.options',
  'tcp.len'
])

interface Shown {
  pos: number
  size: number
  show: string
}

/** Per frame number, the first occurrence of each compared field in tshark's PDML. */
function tsharkFields(file: string): Map<number, Map<string, Shown>> {
  const pdml = execFileSync('tshark', ['-r', file, '-T', 'pdml'], { maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] }).toString()
  const out = new Map<number, Map<string, Shown>>()
  for (const packet of pdml.split('<packet>').slice(1)) {
    const fields = new Map<string, Shown>()
    // Stop where tshark dissects reassembled data: its offsets there are in another buffer.
    const own = packet.split(/<proto name="(?:fake-field-wrapper)"|<field name="(?:ip|ipv6)\.reassembled[._]/)[0]
    for (const m of own.matchAll(/<field name="([a-z0-9_.]+)" showname="[^"]*" size="(\d+)" pos="(\d+)" show="([^"]*)"/g)) {
      if (COMPARED.has(m[1]) && !fields.has(m[1])) fields.set(m[1], { size: Number(m[2]), pos: Number(m[3]), show: m[4] })
    }
    out.set(Number(fields.get('frame.number')!.show), fields)
  }
  return out
}

/** Our value as tshark's `show` text. */
function asShown(key: string, v: FieldScalar, shown: string): string {
  if (typeof v === 'boolean') return v ? '1' : '0'
  if (v instanceof Uint8Array) return macText(v)
  if (typeof v === 'number' && shown.startsWith('0x')) return `0x${v.toString(16).padStart(shown.length - 2, '0')}`
  // A double holds epoch seconds to a few hundred nanoseconds.
  if (key === 'frame.time_epoch') return Math.abs((v as number) - Number(shown)) < 1e-6 ? shown : String(v)
  return String(v)
}

function leaves(nodes: FieldNode[], out: FieldNode[] = []): FieldNode[] {
  for (const n of nodes) {
    if (n.value !== undefined) out.push(n)
    if (n.children) leaves(n.children, out)
  }
  return out
}

function decodeWithLayers(file: string): DecodedMessage[] {
  const messages: DecodedMessage[] = []
  const s = new DecodeSession({ layers: true, onMessage: (m) => messages.push(m) })
  s.push(new Uint8Array(readFileSync(file)))
  s.end()
  return messages
}

describe('frame layers against tshark', () => {
  for (const name of CAPTURES) {
    it(name, () => {
      const file = join(FIXTURES, name)
      const shark = tsharkFields(file)
      const messages = decodeWithLayers(file)
      expect(messages.length).toBeGreaterThan(0)
      let compared = 0
      for (const m of messages) {
        checkRanges(m)
        const groups = m.tree.slice(0, m.layerSources)
        // One group per frame, in the message's frame order, each over its own `Frame N` source.
        expect(groups.map((g) => g.key)).toEqual(m.frames.map(() => 'frame'))
        expect(m.sources.slice(0, m.layerSources).map((s) => s.name)).toEqual(m.frames.map((n) => `Frame ${n}`))
        groups.forEach((g, i) => {
          expect(g.source).toBe(i)
          const theirs = shark.get(m.frames[i])!
          const ours = leaves([g])
          const fragment = ours.some(
            (n) => (n.key === 'ip.flags.mf' && n.value === true) || (n.key === 'ip.frag_offset' && n.value !== 0) || n.key === 'ipv6.fraghdr.offset'
          )
          const mine = new Map<string, FieldNode>()
          for (const n of ours) if (COMPARED.has(n.key) && !mine.has(n.key)) mine.set(n.key, n)
          for (const [key, n] of mine) {
            // tshark dissects a datagram's UDP header in the frame that completes it; gamewire in the frame holding it.
            if (fragment && (key.startsWith('udp.') || key.startsWith('tcp.'))) continue
            // A pcap file has no interface blocks: tshark shows no interface there.
            if (key === 'frame.interface_id' && name.endsWith('.pcap')) continue
            const t = theirs.get(key)
            expect(t, `frame ${m.frames[i]}: tshark has no ${key}`).toBeDefined()
            expect([key, asShown(key, n.value!, t!.show), n.start, n.length], `frame ${m.frames[i]}`).toEqual([key, t!.show, t!.pos, t!.size])
            compared++
          }
          for (const key of theirs.keys()) {
            if (fragment || key === 'frame.interface_name') continue
            expect(mine.has(key), `frame ${m.frames[i]}: ${key} (tshark) not recorded`).toBe(true)
          }
        })
      }
      expect(compared).toBeGreaterThan(messages.length * 8)
    })
  }
})

describe('a message over several frames', () => {
  it('has one frame group per frame, each over its own Frame N source, and its own fields move past them', () => {
    const file = join(FIXTURES, 'net/loopback.pcapng')
    const plain = new Map<number, DecodedMessage>()
    const s = new DecodeSession({ onMessage: (m) => plain.set(m.id, m) })
    s.push(new Uint8Array(readFileSync(file)))
    s.end()
    // Frames 5, 6 and 7 are one UDP datagram in three IPv4 fragments (tshark: "Fragmented IP protocol" ×2, then UDP).
    const m = decodeWithLayers(file).find((x) => x.frames.join() === '5,6,7')!
    expect(m).toBeDefined()
    expect(m.layerSources).toBe(3)
    expect(m.sources.map((x) => x.name)).toEqual(['Frame 5', 'Frame 6', 'Frame 7', ...plain.get(m.id)!.sources.map((x) => x.name)])
    const groups = m.tree.slice(0, 3)
    expect(groups.map((g) => [g.source, g.start, g.length])).toEqual([
      [0, 0, 1410],
      [1, 0, 1410],
      [2, 0, 290]
    ])
    const keys = (g: FieldNode) => leaves([g]).map((n) => n.key)
    // The UDP header is in the first fragment only; every frame has its IP header.
    expect(groups.map((g) => keys(g).includes('udp.srcport'))).toEqual([true, false, false])
    expect(groups.map((g) => leaves([g]).find((n) => n.key === 'ip.frag_offset')!.value)).toEqual([0, 172, 344])
    // The message's own tree is the one decoded without layers, its sources shifted by three.
    const own = m.tree.slice(3)
    const before = plain.get(m.id)!.tree
    expect(own.length).toBe(before.length)
    expect(own[0].source).toBe(3)
  })
})
