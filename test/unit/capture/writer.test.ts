// PcapngWriter: tshark must read what it writes (frames, times, lengths, comments, interfaces), and
// CaptureReader must read it back to the same frames.

import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PcapngWriter, type PcapngWriterFrame, type PcapngWriterInterface } from '../../../src-shared/capture'
import { epoch, hex, readCapture } from './helpers'

const interfaces: PcapngWriterInterface[] = [
  { linkType: 1, name: 'eth0 — game', snapLen: 65535 }, // µs (default)
  { linkType: 101, name: 'raw', tsUnitsPerSecond: 1e9 },
  { linkType: 113, snapLen: 0 } // no name, µs
]

function bytesOf(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(n)
  for (let i = 0; i < n; i++) b[i] = (seed * 131 + i * 17) & 0xff
  if (n > 0) b[0] = 0x45 // looks like IPv4 on the raw interface
  return b
}

const frames: PcapngWriterFrame[] = [
  { interfaceId: 0, tsSec: 1704164645, tsNsec: 123456789, data: bytesOf(60, 1), comments: ['first'] },
  { interfaceId: 1, tsSec: 1704164645, tsNsec: 123456789, data: bytesOf(1, 2) },
  { interfaceId: 1, tsSec: 1704164646, tsNsec: 999999999, data: bytesOf(2, 3), originalLength: 1500, comments: ['snapped', 'two comments', 'héllo ✓'] },
  { interfaceId: 2, tsSec: 4294967296, tsNsec: 1000, data: bytesOf(3, 4) }, // past 2^32 s
  { interfaceId: 0, tsSec: 0, tsNsec: 0, data: new Uint8Array(0) },
  { interfaceId: 2, tsSec: 1704164647, tsNsec: 5, data: bytesOf(5, 6) },
  { interfaceId: 1, tsSec: 1704164648, tsNsec: 7, data: bytesOf(61, 7) }
]
// A second section: header() again, new interface list.
const section2: PcapngWriterInterface[] = [{ linkType: 101, tsUnitsPerSecond: 1e9, name: 'second section' }]
const frames2: PcapngWriterFrame[] = [{ interfaceId: 0, tsSec: 1704164650, tsNsec: 1, data: bytesOf(20, 8), comments: ['in section 2'] }]

function writeAll(): Uint8Array {
  const w = new PcapngWriter()
  const parts = [w.header(interfaces, { comment: 'written by gamewire', application: 'gamewire test' }), ...frames.map((f) => w.frame(f))]
  parts.push(w.header(section2), ...frames2.map((f) => w.frame(f)))
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let o = 0
  for (const p of parts) {
    out.set(p, o)
    o += p.length
  }
  return out
}

/** What a reader should see: µs interfaces drop sub-µs digits. */
function expected(f: PcapngWriterFrame, units: number): { time: string; len: number; capLen: number; comments: string[]; hex: string } {
  const nsec = units === 1e9 ? f.tsNsec : Math.floor(f.tsNsec / 1000) * 1000
  return {
    time: epoch({ tsSec: f.tsSec, tsNsec: nsec }),
    len: f.originalLength ?? f.data.length,
    capLen: f.data.length,
    comments: f.comments ?? [],
    hex: hex(f.data)
  }
}

const allExpected = [...frames.map((f) => expected(f, interfaces[f.interfaceId].tsUnitsPerSecond ?? 1e6)), ...frames2.map((f) => expected(f, 1e9))]

