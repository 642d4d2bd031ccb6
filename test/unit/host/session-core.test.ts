// The host session's core, run in-process: opening a capture builds the same messages the CLI decodes,
// message detail rebuilt from one conversation's frames equals the full decode, filters/sort/columns,
// keys re-decode what they cover, decode-as, statistics, and exports (JSON identical to `gamewire
// decode`, pcapng of exactly the frames of the exported messages), with cancellation and bad input.
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionCore, type ExportTarget } from '../../../src-main/host/session-core'
import { ShardPool } from '../../../src-main/host/shard-pool'
import { decodeToText } from '../helpers/run-decode'
import { withAppKeyLabels } from '../helpers/app-keys'
import { DETAIL_INLINE_BYTES, type InspectorEvent, type JobInfo, type TreeNode } from '../../../src-shared/api'
import { CaptureReader } from '../../../src-shared/capture/reader'
import type { CaptureFrame } from '../../../src-shared/capture/types'
import { messageJson } from '../export/reference'
import { DecodeSession } from '../../../src-shared/engine/session'
import { parseKeyFile } from '../../../src-shared/keys/keyfile'
import { KeyStore } from '../../../src-shared/keys/store'
import type { DecodedMessage } from '../../../src-shared/model/types'
import { PHOTON_KEY_LINE, PHOTON_SECRET_TOKEN, SFS2X_KEY_LINE, SFS2X_SECRET_COMMAND } from '../../fixtures/ui/build-captures'

