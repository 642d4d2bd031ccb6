import { describe, it, expect, afterEach } from 'vitest'
import net from 'node:net'
import zlib from 'node:zlib'
import { join } from 'node:path'
import { WebSocketServer, WebSocket } from 'ws'
import * as wsLib from 'ws'
import {
  detectHttpUpgrade,
  parseHttpHead,
  MAX_HTTP_HEAD,
  type WebSocketOptions,
  type WsEvent,
  type WsMessageEvent,
  type WsControlEvent,
  type WsErrorEvent,
  type WsModeEvent,
  type WsHandshakeEvent
} from '../../../src-shared/net/websocket'
import type { FieldNode } from '../../../src-shared/model/types'
import { withinTimeLimit } from '../helpers/time-limit'
import { decode, hex, normalize, type Chunk, type Decoded, type Dir } from './ws-decode'

// The byte-by-byte and fuzz decodes run in a worker that is stopped after this long (a loop that makes no
// progress would otherwise hang vitest, whose timeout cannot interrupt synchronous code).
const WS_DECODE = join(__dirname, 'ws-decode.ts')
const LIMIT_S = 30

// ---------------------------------------------------------------------------------------------------------
// Recording relay: what TCP reassembly would deliver, chunk by chunk, with fake frame numbers.

interface Relay {
  port: number
  chunks: Chunk[]
  /** Resolves when both legs of the (single) relayed connection have closed. */
  done: Promise<void>
  close(): void
}

const cleanups: (() => void)[] = []
afterEach(() => {
  while (cleanups.length) cleanups.pop()!()
})

function startRelay(targetPort: number): Promise<Relay> {
  const chunks: Chunk[] = []
  let frame = 0
  let resolveDone!: () => void
  const done = new Promise<void>((r) => (resolveDone = r))
  const server = net.createServer((down) => {
    const up = net.connect(targetPort, '127.0.0.1')
    down.setNoDelay(true)
    up.setNoDelay(true)
    let closed = 0
    const onClose = () => {
      if (++closed === 2) resolveDone()
    }
    down.on('data', (d) => {
      chunks.push({ dir: 'c2s', data: Uint8Array.from(d), frame: ++frame })
      up.write(d)
    })
    up.on('data', (d) => {
      chunks.push({ dir: 's2c', data: Uint8Array.from(d), frame: ++frame })
      down.write(d)
    })
    down.on('end', () => up.end())
    up.on('end', () => down.end())
    down.on('error', () => up.destroy())
    up.on('error', () => down.destroy())
    down.on('close', onClose)
    up.on('close', onClose)
  })
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port
      const close = () => server.close()
      cleanups.push(close)
      resolve({ port, chunks, done, close })
    })
  })
}

const messages = (ev: WsEvent[], dir?: Dir) => ev.filter((e): e is WsMessageEvent => e.kind === 'message' && (!dir || e.dir === dir))
const controls = (ev: WsEvent[], dir?: Dir) => ev.filter((e): e is WsControlEvent => e.kind === 'control' && (!dir || e.dir === dir))
const errors = (ev: WsEvent[]) => ev.filter((e): e is WsErrorEvent => e.kind === 'error')
const modes = (ev: WsEvent[]) => ev.filter((e): e is WsModeEvent => e.kind === 'mode')

function findAll(nodes: FieldNode[], key: string, acc: FieldNode[] = []): FieldNode[] {
  for (const n of nodes) {
    if (n.key === key) acc.push(n)
    if (n.children) findAll(n.children, key, acc)
  }
  return acc
}

// ---------------------------------------------------------------------------------------------------------
// A scripted session between a real `ws` server and a real `ws` client, through the relay.

let seed = 1
function rand(n: number): Buffer {
  const b = Buffer.alloc(n)
  for (let i = 0; i < n; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
    b[i] = seed >>> 24
  }
  return b
}

interface Planned {
  data: Buffer | string
  /** Send as this many fragments (fin:false ... fin:true). */
  fragments?: number
  /** Send a ping after the first fragment (interleaved control frame). */
  pingInside?: string
}

interface Received {
  data: Buffer
  binary: boolean
}

function expectedOf(p: Planned): Received {
  return typeof p.data === 'string' ? { data: Buffer.from(p.data, 'utf8'), binary: false } : { data: p.data, binary: true }
}

function fragmentsOf(p: Planned): (Buffer | string)[] {
  const n = p.fragments ?? 1
  if (n <= 1) return [p.data]
  if (typeof p.data === 'string') {
    const chars = [...p.data] // split at code points
    const per = Math.ceil(chars.length / n)
    return Array.from({ length: n }, (_, i) => chars.slice(i * per, (i + 1) * per).join(''))
  }
  const per = Math.ceil(p.data.length / n)
  return Array.from({ length: n }, (_, i) => (p.data as Buffer).subarray(i * per, (i + 1) * per))
}

function sendPlanned(ws: WebSocket, p: Planned): void {
  const parts = fragmentsOf(p)
  parts.forEach((part, i) => {
    ws.send(part, { fin: i === parts.length - 1 })
    if (i === 0 && p.pingInside !== undefined && parts.length > 1) ws.ping(Buffer.from(p.pingInside))
  })
}

interface SessionOptions {
  serverDeflate?: false | Record<string, unknown>
  clientDeflate?: false | Record<string, unknown>
  protocols?: string[]
  path?: string
  c2s: Planned[]
  s2c: Planned[]
}

interface Session {
  chunks: Chunk[]
  serverGot: Received[]
  clientGot: Received[]
  serverPings: Buffer[]
  clientPings: Buffer[]
  serverPongs: Buffer[]
  clientPongs: Buffer[]
  serverClose: { code: number; reason: string } | null
  clientClose: { code: number; reason: string } | null
  protocol: string
  extensions: string
}

