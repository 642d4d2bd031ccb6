// `gamewire serve` without a browser: the HTTP side (static files, CSP, traversal, Host checks,
// downloads), the WebSocket API exercised with the independent `ws` client library (round trips,
// argument errors, events, refused Origins and Hosts), 127.0.0.1 by default, keys persisted in the
// config folder, and the server's own WebSocket framing against hand-made frames.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { connect, type Socket } from 'node:net'
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import {
  startServer,
  defaultKeysDir,
  allowedHosts,
  removeStaleExportDirs,
  MAX_UNREAD_BYTES,
  UNREAD_STALL_MS,
  type RunningServer
} from '../../../src-main/serve/server'
import { acceptKey } from '../../../src-main/serve/websocket'
import { decodeToText } from '../helpers/run-decode'
import { RENDERER_CSP } from '../../../src-main/host/renderer-files'
import { KEY_FILE_NAME } from '../../../src-main/host/inspector-session'
import { PHOTON_KEY_LINE } from '../../fixtures/ui/build-captures'
import { decodeFile } from '../helpers/decode'
import { writeConversationsCapture } from '../../bench/make-conversations-capture.mjs'

const PHOTON = join(__dirname, '../../fixtures/ui/photon-session.pcapng')
const tmp = mkdtempSync(join(tmpdir(), 'gamewire-serve-test-'))
const renderer = join(tmp, 'renderer')
mkdirSync(join(renderer, 'assets'), { recursive: true })
writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>gamewire test</title>')
writeFileSync(join(renderer, 'assets', 'app.js'), 'console.log(1)')
writeFileSync(join(tmp, 'secret.txt'), 'do not serve me')

afterAll(() => rmSync(tmp, { recursive: true, force: true }))

function http(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }))
    })
    req.on('error', reject)
    req.end()
  })
}

/** Sends raw request bytes and returns what comes back until the server closes (or 2 s pass). */
function rawExchange(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host: '127.0.0.1', port: server.port }, () => sock.write(text))
    let data = ''
    const timer = setTimeout(() => (sock.destroy(), resolve(data)), 2000)
    sock.on('data', (d) => (data += d))
    sock.on('close', () => (clearTimeout(timer), resolve(data)))
    sock.on('error', reject)
  })
}

/** A WebSocket API client over the `ws` library. */
class Client {
  private seq = 0
  readonly events: any[] = []
  private waiting = new Map<number, (m: any) => void>()
  readonly raw: any[] = []
  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const m = JSON.parse(String(data))
      this.raw.push(m)
      if (m.event) this.events.push(m.event)
      else this.waiting.get(m.id)?.(m)
    })
  }
  static open(url: string, origin?: string): Promise<Client> {
    const ws = new WebSocket(url, origin ? { origin } : {})
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new Client(ws)))
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)))
      ws.once('error', reject)
    })
  }
  send(method: string, args: unknown[] = []): Promise<any> {
    const id = ++this.seq
    return new Promise((resolve) => {
      this.waiting.set(id, resolve)
      this.ws.send(JSON.stringify({ id, method, args }))
    })
  }
  async call(method: string, args: unknown[] = []): Promise<any> {
    const m = await this.send(method, args)
    if (m.error) throw Object.assign(new Error(m.error.message), { name: m.error.name })
    return m.result
  }
  async waitFor(pred: (e: any) => boolean, ms = 20_000): Promise<any> {
    const end = Date.now() + ms
    while (Date.now() < end) {
      const e = this.events.find(pred)
      if (e) return e
      await new Promise((r) => setTimeout(r, 10))
    }
    throw new Error('event did not come')
  }
}

let server: RunningServer
let keysDir: string
const clients: Client[] = []
const wsUrl = (token: string | null = server.token) => `ws://127.0.0.1:${server.port}/api${token === null ? '' : `?token=${token}`}`
const origin = () => `http://127.0.0.1:${server.port}`

beforeAll(async () => {
  keysDir = join(tmp, 'config')
  server = await startServer({ port: 0, capture: PHOTON, rendererDir: renderer, keysDir, inProcess: true })
  await server.opened
})

