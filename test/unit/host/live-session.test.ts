// The host session driving a real live capture on lo (root): Photon datagrams from the tests' own
// encoders are sent while capturing; rows must reach the timeline while the capture runs and match what
// was sent, a display filter keeps up with new traffic, a key added mid-capture decrypts later (and
// earlier) encrypted messages, and the frames are saved as pcapng and read back by tshark. The capture
// process only forwards frames (it cannot start a decoder here): the session's core decodes each once.
import { afterAll, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { InspectorSession } from '../../../src-main/host/inspector-session'
import { runDecode } from '../../../src-main/host/run-decode'
import type { InspectorEvent, SessionStatus, TimelineRow } from '../../../src-shared/api'
import { pv } from '../protocols/photon/gp-encoder'
import { PhotonPeers } from '../capture-live/photon-traffic'
import { freePort, noDecoderSpawner, tsharkFrames } from '../capture-live/runner'
import { tsharkFrameLengths } from '../helpers/frame-lengths'

const WORKER = join(__dirname, '../../../out/main/session-worker.js')
const tmp = mkdtempSync(join(tmpdir(), 'gamewire-live-session-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

function session() {
  const events: InspectorEvent[] = []
  const s = new InspectorSession({
    tempDir: mkdtempSync(join(tmp, 'spill-')),
    workerScript: WORKER,
    exportTarget: async (_r, name) => ({ path: join(tmp, name), fileName: name }),
    // Every frame is decoded once, by the session's core: a capture process that starts a decoder fails.
    liveCapture: { spawn: noDecoderSpawner }
  })
  s.onEvent((e) => events.push(e))
  return { s, events }
}

async function poll<T>(what: string, fn: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v !== undefined) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

async function allRows(s: InspectorSession): Promise<{ rows: TimelineRow[]; status: SessionStatus }> {
  const view = await s.setView({ filter: '', sort: null, columns: [] })
  return { rows: (await s.getRows(view.id, 0, 5000)).rows, status: await s.getStatus() }
}

const value = async (s: InspectorSession, id: number) => JSON.parse((await s.getMessage(id)).valueJson)

describe('InspectorSession live capture on lo', { timeout: 60_000 }, () => {
  it('streams rows into the timeline while capturing; filters keep up; stop, save and tshark agree', async () => {
    const { s, events } = session()
    const port = await freePort()
    const peers = await PhotonPeers.open(port)
    try {
      const devices = await s.listCaptureDevices()
      expect(devices.unavailable).toBeNull()
      expect(devices.devices.find((d) => d.name === 'lo')).toMatchObject({ loopback: true, up: true, addresses: expect.arrayContaining(['127.0.0.1']) })
      expect(devices.presets.map((p) => p.id)).toContain('photon-udp')

      const started = await s.startCapture({ interface: 'lo', filter: `udp port ${port}`, ringFrames: 10_000 })
      expect(started).toMatchObject({ state: 'capturing', interface: 'lo', filter: `udp port ${port}` })
      expect((await s.getStatus()).source).toEqual({ kind: 'interface', name: 'lo' })

      await peers.handshake()
      for (let i = 0; i < 5; i++) await peers.event(100, [[1, pv.int(i)]])
      // The first wave is in the timeline while the capture still runs.
      const first = await poll('the first wave of events', async () => {
        const r = await allRows(s)
        return r.rows.filter((x) => x.protocol === 'photon' && x.name.includes('100')).length >= 5 ? r : undefined
      })
      expect(first.status.captureState.state).toBe('capturing')
      // While capturing, the conversation list has the conversation, with the frames seen so far.
      const page = await s.getConversationPage({ start: 0, count: 100 })
      expect(page.total).toBe(1)
      expect(page.conversations[0]).toMatchObject({ id: 1, protocol: 'photon', transport: 'udp', server: `127.0.0.1:${port}` })
      expect(page.conversations[0].frames).toBeGreaterThanOrEqual(9)
      expect(first.status.captureState.frames).toBeGreaterThanOrEqual(9)
      const evIds = first.rows.filter((x) => x.name.includes('100')).map((x) => x.id)
      const sent = await Promise.all(evIds.map(async (id) => (await value(s, id)).parameters['1']))
      expect(sent).toEqual([0, 1, 2, 3, 4].map((i) => ({ type: 'Int32', value: i })))

      // A display filter set during the capture shows later matching messages too, with their added
      // columns (index and meta fields: later messages join the view as they arrive).
      const columns = ['photon.ev.code', 'udp.srcport']
      const view = await s.setView({ filter: 'photon.ev.code == 100', sort: null, columns })
      expect(view.count).toBe(5)
      const viewSetAt = events.length
      for (let i = 5; i < 8; i++) await peers.event(100, [[1, pv.int(i)]])
      await peers.request(253, [[244, pv.str('not an event')]])
      const grown = await poll('the filtered view to show 8 events', async () => {
        const last = events.filter((e): e is Extract<InspectorEvent, { type: 'view' }> => e.type === 'view').pop()
        return last && last.view.filter === 'photon.ev.code == 100' && last.view.count === 8 ? last.view : undefined
      })
      // Events go from the server's port.
      const shown = (await s.getRows(grown.id, 0, 100)).rows
      expect(shown.map((r) => r.cells)).toEqual(shown.map(() => ['100', String(port)]))
      // They joined the view as they came: it was not computed again.
      expect(events.slice(viewSetAt).filter((e) => e.type === 'view' && e.view.state === 'running')).toEqual([])

      // Frame lengths and header fields come from the stored frames: a long event joins such a view as it
      // comes, a short one not.
      const byLength = await s.setView({ filter: 'frame.len > 300 && ip.ttl == 64', sort: null, columns: ['frame.len', 'udp.length'] })
      expect(byLength.count).toBe(0)
      const lengthSetAt = events.length
      await peers.event(101, [[1, pv.str('x'.repeat(300))]])
      await peers.event(101, [[1, pv.str('y')]])
      const long = await poll('the frame length view to show the long event', async () => {
        const last = events.filter((e): e is Extract<InspectorEvent, { type: 'view' }> => e.type === 'view').pop()
        return last && last.view.filter === 'frame.len > 300 && ip.ttl == 64' && last.view.count === 1 ? last.view : undefined
      })
      const [longRow] = (await s.getRows(long.id, 0, 10)).rows
      expect(longRow.name).toContain('101')
      expect(events.slice(lengthSetAt).filter((e) => e.type === 'view' && e.view.state === 'running')).toEqual([])
      await poll('the short event', async () => ((await s.getStatus()).frames === 15 ? true : undefined))
      expect((await s.getRows(long.id, 0, 10)).rows).toHaveLength(1)
      const stopped = await s.stopCapture()
      expect(stopped.state).toBe('off')
      const end = await s.getStatus()
      expect(end.captureState.state).toBe('off')
      expect(end.captureState.dropped).toBe(0) // libpcap's pcap_stats, through vendor/cap
      // 4 handshake datagrams, 10 events, 1 request: one frame each on lo.
      expect(end.frames).toBe(15)
      expect(events.filter((e) => e.type === 'status' && e.status.captureState.state === 'capturing' && e.status.frames > 0).length).toBeGreaterThan(1)

      const saved = await s.saveCapture()
      expect(saved).toMatchObject({ frames: 15, fileName: expect.stringMatching(/^capture-lo-.*\.pcapng$/) })
      expect(tsharkFrames(saved.file!)).toBe(15)
      // the long event's frame length, as tshark reads the saved frame
      const shark = tsharkFrameLengths(saved.file!)
      expect([longRow.firstFrame, longRow.lastFrame]).toEqual([14, 14])
      const udpLength = execFileSync('tshark', ['-r', saved.file!, '-Y', 'frame.number == 14', '-T', 'fields', '-e', 'udp.length'], {
        stdio: ['ignore', 'pipe', 'ignore']
      })
      expect(longRow.cells).toEqual([String(shark(14).len), udpLength.toString().trim()])
      expect(shark(15).len).toBeLessThanOrEqual(300)

      // The decoded JSON of the live capture is what `gamewire decode` gives for its saved frames.
      const job = await s.startExport({ format: 'json', scope: 'all' })
      const done = await poll('the JSON export', async () => {
        const e = events.filter((x): x is Extract<InspectorEvent, { type: 'job' }> => x.type === 'job' && x.job.id === job.id).pop()
        return e && e.job.state !== 'running' ? e.job : undefined
      })
      expect(done.state).toBe('done')
      const live = JSON.parse(readFileSync(done.result!.file!, 'utf8'))
      let text = ''
      await runDecode({ file: saved.file!, format: 'json' }, { write: (b) => void (text += Buffer.from(b).toString()), flush: () => undefined })
      const cli = JSON.parse(text)
      expect(live.source).toMatchObject({ file: 'lo', frames: 15 })
      expect(live.messages.length).toBeGreaterThanOrEqual(15)
      expect(live.messages).toEqual(cli.messages)
      // The status bar's message and error counts are the core's: its live engine decoded the same messages.
      expect(end.messages).toBe(cli.messages.length)
      expect(end.errors).toBe(cli.messages.filter((m: { error: unknown }) => m.error !== null).length)
      expect(live.conversations).toEqual(cli.conversations)
      // The conversations panel's pages of the live capture: the same list (the export leaves out empty
      // notes), also asked by protocol.
      const listed = cli.conversations.map((c: object) => ({ notes: [], ...c }))
      expect((await s.getConversationPage({ start: 0, count: 100 })).conversations).toEqual(listed)
      expect(await s.getConversationPage({ sort: 'frames', desc: true, start: 0, count: 100, protocols: ['photon'] })).toEqual({
        total: listed.length,
        start: 0,
        conversations: listed
      })
    } finally {
      peers.close()
      await s.close()
    }
  })

  it('a key added mid-capture reaches the decoder: a later encrypted message decrypts, and so does the earlier one', async () => {
    const { s } = session()
    const port = await freePort()
    const peers = await PhotonPeers.open(port)
    try {
      await s.startCapture({ interface: 'lo', presets: [], filter: `udp port ${port}` })
      const key = randomBytes(32)
      await peers.handshake()
      await peers.encryptedRequest(key, 230, [[221, pv.str('first-token')]])
      const before = await poll('the encrypted request', async () => (await allRows(s)).rows.find((r) => /encrypted/.test(r.summary)))
      expect(before.summary).toMatch(/no key/)
      const change = await s.addKeys(`PHOTON_AES_KEY 127.0.0.1:${peers.clientPort}-127.0.0.1:${port} ${key.toString('hex')}`)
      expect(change).toMatchObject({ added: 1, warnings: [] })
      await peers.encryptedRequest(key, 230, [[221, pv.str('second-token')]])
      // While the capture runs, both requests decode: the later one by the core's live engine, the earlier one re-decoded from the session's frames.
      const auth = await poll('two decrypted Authenticate requests', async () => {
        const r = await allRows(s)
        const found = r.rows.filter((x) => x.name === 'Authenticate')
        return found.length === 2 && r.status.captureState.state === 'capturing' ? found : undefined
      })
      const tokens = await Promise.all(auth.map(async (r) => (await value(s, r.id)).parameters['221'].value))
      expect(tokens).toEqual(['first-token', 'second-token'])
      // save() while capturing writes the capture's ring
      const saved = await s.saveCapture()
      expect(tsharkFrames(saved.file!)).toBe(saved.frames)
      expect(saved.frames).toBe(6)
      await s.stopCapture()
    } finally {
      peers.close()
      await s.close()
    }
  })

  it('keeps at most the ring limit of frames: the oldest go, the rest are renumbered and still open in detail', async () => {
    const { s } = session()
    const port = await freePort()
    const peers = await PhotonPeers.open(port)
    try {
      await s.startCapture({ interface: 'lo', filter: `udp port ${port}`, ringFrames: 8 })
      await peers.raw(20, 48)
      const status = await poll('20 frames received', async () => {
        const st = await s.getStatus()
        return st.captureState.frames === 20 && st.frames + (st.captureState.ringDropped ?? 0) === 20 ? st : undefined
      })
      expect(status.frames).toBeLessThanOrEqual(8)
      expect(status.captureState.ringDropped).toBe(20 - status.frames)
      const { rows } = await allRows(s)
      expect(rows.map((r) => r.id)).toEqual(Array.from({ length: status.frames }, (_, i) => i + 1))
      // raw() numbers its datagrams in the first 4 bytes: the kept ones are the newest.
      const numbers = await Promise.all(rows.map(async (r) => Buffer.from((await s.getMessage(r.id)).sources.at(-1)!.hex, 'hex').readUInt32BE(0)))
      expect(numbers).toEqual(Array.from({ length: status.frames }, (_, i) => 20 - status.frames + i))
      await s.stopCapture()
    } finally {
      peers.close()
      await s.close()
    }
  })

  it('reports libpcap filter errors and unknown devices with their kind', async () => {
    const { s } = session()
    try {
      await expect(s.startCapture({ interface: 'lo', filter: 'udp port nope' })).rejects.toThrow(/nope|syntax|filter/i)
      expect((await s.getStatus()).captureState).toMatchObject({ state: 'error', errorKind: 'filter' })
      await expect(s.startCapture({ interface: 'no-such-device0' })).rejects.toThrow()
      expect((await s.getStatus()).captureState).toMatchObject({ state: 'error', errorKind: 'no-device' })
      await expect(s.stopCapture()).rejects.toThrow(/not capturing/)
      await expect(s.saveCapture()).rejects.toThrow(/no live capture/)
    } finally {
      await s.close()
    }
  })
})