async function runSession(o: SessionOptions): Promise<Session> {
  const wss = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    perMessageDeflate: o.serverDeflate ?? false,
    handleProtocols: (protocols) => (protocols.has('sfs2x') ? 'sfs2x' : false)
  })
  cleanups.push(() => wss.close())
  await new Promise<void>((r) => wss.once('listening', () => r()))
  const relay = await startRelay((wss.address() as net.AddressInfo).port)
  const s: Session = {
    chunks: relay.chunks,
    serverGot: [],
    clientGot: [],
    serverPings: [],
    clientPings: [],
    serverPongs: [],
    clientPongs: [],
    serverClose: null,
    clientClose: null,
    protocol: '',
    extensions: ''
  }
  const serverConn = new Promise<WebSocket>((resolve) => {
    wss.on('connection', (ws) => {
      ws.on('message', (d, isBinary) => s.serverGot.push({ data: Buffer.from(d as Buffer), binary: isBinary }))
      ws.on('ping', (d) => s.serverPings.push(Buffer.from(d)))
      ws.on('pong', (d) => s.serverPongs.push(Buffer.from(d)))
      ws.on('close', (code, reason) => (s.serverClose = { code, reason: reason.toString() }))
      resolve(ws)
    })
  })
  const client = new WebSocket(`ws://127.0.0.1:${relay.port}${o.path ?? '/'}`, o.protocols ?? [], { perMessageDeflate: o.clientDeflate ?? false })
  client.on('message', (d, isBinary) => s.clientGot.push({ data: Buffer.from(d as Buffer), binary: isBinary }))
  client.on('ping', (d) => s.clientPings.push(Buffer.from(d)))
  client.on('pong', (d) => s.clientPongs.push(Buffer.from(d)))
  const clientClosed = new Promise<void>((r) =>
    client.on('close', (code, reason) => {
      s.clientClose = { code, reason: reason.toString() }
      r()
    })
  )
  await new Promise<void>((resolve, reject) => {
    client.once('open', () => resolve())
    client.once('error', reject)
  })
  s.protocol = client.protocol
  s.extensions = client.extensions
  const server = await serverConn

  for (const p of o.c2s) sendPlanned(client, p)
  client.ping(Buffer.from('client ping'))
  for (const p of o.s2c) sendPlanned(server, p)
  server.ping(Buffer.from('server ping'))

  const expectedPings = (list: Planned[]) => list.filter((p) => p.pingInside !== undefined && (p.fragments ?? 1) > 1).length + 1
  const deadline = Date.now() + 30_000
  while (
    s.serverGot.length < o.c2s.length ||
    s.clientGot.length < o.s2c.length ||
    s.clientPongs.length < expectedPings(o.c2s) ||
    s.serverPongs.length < expectedPings(o.s2c)
  ) {
    if (Date.now() > deadline) throw new Error('session did not complete')
    await new Promise((r) => setTimeout(r, 5))
  }
  client.close(4001, 'bye ✓')
  await clientClosed
  await relay.done
  return s
}

// ---------------------------------------------------------------------------------------------------------
// Expected results of a session, checked against what the decoder produced.

function checkSession(s: Session, o: SessionOptions, ev: WsEvent[], compressed: boolean): void {
  expect(errors(ev)).toEqual([])
  const hs = ev.filter((e): e is WsHandshakeEvent => e.kind === 'handshake')
  expect(hs.map((h) => h.dir)).toEqual(['c2s', 's2c'])
  const req = hs[0].request!
  expect(req.method).toBe('GET')
  expect(req.path).toBe(o.path ?? '/')
  expect(req.host).toMatch(/^127\.0\.0\.1:\d+$/)
  expect(req.protocols).toEqual(o.protocols ?? [])
  const resp = hs[1].response!
  expect(resp.status).toBe(101)
  expect(resp.protocol ?? '').toBe(s.protocol)
  // ws reports only the extension names on the client side
  expect(resp.extensions.map((e) => e.name).join()).toBe(s.extensions)
  expect(modes(ev).map((m) => m.mode)).toEqual(['websocket'])

  // Data messages: exactly what ws sent, and what the other ws peer received.
  const asRec = (m: WsMessageEvent): Received => ({ data: Buffer.from(m.payload), binary: m.opcode === 2 })
  const c2s = messages(ev, 'c2s')
  const s2c = messages(ev, 's2c')
  expect(c2s.map(asRec)).toEqual(o.c2s.map(expectedOf))
  expect(c2s.map(asRec)).toEqual(s.serverGot)
  expect(s2c.map(asRec)).toEqual(o.s2c.map(expectedOf))
  expect(s2c.map(asRec)).toEqual(s.clientGot)
  for (const m of [...c2s, ...s2c]) {
    expect(m.compressed).toBe(compressed)
    expect(m.text).toBe(m.opcode === 1)
    expect(m.frames.length).toBeGreaterThan(0)
    expect([...m.frames].sort((a, b) => a - b)).toEqual(m.frames)
    // the payload source holds exactly the payload
    expect(hex(m.draft.sources[m.payloadSource].bytes.subarray(m.payloadOffset, m.payloadOffset + m.payload.length))).toBe(hex(m.payload))
    expect(m.draft.sources[0].name).toBe('WebSocket frames')
    if (compressed) expect(m.draft.sources[m.payloadSource].name).toBe('Inflated payload')
    expect(m.draft.warnings).toEqual([])
  }
  // Fragment counts as planned (data frames per message).
  const frameCount = (m: WsMessageEvent) => findAll(m.draft.tree.roots, 'websocket.frame').length
  expect(c2s.map(frameCount)).toEqual(o.c2s.map((p) => Math.max(1, p.fragments ?? 1)))
  expect(s2c.map(frameCount)).toEqual(o.s2c.map((p) => Math.max(1, p.fragments ?? 1)))

  // Control frames: pings (incl. ones inside fragmented messages), the automatic pongs, the close handshake.
  const ctl = (dir: Dir, op: number) =>
    controls(ev, dir)
      .filter((c) => c.opcode === op)
      .map((c) => Buffer.from(c.payload).toString())
  const insidePings = (list: Planned[]) => list.filter((p) => p.pingInside !== undefined && (p.fragments ?? 1) > 1).map((p) => p.pingInside!)
  expect(ctl('c2s', 9)).toEqual([...insidePings(o.c2s), 'client ping'])
  expect(ctl('s2c', 9)).toEqual([...insidePings(o.s2c), 'server ping'])
  expect(s.serverPings.map(String)).toEqual(ctl('c2s', 9))
  expect(s.clientPings.map(String)).toEqual(ctl('s2c', 9))
  expect(ctl('c2s', 10)).toEqual(ctl('s2c', 9)) // auto-pongs echo the ping payloads
  expect(ctl('s2c', 10)).toEqual(ctl('c2s', 9))
  const closes = (dir: Dir) => controls(ev, dir).filter((c) => c.opcode === 8)
  expect(closes('c2s').map((c) => [c.closeCode, c.closeReason])).toEqual([[4001, 'bye ✓']])
  expect(closes('s2c').map((c) => [c.closeCode, c.closeReason])).toEqual([[4001, 'bye ✓']])
  expect(s.serverClose).toEqual({ code: 4001, reason: 'bye ✓' })
  expect(s.clientClose).toEqual({ code: 4001, reason: 'bye ✓' })
  // Each interleaved ping arrives before the message it interrupted.
  for (const dir of ['c2s', 's2c'] as const) {
    const plan = dir === 'c2s' ? o.c2s : o.s2c
    plan.forEach((p, i) => {
      if (p.pingInside === undefined || (p.fragments ?? 1) < 2) return
      const msg = messages(ev, dir)[i]
      const ping = controls(ev, dir).find((c) => c.opcode === 9 && Buffer.from(c.payload).toString() === p.pingInside)!
      expect(ev.indexOf(ping)).toBeLessThan(ev.indexOf(msg))
      expect(ping.offset).toBeGreaterThan(msg.offset)
    })
  }
  // Every byte of both streams was consumed.
  expect(ev.every((e) => e.kind !== 'error')).toBe(true)
}