describe('PcapngWriter', () => {
  const bytes = writeAll()

  it('pads every block to 32 bits', () => {
    expect(bytes.length % 4).toBe(0)
  })

  it('round-trips through CaptureReader', () => {
    const r = readCapture(bytes, 7)
    expect(r.warnings).toEqual([])
    expect(r.format).toBe('pcapng')
    expect(r.interfaces.map((i) => ({ name: i.name, linkType: i.linkType, snapLen: i.snapLen, units: i.tsUnitsPerSecond, section: i.section }))).toEqual([
      { name: 'eth0 — game', linkType: 1, snapLen: 65535, units: 1e6, section: 0 },
      { name: 'raw', linkType: 101, snapLen: 262144, units: 1e9, section: 0 },
      { name: undefined, linkType: 113, snapLen: 0, units: 1e6, section: 0 },
      { name: 'second section', linkType: 101, snapLen: 262144, units: 1e9, section: 1 }
    ])
    const got = r.frames.map((f) => ({ time: epoch(f), len: f.originalLength, capLen: f.data.length, comments: f.comments ?? [], hex: hex(f.data) }))
    expect(got).toEqual(allExpected)
    expect(r.frames.map((f) => f.interfaceId)).toEqual([...frames.map((f) => f.interfaceId), 3])
  })

  it('rejects frames it cannot represent', () => {
    const w = new PcapngWriter()
    expect(() => w.frame({ interfaceId: 0, tsSec: 0, tsNsec: 0, data: new Uint8Array(1) })).toThrow(/not declared/)
    w.header([{ linkType: 1 }])
    expect(() => w.frame({ interfaceId: 1, tsSec: 0, tsNsec: 0, data: new Uint8Array(1) })).toThrow(RangeError)
    expect(() => w.frame({ interfaceId: 0, tsSec: -1, tsNsec: 0, data: new Uint8Array(1) })).toThrow(/tsSec/)
    expect(() => w.frame({ interfaceId: 0, tsSec: 0, tsNsec: 1e9, data: new Uint8Array(1) })).toThrow(/tsNsec/)
    expect(() => w.frame({ interfaceId: 0, tsSec: 0, tsNsec: 0, data: new Uint8Array(4), originalLength: 3 })).toThrow(/originalLength/)
    expect(() => w.frame({ interfaceId: 0, tsSec: 0, tsNsec: 0, data: new Uint8Array(1), comments: ['x'.repeat(70000)] })).toThrow(/65535/)
    expect(() => w.header([{ linkType: 70000 }])).toThrow(/link type/)
  })
})

// tshark is a test requirement (CI installs it): without it this fails rather than passing silently.
describe('PcapngWriter output read by tshark', () => {
  let dir = ''
  let file = ''
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gamewire-writer-'))
    file = join(dir, 'written.pcapng')
    writeFileSync(file, writeAll())
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('reads every frame as written', () => {
    const r = spawnSync('tshark', ['-n', '-r', file, '-T', 'json', '-x', '--no-duplicate-keys'], { encoding: 'utf8', maxBuffer: 16 << 20 })
    expect(r.status, r.stderr).toBe(0)
    type Layers = { frame: Record<string, string>; frame_raw?: [string]; pkt_comment?: { 'frame.comment': string | string[] } }
    const packets = JSON.parse(r.stdout) as { _source: { layers: Layers } }[]
    const got = packets.map(({ _source: { layers: l } }) => {
      const c = l.pkt_comment?.['frame.comment'] ?? []
      return {
        time: l.frame['frame.time_epoch'],
        len: Number(l.frame['frame.len']),
        capLen: Number(l.frame['frame.cap_len']),
        comments: Array.isArray(c) ? c : [c],
        hex: l.frame_raw?.[0] ?? ''
      }
    })
    expect(got).toEqual(allExpected)
    const where = packets.map(({ _source: { layers: l } }) => [
      Number(l.frame['frame.section_number']),
      Number(l.frame['frame.interface_id']),
      l.frame['frame.encap_type']
    ])
    expect(where).toEqual([
      [1, 0, '1'],
      [1, 1, '7'],
      [1, 1, '7'],
      [1, 2, '25'],
      [1, 0, '1'],
      [1, 2, '25'],
      [1, 1, '7'],
      [2, 0, '7']
    ])
  })

  it('reads the section comment, application and interfaces', () => {
    const r = spawnSync('capinfos', ['-M', file], { encoding: 'utf8' })
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/Capture comment:\s+written by gamewire/)
    expect(r.stdout).toMatch(/Capture application:\s+gamewire test/)
    expect(r.stdout).toMatch(/Name = eth0 — game/)
    expect(r.stdout).toMatch(/Time ticks per second = 1000000000/)
  })
})