afterEach(() => {
  for (const c of clients.splice(0)) c.ws.close()
})

afterAll(async () => {
  await server?.close()
})

async function client(): Promise<Client> {
  const c = await Client.open(wsUrl(), origin())
  clients.push(c)
  return c
}

describe('gamewire serve: HTTP', () => {
  it('binds 127.0.0.1 by default and prints that URL', async () => {
    expect(server.host).toBe('127.0.0.1')
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=${server.token}`)
    expect(server.token).toMatch(/^[A-Za-z0-9_-]{32}$/)
    // not listening on the IPv6 loopback (or any other address)
    await expect(
      new Promise((resolve, reject) => {
        const s = connect({ host: '::1', port: server.port }, () => resolve('connected'))
        s.on('error', reject)
      })
    ).rejects.toThrow(/ECONNREFUSED|EADDRNOTAVAIL|ENETUNREACH/)
  })

  it('serves the renderer with the strict CSP and security headers', async () => {
    const r = await http(server.port, '/')
    expect(r.status).toBe(200)
    expect(String(r.body)).toContain('gamewire test')
    expect(r.headers['content-security-policy']).toBe(RENDERER_CSP)
    expect(r.headers['x-content-type-options']).toBe('nosniff')
    expect(r.headers['content-type']).toMatch(/text\/html/)
    const js = await http(server.port, '/assets/app.js')
    expect(js.headers['content-type']).toMatch(/javascript/)
  })

  it('never serves files outside the renderer folder', async () => {
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/%2e%2e/%2e%2e/secret.txt', '/..%2fsecret.txt']) {
      const r = await http(server.port, path)
      expect(r.status, path).toBeGreaterThanOrEqual(403)
      expect(String(r.body)).not.toContain('do not serve me')
    }
    expect((await http(server.port, '/missing.js')).status).toBe(404)
  })

  it('refuses requests for another Host (DNS rebinding)', async () => {
    const r = await http(server.port, '/', { Host: `evil.example:${server.port}` })
    expect(r.status).toBe(403)
    expect((await http(server.port, '/', { Host: `localhost:${server.port}` })).status).toBe(200)
    expect(allowedHosts('127.0.0.1', 80)).toEqual(new Set(['127.0.0.1:80', 'localhost:80', '[::1]:80']))
    expect(allowedHosts('10.1.2.3', 80)).toEqual(new Set(['10.1.2.3:80']))
    // bound to every address: the machine's own addresses are honest Hosts, nothing else is
    const ifaces = {
      eth0: [
        { address: '192.168.7.20', family: 'IPv4' },
        { address: 'fe80::1%eth0', family: 'IPv6' }
      ]
    } as never
    expect(allowedHosts('0.0.0.0', 80, ifaces)).toEqual(new Set(['0.0.0.0:80', '127.0.0.1:80', 'localhost:80', '[::1]:80', '192.168.7.20:80']))
    expect(allowedHosts('::', 80, ifaces)).toEqual(new Set(['[::]:80', '127.0.0.1:80', 'localhost:80', '[::1]:80', '192.168.7.20:80', '[fe80::1]:80']))
  })

  it('answers malformed request targets with 400 and keeps serving', async () => {
    for (const path of ['/%zz', '/assets/%E0%A4%A', '/%']) {
      const r = await http(server.port, path)
      expect(r.status, path).toBe(400)
    }
    // an upgrade whose target does not parse as a URL
    const raw = await rawExchange(
      `GET http://[ HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`
    )
    expect(raw).toMatch(/^HTTP\/1\.1 400/)
    expect((await http(server.port, '/')).status).toBe(200)
    expect((await (await client()).call('getStatus')).phase).toBe('ready')
  })

  it('removes export folders of serve processes that are gone, not of live ones', () => {
    const dir = mkdtempSync(join(tmp, 'tmp-'))
    // pid 2^22+1 is above Linux's pid_max ceiling: no such process
    for (const name of ['gamewire-serve-4194305-abc', `gamewire-serve-${process.pid}-def`, `gamewire-serve-1-ghi`, 'other-4194305-x'])
      mkdirSync(join(dir, name))
    writeFileSync(join(dir, 'gamewire-serve-4194305-abc', 'export.json'), '{}')
    expect(removeStaleExportDirs(dir)).toEqual(['gamewire-serve-4194305-abc'])
    expect(readdirSync(dir).sort()).toEqual([`gamewire-serve-${process.pid}-def`, 'gamewire-serve-1-ghi', 'other-4194305-x'].sort())
  })

  it('keeps keys in $GAMEWIRE_CONFIG_DIR, else ~/.config/gamewire', () => {
    expect(defaultKeysDir({ GAMEWIRE_CONFIG_DIR: '/tmp/x' })).toBe('/tmp/x')
    expect(defaultKeysDir({ XDG_CONFIG_HOME: '/home/u/.cfg' })).toBe('/home/u/.cfg/gamewire')
    expect(defaultKeysDir({})).toMatch(/\.config[\\/]gamewire$/)
  })
})