const text = (n: number) => 'héllo ✓ 🎮 '.repeat(Math.ceil(n / 10)).slice(0, n)
const similar = (i: number) => JSON.stringify({ cmd: 'move', room: 'lobby', user: 'player-42', x: 100 + i, y: 200 - i, seq: i, flags: ['a', 'b', 'c'] })

// Sizes stay moderate: byte-at-a-time feeding puts every byte in its own ByteStream chunk, and taking a
// frame of n one-byte chunks costs O(n^2) in ByteStream.take (Array.shift per chunk).
function basicPlan(large = true): { c2s: Planned[]; s2c: Planned[] } {
  const c2s: Planned[] = [
    { data: Buffer.from([0x80, 0x00, 0x10, 0x12, 0x00, 0x03, 0x00, 0x01, 0x63, 0x02]) },
    { data: text(40) },
    { data: Buffer.alloc(0) },
    { data: '' },
    { data: rand(125) },
    { data: rand(126) }, // 16-bit length
    { data: rand(65535) }, // largest 16-bit length
    { data: rand(65536) }, // 64-bit length, necessarily spread over more than one TCP read
    { data: rand(3000), fragments: 3, pingInside: 'mid c2s' },
    { data: text(300), fragments: 4 },
    { data: similar(1) }
  ]
  const s2c: Planned[] = [
    { data: Buffer.from([0x80, 0x00, 0x0c, 0x12, 0x00, 0x02, 0x00, 0x01, 0x63]) },
    { data: text(1000) },
    { data: rand(70_000) },
    { data: rand(60_000), fragments: 3, pingInside: 'mid s2c' },
    { data: Buffer.alloc(0) },
    { data: rand(300) },
    { data: 'done' }
  ]
  // with compression, random bytes stay random: one 70000-byte message per direction is enough for 64-bit lengths
  if (!large) c2s.splice(6, 2, { data: rand(70_000) })
  return { c2s, s2c }
}

function withSimilar(plan: { c2s: Planned[]; s2c: Planned[] }): { c2s: Planned[]; s2c: Planned[] } {
  for (let i = 0; i < 8; i++) {
    plan.c2s.push({ data: similar(i) })
    plan.s2c.push({ data: similar(100 + i) })
  }
  return plan
}

/** Wire size (source 0) of the similar JSON messages of one direction. */
function similarWireSizes(ev: WsEvent[], dir: Dir): number[] {
  return messages(ev, dir)
    .filter((m) => m.text && Buffer.from(m.payload).toString().startsWith('{"cmd":"move"'))
    .map((m) => m.draft.sources[0].bytes.length)
}

// ---------------------------------------------------------------------------------------------------------

