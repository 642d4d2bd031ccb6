// The protocol column through the CLI (built output, as users run it): `stats` counts ENet's own messages
// as `enet`, and `--decode-as CONV=enet|litenetlib` runs the transport alone.
import { beforeAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pcapngBytes } from '../../fixtures/ui/build-captures'
import { resetFrames, udpFrame } from '../helpers/frames'
import { channelId, DELIVERY, packets, socketAddress, ticksAt } from '../protocols/litenetlib/encoder'

import { ROOT, gw } from '../helpers/cli'
const ENET = join(ROOT, 'test/fixtures/enet/enet-fignet-loopback.pcapng')
const tmp = mkdtempSync(join(tmpdir(), 'gw-transport-'))

interface Line {
  protocol: string
  stack: string[]
  name: string
  summary: string
  tree?: { key: string; children?: unknown[] }[]
}

function ndjson(out: string): { messages: Line[]; summary: { conversations: { protocol: string; stack: string[]; notes?: string[] }[] } } {
  const lines = out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
  return { summary: lines.pop().summary, messages: lines }
}

const keys = (nodes: unknown[] = [], acc: string[] = []): string[] => {
  for (const n of nodes as { key: string; children?: unknown[] }[]) {
    acc.push(n.key)
    keys(n.children, acc)
  }
  return acc
}

/** A LiteNetLib 1.x session carrying one FigNet envelope (Ping 60002) among transport packets. */
function liteNetLibCapture(): string {
  resetFrames()
  const p = packets('1.x')
  const C = '10.0.0.1'
  const S = '10.0.0.2'
  const t = ticksAt(1_700_000_000)
  const ro = channelId(0, DELIVERY.ReliableOrdered)
  const frames = [
    udpFrame(C, 50000, S, 9050, p.connectRequest({ connectionTime: t, address: socketAddress(S, 9050) })),
    udpFrame(S, 9050, C, 50000, p.connectAccept({ connectionTime: t, connectionNumber: 0 })),
    udpFrame(C, 50000, S, 9050, p.channeled(1, ro, Uint8Array.from([0x62, 0xea, 0, 1, 1]))),
    udpFrame(S, 9050, C, 50000, p.ackWindow(ro, 0, [1])),
    udpFrame(C, 50000, S, 9050, p.ping(1))
  ]
  const file = join(tmp, 'litenetlib.pcapng')
  writeFileSync(file, pcapngBytes(frames))
  return file
}

beforeAll(() => {
  try {
    statSync(join(ROOT, 'out/main/cli.js'))
  } catch {
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' })
  }
})

describe('protocols through the CLI', () => {
  it('stats counts the ENet capture as 31 enet and 7 fignet messages in one fignet conversation', () => {
    const r = gw('stats', ENET, '--json')
    expect(r.code).toBe(0)
    const s = JSON.parse(r.stdout)
    expect(s.protocols).toEqual({ enet: 31, fignet: 7 })
    expect(s.conversations[0]).toMatchObject({ protocol: 'fignet', stack: ['udp', 'enet', 'fignet'] })
    expect(gw('stats', ENET).stdout).toMatch(/^messages: 38 \(enet 31, fignet 7\)/m)
  })

  it('--decode-as CONV=enet decodes ENet alone: no FigNet, payloads as enet.data', () => {
    const r = gw('decode', ENET, '--decode-as', '127.0.0.1:17777=enet', '--format', 'ndjson')
    expect(r.code).toBe(0)
    const { messages, summary } = ndjson(r.stdout)
    expect(summary.conversations[0]).toMatchObject({ protocol: 'enet', stack: ['udp', 'enet'], notes: ['decoded as ENet (forced)'] })
    expect(messages).toHaveLength(38)
    expect(new Set(messages.map((m) => m.protocol))).toEqual(new Set(['enet']))
    expect(messages.flatMap((m) => keys(m.tree)).filter((k) => k.startsWith('fignet.'))).toEqual([])
    expect(messages.filter((m) => keys(m.tree).includes('enet.data') && m.name.startsWith('SEND_RELIABLE')).map((m) => m.summary)).toEqual([
      'SEND_RELIABLE ch0 seq=1: 14 bytes of data',
      'SEND_RELIABLE ch0 seq=1: 4 bytes of data'
    ])
  })

  it('--decode-as CONV=litenetlib decodes LiteNetLib alone; detection makes the same capture fignet', () => {
    const file = liteNetLibCapture()
    const auto = ndjson(gw('decode', file, '--format', 'ndjson', '--tree', 'none').stdout)
    expect(auto.messages.map((m) => `${m.protocol} ${m.name}`)).toEqual([
      'litenetlib ConnectRequest',
      'litenetlib ConnectAccept',
      'fignet Ping',
      'litenetlib Ack',
      'litenetlib Ping'
    ])
    expect(auto.summary.conversations[0]).toMatchObject({ protocol: 'fignet', stack: ['udp', 'litenetlib', 'fignet'] })
    const r = gw('decode', file, '--decode-as', '10.0.0.2:9050=litenetlib', '--format', 'ndjson')
    expect(r.code).toBe(0)
    const forced = ndjson(r.stdout)
    expect(forced.summary.conversations[0]).toMatchObject({ protocol: 'litenetlib', stack: ['udp', 'litenetlib'], notes: ['decoded as LiteNetLib (forced)'] })
    expect(forced.messages.map((m) => `${m.protocol} ${m.name}`)).toEqual([
      'litenetlib ConnectRequest',
      'litenetlib ConnectAccept',
      'litenetlib Channeled',
      'litenetlib Ack',
      'litenetlib Ping'
    ])
    expect(forced.messages[2].summary).toBe('Channeled ch=0 ReliableOrdered seq=1: 5-byte payload')
    expect(keys(forced.messages[2].tree)).toContain('litenetlib.payload')
    // an id nothing registers is still refused with the note it always had
    const none = ndjson(gw('decode', file, '--decode-as', '10.0.0.2:9050=enet2', '--format', 'ndjson').stdout)
    expect(none.summary.conversations[0].notes?.[0]).toBe('decode as enet2: no such protocol, detecting instead')
  })
})
