// The frames' layers in the app's session and in the export: filters on layer fields (ip.ttl, frame.len,
// tcp.seq) give what the full decode with layers says, the same in the app's view and in `gamewire decode`;
// the default export stays exactly what it was (layers built for the filter are taken off); `--layers`
// puts the frame groups first (the CLI with shards: test/unit/cli/layers.test.ts); findFrame finds the message a frame carries.
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionCore } from '../../../src-main/host/session-core'
import { decodeToText } from '../helpers/run-decode'
import { DecodeSession } from '../../../src-shared/engine/session'
import type { DecodedMessage, FieldNode, FieldScalar } from '../../../src-shared/model/types'

const FIX = join(__dirname, '../../fixtures')
const LOOPBACK = join(FIX, 'net/loopback.pcapng')
const LASTWAR = join(FIX, 'sfs2x/lastwar-tcp.pcapng')
const VANILLA = join(FIX, 'sfs2x/vanilla-tcp.pcapng')
const tmp = mkdtempSync(join(tmpdir(), 'gamewire-layers-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

function decode(file: string, layers: boolean): DecodedMessage[] {
  const out: DecodedMessage[] = []
  const s = new DecodeSession({ layers, onMessage: (m) => out.push(m) })
  s.push(new Uint8Array(readFileSync(file)))
  s.end()
  return out
}

/** Every value of `key` in a message's tree. */
function values(nodes: FieldNode[], key: string, out: FieldScalar[] = []): FieldScalar[] {
  for (const n of nodes) {
    if (n.key === key && n.value !== undefined) out.push(n.value)
    if (n.children) values(n.children, key, out)
  }
  return out
}

let core: SessionCore | undefined
afterEach(() => core?.close())

async function open(file: string): Promise<SessionCore> {
  core = new SessionCore({ emit: () => undefined, demoCapturePath: () => file, tempDir: tmp })
  await core.open(file)
  return core
}

async function viewIds(c: SessionCore, filter: string): Promise<number[]> {
  const v = await c.setView({ filter, sort: null, columns: [] })
  expect(v.state, filter).toBe('done')
  return c.getRows(v.id, 0, 5000).rows.map((r) => r.id)
}

/** `tree: 'none'`: the export without trees, where the filter's layers are built over the tree-less pass. */
async function cliIds(file: string, filter: string, tree?: 'none'): Promise<number[]> {
  const { text } = await decodeToText({ file, format: 'ndjson', filter, tree })
  return text
    .trim()
    .split('\n')
    .slice(0, -1)
    .map((l) => JSON.parse(l).id)
}

describe("filters on the frames' layer fields", () => {
  const cases: [string, string, (m: DecodedMessage) => boolean][] = [
    // TTL: the IPv4 frames have 64, IPv6 has hop limits instead.
    [LOOPBACK, 'ip.ttl == 64', (m) => values(m.tree, 'ip.ttl').includes(64)],
    [LOOPBACK, 'ipv6.hlim == 64', (m) => values(m.tree, 'ipv6.hlim').includes(64)],
    [LOOPBACK, 'frame.len > 1000', (m) => values(m.tree, 'frame.len').some((v) => (v as number) > 1000)],
    [LOOPBACK, 'frame.number == 20', (m) => m.frames.includes(20)],
    [LASTWAR, 'tcp.seq < 500', (m) => values(m.tree, 'tcp.seq').some((v) => (v as number) < 500)],
    [
      LASTWAR,
      'tcp.flags.push == true && frame.cap_len >= 100',
      (m) => values(m.tree, 'frame.cap_len').some((v) => (v as number) >= 100) && values(m.tree, 'tcp.flags.push').includes(true)
    ],
    // with an index field, and with a field only the protocol's tree has
    [LASTWAR, 'tcp.seq > 300 && sfs2x.cmd', (m) => values(m.tree, 'tcp.seq').some((v) => (v as number) > 300) && values(m.tree, 'sfs2x.cmd').length > 0],
    [
      LASTWAR,
      'tcp.len > 50 && sfs2x.p.p.p',
      (m) =>
        values(m.tree, 'tcp.len').some((v) => (v as number) > 50) &&
        m.tree.some(function has(n: FieldNode): boolean {
          return n.key === 'sfs2x.p.p.p' || (n.children ?? []).some(has)
        })
    ],
    // a frame's arrival time as text (made only for the filters that read it)
    [
      LOOPBACK,
      'frame.time contains "T" && ip.ttl',
      (m) => values(m.tree, 'ip.ttl').length > 0 && values(m.tree, 'frame.time').some((v) => String(v).includes('T'))
    ],
    // a meta field beside a header field (with layers, the frame groups' values answer both)
    [
      LOOPBACK,
      'frame.time_epoch < 1796237939.5 && ip.ttl',
      (m) => values(m.tree, 'ip.ttl').length > 0 && values(m.tree, 'frame.time_epoch').some((v) => (v as number) < 1796237939.5)
    ]
  ]
  it.each(cases)('%s: %s', async (file, filter, expect_) => {
    const expected = decode(file, true)
      .filter(expect_)
      .map((m) => m.id)
    const all = decode(file, false).length
    // The filter selects some messages, not all and not none, so the comparison says something.
    expect(expected.length).toBeGreaterThan(0)
    if (!filter.startsWith('ip.ttl')) expect(expected.length).toBeLessThan(all)
    expect(await viewIds(await open(file), filter)).toEqual(expected)
    expect(await cliIds(file, filter)).toEqual(expected)
    expect(await cliIds(file, filter, 'none')).toEqual(expected)
  })

  it("takes a meta field's values from the frame groups beside a header field: one per frame of a message", async () => {
    const layered = decode(VANILLA, true)
    // a message in several frames that arrived at different times
    const m = layered.find((x) => new Set(values(x.tree, 'frame.time_epoch')).size > 1)
    expect(m).toBeDefined()
    const times = values(m!.tree, 'frame.time_epoch') as number[]
    const t = (Math.min(...times) + Math.max(...times)) / 2
    expect(m!.time).toBeGreaterThan(t) // its own time is its last frame's
    const filter = `frame.time_epoch < ${t} && tcp.len > 0`
    const expected = layered
      .filter((x) => values(x.tree, 'frame.time_epoch').some((v) => (v as number) < t) && values(x.tree, 'tcp.len').some((v) => (v as number) > 0))
      .map((x) => x.id)
    expect(expected).toContain(m!.id)
    expect(await viewIds(await open(VANILLA), filter)).toEqual(expected)
    expect(await cliIds(VANILLA, filter, 'none')).toEqual(expected)
  })

  it('a wrong TTL matches nothing; the filter is answered with trees (not from the index)', async () => {
    const c = await open(LOOPBACK)
    expect(await viewIds(c, 'ip.ttl == 63')).toEqual([])
    // Present on exactly the messages over IPv4 frames (the IPv6 ones have no ip.ttl).
    const v4 = decode(LOOPBACK, true)
      .filter((m) => values(m.tree, 'ip.ttl').length > 0)
      .map((m) => m.id)
    expect(v4.length).toBeGreaterThan(0)
    expect(await viewIds(c, 'ip.ttl')).toEqual(v4)
    expect(await viewIds(c, 'eth.src == 00:00:00:00:00:00 && !ip.ttl')).toEqual(
      decode(LOOPBACK, false)
        .filter((m) => !v4.includes(m.id))
        .map((m) => m.id)
    )
  })
})

describe('the export', () => {
  it.each([
    [undefined, 'ip.ttl == 64 && frame.len > 1000'],
    ['none' as const, 'ip.ttl == 64 && frame.len > 1000'],
    ['none' as const, 'tcp.seq > 300']
  ])('without --layers is unchanged by a filter that needed layers (trees %s, %s)', async (tree, filter) => {
    const file = filter.startsWith('tcp') ? LASTWAR : LOOPBACK
    const plain = (await decodeToText({ file, format: 'ndjson', tree })).text.trim().split('\n').slice(0, -1)
    const filtered = (await decodeToText({ file, format: 'ndjson', filter, tree })).text.trim().split('\n').slice(0, -1)
    expect(filtered.length).toBeGreaterThan(0)
    expect(filtered.length).toBeLessThan(plain.length)
    const byId = new Map(plain.map((l) => [JSON.parse(l).id, l]))
    for (const l of filtered) expect(l).toBe(byId.get(JSON.parse(l).id))
  })

  it('with --layers puts one frame group per frame first, and the rest is the plain export with sources moved up', async () => {
    const job = { file: LOOPBACK, format: 'json' as const, layers: true, includeSourceBytes: true }
    const doc = JSON.parse((await decodeToText(job)).text)
    const plain = JSON.parse((await decodeToText({ ...job, layers: false })).text)
    expect(doc.messages.length).toBe(plain.messages.length)
    const frames = readFrameBytes(LOOPBACK)
    let multi = 0
    doc.messages.forEach((m: any, i: number) => {
      const p = plain.messages[i]
      const k = m.frames.length
      if (k > 1) multi++
      expect(m.tree.slice(0, k).map((g: any) => [g.key, g.source])).toEqual(m.frames.map((_: number, j: number) => ['frame', j]))
      expect(m.sources.slice(0, k).map((s: any) => [s.name, s.hex])).toEqual(m.frames.map((n: number) => [`Frame ${n}`, frames[n - 1]]))
      expect(m.sources.slice(k)).toEqual(p.sources)
      const back = (nodes: any[]): any[] =>
        nodes.map((n) => ({ ...n, ...(n.source !== undefined ? { source: n.source - k } : {}), children: back(n.children) }))
      expect(back(m.tree.slice(k))).toEqual(p.tree)
    })
    expect(multi).toBeGreaterThan(0)
  })
})

/** Each frame's bytes as hex, from tshark (an independent reader of the file). */
function readFrameBytes(file: string): string[] {
  const { execFileSync } = require('node:child_process') as typeof import('node:child_process')
  const json = JSON.parse(execFileSync('tshark', ['-r', file, '-T', 'json', '-x'], { maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] }).toString())
  return json.map((p: any) => p._source.layers.frame_raw[0])
}

describe('findFrame', () => {
  it('finds the message each frame carries, and null for a frame that carries none', async () => {
    const c = await open(LOOPBACK)
    const messages = decode(LOOPBACK, false)
    const carried = new Set(messages.flatMap((m) => m.frames))
    let nulls = 0
    for (let f = 1; f <= 127; f++) {
      const id = c.findFrame(f)
      if (!carried.has(f)) {
        // An ACK or handshake frame: nothing, or the message whose frames span it (same conversation).
        if (id !== null) expect(messages[id - 1].frames[0] < f && f < messages[id - 1].frames.at(-1)!, `frame ${f}`).toBe(true)
        else nulls++
        continue
      }
      expect(id, `frame ${f}`).not.toBeNull()
      // The lowest id among the messages that begin or end with it, else one whose frames span it.
      const ends = messages.find((m) => m.frames[0] === f || m.frames.at(-1) === f)
      if (ends) expect(id, `frame ${f}`).toBe(ends.id)
      else expect(messages[id! - 1].frames[0] < f && f < messages[id! - 1].frames.at(-1)!, `frame ${f}`).toBe(true)
    }
    expect(nulls).toBeGreaterThan(0)
    expect(c.findFrame(0)).toBeNull()
    expect(c.findFrame(128)).toBeNull()
  })
})