describe('websocket over a recorded ws session', () => {
  it('decodes a session without permessage-deflate, whole chunks and byte by byte', async () => {
    const o: SessionOptions = { ...basicPlan(), protocols: ['sfs2x', 'json'], path: '/BlueBox/websocket?room=lobby&x=%20y' }
    const s = await runSession(o)
    expect(s.protocol).toBe('sfs2x')
    expect(s.extensions).toBe('')
    const d = decode(s.chunks)
    checkSession(s, o, d.events, false)
    expect(d.conn.mode).toBe('websocket')
    expect(d.conn.request!.path).toBe('/BlueBox/websocket?room=lobby&x=%20y')
    expect(d.conn.response!.protocol).toBe('sfs2x')
    expect(d.conn.deflate).toBeNull()
    expect(d.c2s.available).toBe(0)
    expect(d.s2c.available).toBe(0)

    // length encodings: 125 -> 7-bit, 126 / 65535 -> 16-bit, 65536 -> 64-bit
    const lenField = (m: WsMessageEvent) => findAll(m.draft.tree.roots, 'websocket.payload_len')[0]
    const c2s = messages(d.events, 'c2s')
    expect([4, 5, 6, 7].map((i) => [c2s[i].payload.length, lenField(c2s[i]).length])).toEqual([
      [125, 1],
      [126, 3],
      [65535, 3],
      [65536, 9]
    ])
    // a message spread over several TCP chunks lists all of their frame numbers
    expect(c2s[7].frames.length).toBeGreaterThan(1)

    const bytewise = await withinTimeLimit<unknown[]>(WS_DECODE, 'decodeNormalized', [s.chunks, {}, true], LIMIT_S)
    expect(bytewise).toEqual(d.events.map(normalize))
  })

  it('decodes permessage-deflate with context takeover', async () => {
    const o: SessionOptions = {
      ...withSimilar(basicPlan(false)),
      protocols: ['json', 'sfs2x'],
      path: '/game',
      serverDeflate: { threshold: 0 },
      clientDeflate: { threshold: 0 }
    }
    const s = await runSession(o)
    expect(s.extensions).toMatch(/permessage-deflate/)
    const d = decode(s.chunks)
    checkSession(s, o, d.events, true)
    expect(d.conn.deflate).toMatchObject({ clientNoContextTakeover: false, serverNoContextTakeover: false })
    // the incompressible 70000-byte messages still need 64-bit lengths on the wire
    for (const dir of ['c2s', 's2c'] as const) {
      const big = messages(d.events, dir).find((m) => m.payload.length === 70_000)!
      expect(findAll(big.draft.tree.roots, 'websocket.payload_len')[0].length).toBe(9)
    }
    // with context takeover the repeated JSON compresses to far fewer bytes once the window holds it
    for (const dir of ['c2s', 's2c'] as const) {
      const sizes = similarWireSizes(d.events, dir)
      expect(sizes.length).toBeGreaterThanOrEqual(8)
      expect(Math.max(...sizes.slice(-4))).toBeLessThan(sizes[0] * 0.6)
    }
    const bytewise = await withinTimeLimit<unknown[]>(WS_DECODE, 'decodeNormalized', [s.chunks, {}, true], LIMIT_S)
    expect(bytewise).toEqual(d.events.map(normalize))
  })

  it('decodes permessage-deflate without context takeover (and small window bits)', async () => {
    const o: SessionOptions = {
      ...withSimilar(basicPlan(false)),
      protocols: ['sfs2x'],
      path: '/ws',
      serverDeflate: { threshold: 0, serverNoContextTakeover: true, clientNoContextTakeover: true, serverMaxWindowBits: 10 },
      clientDeflate: { threshold: 0 }
    }
    const s = await runSession(o)
    const d = decode(s.chunks)
    expect(d.conn.response!.extensionsHeader).toMatch(/server_no_context_takeover/)
    expect(d.conn.response!.extensionsHeader).toMatch(/client_no_context_takeover/)
    checkSession(s, o, d.events, true)
    expect(d.conn.deflate).toEqual({ clientNoContextTakeover: true, serverNoContextTakeover: true, clientMaxWindowBits: null, serverMaxWindowBits: 10 })
    // without context takeover similar messages all cost about the same
    for (const dir of ['c2s', 's2c'] as const) {
      const sizes = similarWireSizes(d.events, dir)
      expect(Math.max(...sizes.slice(-4))).toBeGreaterThan(sizes[0] * 0.8)
    }
    const bytewise = await withinTimeLimit<unknown[]>(WS_DECODE, 'decodeNormalized', [s.chunks, {}, true], LIMIT_S)
    expect(bytewise).toEqual(d.events.map(normalize))
  })

  it('decodes permessage-deflate with takeover in one direction only', async () => {
    const o: SessionOptions = {
      ...withSimilar(basicPlan(false)),
      serverDeflate: { threshold: 0, clientNoContextTakeover: true },
      clientDeflate: { threshold: 0 }
    }
    const s = await runSession(o)
    const d = decode(s.chunks)
    checkSession(s, o, d.events, true)
    expect(d.conn.deflate).toMatchObject({ clientNoContextTakeover: true, serverNoContextTakeover: false })
  })
})

// ---------------------------------------------------------------------------------------------------------
// The fake upgrade preamble: literal HTTP Upgrade exchange, then raw unframed bytes both ways.

