// `gamewire capture` on the real loopback device (these machines run the tests as root): real traffic is
// sent on 127.0.0.1 while the capture runs, and its decoded messages must come out on stdout before the
// capture is stopped. Traffic: Photon datagrams from the tests' own encoder, the official sfs2x-api client
// against a stub WebSocket server, and FigNet envelopes over a real ENet peer (npm enet). The -w file is
// checked with tshark.
import { describe, it, expect } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pv } from '../protocols/photon/gp-encoder'
import { PhotonPeers } from './photon-traffic'
import { spawnSync } from 'node:child_process'
import { BIN, freePort, runCapture, runTraffic, startCapture, tsharkFrames, type Line, type RunningCapture } from './runner'

const tmp = mkdtempSync(join(tmpdir(), 'gw-live-'))

const named = (c: RunningCapture, protocol: string, name: string, direction?: string): Line | undefined =>
  c.messages.find((m) => m.protocol === protocol && m.name === name && (!direction || m.direction === direction))

describe('gamewire capture -i lo', () => {
  it('streams Photon messages while capturing; the -w file has the frames the summary reports', async () => {
    const port = await freePort()
    const file = join(tmp, 'photon.pcapng')
    const cap = await startCapture(['-i', 'lo', '-f', `udp port ${port}`, '-w', file])
    const peers = await PhotonPeers.open(port)
    try {
      await peers.handshake()
      await peers.request(253, [
        [244, pv.byte(22)],
        [245, pv.str('hello live')]
      ])
      await peers.response(253, [])
      await peers.event(22, [
        [245, pv.int(9)],
        [254, pv.int(3)]
      ])
      // Every message must be on stdout while the capture is still running.
      const event = await cap.waitFor((c) => named(c, 'photon', 'Event 22'), 'the Photon event')
      expect(cap.alive).toBe(true)
      const names = cap.messages.map((m) => `${m.direction} ${m.name}`)
      expect(names).toEqual(['c2s CONNECT', 's2c VERIFYCONNECT', 'c2s Init', 's2c InitResponse', 'c2s RaiseEvent', 's2c RaiseEvent response', 's2c Event 22'])
      const raise = named(cap, 'photon', 'RaiseEvent')!
      expect(raise.stack).toEqual(['udp', 'photon'])
      expect(raise.value).toMatchObject({ msgType: 2, code: 253, codeName: 'RaiseEvent', protocol: 'GpBinary16', channel: 0, command: 'SEND_RELIABLE' })
      expect(raise.value.parameters).toEqual({ '244': { type: 'Byte', value: 22 }, '245': { type: 'String', value: 'hello live' } })
      expect(event.value.parameters).toEqual({ '245': { type: 'Int32', value: 9 }, '254': { type: 'Int32', value: 3 } })
      expect(new Set(cap.messages.map((m) => m.conversation))).toEqual(new Set([1]))
      const conv = `127.0.0.1:${peers.clientPort}`
      expect(raise.frames).toHaveLength(1)
      expect(Math.abs(raise.time - Date.now() / 1000)).toBeLessThan(30)
      const r = await cap.stop()
      expect(r.code).toBe(0)
      expect(r.messages).toHaveLength(7)
      expect(r.summary.conversations).toEqual([
        expect.objectContaining({ transport: 'udp', client: conv, server: `127.0.0.1:${port}`, protocol: 'photon', frames: 7 })
      ])
      expect(r.summary.source).toMatchObject({ interface: 'lo', file, frames: 7, linkTypes: ['ETHERNET'] })
      // libpcap's own counters (pcap_stats via vendor/cap): nothing is dropped on an idle loopback.
      expect(r.summary.capture).toMatchObject({ received: 7, written: 7, stoppedBy: 'requested', dropped: 0, ifDropped: 0, filter: `udp port ${port}` })
      expect(r.summary.stats).toEqual({ messages: 7, errors: 0 })
      expect(tsharkFrames(file)).toBe(r.summary.capture.written)
      expect(r.stderr).toMatch(/7 frames captured on lo, 7 messages, 7 written to/)
    } finally {
      peers.close()
      await cap.stop()
    }
  })

  it('--tree none streams the messages without their field trees, as decode --tree none gives them from the -w file', async () => {
    const port = await freePort()
    const file = join(tmp, 'photon-no-tree.pcapng')
    const cap = await startCapture(['-i', 'lo', '-f', `udp port ${port}`, '-w', file, '--tree', 'none'])
    const peers = await PhotonPeers.open(port)
    try {
      await peers.handshake()
      await peers.request(253, [
        [244, pv.byte(22)],
        [245, pv.str('hello live')]
      ])
      await peers.event(22, [
        [245, pv.int(9)],
        [254, pv.int(3)]
      ])
      await cap.waitFor((c) => named(c, 'photon', 'Event 22'), 'the Photon event')
      const r = await cap.stop()
      expect(r.code).toBe(0)
      expect(r.messages.map((m) => m.name)).toEqual(['CONNECT', 'VERIFYCONNECT', 'Init', 'InitResponse', 'RaiseEvent', 'Event 22'])
      for (const m of r.messages)
        expect(Object.keys(m)).toEqual([
          'id',
          'conversation',
          'direction',
          'frames',
          'time',
          'protocol',
          'stack',
          'name',
          'summary',
          'value',
          'sources',
          'warnings',
          'error'
        ])
      const decoded = spawnSync(process.execPath, [BIN, 'decode', file, '--format', 'ndjson', '--tree', 'none'], { encoding: 'utf8' })
      expect(
        decoded.stdout
          .trim()
          .split('\n')
          .slice(0, -1)
          .map((l) => JSON.parse(l))
      ).toEqual(r.messages)
    } finally {
      peers.close()
      await cap.stop()
    }
  })

  it('decodes the official sfs2x-api client talking to a WebSocket server while capturing', async () => {
    const port = await freePort()
    const cap = await startCapture(['-i', 'lo', '-f', `tcp port ${port}`])
    try {
      const sent = await runTraffic('sfs2x-traffic.mjs', [String(port)])
      const reply = await cap.waitFor(
        (c) => c.messages.find((m) => m.protocol === 'sfs2x' && m.direction === 's2c' && m.value.command === sent.command),
        'the extension response'
      )
      expect(cap.alive).toBe(true)
      const request = cap.messages.find((m) => m.protocol === 'sfs2x' && m.direction === 'c2s' && m.value.command === sent.command)!
      expect(request.stack).toEqual(['tcp', 'websocket', 'sfs2x'])
      expect(request.value).toMatchObject({ controller: 'Extension', action: 'CallExtension', command: 'move' })
      // What the SDK was given is what the decoder read off the wire, typed.
      expect(request.value.body.value.p.value.p).toEqual(sent.params)
      expect(reply.value.body.value.p.value.p).toEqual(sent.params)
      const login = cap.messages.find((m) => m.protocol === 'sfs2x' && m.name === 'Login' && m.direction === 'c2s')!
      expect(login.summary).toBe(`Login zone=${sent.zone} user=${sent.user}`)
      const r = await cap.stop()
      expect(r.code).toBe(0)
      expect(r.summary.conversations[0]).toMatchObject({ transport: 'tcp', server: sent.server, protocol: 'sfs2x', stack: ['tcp', 'websocket', 'sfs2x'] })
    } finally {
      await cap.stop()
    }
  })

  it('decodes FigNet messages carried by a real ENet peer while capturing', async () => {
    const port = await freePort()
    const cap = await startCapture(['-i', 'lo', '-f', `udp port ${port}`])
    try {
      const sent = await runTraffic('enet-traffic.mjs', [String(port)])
      expect(sent.received.map((x: Line) => x.hex)).toEqual(sent.sent.map((x: Line) => x.hex)) // ENet delivered them all
      // FigNet messages (ENet's own commands, CONNECT/ACK/PING, come out too, as protocol enet).
      const fignet = await cap.waitFor(
        (c) => {
          const got = c.messages.filter((m) => m.protocol === 'fignet' && m.value.msgId !== undefined)
          return got.length >= sent.sent.length ? got : undefined
        },
        'the FigNet messages',
        8000
      )
      expect(cap.alive).toBe(true)
      expect(fignet.map((m) => ({ msgId: m.value.msgId, callbackId: m.value.callbackId, channel: m.value.channel }))).toEqual(
        sent.sent.map((s: Line) => ({ msgId: s.msgId, callbackId: s.callbackId, channel: s.channel }))
      )
      expect(fignet.map((m) => m.direction)).toEqual(['c2s', 'c2s', 'c2s'])
      expect(fignet.map((m) => m.value.delivery)).toEqual(['Reliable', 'Unsequenced', 'Reliable'])
      expect(fignet[0].stack).toEqual(['udp', 'enet', 'fignet'])
      expect(fignet[0].value).toMatchObject({
        msgName: 'Ping',
        codec: 'BitBuffer',
        encrypted: false,
        payload: { peerType: { type: 'byte', value: 1, name: 'Client' } }
      })
      expect(fignet[2].value).toMatchObject({
        msgName: 'RegisterIdentity',
        payload: { SecretKey: { type: 'string', value: 'secret' }, AppName: { type: 'string', value: 'app' } }
      })
      const r = await cap.stop()
      expect(r.summary.conversations).toEqual([
        expect.objectContaining({ client: `127.0.0.1:${sent.clientPort}`, server: sent.server, protocol: 'fignet', stack: ['udp', 'enet', 'fignet'] })
      ])
    } finally {
      await cap.stop()
    }
  })

  it('stops by itself after --count frames or --duration seconds', async () => {
    const port = await freePort()
    const cap = await startCapture(['-i', 'lo', '-f', `udp port ${port}`, '--count', '3'])
    const peers = await PhotonPeers.open(port)
    try {
      await peers.raw(6)
      const r = await cap.finished()
      expect(r.code).toBe(0)
      expect(r.summary.capture).toMatchObject({ received: 3, stoppedBy: 'count' })
      expect(r.messages.map((m) => m.frames)).toEqual([[1], [2], [3]])
      expect(r.messages.map((m) => m.value.hex.slice(0, 8))).toEqual(['00000000', '00000001', '00000002'])
    } finally {
      peers.close()
    }
    const started = Date.now()
    const timed = await startCapture(['-i', 'lo', '-f', `udp port ${port}`, '--duration', '1'])
    const r = await timed.finished()
    expect(r.code).toBe(0)
    expect(r.summary.capture).toMatchObject({ received: 0, stoppedBy: 'duration' })
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000)
  })

  it('stops cleanly on SIGTERM too', async () => {
    const cap = await startCapture(['-i', 'lo', '-f', 'udp port 9'])
    const r = await cap.stop('SIGTERM')
    expect(r.code).toBe(0)
    expect(r.summary.capture.stoppedBy).toBe('requested')
  })
})