describe('gamewire serve: the WebSocket API', () => {
  it('answers requests with the same rows the engine decodes', async () => {
    const c = await client()
    const status = await c.call('getStatus')
    expect(status).toMatchObject({ phase: 'ready', frames: 323, messages: 485, source: { file: 'photon-session.pcapng' } })
    const view = await c.call('setView', [{ filter: 'photon.op.code == 226', sort: null, columns: ['photon.param.255'] }])
    expect(view).toMatchObject({ state: 'done', count: 2 })
    const batch = await c.call('getRows', [view.id, 0, 10])
    const expected = decodeFile(PHOTON).messages.filter((m) => m.summary.startsWith('JoinGame'))
    expect(batch.rows.map((r: any) => [r.id, r.name])).toEqual(expected.map((m) => [m.id, m.name]))
    expect(batch.rows[0].cells).toEqual(['arena-1'])
    const detail = await c.call('getMessage', [batch.rows[0].id])
    expect(detail.tree.length).toBeGreaterThan(0)
    expect(detail.sources[0].hex).toMatch(/^[0-9a-f]+$/)
    await c.call('setView', [{ filter: '', sort: null, columns: [] }])
  })

  it('answers bad requests with an error naming the problem, and keeps the connection', async () => {
    const c = await client()
    expect((await c.send('getRows', [1, 0, 1e9])).error).toMatchObject({ name: 'ApiArgumentError', message: expect.stringMatching(/count must be between/) })
    expect((await c.send('close')).error).toMatchObject({ name: 'ApiArgumentError', message: expect.stringMatching(/unknown request 'close'/) })
    expect((await c.send('__proto__')).error).toMatchObject({ name: 'ApiArgumentError' })
    expect((await c.send('getMessage', [99999])).error).toMatchObject({ message: expect.stringMatching(/no message 99999/) })
    c.ws.send('{not json')
    c.ws.send(JSON.stringify({ method: 'getStatus' }))
    await new Promise((r) => setTimeout(r, 100))
    expect(c.raw.filter((m) => m.id === null).map((m) => m.error.message)).toEqual(['request is not JSON', 'request needs a numeric id'])
    expect((await c.call('getStatus')).phase).toBe('ready')
  })

  it("refuses API connections without this run's token, whatever their Origin", async () => {
    await expect(Client.open(wsUrl(null), origin())).rejects.toThrow(/401/)
    await expect(Client.open(wsUrl(null))).rejects.toThrow(/401/)
    // One character changed (the token is base64url: it may itself start with 'x').
    const wrong = (server.token[0] === 'x' ? 'y' : 'x') + server.token.slice(1)
    await expect(Client.open(wsUrl(wrong), origin())).rejects.toThrow(/401/)
    await expect(Client.open(wsUrl(server.token.slice(0, 10)))).rejects.toThrow(/401/)
    await expect(Client.open(wsUrl(''))).rejects.toThrow(/401/)
  })

  it('drops a client that never reads, and frees what it held', async () => {
    // A raw client that completes the handshake and then never reads: the server must not queue for it forever.
    const key = randomBytes(16).toString('base64')
    const sock = connect({ host: '127.0.0.1', port: server.port })
    await new Promise((r) => sock.once('connect', r))
    const closed = new Promise<void>((r) => sock.on('close', () => r()))
    sock.on('error', () => undefined) // the server resets it: that is the point
    sock.write(
      `GET /api?token=${server.token} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`
    )
    await new Promise((r) => sock.once('data', r))
    sock.pause()
    // Each getRows reply is ~100 KB; ask for far more than MAX_UNREAD_BYTES without reading any of it.
    const view = await (await client()).call('setView', [{ filter: '', sort: null, columns: [] }])
    const frame = (id: number) => {
      const body = Buffer.from(JSON.stringify({ id, method: 'getRows', args: [view.id, 0, 5000] }))
      const mask = randomBytes(4)
      const head = body.length < 126 ? Buffer.from([0x81, 0x80 | body.length]) : Buffer.from([0x81, 0x80 | 126, body.length >> 8, body.length & 0xff])
      return Buffer.concat([head, mask, Buffer.from(body.map((b, i) => b ^ mask[i % 4]))])
    }
    let dropped = false
    void closed.then(() => (dropped = true))
    for (let i = 1; i <= 2000 && !dropped; i++) {
      sock.write(frame(i))
      if (i % 20 === 0) await new Promise((r) => setTimeout(r, 10))
    }
    // It goes on asking (a paused client notices the drop when it writes): the server drops it once it has
    // taken none of the output for UNREAD_STALL_MS.
    const start = Date.now()
    for (let i = 2001; !dropped && Date.now() - start < 20_000; i++) {
      sock.write(frame(i))
      await new Promise((r) => setTimeout(r, 200))
    }
    expect(dropped).toBe(true)
    // the server is still fine for others
    expect((await (await client()).call('getStatus')).phase).toBe('ready')
  }, 60_000)

  it('refuses WebSocket connections from other origins and for other hosts', async () => {
    await expect(Client.open(wsUrl(), 'http://evil.example')).rejects.toThrow(/403/)
    await expect(Client.open(wsUrl(), `http://127.0.0.1:${server.port + 1}`)).rejects.toThrow(/403/)
    const ws = new WebSocket(wsUrl(), { headers: { Host: `evil.example:${server.port}` } })
    await expect(
      new Promise((res, rej) => (ws.once('open', res), ws.once('unexpected-response', (_q, r) => rej(new Error(`HTTP ${r.statusCode}`)))))
    ).rejects.toThrow(/403/)
    // same-origin pages and non-browser clients (no Origin) are fine
    const ok = await Client.open(wsUrl(), `http://localhost:${server.port}`)
    ok.ws.close()
    const noOrigin = await Client.open(wsUrl())
    noOrigin.ws.close()
  })

  it('pushes session events to every connected client; keys persist in the config folder', async () => {
    const a = await client()
    const b = await client()
    const change = await a.call('addKeys', [PHOTON_KEY_LINE])
    expect(change).toMatchObject({ added: 1, redecoded: [1] })
    for (const c of [a, b]) {
      await c.waitFor((e) => e.type === 'keys' && e.keys.length === 1)
      await c.waitFor((e) => e.type === 'status' && e.status.keys === 1)
    }
    await server.session.flushKeys()
    const file = join(keysDir, KEY_FILE_NAME)
    expect(readFileSync(file, 'utf8')).toContain(PHOTON_KEY_LINE)
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600)
    // a new server on the same folder starts with the key
    const again = await startServer({ port: 0, capture: PHOTON, rendererDir: renderer, keysDir, inProcess: true })
    try {
      await again.opened
      expect((await again.session.listKeys()).map((k) => k.line)).toEqual([PHOTON_KEY_LINE])
    } finally {
      await again.close()
    }
    await a.call('removeKey', [PHOTON_KEY_LINE])
  })

  it('exports through a one-time download URL; the file equals the CLI decode', async () => {
    const c = await client()
    const job = await c.call('startExport', [{ format: 'json', scope: 'all' }])
    expect(job.state).toBe('running')
    const done = await c.waitFor((e) => e.type === 'job' && e.job.id === job.id && e.job.state !== 'running')
    expect(done.job.state).toBe('done')
    const link = done.job.result.downloadUrl as string
    expect(link).toMatch(/^\/download\/[0-9a-f]{32}\/photon-session\.json$/)
    const r = await http(server.port, link)
    expect(r.status).toBe(200)
    expect(r.headers['content-disposition']).toBe('attachment; filename="photon-session.json"')
    expect(String(r.body)).toBe((await decodeToText({ file: PHOTON, format: 'json' })).text)
    expect((await http(server.port, `/download/${'0'.repeat(32)}/photon-session.json`)).status).toBe(404)
    expect((await http(server.port, link, { Host: `evil.example:${server.port}` })).status).toBe(403)
  })
})