describe('fake upgrade preamble', () => {
  it('switches to raw mode and leaves exactly the unframed bytes in the streams', async () => {
    const serverRaw = [
      Buffer.from([0x80, 0x00, 0x0c, 0x12, 0x00, 0x02, 0x00, 0x01, 0x63, 0x02, 0x00, 0x01]),
      Buffer.from([0x88, 0x00, 0x00, 0x00, 0x05, 0x12, 0x00, 0x01, 0x00, 0x00])
    ]
    const clientRaw = [Buffer.from([0x80, 0x00, 0x10, 0x12, 0x00, 0x03, 0x00, 0x01, 0x63, 0x02, 0x01, 0x00]), rand(5000)]
    const head = 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n'
    const server = net.createServer((sock) => {
      let buf = ''
      let upgraded = false
      let got = 0
      sock.on('data', (d) => {
        if (!upgraded) {
          buf += d.toString('latin1')
          if (!buf.includes('\r\n\r\n')) return
          upgraded = true
          sock.write(Buffer.concat([Buffer.from(head), serverRaw[0]])) // head and raw bytes in one segment
          return
        }
        got += d.length
        if (got === clientRaw[0].length + clientRaw[1].length) {
          sock.write(serverRaw[1])
          sock.end()
        }
      })
      sock.on('error', () => {})
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
    cleanups.push(() => server.close())
    const relay = await startRelay((server.address() as net.AddressInfo).port)
    const client = net.connect(relay.port, '127.0.0.1')
    const request =
      'GET /BlueBox/websocket HTTP/1.1\r\nHost: game.example:8080\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n'
    let resp = ''
    client.on('data', (d) => {
      const first = resp === ''
      resp += d.toString('latin1')
      if (first) {
        client.write(clientRaw[0])
        setTimeout(() => client.write(clientRaw[1]), 20)
      }
    })
    client.on('end', () => client.end())
    client.on('error', () => {})
    client.write(request)
    await relay.done

    // byte by byte first under the time limit, so the in-process runs below cannot hang
    const limited = await withinTimeLimit<unknown[]>(WS_DECODE, 'decodeNormalized', [relay.chunks, {}, true, false], LIMIT_S)
    for (const byteByByte of [false, true]) {
      const d = decode(relay.chunks, {}, byteByByte, false)
      if (byteByByte) expect(d.events.map(normalize)).toEqual(limited)
      expect(d.conn.mode).toBe('raw')
      const m = modes(d.events)
      expect(m.map((e) => e.mode)).toEqual(['websocket', 'raw'])
      expect(m[1].reason).toMatch(/not WebSocket frames/)
      expect(errors(d.events)).toEqual([])
      expect(messages(d.events)).toEqual([])
      const hs = d.events.filter((e): e is WsHandshakeEvent => e.kind === 'handshake')
      expect(hs[0].request!.path).toBe('/BlueBox/websocket')
      expect(hs[0].request!.host).toBe('game.example:8080')
      expect(hs[1].response!.status).toBe(101)
      // final calls consume nothing in raw mode either
      expect([...d.conn.process('c2s', true), ...d.conn.process('s2c', true)]).toEqual([])
      expect(d.c2s.consumed).toBe(Buffer.byteLength(request))
      expect(d.s2c.consumed).toBe(head.length)
      expect(hex(d.c2s.takeAll().bytes)).toBe(hex(Buffer.concat(clientRaw)))
      expect(hex(d.s2c.takeAll().bytes)).toBe(hex(Buffer.concat(serverRaw)))
    }
  })
})

// ---------------------------------------------------------------------------------------------------------
// Synthetic connections for the malformed cases and exact byte ranges.

const REQUEST =
  'GET /chat?x=1 HTTP/1.1\r\nHost: example.com\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n' +
  'Sec-WebSocket-Protocol: chat, superchat\r\nSec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\nSec-WebSocket-Version: 13\r\n\r\n'
function response(ext = '', status = '101 Switching Protocols'): string {
  return `HTTP/1.1 ${status}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: chat\r\n${ext ? `Sec-WebSocket-Extensions: ${ext}\r\n` : ''}\r\n`
}

interface FrameSpec {
  fin?: boolean
  rsv1?: boolean
  rsv2?: boolean
  opcode: number
  payload?: Uint8Array
  mask?: Uint8Array | null
  /** Force a length encoding. */
  lenBytes?: 0 | 2 | 8
}

function wsFrame(f: FrameSpec): Buffer {
  const payload = Buffer.from(f.payload ?? new Uint8Array(0))
  const len = payload.length
  const lenBytes = f.lenBytes ?? (len < 126 ? 0 : len < 65536 ? 2 : 8)
  const hdr: number[] = [(f.fin === false ? 0 : 0x80) | (f.rsv1 ? 0x40 : 0) | (f.rsv2 ? 0x20 : 0) | f.opcode]
  const m = f.mask ? 0x80 : 0
  if (lenBytes === 0) hdr.push(m | len)
  else if (lenBytes === 2) hdr.push(m | 126, len >> 8, len & 0xff)
  else {
    const b = Buffer.alloc(8)
    b.writeBigUInt64BE(BigInt(len))
    hdr.push(m | 127, ...b)
  }
  if (f.mask) hdr.push(...f.mask)
  const body = Buffer.from(payload)
  if (f.mask) for (let i = 0; i < body.length; i++) body[i] ^= f.mask[i & 3]
  return Buffer.concat([Buffer.from(hdr), body])
}

const KEY = Uint8Array.from([0x37, 0xfa, 0x21, 0x3d])
const clientFrame = (f: Omit<FrameSpec, 'mask'>) => wsFrame({ ...f, mask: KEY })

function synth(parts: [Dir, Uint8Array | string][], opts: WebSocketOptions = {}, finish = false): Decoded {
  return decode(
    parts.map(([dir, data], i) => ({ dir, data: typeof data === 'string' ? Uint8Array.from(Buffer.from(data, 'latin1')) : data, frame: i + 1 })),
    opts,
    false,
    finish
  )
}

/** permessage-deflate payload: sync-flushed raw deflate without the trailing 00 00 ff ff. */
function pmd(data: Buffer): Buffer {
  const out = zlib.deflateRawSync(data, { finishFlush: zlib.constants.Z_SYNC_FLUSH })
  expect(hex(out.subarray(-4))).toBe('0000ffff')
  return out.subarray(0, out.length - 4)
}

describe('websocket frames: byte ranges', () => {
  it('records every header field with its exact range into source 0', () => {
    const payload = Buffer.from('Hello, WebSocket')
    const frame = clientFrame({ opcode: 1, payload })
    const d = synth([
      ['c2s', REQUEST],
      ['s2c', response()],
      ['c2s', frame]
    ])
    expect(errors(d.events)).toEqual([])
    const [m] = messages(d.events)
    expect(Buffer.from(m.payload).toString()).toBe('Hello, WebSocket')
    expect(m.frames).toEqual([3])
    expect(m.offset).toBe(REQUEST.length)
    const src0 = m.draft.sources[0].bytes
    expect(hex(src0)).toBe(hex(frame))
    const root = m.draft.tree.roots
    expect(root.map((n) => n.key)).toEqual(['websocket'])
    const get = (key: string) => findAll(root, key)[0]
    const op = get('websocket.opcode')
    expect([op.source, op.start, op.length, op.value]).toEqual([0, 0, 1, 1])
    expect(op.label).toBe('Opcode: 1 (text)')
    expect(src0[op.start!] & 0x0f).toBe(1)
    const fin = get('websocket.fin')
    expect([fin.start, fin.length, fin.value]).toEqual([0, 1, true])
    const mask = get('websocket.mask')
    expect([mask.start, mask.length, mask.value]).toEqual([1, 1, true])
    const len = get('websocket.payload_len')
    expect([len.start, len.length, len.value]).toEqual([1, 1, payload.length])
    const key = get('websocket.masking_key')
    expect([key.source, key.start, key.length]).toEqual([0, 2, 4])
    expect(hex(src0.subarray(key.start!, key.start! + key.length!))).toBe(hex(KEY))
    const pl = get('websocket.payload')
    expect([pl.start, pl.length]).toEqual([6, payload.length])
    expect(hex(src0.subarray(pl.start!, pl.start! + pl.length!))).toBe(hex(frame.subarray(6)))
    // unmasked payload in source 1, which is the payload source
    expect(m.draft.sources.map((s) => s.name)).toEqual(['WebSocket frames', 'Unmasked payload'])
    expect(m.payloadSource).toBe(1)
    expect(m.payloadOffset).toBe(0)
    const un = get('websocket.unmasked')
    expect([un.source, un.start, un.length]).toEqual([1, 0, payload.length])
  })

  it('places fields of later frames and 16-bit lengths correctly', () => {
    const p1 = rand(300)
    const p2 = rand(10)
    const f1 = clientFrame({ opcode: 2, fin: false, payload: p1 })
    const f2 = clientFrame({ opcode: 0, payload: p2 })
    const d = synth([
      ['c2s', REQUEST],
      ['s2c', response()],
      ['c2s', f1.subarray(0, 5)],
      ['c2s', Buffer.concat([f1.subarray(5), f2])]
    ])
    const [m] = messages(d.events)
    expect(hex(m.payload)).toBe(hex(Buffer.concat([p1, p2])))
    expect(m.frames).toEqual([3, 4])
    const ops = findAll(m.draft.tree.roots, 'websocket.opcode')
    expect(ops.map((n) => [n.start, n.value])).toEqual([
      [0, 2],
      [f1.length, 0]
    ])
    const lens = findAll(m.draft.tree.roots, 'websocket.payload_len')
    expect(lens.map((n) => [n.start, n.length, n.value])).toEqual([
      [1, 3, 300],
      [f1.length + 1, 1, 10]
    ])
    const keys = findAll(m.draft.tree.roots, 'websocket.masking_key')
    expect(keys.map((n) => n.start)).toEqual([4, f1.length + 2])
    const frames = findAll(m.draft.tree.roots, 'websocket.frame')
    expect(frames.map((n) => [n.start, n.length])).toEqual([
      [0, f1.length],
      [f1.length, f2.length]
    ])
  })

  it('gives an unmasked single server frame its own payload source (a view, offset 0)', () => {
    const d = synth([
      ['c2s', REQUEST],
      ['s2c', response()],
      ['s2c', wsFrame({ opcode: 2, payload: Buffer.from([1, 2, 3]) })]
    ])
    const [m] = messages(d.events)
    expect(m.draft.sources.map((s) => s.name)).toEqual(['WebSocket frames', 'Payload'])
    expect([m.payloadSource, m.payloadOffset]).toEqual([1, 0])
    expect(hex(m.draft.sources[1].bytes)).toBe('010203')
    expect(findAll(m.draft.tree.roots, 'websocket.masking_key')).toEqual([])
  })

  it('decodes close code and reason with ranges into the unmasked payload', () => {
    const body = Buffer.concat([Buffer.from([0x03, 0xe8]), Buffer.from('going')])
    const d = synth([
      ['c2s', REQUEST],
      ['s2c', response()],
      ['c2s', clientFrame({ opcode: 9, payload: Buffer.from('p') })],
      ['c2s', clientFrame({ opcode: 8, payload: body })]
    ])
    const [ping, close] = controls(d.events)
    expect(ping.opcode).toBe(9)
    expect(Buffer.from(ping.payload).toString()).toBe('p')
    expect([close.opcode, close.closeCode, close.closeReason]).toEqual([8, 1000, 'going'])
    const code = findAll(close.draft.tree.roots, 'websocket.close_code')[0]
    expect([code.source, code.start, code.length, code.label]).toEqual([1, 0, 2, 'Close code: 1000 (Normal closure)'])
    const reason = findAll(close.draft.tree.roots, 'websocket.close_reason')[0]
    expect([reason.source, reason.start, reason.length, reason.value]).toEqual([1, 2, 5, 'going'])
  })
})

describe('websocket malformed input', () => {
  it('any payload bytes (masked or not, inflated or not) and junk headers: decoding always finishes and never throws', async () => {
    const r = await withinTimeLimit<{ runs: number; events: number; thrown: string[] }>(WS_DECODE, 'fuzzWebSocket', [20261204, 400], LIMIT_S)
    expect(r.thrown).toEqual([])
    expect(r.runs).toBe(400)
    expect(r.events).toBeGreaterThan(400 * 3) // two handshakes and at least one more event per run
  })

  it('keeps a truncated frame pending until final, then reports it', () => {
    const frame = clientFrame({ opcode: 2, payload: rand(50) })
    const d = synth([
      ['c2s', REQUEST],
      ['s2c', response()],
      ['c2s', frame.subarray(0, frame.length - 3)]
    ])
    expect(d.events.map((e) => e.kind)).toEqual(['handshake', 'handshake', 'mode'])
    expect(d.conn.process('c2s')).toEqual([])
    const end = d.conn.process('c2s', true)
    expect(end.map((e) => e.kind)).toEqual(['error'])
    const e = end[0] as WsErrorEvent
    expect(e.message).toMatch(new RegExp(`truncated frame at offset ${REQUEST.length}`))
    expect(e.offset).toBe(REQUEST.length)
    expect(e.frames).toEqual([3])
    expect(d.conn.process('c2s', true)).toEqual([])
  })

  it('reports an unfinished fragmented message at the end', () => {
    const d = synth([
      ['c2s', REQUEST],
      ['s2c', response()],
      ['s2c', wsFrame({ opcode: 2, fin: false, payload: rand(5) })]
    ])
    expect(messages(d.events)).toEqual([])
    const end = d.conn.process('s2c', true)
    expect(end.map((e) => e.kind)).toEqual(['error'])
    expect((end[0] as WsErrorEvent).message).toMatch(/ended inside a fragmented message/)
  })

  it('rejects a 64-bit length of 2^62 and one with the top bit set', () => {
    const ok = wsFrame({ opcode: 2, payload: Buffer.from('ok') })
    const huge = Buffer.from([0x82, 0x7f, 0x40, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3])
    const d = synth([
      ['c2s', REQUEST],
      ['s2c', response()],
      ['s2c', Buffer.concat([ok, huge])]
    ])
    expect(messages(d.events).map((m) => Buffer.from(m.payload).toString())).toEqual(['ok'])
    const [err] = errors(d.events)
    expect(err.message).toMatch(/payload length 4611686018427387904 exceeds maxMessageBytes/)
    // offsets count from the start of the direction's stream, handshake included
    expect(err.message).toMatch(new RegExp(`offset ${response().length + ok.length}:`))
    expect(err.offset).toBe(response().length + ok.length)
    expect(d.s2c.available).toBe(huge.length) // framing lost: nothing more consumed
    expect(d.conn.process('s2c', true)).toEqual([])
    expect(d.conn.mode).toBe('websocket')

    const topBit = Buffer.from([0x82, 0x7f, 0x80, 0, 0, 0, 0, 0, 0, 5])
    const d2 = synth([
      ['c2s', REQUEST],
      ['s2c', response()],
      ['s2c', Buffer.concat([ok, topBit])]
    ])
    expect(errors(d2.events).map((e) => e.message)).toEqual([expect.stringMatching(/most significant bit/)])

    const overLimit = synth(
      [
        ['c2s', REQUEST],
        ['s2c', response()],
        ['s2c', wsFrame({ opcode: 2, payload: rand(2000) })]
      ],
      { maxMessageBytes: 1000 }
    )
    expect(errors(overLimit.events).map((e) => e.message)).toEqual([expect.stringMatching(/payload length 2000 exceeds maxMessageBytes \(1000\)/)])
  })

  it('switches to raw mode on garbage right after the handshake, but reports garbage later as lost framing', () => {
    const unmaskedClient = wsFrame({ opcode: 2, payload: Buffer.from('abc') })
    const d = synth([
      ['c2s', REQUEST],
      ['s2c', response()],
      ['c2s', unmaskedClient]
    ])
    expect(d.conn.mode).toBe('raw')
    expect(modes(d.events).map((m) => [m.mode, m.dir, m.offset])).toEqual([
      ['websocket', 's2c', response().length],
      ['raw', 'c2s', REQUEST.length]
    ])
    expect(modes(d.events)[1].reason).toMatch(/client frame not masked/)
    expect(d.c2s.available).toBe(unmaskedClient.length)

    const reserved = Buffer.from([0x83, 0x01, 0x00])
    const ok = wsFrame({ opcode: 1, payload: Buffer.from('hi') })
    const d2 = synth([
      ['c2s', REQUEST],
      ['s2c', response()],
      ['s2c', Buffer.concat([ok, reserved, ok])]
    ])
    expect(d2.conn.mode).toBe('websocket')
    expect(messages(d2.events)).toHaveLength(1)
    expect(errors(d2.events).map((e) => e.message)).toEqual([
      `invalid frame at offset ${response().length + ok.length}: reserved opcode 3; WebSocket framing lost in this direction`
    ])

    // RSV1 without a negotiated extension, as the first server frame
    const d3 = synth([
      ['c2s', REQUEST],
      ['s2c', response()],
      ['s2c', wsFrame({ opcode: 2, rsv1: true, payload: Buffer.from('x') })]
    ])
    expect(d3.conn.mode).toBe('raw')
  })

  it('treats a lone 0x88 0x00 followed by more bytes as raw, but accepts a real first close', () => {
    const d = synth([
      ['c2s', REQUEST],
      ['s2c', response()],
      ['s2c', Buffer.from([0x88, 0x00])]
    ])
    expect(controls(d.events)).toEqual([]) // waits: a close may not be followed by anything
    const more = d.s2c
    more.push(Uint8Array.from([0x00, 0x05, 0x12]), 9, 0.009)
    const ev = d.conn.process('s2c')
    expect(modes(ev).map((m) => m.mode)).toEqual(['raw'])
    expect(d.s2c.available).toBe(5)

    const d2 = synth(
      [
        ['c2s', REQUEST],
        ['s2c', response()],
        ['s2c', wsFrame({ opcode: 8, payload: Buffer.from([0x03, 0xe9]) })]
      ],
      {},
      true
    )
    expect(d2.conn.mode).toBe('websocket')
    expect(controls(d2.events).map((c) => c.closeCode)).toEqual([1001])
  })

  it('a masked close as the very first frame: its code is read unmasked, both to accept it and to reject a fake one', () => {
    // Frames from the ws library's own framer (Sender.frame, RFC 6455 masking), not the test's wsFrame.
    const Sender = (wsLib as unknown as { Sender: { frame(d: Buffer, o: object): Buffer[] } }).Sender
    const maskedClose = (payload: Buffer, key: number[]) =>
      Uint8Array.from(Buffer.concat(Sender.frame(payload, { fin: true, opcode: 8, mask: true, readOnly: false, generateMask: (m: Buffer) => m.set(key) })))
    const first = (frame: Uint8Array) =>
      synth(
        [
          ['c2s', REQUEST],
          ['s2c', response()],
          ['c2s', frame]
        ],
        {},
        true
      )
    const close = (code: number, reason = '') => Buffer.concat([Buffer.from([code >> 8, code & 0xff]), Buffer.from(reason)])

    // 1000 "bye" under a key that makes the wire bytes of the code 00 00 (code 0, invalid if read masked)
    const ok = maskedClose(close(1000, 'bye'), [0x03, 0xe8, 0x5a, 0xa5])
    expect([...ok.subarray(0, 8)]).toEqual([0x88, 0x85, 0x03, 0xe8, 0x5a, 0xa5, 0x00, 0x00])
    const d = first(ok)
    expect(d.conn.mode).toBe('websocket')
    expect(errors(d.events)).toEqual([])
    expect(controls(d.events, 'c2s').map((c) => [c.opcode, c.closeCode, c.closeReason])).toEqual([[8, 1000, 'bye']])
    const c = controls(d.events, 'c2s')[0]
    expect(findAll(c.draft.tree.roots, 'websocket.masking_key').map((n) => hex(n.value as Uint8Array))).toEqual(['03e85aa5'])

    // 999 (invalid) under a key that makes the wire bytes 03 e8 (1000, valid if read masked): not a WebSocket close
    const fake = maskedClose(close(999), [0x00, 0x0f, 0x00, 0x00])
    expect([...fake.subarray(6, 8)]).toEqual([0x03, 0xe8])
    const f = first(fake)
    expect(modes(f.events).map((m) => [m.mode, m.reason])).toEqual([
      ['websocket', expect.any(String)],
      ['raw', expect.stringContaining('invalid close code 999')]
    ])
    expect(controls(f.events)).toEqual([])
  })

  it('reports a non-101 answer as http-failed and leaves the body', () => {
    const body = 'Bad Request: missing key'
    const d = synth([
      ['c2s', REQUEST],
      ['s2c', `HTTP/1.1 400 Bad Request\r\nContent-Length: ${body.length}\r\n\r\n${body}`],
      ['c2s', 'more']
    ])
    expect(d.conn.mode).toBe('http-failed')
    expect(modes(d.events).map((m) => [m.mode, m.reason])).toEqual([['http-failed', 'server answered 400 Bad Request']])
    expect(d.s2c.available).toBe(body.length)
    expect(d.c2s.available).toBe(4)
    expect(d.conn.process('c2s', true)).toEqual([])
  })

  it('handles a deflate bomb and the lost context afterwards', () => {
    const bomb = pmd(Buffer.alloc(2_000_000))
    expect(bomb.length).toBeLessThan(4000)
    const small = pmd(Buffer.from('hello hello hello'))
    const parts = (ext: string): [Dir, Uint8Array | string][] => [
      ['c2s', REQUEST],
      ['s2c', response(ext)],
      ['c2s', clientFrame({ opcode: 2, rsv1: true, payload: bomb })],
      ['c2s', clientFrame({ opcode: 1, rsv1: true, payload: small })],
      ['c2s', clientFrame({ opcode: 1, payload: Buffer.from('plain') })],
      ['s2c', wsFrame({ opcode: 1, rsv1: true, payload: small })]
    ]
    const d = synth(parts('permessage-deflate'), { maxInflateBytes: 100_000 })
    const errs = errors(d.events)
    expect(errs.map((e) => e.message)).toEqual([
      expect.stringMatching(/inflated size exceeds maxInflateBytes \(100000\)/),
      expect.stringMatching(/deflate context lost/)
    ])
    expect(errs.every((e) => e.dir === 'c2s' && e.draft?.error === e.message)).toBe(true)
    expect(errs[0].offset).toBe(REQUEST.length)
    expect(errs[0].frames).toEqual([3])
    // uncompressed messages and the other direction are unaffected
    expect(messages(d.events).map((m) => [m.dir, Buffer.from(m.payload).toString(), m.compressed])).toEqual([
      ['c2s', 'plain', false],
      ['s2c', 'hello hello hello', true]
    ])

    // without context takeover each message stands alone, so the next one still inflates
    const d2 = synth(parts('permessage-deflate; client_no_context_takeover'), { maxInflateBytes: 100_000 })
    expect(errors(d2.events).map((e) => e.message)).toEqual([expect.stringMatching(/exceeds maxInflateBytes/)])
    expect(messages(d2.events, 'c2s').map((m) => Buffer.from(m.payload).toString())).toEqual(['hello hello hello', 'plain'])

    // corrupt deflate data is an error, not a throw
    const d3 = synth([
      ['c2s', REQUEST],
      ['s2c', response('permessage-deflate')],
      ['s2c', wsFrame({ opcode: 2, rsv1: true, payload: Buffer.from([0xff, 0xff, 0xff, 0xff, 0x00]) })]
    ])
    expect(errors(d3.events).map((e) => e.message)).toEqual([expect.stringMatching(/inflate failed/)])
  })

  it('parses the handshake fields', () => {
    const d = synth([
      ['c2s', REQUEST],
      ['s2c', response('permessage-deflate; server_no_context_takeover; client_max_window_bits=12')]
    ])
    const [req, resp] = d.events.filter((e): e is WsHandshakeEvent => e.kind === 'handshake')
    expect(req.request).toMatchObject({ method: 'GET', path: '/chat?x=1', host: 'example.com', protocols: ['chat', 'superchat'] })
    expect(req.request!.extensions).toEqual([{ name: 'permessage-deflate', params: { client_max_window_bits: true } }])
    expect(resp.response).toMatchObject({ status: 101, protocol: 'chat' })
    expect(resp.response!.deflate).toEqual({
      clientNoContextTakeover: false,
      serverNoContextTakeover: true,
      clientMaxWindowBits: 12,
      serverMaxWindowBits: null
    })
    expect(req.frames).toEqual([1])
    expect(hex(req.bytes)).toBe(hex(Buffer.from(REQUEST)))
    const headers = findAll(req.draft.tree.roots, 'websocket.http_header')
    const host = headers.find((h) => h.value === 'Host: example.com')!
    expect(Buffer.from(req.bytes.subarray(host.start!, host.start! + host.length!)).toString()).toBe('Host: example.com')
  })
})

describe('HTTP head helpers', () => {
  it('detects an HTTP upgrade request', () => {
    const req = Buffer.from(REQUEST)
    expect(detectHttpUpgrade(req)).toBe('http-upgrade')
    expect(detectHttpUpgrade(req.subarray(0, 40))).toBe('need-more')
    expect(detectHttpUpgrade(req.subarray(0, 2))).toBe('need-more')
    expect(detectHttpUpgrade(Buffer.from('GET / HTTP/1.1\r\nHost: a\r\n\r\n'))).toBe('no')
    expect(detectHttpUpgrade(Buffer.from('POST / HTTP/1.1\r\nUpgrade: websocket\r\n\r\n'))).toBe('no')
    expect(detectHttpUpgrade(Buffer.from([0xf3, 0x00, 0x01]))).toBe('no')
    expect(detectHttpUpgrade(Buffer.from('GET / HTTP/1.1\nUpgrade: WebSocket\nConnection: upgrade\n\n'))).toBe('http-upgrade')
    const long = Buffer.from('GET / HTTP/1.1\r\nX-Pad: ' + 'a'.repeat(MAX_HTTP_HEAD))
    expect(detectHttpUpgrade(long.subarray(0, MAX_HTTP_HEAD - 1))).toBe('need-more')
    expect(detectHttpUpgrade(long)).toBe('no')
  })

  it('parses request and response heads', () => {
    const r = parseHttpHead(Buffer.from('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nX-Folded: a\r\n  b\r\n\r\nrest'))
    expect(r.status).toBe('ok')
    if (r.status !== 'ok') return
    expect(r.head).toMatchObject({ kind: 'response', status: 101, reason: 'Switching Protocols', version: 'HTTP/1.1' })
    expect(r.head.headers.map((h) => [h.name, h.value])).toEqual([
      ['Upgrade', 'websocket'],
      ['X-Folded', 'a b']
    ])
    expect(r.head.length).toBe(r.head.startLine.length + 2 + 'Upgrade: websocket\r\nX-Folded: a\r\n  b\r\n\r\n'.length)
    expect(parseHttpHead(Buffer.from('HTTP/1.1 200 OK\r\nBroken header\r\n\r\n')).status).toBe('invalid')
    expect(parseHttpHead(Buffer.from('\x16\x03\x01\x02\x00')).status).toBe('invalid')
    expect(parseHttpHead(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n')).status).toBe('need-more')
  })
})
