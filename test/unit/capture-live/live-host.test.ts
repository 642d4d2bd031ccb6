// LiveCaptureHost, the module the app and `gamewire serve` drive, on the real loopback device: batches
// while capturing, keys added mid-capture, the ring limit and save-while-capturing, raw frames for a host
// that keeps its own store, a forward-only capture that decodes nothing, and its failure kinds.
import { describe, it, expect, afterEach } from 'vitest'
import { randomBytes } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LiveCaptureHost, LiveCaptureFailure, forkCaptureProcess, type CaptureSpawner } from '../../../src-main/capture/live-host'
import { createSocket } from 'node:dgram'
import { unpackFrames, type LiveBatch } from '../../../src-main/capture/live-protocol'
import { pv } from '../protocols/photon/gp-encoder'
import { PhotonPeers } from './photon-traffic'
import { freePort, noDecoderSpawner, tsharkFrames, type Line } from './runner'

const tmp = mkdtempSync(join(tmpdir(), 'gw-live-host-'))

/** A host whose batches are collected; `until` waits for a condition on them. */
function collectingHost(config: { spawn?: CaptureSpawner } = {}) {
  const batches: { at: number; batch: LiveBatch }[] = []
  const messages: Line[] = []
  const waiters = new Set<() => void>()
  const host = new LiveCaptureHost(
    {
      onBatch: (b) => {
        batches.push({ at: Date.now(), batch: b })
        if (b.ndjson) for (const l of Buffer.from(b.ndjson).toString('utf8').split('\n')) if (l) messages.push(JSON.parse(l))
        for (const w of [...waiters]) w()
      }
    },
    config
  )
  const until = <T>(pick: () => T | undefined, what: string, ms = 10_000): Promise<T> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const v = pick()
        if (v !== undefined) {
          waiters.delete(check)
          clearTimeout(timer)
          resolve(v)
        }
      }
      const timer = setTimeout(() => {
        waiters.delete(check)
        reject(new Error(`timed out waiting for ${what} (${batches.length} batches)`))
      }, ms)
      waiters.add(check)
      check()
    })
  return { host, batches, messages, until, rows: () => batches.flatMap((b) => b.batch.rows ?? []), summary: () => summaryOf(batches.map((b) => b.batch)) }
}

/** The summary line the batches' pieces make up, parsed (it must be one whole line). */
function summaryOf(batches: LiveBatch[]): Line {
  const text = Buffer.concat(batches.flatMap((b) => (b.summary ? [b.summary] : []))).toString('utf8')
  expect(text.indexOf('\n')).toBe(text.length - 1)
  return JSON.parse(text).summary
}

const running: LiveCaptureHost[] = []
afterEach(async () => {
  for (const h of running.splice(0)) if (h.state !== 'idle') await h.stop().catch(() => undefined)
})