describe('gamewire serve: WebSocket framing', () => {
  /** Opens a raw TCP connection, does the handshake, and returns the socket and what arrives. */
  async function rawSocket(): Promise<{ send(b: Buffer): void; received: () => Buffer; closed: Promise<void> }> {
    const key = randomBytes(16).toString('base64')
    const sock = connect({ host: '127.0.0.1', port: server.port })
    let data = Buffer.alloc(0)
    sock.on('data', (d) => (data = Buffer.concat([data, d])))
    const closed = new Promise<void>((r) => sock.on('close', () => r()))
    await new Promise((r) => sock.once('connect', r))
    sock.write(
      `GET /api?token=${server.token} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\nOrigin: ${origin()}\r\n\r\n`
    )
    while (!data.includes('\r\n\r\n')) await new Promise((r) => setTimeout(r, 5))
    const head = String(data.subarray(0, data.indexOf('\r\n\r\n')))
    expect(head).toMatch(/^HTTP\/1\.1 101/)
    expect(head).toContain(`Sec-WebSocket-Accept: ${acceptKey(key)}`)
    data = data.subarray(data.indexOf('\r\n\r\n') + 4)
    return { send: (b) => sock.write(b), received: () => data, closed }
  }

  function frame(opcode: number, payload: Buffer, o: { fin?: boolean; mask?: boolean } = {}): Buffer {
    const fin = o.fin ?? true
    const mask = o.mask ?? true
    const len = payload.length
    const head = len < 126 ? Buffer.from([0, len]) : Buffer.from([0, 126, len >> 8, len & 255])
    head[0] = (fin ? 0x80 : 0) | opcode
    if (!mask) return Buffer.concat([head, payload])
    head[1] |= 0x80
    const key = randomBytes(4)
    return Buffer.concat([head, key, Buffer.from(payload.map((b, i) => b ^ key[i & 3]))])
  }

  /** Server frames are unmasked: [opcode, payload] of each complete frame. */
  function parse(b: Buffer): [number, Buffer][] {
    const out: [number, Buffer][] = []
    let at = 0
    while (at + 2 <= b.length) {
      let len = b[at + 1] & 0x7f
      let off = at + 2
      if (len === 126) {
        len = b.readUInt16BE(at + 2)
        off = at + 4
      } else if (len === 127) {
        len = Number(b.readBigUInt64BE(at + 2))
        off = at + 10
      }
      if (off + len > b.length) break
      out.push([b[at] & 0x0f, b.subarray(off, off + len)])
      at = off + len
    }
    return out
  }

  it('reassembles a fragmented text request and answers pings', async () => {
    const s = await rawSocket()
    const msg = Buffer.from(JSON.stringify({ id: 7, method: 'getStatus', args: [] }))
    s.send(frame(0x1, msg.subarray(0, 10), { fin: false }))
    s.send(frame(0x9, Buffer.from('hi'))) // a ping between the fragments
    s.send(frame(0x0, msg.subarray(10)))
    let frames: [number, Buffer][] = []
    for (let i = 0; i < 200 && !frames.some(([op, p]) => op === 1 && String(p).includes('"id":7')); i++) {
      await new Promise((r) => setTimeout(r, 10))
      frames = parse(s.received())
    }
    expect(frames.find(([op]) => op === 0xa)?.[1].toString()).toBe('hi')
    expect(JSON.parse(String(frames.find(([op, p]) => op === 1 && String(p).includes('"id":7'))![1])).result.phase).toBe('ready')
  })

  it('closes with 1002 on an unmasked client frame', async () => {
    const s = await rawSocket()
    s.send(frame(0x1, Buffer.from('{}'), { mask: false }))
    await s.closed
    const close = parse(s.received()).find(([op]) => op === 0x8)!
    expect(close[1].readUInt16BE(0)).toBe(1002)
  })

  it('closes with 1009 on a message over the size limit, before buffering it', async () => {
    const s = await rawSocket()
    // a header announcing 1 GiB: refused from the header alone
    const head = Buffer.from([0x81, 0xff, 0, 0, 0, 0, 0x40, 0, 0, 0, 1, 2, 3, 4])
    s.send(head)
    await s.closed
    const close = parse(s.received()).find(([op]) => op === 0x8)!
    expect(close[1].readUInt16BE(0)).toBe(1009)
  })

  it('closes with 1003 on a binary message and 1007 on invalid UTF-8', async () => {
    const a = await rawSocket()
    a.send(frame(0x2, Buffer.from([1, 2, 3])))
    await a.closed
    expect(
      parse(a.received())
        .find(([op]) => op === 0x8)![1]
        .readUInt16BE(0)
    ).toBe(1003)
    const b = await rawSocket()
    b.send(frame(0x1, Buffer.from([0xff, 0xfe])))
    await b.closed
    expect(
      parse(b.received())
        .find(([op]) => op === 0x8)![1]
        .readUInt16BE(0)
    ).toBe(1007)
  })
})