const FIX = join(__dirname, '../../fixtures')
const PHOTON = join(FIX, 'ui/photon-session.pcapng')
const SFS2X_AES = join(FIX, 'ui/sfs2x-aes.pcapng')
const SDK_WS = join(FIX, 'sfs2x/sdk-ws.pcapng')
const ENET = join(FIX, 'enet/enet-fignet-loopback.pcapng')
const tmp = mkdtempSync(join(tmpdir(), 'gamewire-core-test-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** Every message of a capture with its tree, decoded the CLI's way (whole file, one pass). */
function fullDecode(file: string, keyText = '', layers = false): DecodedMessage[] {
  const keys = new KeyStore()
  if (keyText) keys.addAll(parseKeyFile(keyText).keys)
  const out: DecodedMessage[] = []
  const s = new DecodeSession({ keys, layers, onMessage: (m) => out.push(m) })
  s.push(new Uint8Array(readFileSync(file)))
  s.end()
  return out
}

function readFrames(bytes: Uint8Array): CaptureFrame[] {
  const frames: CaptureFrame[] = []
  const r = new CaptureReader({ onFrame: (f) => frames.push({ ...f, data: Uint8Array.from(f.data) }) })
  r.push(bytes)
  r.end()
  return frames
}

/** `gamewire decode` without the process around it: the same runDecode the CLI's worker runs. */
async function cliDecode(file: string, job: { keylog?: string; filter?: string; format?: 'json' | 'ndjson'; tree?: 'full' | 'none' } = {}): Promise<string> {
  return (await decodeToText({ file, format: job.format ?? 'json', keylog: job.keylog, filter: job.filter, tree: job.tree })).text
}

let events: InspectorEvent[] = []
let core: SessionCore
function newCore(): SessionCore {
  events = []
  core = new SessionCore({ emit: (e) => events.push(e), demoCapturePath: () => PHOTON, tempDir: tmp })
  return core
}
afterEach(() => core?.close())

async function jobDone(id: number): Promise<JobInfo> {
  for (let i = 0; i < 2000; i++) {
    const e = events.find((x): x is Extract<InspectorEvent, { type: 'job' }> => x.type === 'job' && x.job.id === id && x.job.state !== 'running')
    if (e) return e.job
    await new Promise((r) => setTimeout(r, 5))
  }
  throw new Error(`job ${id} did not finish`)
}

function target(name: string): ExportTarget {
  return { path: join(tmp, name), fileName: name }
}

describe('opening a capture', () => {
  it('indexes every message the CLI decodes, with the same rows', async () => {
    const c = newCore()
    const status = await c.open(PHOTON)
    const expected = fullDecode(PHOTON)
    expect(status).toMatchObject({
      phase: 'ready',
      frames: 323,
      messages: expected.length,
      conversations: 1,
      errors: 0,
      source: { kind: 'file', file: 'photon-session.pcapng' }
    })
    expect(status.timeOrigin).toBe(Math.min(...expected.map((m) => m.time)))
    const view = await c.setView({ filter: '', sort: null, columns: [] })
    expect(view).toMatchObject({ state: 'done', count: expected.length, total: expected.length })
    const batch = c.getRows(view.id, 0, 5000)
    expect(batch.rows.map((r) => [r.id, r.conversation, r.direction, r.name, r.summary, r.firstFrame, r.lastFrame, r.time])).toEqual(
      expected.map((m) => [m.id, m.conversation, m.direction, m.name, m.summary, m.frames[0], m.frames[m.frames.length - 1], m.time])
    )
    // progress and the growing row count were reported while reading
    expect(events.some((e) => e.type === 'status' && e.status.phase === 'opening')).toBe(true)
    expect(events.filter((e) => e.type === 'status').at(-1)).toMatchObject({ status: { phase: 'ready' } })
  })

  it('rebuilds any message with its tree from its conversation alone, equal to the full decode', async () => {
    const c = newCore()
    await c.open(SDK_WS)
    // The detail shows the frames under the message: the CLI's decode with --layers.
    const expected = fullDecode(SDK_WS, '', true)
    for (const m of expected) {
      const d = c.getMessage(m.id)
      const j = messageJson(m, { includeSourceBytes: true }) as any
      expect({ id: d.id, conversation: d.conversation, frames: d.frames, name: d.name, tree: d.tree, error: d.error }).toEqual({
        id: m.id,
        conversation: m.conversation,
        frames: m.frames,
        name: m.name,
        tree: j.tree,
        error: m.error
      })
      expect(d.sources).toEqual(j.sources.map((s: any) => ({ name: s.name, length: s.hex.length / 2, hex: s.hex.slice(0, 2 * DETAIL_INLINE_BYTES) })))
    }
    // backwards and jumping between conversations (the replay cursor restarts or reuses what it kept)
    const order = [...expected].reverse().concat(expected.filter((_, i) => i % 3 === 0))
    c.close()
    const fresh = newCore()
    await fresh.open(SDK_WS)
    for (const m of order) expect(fresh.getMessage(m.id).tree, `message ${m.id}`).toEqual((messageJson(m) as any).tree)
  })

  it('rebuilds reassembled Photon fragments (every frame listed) and keeps the value order in the JSON view', async () => {
    const c = newCore()
    await c.open(PHOTON)
    const expected = fullDecode(PHOTON)
    const frag = expected.find((m) => m.sources.some((s) => s.name === 'Reassembled message'))!
    const d = c.getMessage(frag.id)
    expect(d.frames).toEqual(frag.frames)
    expect(d.frames.length).toBe(3)
    expect(d.sources.map((s) => s.name)).toContain('Reassembled message')
    const raise = expected.find((m) => m.name === 'RaiseEvent')!
    const text = c.getMessage(raise.id).valueJson
    // parameters keep wire order (244 before 245), which JSON.parse would not
    expect(text.indexOf('"244"')).toBeLessThan(text.indexOf('"245"'))
    expect(text).toContain('\n  "parameters": {')
  })

  it('reports a file that is not a capture with the reader error, and a missing file', async () => {
    const c = newCore()
    const junk = join(tmp, 'junk.pcapng')
    writeFileSync(junk, 'this is not a capture file at all')
    await expect(c.open(junk)).rejects.toThrow(/magic|not a capture|pcap/i)
    expect(c.status()).toMatchObject({ phase: 'error' })
    expect(c.status().error).toMatch(/magic|pcap/i)
    await expect(c.open(join(tmp, 'missing.pcapng'))).rejects.toThrow(/no such file/)
    expect(() => c.getMessage(1)).toThrow(/no capture|no message/)
  })

  it('opens the demo capture without a path, and the newest open wins', async () => {
    const c = newCore()
    const first = c.open(SDK_WS)
    const second = c.open()
    await first
    const s = await second
    expect(s.source).toMatchObject({ file: 'photon-session.pcapng' })
    expect(c.status().messages).toBe(fullDecode(PHOTON).length)
  })

  it('refuses out-of-range detail requests', async () => {
    const c = newCore()
    await c.open(SFS2X_AES)
    expect(() => c.getMessage(0)).toThrow(RangeError)
    expect(() => c.getMessage(19)).toThrow(/no message 19/)
  })
})

describe('the timeline view', () => {
  it('filters on decoded fields (tree pass) and on meta fields (fast pass) like the CLI filter', async () => {
    const c = newCore()
    await c.open(PHOTON)
    const all = fullDecode(PHOTON)
    for (const filter of ['photon.op.code == 253', 'gamewire.direction == "s2c" && photon.cmd.type == 1', 'frame.number >= 300', 'photon.param.245']) {
      const view = await c.setView({ filter, sort: null, columns: [] })
      expect(view.state, filter).toBe('done')
      const rows = c.getRows(view.id, 0, 5000).rows.map((r) => r.id)
      const cli = (await cliDecode(PHOTON, { filter, format: 'ndjson' }))
        .trim()
        .split('\n')
        .slice(0, -1)
        .map((l) => JSON.parse(l).id)
      expect(rows, filter).toEqual(cli)
      expect(rows.length, filter).toBeGreaterThan(0)
      expect(rows.length, filter).toBeLessThan(all.length)
    }
    const raise = await c.setView({ filter: 'photon.op.code == 253', sort: null, columns: [] })
    expect(raise.count).toBe(150)
    const unknownName = await c.setView({ filter: 'photon.op.code == NoSuchName', sort: null, columns: [] })
    expect(unknownName).toMatchObject({ state: 'error', count: 0, error: expect.stringMatching(/unknown value 'NoSuchName' for photon.op.code at 18/) })
  })

  it('reports an invalid filter with its message and shows no rows', async () => {
    const c = newCore()
    await c.open(PHOTON)
    const view = await c.setView({ filter: 'photon.op.code ==', sort: null, columns: [] })
    expect(view.state).toBe('error')
    expect(view.error).toMatch(/expected|value|end/i)
    expect(view.count).toBe(0)
    expect(c.checkFilter('photon.op.code ==')).toMatchObject({ ok: false, start: expect.any(Number) })
    expect(c.checkFilter('photon.op.code == 253')).toEqual({ ok: true, fields: ['photon.op.code'] })
  })

  it('sorts by a builtin column and shows extra columns from any field key', async () => {
    const c = newCore()
    await c.open(PHOTON)
    const all = fullDecode(PHOTON)
    const view = await c.setView({ filter: '', sort: { column: 'name', desc: true }, columns: ['photon.op.code', 'udp.srcport'] })
    const rows = c.getRows(view.id, 0, 5000).rows
    const names = rows.map((r) => r.name)
    expect(names).toEqual([...names].sort((a, b) => b.localeCompare(a)))
    expect(rows.length).toBe(all.length)
    const raiseRow = rows.find((r) => r.name === 'RaiseEvent')!
    expect(raiseRow.cells).toEqual(['253', '50123'])
    expect(rows.find((r) => r.name === 'ACK' && r.direction === 's2c')!.cells).toEqual(['', '5056'])
    // ties keep capture order
    const acks = rows.filter((r) => r.name === 'ACK').map((r) => r.id)
    expect(acks).toEqual([...acks].sort((a, b) => a - b))
    expect(c.findRow(view.id, raiseRow.id)).toBe(rows.indexOf(raiseRow))
  })

  it('sorts by an extra column numerically', async () => {
    const c = newCore()
    await c.open(PHOTON)
    const view = await c.setView({ filter: 'photon.op.code', sort: { column: 'photon.op.code', desc: false }, columns: ['photon.op.code'] })
    const codes = c.getRows(view.id, 0, 5000).rows.map((r) => Number(r.cells[0]))
    expect(codes).toEqual([...codes].sort((a, b) => a - b))
    expect(new Set(codes)).toEqual(new Set([0, 226, 229, 230, 253]))
  })

  it('answers rows of a stale view with an empty batch naming the current view', async () => {
    const c = newCore()
    await c.open(PHOTON)
    const a = await c.setView({ filter: 'photon.op.code', sort: null, columns: [] })
    const b = await c.setView({ filter: '', sort: null, columns: [] })
    expect(c.getRows(a.id, 0, 10)).toEqual({ viewId: b.id, start: 0, rows: [] })
  })

  it('a newer setView supersedes one still running', async () => {
    const c = newCore()
    await c.open(PHOTON)
    const slow = c.setView({ filter: 'photon.param.245', sort: null, columns: ['photon.param.245'] })
    const fast = c.setView({ filter: '', sort: null, columns: [] })
    expect((await slow).state).toBe('superseded')
    expect((await fast).state).toBe('done')
  })
})

describe('keys', () => {
  it('adding a key re-decodes the conversation it covers: the encrypted Photon request decrypts', async () => {
    const c = newCore()
    await c.open(PHOTON)
    const before = c.getRows((await c.setView({ filter: '', sort: null, columns: [] })).id, 0, 5000).rows
    const enc = before.find((r) => r.name === 'OperationRequest')!
    expect(enc.summary).toMatch(/encrypted.*no key/)
    const gen = c.status().generation
    const change = await c.addKeys(PHOTON_KEY_LINE + '\n')
    expect(change).toMatchObject({ added: 1, removed: 0, redecoded: [1] })
    expect(change.keys).toEqual([{ line: PHOTON_KEY_LINE, type: 'PHOTON_AES_KEY', conversation: '10.0.0.1:50123-10.0.0.2:5056', covers: [1] }])
    expect(c.status().generation).toBe(gen + 1)
    const view = events.filter((e) => e.type === 'view').at(-1)! as Extract<InspectorEvent, { type: 'view' }>
    const after = c.getRows(view.view.id, 0, 5000).rows
    expect(after.find((r) => r.id === enc.id)!.name).toBe('Authenticate')
    const d = c.getMessage(enc.id)
    expect(d.error).toBeNull()
    expect(d.sources.map((s) => s.name)).toContain('Decrypted body')
    expect(JSON.stringify(d.tree)).toContain(PHOTON_SECRET_TOKEN)
    // the same as the CLI with the key file
    expect(after.map((r) => r.name)).toEqual(fullDecode(PHOTON, PHOTON_KEY_LINE).map((m) => m.name))
    // adding it again changes nothing; removing it restores the encrypted message
    expect(await c.addKeys(PHOTON_KEY_LINE)).toMatchObject({ added: 0, redecoded: [] })
    expect(await c.removeKey(PHOTON_KEY_LINE)).toMatchObject({ removed: 1, redecoded: [1], keys: [] })
    expect(c.getMessage(enc.id).name).toBe('OperationRequest')
  })

  it('a key for another conversation re-decodes nothing; malformed key text names the line', async () => {
    const c = newCore()
    await c.open(PHOTON)
    const gen = c.status().generation
    const change = await c.addKeys(SFS2X_KEY_LINE)
    expect(change).toMatchObject({ added: 1, redecoded: [] })
    expect(change.keys[0].covers).toEqual([])
    expect(c.status().generation).toBe(gen)
    await expect(c.addKeys('# fine\nPHOTON_AES_KEY * nothex')).rejects.toThrow(/line 2/)
    expect(c.exportKeys()).toBe(SFS2X_KEY_LINE + '\n')
  })

  it('an SFS2X key decrypts the AES-encrypted extension calls', async () => {
    const c = newCore()
    await c.open(SFS2X_AES)
    const filter = `sfs2x.cmd == "${SFS2X_SECRET_COMMAND}"`
    const plain = await c.setView({ filter, sort: null, columns: [] })
    expect(plain.count).toBe(0)
    await c.addKeys(SFS2X_KEY_LINE)
    const view = await c.setView({ filter, sort: null, columns: [] })
    expect(view.count).toBe(12)
  })
})

describe('decode-as and statistics', () => {
  it('forcing a conversation to unknown re-decodes it as raw payloads', async () => {
    const c = newCore()
    await c.open(PHOTON)
    await c.setDecodeAs([{ match: 1, protocol: 'unknown' }])
    const view = await c.setView({ filter: '', sort: null, columns: [] })
    const rows = c.getRows(view.id, 0, 5000).rows
    expect(new Set(rows.map((r) => r.protocol))).toEqual(new Set(['unknown']))
    expect(rows.length).toBe(323)
    expect(c.getMessage(5).protocol).toBe('unknown')
    await c.setDecodeAs([])
    expect(c.getConversationPage({ start: 0, count: 1 }).conversations[0].protocol).toBe('photon')
  })

  it('counts the ENet commands alone as enet; decode as enet leaves FigNet off that conversation', async () => {
    const c = newCore()
    await c.open(ENET)
    // the capture's 38 messages: 7 FigNet payloads, the rest ENet commands alone (docs/fignet.md's frame table)
    expect((await c.getStats()).byProtocol).toEqual([
      { protocol: 'enet', count: 31 },
      { protocol: 'fignet', count: 7 }
    ])
    expect(c.getConversationPage({ start: 0, count: 1 }).conversations[0]).toMatchObject({ protocol: 'fignet', stack: ['udp', 'enet', 'fignet'] })
    const acks = await c.setView({ filter: 'gamewire.protocol == enet && gamewire.name == "ACKNOWLEDGE"', sort: null, columns: [] })
    expect(c.getRows(acks.id, 0, 100).rows.map((r) => r.protocol)).toEqual(Array(16).fill('enet'))
    await c.setDecodeAs([{ match: 1, protocol: 'enet' }])
    const view = await c.setView({ filter: '', sort: null, columns: [] })
    expect(new Set(c.getRows(view.id, 0, 100).rows.map((r) => r.protocol))).toEqual(new Set(['enet']))
    expect(c.getConversationPage({ start: 0, count: 1 }).conversations[0]).toMatchObject({ protocol: 'enet', stack: ['udp', 'enet'] })
    expect((await c.getStats()).byProtocol).toEqual([{ protocol: 'enet', count: 38 }])
  })

  it('counts messages per time bucket, per name and per conversation', async () => {
    const c = newCore()
    await c.open(PHOTON)
    const all = fullDecode(PHOTON)
    const s = await c.getStats()
    expect(s.scope).toEqual({ filter: '', messages: all.length, total: all.length })
    expect(s.timeline.counts.reduce((a, b) => a + b, 0)).toBe(all.length)
    const first = Math.min(...all.map((m) => m.time))
    const last = Math.max(...all.map((m) => m.time))
    expect(s.timeline.start).toBeLessThanOrEqual(first)
    expect(s.timeline.start + s.timeline.counts.length * s.timeline.step).toBeGreaterThan(last)
    const payload = (list: DecodedMessage[]) => list.reduce((a, m) => a + (m.sources[0]?.bytes.length ?? 0), 0)
    const raise = all.filter((m) => m.name === 'RaiseEvent')
    expect(s.byName.find((n) => n.name === 'RaiseEvent')).toEqual({ protocol: 'photon', name: 'RaiseEvent', count: 150, bytes: payload(raise) })
    expect(s.topByBytes).toEqual([expect.objectContaining({ id: 1, messages: all.length, bytes: payload(all) })])
    expect(s.conversations).toBe(1)
    expect(s.byProtocol).toEqual([{ protocol: 'photon', count: all.length }])
  })
})

describe('exports', () => {
  it('JSON of everything is byte-identical to the CLI decode, keys excluded unless asked', async () => {
    const c = newCore()
    await c.open(PHOTON)
    await c.addKeys(PHOTON_KEY_LINE)
    const job = c.startExport({ format: 'json', scope: 'all' }, target('all.json'))
    const done = await jobDone(job.id)
    expect(done).toMatchObject({ state: 'done', progress: 1, result: { file: join(tmp, 'all.json'), fileName: 'all.json', messages: 485 } })
    const text = readFileSync(join(tmp, 'all.json'), 'utf8')
    expect(text).toBe(withAppKeyLabels(await cliDecode(PHOTON, { keylog: PHOTON_KEY_LINE })))
    // The decrypted messages name their key as the detail view does.
    const keyLabels = (nodes: TreeNode[]): string[] =>
      nodes.flatMap((n) => [...(n.label.includes('PHOTON_AES_KEY') ? [n.label] : []), ...keyLabels(n.children)])
    const decrypted = JSON.parse(text).messages.filter((m: { tree: TreeNode[] }) => keyLabels(m.tree).length)
    expect(decrypted.length).toBeGreaterThan(0)
    for (const m of decrypted) expect(keyLabels(c.getMessage(m.id).tree), `message ${m.id}`).toEqual(keyLabels(m.tree))
    expect(text).not.toContain(PHOTON_KEY_LINE.split(' ')[2])
    const withKeys = c.startExport({ format: 'json', scope: 'all', includeKeys: true }, target('keys.json'))
    await jobDone(withKeys.id)
    expect(JSON.parse(readFileSync(join(tmp, 'keys.json'), 'utf8')).keys).toEqual([
      { type: 'PHOTON_AES_KEY', conversation: '10.0.0.1:50123-10.0.0.2:5056', key: PHOTON_KEY_LINE.split(' ')[2] }
    ])
  })

  it("JSON of everything goes through the session's shards when it has them, into the same bytes", async () => {
    events = []
    core = new SessionCore({ emit: (e) => events.push(e), demoCapturePath: () => PHOTON, tempDir: tmp, jobs: 2, shardsInProcess: true })
    await core.addKeys(PHOTON_KEY_LINE)
    await core.open(PHOTON)
    const pushed = vi.spyOn(ShardPool.prototype, 'push')
    try {
      for (const tree of ['full', 'none'] as const) {
        const done = await jobDone(core.startExport({ format: 'ndjson', scope: 'all', tree }, target(`all-${tree}.ndjson`)).id)
        expect(done.state).toBe('done')
        expect(readFileSync(join(tmp, `all-${tree}.ndjson`), 'utf8')).toBe(
          withAppKeyLabels(await cliDecode(PHOTON, { keylog: PHOTON_KEY_LINE, format: 'ndjson', tree }))
        )
      }
      expect(pushed).toHaveBeenCalled()
    } finally {
      pushed.mockRestore()
    }
  })

  it('JSON of the filtered view equals the CLI with the same filter; selected exports exactly those ids', async () => {
    const c = newCore()
    await c.open(PHOTON)
    await c.setView({ filter: 'photon.op.code == 226', sort: null, columns: [] })
    await jobDone(c.startExport({ format: 'ndjson', scope: 'filtered' }, target('f.ndjson')).id)
    expect(readFileSync(join(tmp, 'f.ndjson'), 'utf8')).toBe(await cliDecode(PHOTON, { filter: 'photon.op.code == 226', format: 'ndjson' }))
    await jobDone(c.startExport({ format: 'ndjson', scope: 'filtered', tree: 'none' }, target('f-none.ndjson')).id)
    const noTrees = readFileSync(join(tmp, 'f-none.ndjson'), 'utf8')
    expect(noTrees).toBe(await cliDecode(PHOTON, { filter: 'photon.op.code == 226', format: 'ndjson', tree: 'none' }))
    expect(noTrees).not.toContain('"tree":')
    const sel = await jobDone(c.startExport({ format: 'json', scope: 'selected', ids: [16, 5, 400] }, target('s.json')).id)
    expect(sel.result!.messages).toBe(3)
    const doc = JSON.parse(readFileSync(join(tmp, 's.json'), 'utf8'))
    const full = JSON.parse(await cliDecode(PHOTON))
    expect(doc.messages).toEqual(full.messages.filter((m: any) => [5, 16, 400].includes(m.id)))
    expect(doc.stats).toEqual({ messages: 3, errors: 0 })
  })

  it('pcapng of the filtered view holds exactly the frames of the matching messages, bytes unchanged', async () => {
    const c = newCore()
    await c.open(PHOTON)
    await c.setView({ filter: 'photon.ev.code == 200 || photon.op.code == 226', sort: null, columns: [] })
    const done = await jobDone(c.startExport({ format: 'pcapng', scope: 'filtered' }, target('f.pcapng')).id)
    const original = readFrames(new Uint8Array(readFileSync(PHOTON)))
    const cli = (await cliDecode(PHOTON, { filter: 'photon.ev.code == 200 || photon.op.code == 226', format: 'ndjson' }))
      .trim()
      .split('\n')
      .slice(0, -1)
      .map((l) => JSON.parse(l))
    expect(cli.map((m: any) => m.name)).toEqual(['JoinGame', 'JoinGame response', 'RPC event'])
    const wanted = [...new Set(cli.flatMap((m: any) => m.frames as number[]))].sort((a, b) => a - b)
    expect(wanted.length).toBeGreaterThanOrEqual(4)
    const written = readFrames(new Uint8Array(readFileSync(join(tmp, 'f.pcapng'))))
    expect(done.result).toMatchObject({ frames: written.length })
    expect(written.map((f) => Buffer.from(f.data).toString('hex'))).toEqual(wanted.map((n) => Buffer.from(original[n - 1].data).toString('hex')))
    expect(written.map((f) => [f.tsSec, f.tsNsec])).toEqual(wanted.map((n) => [original[n - 1].tsSec, original[n - 1].tsNsec]))
    // all: every frame
    await jobDone(c.startExport({ format: 'pcapng', scope: 'all' }, target('a.pcapng')).id)
    expect(readFrames(new Uint8Array(readFileSync(join(tmp, 'a.pcapng')))).length).toBe(323)
  })

  it('a cancelled export stops and leaves no file', async () => {
    const c = newCore()
    await c.open(SDK_WS)
    const job = c.startExport({ format: 'json', scope: 'all' }, target('cancel.json'))
    c.cancelJob(job.id)
    const done = await jobDone(job.id)
    expect(done.state).toBe('cancelled')
    expect(() => readFileSync(join(tmp, 'cancel.json'))).toThrow(/ENOENT/)
  })

  it('refuses to export before a capture is open, and a filtered export while the filter is invalid', async () => {
    const c = newCore()
    expect(() => c.startExport({ format: 'json', scope: 'all' }, target('x.json'))).toThrow(/no capture/)
    await c.open(PHOTON)
    await c.setView({ filter: '((', sort: null, columns: [] })
    expect(() => c.startExport({ format: 'json', scope: 'filtered' }, target('x.json'))).toThrow(/filter has an error/)
  })
})