describe('LiveCaptureHost on lo', () => {
  it('keys added while capturing decrypt the encrypted messages that come after them', async () => {
    const port = await freePort()
    const { host, messages, until, summary } = collectingHost()
    running.push(host)
    await host.start({ device: 'lo', filter: `udp port ${port}`, output: { ndjson: true }, batchMs: 50 })
    const peers = await PhotonPeers.open(port)
    try {
      const key = randomBytes(32)
      await peers.handshake()
      await peers.encryptedRequest(key, 230, [[221, pv.str('first-token')]])
      const before = await until(() => messages.find((m) => m.value?.encrypted && m.value.msgType === 2), 'the first encrypted request')
      expect(before.summary).toMatch(/encrypted, \d+ bytes; no key/)
      const added = await host.addKeys(`# added mid-capture\nPHOTON_AES_KEY 127.0.0.1:${peers.clientPort}-127.0.0.1:${port} ${key.toString('hex')}\n`)
      expect(added).toEqual({ added: 1, total: 1, warnings: [] })
      expect(await host.addKeys(`PHOTON_AES_KEY * ${key.toString('hex')}`)).toMatchObject({ added: 1, total: 2 })
      await expect(host.addKeys('PHOTON_AES_KEY * 00zz')).rejects.toThrow(/line 1/)
      await peers.encryptedRequest(key, 230, [[221, pv.str('second-token')]])
      const after = await until(() => messages.find((m) => m.name === 'Authenticate'), 'the decrypted Authenticate')
      expect(after.error).toBeNull()
      expect(after.value).toMatchObject({ encrypted: true, code: 230, decryptedWith: expect.stringMatching(/^PHOTON_AES_KEY/) })
      expect(after.value.parameters['221']).toEqual({ type: 'String', value: 'second-token' })
      expect(after.sources.map((s: Line) => s.name)).toContain('Decrypted body')
      // The earlier message was sent out before the key existed: a live capture does not re-send it.
      expect(messages.filter((m) => m.name === 'Authenticate')).toHaveLength(1)
      const stopped = await host.stop()
      expect(stopped.stats).toMatchObject({ received: 6, messages: 6, matched: 6 })
      expect(host.state).toBe('idle')
      expect(summary()).toMatchObject({
        source: { interface: 'lo', frames: 6 },
        conversations: [{ id: 1, client: `127.0.0.1:${peers.clientPort}`, server: `127.0.0.1:${port}`, protocol: 'photon', frames: 6 }],
        stats: { messages: 6, errors: 0 },
        capture: { received: 6, stoppedBy: 'requested' }
      })
    } finally {
      peers.close()
    }
  })

  it('keeps at most the ring limit for saving, counts what it pushed out, and saves while capturing', async () => {
    const port = await freePort()
    const { host, until, rows, summary } = collectingHost()
    running.push(host)
    await host.start({ device: 'lo', filter: `udp port ${port}`, ring: { frames: 5 }, output: { rows: true }, batchMs: 50 })
    const peers = await PhotonPeers.open(port)
    try {
      await peers.raw(12)
      await until(() => (rows().length >= 12 ? true : undefined), '12 rows')
      expect(host.lastStats).toMatchObject({ received: 12, ringFrames: 5, ringDropped: 7 })
      const file = join(tmp, 'ring.pcapng')
      expect(await host.save(file)).toEqual({ path: file, frames: 5 })
      expect(tsharkFrames(file)).toBe(5)
      // The five newest frames: datagrams 7..11, in order.
      const payloads = execFileSync('tshark', ['-r', file, '-T', 'fields', '-e', 'data.data'], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim()
        .split('\n')
      expect(payloads.map((h) => parseInt(h.slice(0, 8), 16))).toEqual([7, 8, 9, 10, 11])
      // Capturing goes on after the save.
      await peers.raw(3)
      await until(() => (rows().length >= 15 ? true : undefined), '15 rows')
      const stopped = await host.stop()
      expect(stopped.stats).toMatchObject({ received: 15, ringFrames: 5, ringDropped: 10 })
      expect(summary().capture).toMatchObject({ received: 15, ringDropped: 10 })
    } finally {
      peers.close()
    }
  })

  it('sends batches a few times a second, not one per packet, with rows and the raw frames', async () => {
    const port = await freePort()
    const { host, batches, until, rows } = collectingHost()
    running.push(host)
    await host.start({ device: 'lo', filter: `udp port ${port}`, ring: null, output: { rows: true, frames: true }, batchMs: 200 })
    const peers = await PhotonPeers.open(port)
    const started = Date.now()
    try {
      await peers.raw(300, 100)
      await until(() => (rows().length >= 300 ? true : undefined), '300 rows')
      const elapsed = Date.now() - started
      const withRows = batches.filter((b) => b.batch.rows?.length)
      // At most one batch per 200 ms window (plus the one in progress), however many packets.
      expect(withRows.length).toBeLessThanOrEqual(Math.ceil(elapsed / 200) + 2)
      expect(withRows.length).toBeLessThan(300 / 10)
      expect(rows().map((r) => r.firstFrame)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1))
      expect(rows()[0]).toMatchObject({ protocol: 'unknown', name: 'UDP payload', length: 100, error: false })
      const frames = batches.flatMap((b) => (b.batch.frames ? unpackFrames(b.batch.frames) : []))
      expect(frames.map((f) => f.number)).toEqual(rows().map((r) => r.firstFrame))
      // Ethernet (14) + IPv4 (20) + UDP (8) headers, then the datagram: numbered 0..299.
      expect(frames.every((f) => f.linkType === 1 && f.data.length === 142 && f.originalLength === 142)).toBe(true)
      expect(frames.map((f) => Buffer.from(f.data).readUInt32BE(42))).toEqual(Array.from({ length: 300 }, (_, i) => i))
      expect(Math.abs(frames[0].tsSec - started / 1000)).toBeLessThan(30)
      // Stats come with every batch, even when no packet arrived.
      const stopped = await host.stop()
      expect(stopped.stats.received).toBe(300)
      expect(stopped.stats.outputDropped).toBe(0)
      expect(batches.every((b) => b.batch.stats.device === 'lo')).toBe(true)
    } finally {
      peers.close()
    }
  })

  it("forwardOnly (the app's path) starts no decoder: it forwards the frames and libpcap's counters, nothing decoded", async () => {
    const port = await freePort()
    const { host, batches, until, summary } = collectingHost({ spawn: noDecoderSpawner })
    running.push(host)
    // The trap works: a capture that decodes cannot start under it.
    await expect(host.start({ device: 'lo', filter: `udp port ${port}`, output: { rows: true, frames: true } })).rejects.toMatchObject({
      kind: 'internal',
      message: expect.stringMatching(/a decoder worker was started/)
    })
    expect(host.state).toBe('idle')
    // Decoding options make no sense without a decoder: refused before anything starts.
    await expect(host.start({ device: 'lo', forwardOnly: true, output: { frames: true }, displayFilter: 'photon' })).rejects.toThrow(
      'capture options: displayFilter needs a decoder (not with forwardOnly)'
    )
    await expect(host.start({ device: 'lo', forwardOnly: true, output: { frames: true, rows: true } })).rejects.toMatchObject({ kind: 'options' })
    await expect(host.start({ device: 'lo', forwardOnly: true })).rejects.toThrow('capture options: forwardOnly needs output.frames')

    await host.start({ device: 'lo', filter: `udp port ${port}`, forwardOnly: true, output: { frames: true }, batchMs: 50 })
    const peers = await PhotonPeers.open(port)
    try {
      await peers.handshake()
      await peers.raw(10)
      const frames = () => batches.flatMap((b) => (b.batch.frames ? unpackFrames(b.batch.frames) : []))
      await until(() => (frames().length >= 14 ? true : undefined), '14 frames')
      expect(frames().map((f) => f.number)).toEqual(Array.from({ length: 14 }, (_, i) => i + 1))
      expect(batches.some((b) => b.batch.ndjson || b.batch.rows)).toBe(false)
      await expect(host.addKeys('PHOTON_AES_KEY * ' + '00'.repeat(32))).rejects.toThrow(/does not decode/)
      const stopped = await host.stop()
      expect(stopped.stats).toMatchObject({
        received: 14,
        messages: 0,
        matched: 0,
        errors: 0,
        conversations: 0,
        decodeBacklog: 0,
        decodeDropped: 0,
        framesNotSent: 0
      })
      expect(stopped.warnings.join('\n')).not.toMatch(/decoder/)
      expect(summary()).toMatchObject({ source: { frames: 14 }, conversations: [], stats: { messages: 0, errors: 0 } })
    } finally {
      peers.close()
    }
  })

  it('sends the summary line after every message, its conversation list in pieces at the pace the host takes them', async () => {
    const port = await freePort()
    // Counts, at the channel, the batches received and not yet acknowledged while the summary comes.
    let unacked = 0
    let mostUnackedInSummary = 0
    const counting: CaptureSpawner = (script, onLog) => {
      const channel = forkCaptureProcess(script, onLog)
      return {
        pid: channel.pid,
        send: (c) => {
          if (c.type === 'ack') unacked--
          channel.send(c)
        },
        onMessage: (cb) =>
          channel.onMessage((r) => {
            if (r.type === 'batch') unacked++
            if (r.type === 'batch' && r.summary) mostUnackedInSummary = Math.max(mostUnackedInSummary, unacked)
            cb(r)
          }),
        onExit: (cb) => channel.onExit(cb),
        kill: () => channel.kill()
      }
    }
    const batches: LiveBatch[] = []
    const host = new LiveCaptureHost(
      {
        // A slow consumer of the summary (a full pipe): the pieces wait for it, and a capture process
        // waiting for us is not taken for a stuck one (its first piece is held past the stop timeout).
        onBatch: async (b) => {
          batches.push(b)
          if (b.summary) await new Promise((r) => setTimeout(r, batches.filter((x) => x.summary).length === 1 ? 1000 : 25))
        }
      },
      { spawn: counting, stopTimeoutMs: 300 }
    )
    running.push(host)
    await host.start({ device: 'lo', filter: `udp dst port ${port}`, ring: null, output: { ndjson: true, tree: 'none' }, batchMs: 50 })
    // One datagram from each of 6,000 sockets, each bound to an address of its own in 127/8 and all to one
    // port nobody else holds: each is a conversation. (Sources on ephemeral ports were picked up by other
    // tests running at the same time, whose filters name a port that had just been free.)
    const from = await freePort()
    const sent = new Map<string, number>()
    for (let i = 0; i < 6000; i++) {
      const s = createSocket('udp4')
      const address = `127.2.${i >> 8}.${i & 255}`
      await new Promise<void>((r) => s.bind(from, address, r))
      sent.set(`${address}:${from}`, 1)
      await new Promise((r) => s.send(Buffer.from(`datagram ${i}`), port, '127.0.0.1', r))
      s.close()
    }
    const messages = () => batches.reduce((n, b) => n + (b.ndjson ? Buffer.from(b.ndjson).toString('utf8').split('\n').length - 1 : 0), 0)
    for (const t0 = Date.now(); messages() < 6000 && Date.now() - t0 < 15_000; ) await new Promise((r) => setTimeout(r, 50))
    await host.stop()
    const firstPiece = batches.findIndex((b) => b.summary)
    expect(batches.slice(firstPiece).some((b) => b.ndjson)).toBe(false)
    const pieces = batches.filter((b) => b.summary).length
    // The list is about 1.3 MB: several pieces, however many it takes, never more than the window unacknowledged.
    expect(pieces).toBeGreaterThanOrEqual(5)
    expect(mostUnackedInSummary).toBeLessThanOrEqual(4)
    const summary = summaryOf(batches)
    expect(summary.stats).toEqual({ messages: 6000, errors: 0 })
    expect(summary.conversations.map((c: Line) => c.id)).toEqual(Array.from({ length: 6000 }, (_, i) => i + 1))
    // Each conversation is one source's, with the one frame it sent (either side may be the client).
    const listed = new Map<string, number>(
      summary.conversations.map((c: Line) => {
        const ends = [c.client, c.server]
        expect(ends).toContain(`127.0.0.1:${port}`)
        return [ends.find((e) => e !== `127.0.0.1:${port}`), c.frames]
      })
    )
    expect(listed).toEqual(sent)
  })

  it("libpcap's buffer holds a burst while the capture process is not reading: 20,000 datagrams, none lost", async () => {
    const port = await freePort()
    const { host, until, rows } = collectingHost()
    running.push(host)
    await host.start({ device: 'lo', filter: `udp dst port ${port}`, ring: null, output: { rows: true }, batchMs: 50 })
    // The capture process is stopped while the burst is sent, so every datagram waits in the kernel's
    // buffer (the default 128 MiB). In ring slots of 64 KiB each (libpcap's immediate mode) that buffer
    // held about 2,000; packed in blocks, all of them.
    // From a port freePort() found free, not an ephemeral one another test's capture may be filtering on.
    const s = createSocket('udp4')
    const from = await freePort()
    await new Promise<void>((r) => s.bind(from, '127.3.0.1', r))
    process.kill(host.pid!, 'SIGSTOP')
    try {
      for (let i = 0; i < 20_000; i++) {
        const datagram = Buffer.alloc(40)
        datagram.writeUInt32BE(i, 0)
        await new Promise((r) => s.send(datagram, port, '127.0.0.1', r))
      }
    } finally {
      process.kill(host.pid!, 'SIGCONT')
      s.close()
    }
    await until(() => (rows().length >= 20_000 ? true : undefined), '20,000 rows', 30_000).catch(() => undefined)
    const stopped = await host.stop()
    expect(stopped.stats).toMatchObject({ received: 20_000, dropped: 0 })
    expect(rows().map((r) => r.firstFrame)).toEqual(Array.from({ length: 20_000 }, (_, i) => i + 1))
  })

  it('rejects with a failure kind: bad filter, unknown device, already running, not capturing', async () => {
    const host = new LiveCaptureHost()
    running.push(host)
    const fails = async (p: Promise<unknown>) => {
      try {
        await p
      } catch (e) {
        expect(e).toBeInstanceOf(LiveCaptureFailure)
        return e as LiveCaptureFailure
      }
      throw new Error('expected a failure')
    }
    const bad = await fails(host.start({ device: 'lo', filter: 'udp and and' }))
    expect(bad.kind).toBe('filter')
    expect(bad.message).toMatch(/syntax error/)
    expect(host.state).toBe('idle')
    expect((await fails(host.start({ device: 'nosuchif0' }))).kind).toBe('no-device')
    expect((await fails(host.start({ device: 'lo', snapLen: 0 }))).kind).toBe('options')
    expect((await fails(host.start({ device: 'lo', displayFilter: '(((' }))).kind).toBe('options')
    // Options from an untrusted side (the renderer, a browser) are checked before anything opens.
    expect((await fails(host.start({ device: 'lo', durationMs: Number.NaN }))).message).toBe('capture options: durationMs must be 0..2^31-1')
    expect((await fails(host.start({ device: 'lo', ring: { frames: -1 } }))).kind).toBe('options')
    expect((await fails(host.start({ device: 'lo', keylog: 'PHOTON_AES_KEY * 0011' }))).message).toMatch(/^line 1: /)
    expect((await fails(host.start({ device: 42 as unknown as string }))).message).toBe('capture options: device must be a string')
    expect((await fails(host.addKeys('PHOTON_AES_KEY * 00'))).message).toBe('not capturing')
    await host.start({ device: 'lo', filter: 'udp port 9' })
    expect((await fails(host.start({ device: 'lo' }))).message).toMatch(/already capturing/)
    const restarted = await host.restart()
    expect(restarted).toMatchObject({ device: 'lo', linkTypeName: 'ETHERNET', filter: 'udp port 9' })
    await host.stop()
    expect((await fails(host.stop())).message).toBe('not capturing')
  })

  it('a capture process that dies is reported, not hung on', async () => {
    let error: LiveCaptureFailure | undefined
    const host = new LiveCaptureHost({ onError: (e) => (error = e) })
    running.push(host)
    await host.start({ device: 'lo', filter: 'udp port 9' })
    expect(host.pid).toBeGreaterThan(0)
    process.kill(host.pid!, 'SIGKILL')
    await expect(host.whenStopped()).rejects.toThrow(/capture process was killed by SIGKILL/)
    await new Promise((r) => setTimeout(r, 50))
    expect(error?.kind).toBe('internal')
    expect(host.state).toBe('idle')
  })
})