describe('gamewire serve: a client that stops reading for a moment', () => {
  // 150,000 UDP conversations: the whole list is about 34 MB of JSON in pages of 5,000. Asked for twice while
  // the client does not read, far more than MAX_UNREAD_BYTES waits for it (the kernel's socket buffers hold
  // a few MB). A client that then reads again, within UNREAD_STALL_MS, keeps its connection and gets every
  // reply, the ones asked after the pages too.
  let big: RunningServer
  beforeAll(async () => {
    const file = join(tmp, 'conversations.pcap')
    await writeConversationsCapture(file, { udp: 150_000 })
    big = await startServer({ port: 0, capture: file, rendererDir: renderer, keysDir: join(tmp, 'config-big'), inProcess: true })
    await big.opened
  }, 120_000)
  afterAll(async () => {
    await big?.close()
  })

  it('keeps it while more than the unread limit waits, and answers everything asked', async () => {
    const c = await Client.open(`ws://127.0.0.1:${big.port}/api?token=${big.token}`, `http://127.0.0.1:${big.port}`)
    clients.push(c)
    let closed = false
    c.ws.on('close', () => (closed = true))
    let received = 0
    c.ws.on('message', (data: Buffer) => (received += data.length))
    const socket = (c.ws as unknown as { _socket: Socket })._socket
    socket.pause()
    const pages = Array.from({ length: 60 }, (_, i) => c.send('getConversationPage', [{ start: (i % 30) * 5000, count: 5000 }]))
    const after = [c.send('getStatus'), c.send('listKeys'), c.send('getStatus')]
    await new Promise((r) => setTimeout(r, UNREAD_STALL_MS / 2))
    socket.resume()
    const [listed, rest] = await Promise.race([
      Promise.all([Promise.all(pages), Promise.all(after)]),
      new Promise<never>((_r, reject) => c.ws.once('close', (code) => reject(new Error(`dropped (${code})`))))
    ])
    expect(received).toBeGreaterThan(2 * MAX_UNREAD_BYTES)
    const ids = listed.slice(0, 30).flatMap((m) => m.result.conversations.map((v: { id: number }) => v.id))
    expect(ids).toEqual(Array.from({ length: 150_000 }, (_, i) => i + 1))
    expect(listed.slice(30).map((m) => m.result.conversations.length)).toEqual(Array(30).fill(5000))
    expect(rest.map((m) => m.error ?? null)).toEqual([null, null, null])
    expect(rest[0].result.conversations).toBe(150_000)
    expect(closed).toBe(false)
  }, 60_000)
})