describe('gamewire capture errors (one line, exit 2)', () => {
  it("a bad capture filter gives libpcap's message", async () => {
    const r = await runCapture(['-i', 'lo', '-f', 'udp port'])
    expect(r.code).toBe(2)
    expect(r.stderr).toBe("gamewire: bad capture filter 'udp port': can't parse filter expression: syntax error\n")
    const r2 = await runCapture(['-i', 'lo', '-f', 'tcp port 70000'])
    expect(r2.code).toBe(2)
    expect(r2.stderr).toMatch(/^gamewire: bad capture filter 'tcp port 70000': .*70000.*\n$/)
  })

  it('an unknown interface', async () => {
    const r = await runCapture(['-i', 'nosuchif0'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^gamewire: no capture device 'nosuchif0' \(devices: .*\blo\b.*\)/)
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1)
  })

  it('no permission: says how to grant it (capture capabilities dropped)', async () => {
    const r = await runCapture(['-i', 'lo'], { withoutCaptureRights: true })
    expect(r.code).toBe(2)
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1)
    expect(r.stderr).toMatch(
      /^gamewire: no permission to capture on lo \(libpcap: .*Operation not permitted\): run as root \(sudo\), or grant node the capture capabilities once: sudo setcap cap_net_raw,cap_net_admin=eip \//
    )
  })

  it('bad options, an unwritable -w file, an unknown preset', async () => {
    for (const [args, message] of [
      [[], /capture needs an interface/],
      [['-i', 'lo', '--format', 'json'], /capture streams ndjson only/],
      [['-i', 'lo', '--tree', 'half'], /^gamewire: --tree must be full or none, got 'half'$/m],
      [['-i', 'lo', '--count', '1.5'], /--count must be a whole number/],
      [['-i', 'lo', '--snaplen', '999999'], /--snaplen must be a whole number up to 262144/],
      [['-i', 'lo', '--preset', 'enet'], /preset enet needs the ports to watch: enet:PORT/],
      [['-i', 'lo', '--preset', 'quake'], /unknown preset 'quake' \(presets: photon, sfs2x, /],
      [['-i', 'lo', '--filter', 'photon.code =='], /^gamewire: filter: /],
      [['-i', 'lo', '-w', join(tmp, 'no/such/dir/x.pcapng')], /cannot write .*x\.pcapng \(ENOENT\)/]
    ] as [string[], RegExp][]) {
      const r = await runCapture(args)
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr, args.join(' ')).toMatch(message)
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1)
    }
  })
})
