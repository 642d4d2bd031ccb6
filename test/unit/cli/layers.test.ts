// `gamewire decode --layers` as users run it (the built bin): each message's frames first in its tree and
// sources, the same bytes from one engine and from shards; without it the export is what it always was,
// even when the filter reads layer fields.
import { describe, it, expect, beforeAll } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { ROOT, gw } from '../helpers/cli'
import { tsharkFrameLengths, writeCutCapture } from '../helpers/frame-lengths'
const LOOPBACK = join(ROOT, 'test/fixtures/net/loopback.pcapng')

beforeAll(() => {
  try {
    statSync(join(ROOT, 'out/main/cli.js'))
  } catch {
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' })
  }
})

describe('gamewire decode --layers', () => {
  it('puts the frame, link, IP and UDP/TCP fields of every frame first, with Frame N sources', () => {
    const r = gw('decode', LOOPBACK, '--layers', '--jobs', '1')
    expect(r.code).toBe(0)
    const doc = JSON.parse(r.stdout)
    const m = doc.messages[0]
    expect(m.frames).toEqual([1])
    expect(m.sources).toEqual([
      { name: 'Frame 1', length: 47 },
      { name: 'UDP payload', length: 5 }
    ])
    const frame = m.tree[0]
    expect(frame).toMatchObject({
      key: 'frame',
      label: 'Frame 1: 47 bytes on wire (376 bits), 47 bytes captured (376 bits) on interface lo, id 0',
      source: 0,
      start: 0,
      length: 47
    })
    expect(frame.children.map((n: any) => n.key)).toEqual([
      'frame.interface_id',
      'frame.interface_name',
      'frame.time',
      'frame.time_epoch',
      'frame.number',
      'frame.len',
      'frame.cap_len',
      'eth',
      'ip',
      'udp'
    ])
    const ip = frame.children.find((n: any) => n.key === 'ip')
    expect(ip.children.find((n: any) => n.key === 'ip.ttl')).toEqual({
      key: 'ip.ttl',
      label: 'Time to live: 64',
      type: 'u8',
      value: 64,
      source: 0,
      start: 22,
      length: 1,
      children: []
    })
    const udp = frame.children.find((n: any) => n.key === 'udp')
    expect(udp.children.find((n: any) => n.key === 'udp.srcport')).toMatchObject({ value: 46174, source: 0, start: 34, length: 2 })
    // The protocol's own tree follows, pointing at the UDP payload (now source 1).
    expect(m.tree[1]).toMatchObject({ key: 'data.data', source: 1, start: 0, length: 5 })
  })

  it('gives the same bytes with shards as with one engine, with and without a filter on layer fields', () => {
    for (const extra of [[], ['-Y', 'ip.ttl == 64 || ipv6.hlim == 64'], ['-Y', 'frame.len > 1000', '--format', 'ndjson']]) {
      const one = gw('decode', LOOPBACK, '--layers', '--jobs', '1', ...extra)
      const two = gw('decode', LOOPBACK, '--layers', '--jobs', '2', ...extra)
      expect(one.code).toBe(0)
      expect(two.stdout, extra.join(' ')).toBe(one.stdout)
    }
  })

  it('names interfaces and keeps frame comments (pcapng), with shards too', () => {
    const comments = (jobs: string) =>
      gw('decode', join(ROOT, 'test/fixtures/capture/pcapng-comments.pcapng'), '--layers', '--format', 'ndjson', '--jobs', jobs)
    const one = comments('1')
    expect(comments('2').stdout).toBe(one.stdout)
    const found = [...one.stdout.matchAll(/"key":"frame\.comment","label":"Comment: ([^"]*)"/g)].map((m) => m[1])
    // editcap wrote these (test/fixtures/make-capture-fixtures.mjs); tshark reads the same.
    const shark = execFileSync('tshark', ['-r', join(ROOT, 'test/fixtures/capture/pcapng-comments.pcapng'), '-T', 'fields', '-e', 'frame.comment'], {
      stdio: ['ignore', 'pipe', 'ignore']
    }).toString()
    const expected = shark.split('\n').flatMap((l) => (l ? l.split(',') : []))
    expect(found.length).toBeGreaterThan(0)
    expect(new Set(found)).toEqual(new Set(expected.map((s) => JSON.stringify(s).slice(1, -1))))
    const two = (jobs: string) =>
      gw('decode', join(ROOT, 'test/fixtures/capture/pcapng-two-interfaces.pcapng'), '--layers', '--format', 'ndjson', '--jobs', jobs)
    const names = [...two('2').stdout.matchAll(/"key":"frame\.interface_name","label":"[^"]*","type":"string","value":"([^"]*)"/g)].map((m) => m[1])
    const sharkNames = execFileSync(
      'tshark',
      ['-r', join(ROOT, 'test/fixtures/capture/pcapng-two-interfaces.pcapng'), '-T', 'fields', '-e', 'frame.interface_name'],
      { stdio: ['ignore', 'pipe', 'ignore'] }
    )
      .toString()
      .trim()
      .split('\n')
    expect(names.length).toBeGreaterThan(0)
    for (const n of names) expect(sharkNames).toContain(n)
    expect(two('1').stdout).toBe(two('2').stdout)
  })

  it('without --layers the export has no frame groups, also when the filter reads them', () => {
    const plain = gw('decode', LOOPBACK, '--format', 'ndjson', '--jobs', '1')
    expect(plain.stdout).not.toContain('"key":"frame"')
    for (const jobs of ['1', '2']) {
      const filtered = gw('decode', LOOPBACK, '--format', 'ndjson', '-Y', 'frame.len > 1000 && ip.ttl == 64', '--jobs', jobs)
      expect(filtered.code).toBe(0)
      const lines = filtered.stdout.trim().split('\n').slice(0, -1)
      expect(lines.length).toBeGreaterThan(0)
      const plainLines = new Set(plain.stdout.trim().split('\n'))
      for (const l of lines) expect(plainLines.has(l), l.slice(0, 80)).toBe(true)
    }
  })

  // frame.len and frame.cap_len come from the frames' lengths as the decode reads them, with no trees.
  it.each([
    ['resources/demo.pcapng', 'of the three protocols'],
    ['test/fixtures/sfs2x/vanilla-tcp.pcapng', 'several to a message'],
    ['test/fixtures/net/tcp-overlap.pcapng', 'overlapping and retransmitted'],
    ['', 'cut by a snapshot length']
  ])("filters on each message's frame lengths as tshark reads them, without layers (%s, frames %s)", (name) => {
    const file = name ? join(ROOT, name) : writeCutCapture(mkdtempSync(join(tmpdir(), 'gamewire-cli-cut-')))
    const of = tsharkFrameLengths(file)
    const messages = (...args: string[]) => {
      const r = gw('decode', file, '--tree', 'none', '--format', 'ndjson', ...args)
      expect(r.code, r.stderr).toBe(0)
      return r.stdout
        .trim()
        .split('\n')
        .slice(0, -1)
        .map((l) => JSON.parse(l) as { id: number; frames: number[] })
    }
    const all = messages('--jobs', '1')
    // thresholds from the capture itself, so each side of the OR matches some messages and not all
    const lens = all.flatMap((m) => m.frames.map((f) => of(f).len)).sort((x, y) => x - y)
    const caps = all.flatMap((m) => m.frames.map((f) => of(f).capLen)).sort((x, y) => x - y)
    const over = lens[Math.floor(lens.length * 0.7)] - 1
    const under = name ? caps[Math.floor(caps.length * 0.2)] + 1 : 65
    const expr = `frame.len > ${over} || frame.cap_len < ${under}`
    const want = all.filter((m) => m.frames.some((f) => of(f).len > over) || m.frames.some((f) => of(f).capLen < under)).map((m) => m.id)
    expect(want.length, expr).toBeGreaterThan(0)
    if (name) expect(want.length, expr).toBeLessThan(all.length)
    for (const jobs of ['1', '2'])
      expect(
        messages('-Y', expr, '--jobs', jobs).map((m) => m.id),
        `${expr} --jobs ${jobs}`
      ).toEqual(want)
  })

  // With --layers the messages carry their frames' layers, and a filter on header fields reads them there.
  it('with --layers, filters on header fields as tshark reads each frame, with and without trees', () => {
    const file = join(ROOT, 'resources/demo.pcapng')
    const fields = execFileSync('tshark', ['-r', file, '-T', 'fields', '-e', 'frame.number', '-e', 'udp.length', '-e', 'tcp.flags.push'], {
      stdio: ['ignore', 'pipe', 'ignore']
    })
      .toString()
      .trim()
      .split('\n')
      .map((l) => l.split('\t'))
    const udpLength = new Map(fields.filter((f) => f[1]).map((f) => [Number(f[0]), Number(f[1])]))
    const push = new Set(fields.filter((f) => f[2] === '1' || f[2] === 'True').map((f) => Number(f[0])))
    const lines = (...args: string[]) => {
      const r = gw('decode', file, '--layers', '--format', 'ndjson', ...args)
      expect(r.code, r.stderr).toBe(0)
      return r.stdout.trim().split('\n').slice(0, -1)
    }
    const all = lines('--jobs', '1')
    const byId = new Map(all.map((l) => [(JSON.parse(l) as { id: number }).id, l]))
    const lengths = [...udpLength.values()].sort((x, y) => x - y)
    const over = lengths[Math.floor(lengths.length * 0.7)]
    const expr = `udp.length > ${over} || tcp.flags.push == 1`
    const want = all
      .map((l) => JSON.parse(l) as { id: number; frames: number[] })
      .filter((m) => m.frames.some((f) => (udpLength.get(f) ?? 0) > over || push.has(f)))
      .map((m) => m.id)
    expect(want.length, expr).toBeGreaterThan(0)
    expect(want.length, expr).toBeLessThan(all.length)
    for (const jobs of ['1', '2']) {
      const full = lines('-Y', expr, '--jobs', jobs)
      // the messages as the unfiltered export writes them
      expect(full, `${expr} --jobs ${jobs}`).toEqual(want.map((id) => byId.get(id)))
      const none = lines('-Y', expr, '--jobs', jobs, '--tree', 'none').map((l) => (JSON.parse(l) as { id: number }).id)
      expect(none, `${expr} --jobs ${jobs} --tree none`).toEqual(want)
    }
  })
})
