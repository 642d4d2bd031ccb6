// Photon over real TCP and WebSocket connections on 127.0.0.1, captured by tshark: the kernel's TCP
// segmentation and the `ws` library's framing (masking, permessage-deflate from zlib) are not ours. The
// messages come from the test's own GpBinary encoder with seeded random parameters; every one sent must
// come back out of the capture, in order, with its code and parameters, byte ranges intact.
import { describe, it, expect } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { WebSocket, WebSocketServer } from 'ws'
import { sleep, startTshark, tcpPair } from '../../../fixtures/loopback.mjs'
import { checkRanges, decodeFile } from '../../helpers/decode'
import { rng } from '../../helpers/rng'
import { eventBody, requestBody, responseBody, pv, type Params, type PV, type Version } from './gp-encoder'
import { initMessage, tcpFrame } from './udp-encoder'
import type { DecodedMessage } from '../../../../src-shared/model/types'

const seed = Number(process.env.GAMEWIRE_SEED ?? Date.now() % 1e6)
console.log(`photon loopback seed ${seed} (GAMEWIRE_SEED=${seed} repeats it)`)

interface Sent {
  dir: 'c2s' | 's2c'
  msgType: number
  code: number
  params: Params
}

/** Random parameters of the types both versions share; one large byte array now and then. */
function randomParams(next: () => number, big: boolean): Params {
  const int = (n: number) => Math.floor(next() * n)
  const value = (depth: number): PV => {
    switch (int(depth > 1 ? 7 : 9)) {
      case 0:
        return pv.byte(int(256))
      case 1:
        return pv.short(int(65536) - 32768)
      case 2:
        return pv.int(int(2 ** 32) - 2 ** 31)
      case 3:
        return pv.long(BigInt(int(2 ** 40)) - 2n ** 39n)
      case 4:
        return pv.str(`s${int(1e6)}-äß`)
      case 5:
        return pv.bool(next() < 0.5)
      case 6:
        return pv.double(next() * 1e6)
      case 7:
        return pv.hash(...Array.from({ length: 1 + int(3) }, (): [PV, PV] => [pv.byte(int(256)), value(depth + 1)]))
      default:
        return pv.ints(Array.from({ length: int(6) }, () => int(2 ** 31)))
    }
  }
  const params: Params = []
  const codes = new Set<number>()
  for (let i = 0, n = 1 + int(5); i < n; i++) {
    const code = int(200)
    if (codes.has(code)) continue
    codes.add(code)
    params.push([code, value(0)])
  }
  if (big) params.push([245, pv.bytes(Array.from({ length: 150_000 }, () => int(256)))])
  return params
}

function randomSession(next: () => number, n: number): Sent[] {
  const out: Sent[] = []
  for (let i = 0; i < n; i++) {
    const code = 1 + Math.floor(next() * 250)
    const big = i === Math.floor(n / 2)
    out.push({ dir: 'c2s', msgType: 2, code, params: randomParams(next, big) })
    out.push({ dir: 's2c', msgType: 3, code, params: randomParams(next, false) })
    if (next() < 0.5) out.push({ dir: 's2c', msgType: 4, code: 1 + Math.floor(next() * 200), params: randomParams(next, false) })
  }
  return out
}

function body(ver: Version, s: Sent): Uint8Array {
  const b =
    s.msgType === 2
      ? requestBody(ver, s.code, s.params)
      : s.msgType === 3
        ? responseBody(ver, s.code, 0, pv.null(), s.params)
        : eventBody(ver, s.code, s.params)
  return Uint8Array.from([0xf3, s.msgType, ...b])
}

/** The decoded Photon messages of one direction that carry operations and events. */
function decodedOps(messages: DecodedMessage[], dir: 'c2s' | 's2c'): DecodedMessage[] {
  return messages.filter(
    (m) =>
      m.protocol === 'photon' &&
      m.direction === dir &&
      /^(OperationRequest|OperationResponse|Event)$/.test(String((m.value as { msgTypeName?: string }).msgTypeName))
  )
}

function expectSame(messages: DecodedMessage[], sent: Sent[], version: 'GpBinary16' | 'GpBinary18', from: string): void {
  for (const dir of ['c2s', 's2c'] as const) {
    const want = sent.filter((s) => s.dir === dir)
    const got = decodedOps(messages, dir)
    expect(got.map((m) => m.error).filter(Boolean)).toEqual([])
    expect(got).toHaveLength(want.length)
    got.forEach((m, i) => {
      const v = m.value as { msgType: number; code: number; parameters: Map<string, PV>; protocol: string; protocolFrom: string }
      expect(v.msgType).toBe(want[i].msgType)
      expect(v.code).toBe(want[i].code)
      expect(v.protocol).toBe(version)
      expect(v.protocolFrom).toBe(from)
      // Parameters keep wire order (a Map, as the export writes them).
      expect(v.parameters).toEqual(new Map(want[i].params.map(([c, p]) => [String(c), p])))
      checkRanges(m)
    })
  }
}

describe('Photon over real loopback connections, captured by tshark', () => {
  it('TCP: FB frames split by the kernel and by partial writes, several per write, pings', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-photon-tcp-'))
    try {
      const port = 42000 + (seed % 5000)
      const file = join(dir, 'photon-tcp.pcapng')
      const stop = await startTshark(null, `tcp port ${port}`, file)
      const pair = await tcpPair(port)
      const next = rng(seed)
      const sent = randomSession(next, 12)
      await pair.send('c2s', [tcpFrame(initMessage(6, 'loopback-app'))], { cuts: [5] })
      await pair.send('s2c', [tcpFrame(Uint8Array.from([0xf3, 0x01, 0x00]))])
      await pair.send('c2s', [Uint8Array.from([0xf0, 0, 0, 0, 9])])
      await pair.send('s2c', [Uint8Array.from([0xf0, 0, 0, 1, 0, 0, 0, 0, 9])])
      for (let i = 0; i < sent.length; ) {
        // Runs of messages of one direction go out in one write, cut at random places.
        const run: Sent[] = [sent[i++]]
        while (i < sent.length && sent[i].dir === run[0].dir && next() < 0.6) run.push(sent[i++])
        const frames = run.map((s) => tcpFrame(body(16, s), s.msgType === 4 ? 1 : 0))
        const total = frames.reduce((n, f) => n + f.length, 0)
        const cuts = next() < 0.5 ? [1 + Math.floor(next() * (total - 1))] : []
        await pair.send(run[0].dir, frames, { cuts })
      }
      await pair.close()
      await stop()
      const { messages, conversations } = decodeFile(file)
      expect(conversations).toHaveLength(1)
      expect(conversations[0].stack).toEqual(['tcp', 'photon'])
      expect(messages.filter((m) => m.name === 'Ping' || m.name === 'Ping reply').map((m) => m.name)).toEqual(['Ping', 'Ping reply'])
      expectSame(messages, sent, 'GpBinary16', 'init')
      // The big request crossed several TCP segments: its frames list all of them.
      expect(Math.max(...decodedOps(messages, 'c2s').map((m) => m.frames.length))).toBeGreaterThan(1)
    } finally {
      if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true })
    }
  })

  it('WebSocket: subprotocol GpBinaryV18 names the version; masked, permessage-deflate frames from ws', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-photon-ws-'))
    try {
      const port = 47000 + (seed % 5000)
      const file = join(dir, 'photon-ws.pcapng')
      const stop = await startTshark(null, `tcp port ${port}`, file)
      const wss = new WebSocketServer({
        host: '127.0.0.1',
        port,
        perMessageDeflate: { threshold: 64 },
        handleProtocols: (p) => (p.has('GpBinaryV18') ? 'GpBinaryV18' : false)
      })
      const serverSide = new Promise<WebSocket>((resolve) => wss.once('connection', resolve))
      const client = new WebSocket(`ws://127.0.0.1:${port}/?libversion=4.1.6.25&sid=30&app=loopback-app`, 'GpBinaryV18', { perMessageDeflate: true })
      await new Promise((r, j) => {
        client.once('open', r)
        client.once('error', j)
      })
      const server = await serverSide
      expect(client.protocol).toBe('GpBinaryV18')
      const sent = randomSession(rng(seed + 1), 10)
      const got = { c2s: 0, s2c: 0 }
      server.on('message', () => got.c2s++)
      client.on('message', () => got.s2c++)
      for (const s of sent) {
        ;(s.dir === 'c2s' ? client : server).send(body(18, s), { binary: true })
        await sleep(5)
      }
      while (got.c2s + got.s2c < sent.length) await sleep(20)
      client.close()
      await new Promise((r) => server.once('close', r))
      await new Promise((r) => wss.close(r))
      await stop()
      const { messages, conversations } = decodeFile(file)
      expect(conversations).toHaveLength(1)
      expect(conversations[0].stack).toEqual(['tcp', 'websocket', 'photon'])
      expectSame(messages, sent, 'GpBinary18', 'subprotocol')
      // permessage-deflate was negotiated, so compressed messages carry a decompressed source.
      expect(messages.some((m) => m.sources.some((s) => /inflat|decompress/i.test(s.name)))).toBe(true)
    } finally {
      if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true })
    }
  })
})
