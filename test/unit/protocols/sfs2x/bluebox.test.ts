// SFS2X BlueBox (the HTTP polling tunnel) through the Engine, over the HTTP/1.x layer. The exchanges are
// built here as the SDKs write them (see docs/sfs2x.md: `sfsHttp=<session>|<command>|<data>` form-encoded
// with Uri.EscapeDataString, responses `<command>|<data>`), with the official SDK's packets from
// test/fixtures/vectors as the data; no real BlueBox client exists in the npm SDK to capture.
import { describe, it, expect, beforeEach } from 'vitest'
import { tcpFrame, resetFrames, SYN, ACK, PSH, FIN } from '../../helpers/frames'
import type { CaptureFrame } from '../../../../src-shared/capture/types'
import type { DecodedMessage, FieldNode } from '../../../../src-shared/model/types'
import { find, findAll, loadVectors, rangeBytes, runEngine, unhex } from './helpers'
import { checkRanges } from '../../helpers/decode'
import { decodeToText } from '../../helpers/run-decode'
import { PcapngWriter } from '../../../../src-shared/capture/pcapng-writer'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionCore } from '../../../../src-main/host/session-core'

const C = '10.0.0.1'
const S = '10.0.0.2'
const SP = 8080

class Conn {
  frames: CaptureFrame[] = []
  private seq = { c: 1000, s: 5000 }
  constructor(
    private readonly cport: number,
    private readonly sport = SP
  ) {
    this.frames.push(tcpFrame(C, cport, S, sport, this.seq.c++, SYN))
    this.frames.push(tcpFrame(S, sport, C, cport, this.seq.s++, SYN | ACK))
  }
  c(data: Uint8Array | string): this {
    return this.send('c', data)
  }
  s(data: Uint8Array | string): this {
    return this.send('s', data)
  }
  fin(side: 'c' | 's'): this {
    this.frames.push(
      side === 'c' ? tcpFrame(C, this.cport, S, this.sport, this.seq.c++, ACK | FIN) : tcpFrame(S, this.sport, C, this.cport, this.seq.s++, ACK | FIN)
    )
    return this
  }
  private send(side: 'c' | 's', data: Uint8Array | string): this {
    const bytes = typeof data === 'string' ? Uint8Array.from(Buffer.from(data, 'latin1')) : data
    for (let i = 0; i < bytes.length; i += 1400) {
      const part = bytes.subarray(i, i + 1400)
      this.frames.push(
        side === 'c' ? tcpFrame(C, this.cport, S, this.sport, this.seq.c, ACK | PSH, part) : tcpFrame(S, this.sport, C, this.cport, this.seq.s, ACK | PSH, part)
      )
      this.seq[side] += part.length
    }
    return this
  }
}

const vectors = loadVectors()
const vec = (name: string) => vectors.find((v) => v.name === name)!
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64')

/** A request as the C# SDK's SFSWebClient writes it: HTTP/1.0, the form value escaped, a NUL after the body. */
function csharpRequest(session: string, cmd: string, data: Uint8Array | null): string {
  const body = `sfsHttp=${encodeURIComponent(`${session}|${cmd}|${data ? b64(data) : 'null'}`)}`
  return `POST /BlueBox/BlueBox.do HTTP/1.0\r\nContent-Type: application/x-www-form-urlencoded; charset=utf-8\r\nContent-Length: ${body.length}\r\n\r\n${body}\0`
}
function request11(session: string, cmd: string, data: Uint8Array | null): string {
  const body = `sfsHttp=${encodeURIComponent(`${session}|${cmd}|${data ? b64(data) : 'null'}`)}`
  return `POST /BlueBox/BlueBox.do HTTP/1.1\r\nHost: ${S}:${SP}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`
}
function response11(body: string): string {
  return `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\n\r\n${body}`
}
function chunkedResponse(body: string, cut: number): string {
  const a = body.slice(0, cut)
  const b = body.slice(cut)
  return `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${a.length.toString(16)}\r\n${a}\r\n${b.length.toString(16)};ext=1\r\n${b}\r\n0\r\nX-Trailer: t\r\n\r\n`
}

/** Leaves only what the packet decoder wrote: the sfs2x group, without source indexes. */
function sfsTree(m: DecodedMessage): unknown {
  const strip = (n: FieldNode): unknown => ({
    key: n.key,
    label: n.label,
    value: n.value instanceof Uint8Array ? Buffer.from(n.value).toString('hex') : n.value,
    length: n.length,
    children: (n.children ?? []).map(strip)
  })
  return strip(find(m.tree, 'sfs2x'))
}

const SESSION = 'SESS_7f3a9c'
const handshake = unhex(vec('session/00_c2s_c0_a0').hex)
const handshakeRes = unhex(vec('session/01_s2c_c0_a0').hex)
const login = unhex(vec('session/02_c2s_c0_a1').hex)
const loginRes = unhex(vec('session/03_s2c_c0_a1').hex)

function bluebox(): CaptureFrame[] {
  // 1: connect, C# style (HTTP/1.0, trailing NUL, the response read to the end of the connection).
  const c1 = new Conn(50001)
    .c(csharpRequest('null', 'connect', null))
    .s(`HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nconnect|${SESSION}`)
    .fin('s')
    .fin('c')
  // 2: keep-alive: data (Handshake), then poll answered with a chunked body (the Handshake response).
  const c2 = new Conn(50002)
    .c(request11(SESSION, 'data', handshake))
    .s(response11('data|null'))
    .c(request11(SESSION, 'poll', null))
    .s(chunkedResponse(`poll|${b64(handshakeRes)}`, 7))
  // 3: pipelined: data (Login) and poll in one segment, both responses in one segment.
  const c3 = new Conn(50003)
    .c(request11(SESSION, 'data', login) + request11(SESSION, 'poll', null))
    .s(response11('data|null') + response11(`poll|${b64(loginRes)}`))
  // 4: an empty poll, then a request cut short by the end of the capture.
  const cut = request11(SESSION, 'data', login)
  const c4 = new Conn(50004)
    .c(request11(SESSION, 'poll', null))
    .s(response11('poll|null'))
    .c(cut.slice(0, cut.length - 20))
  return [...c1.frames, ...c2.frames, ...c3.frames, ...c4.frames]
}

beforeEach(() => resetFrames())

describe('SFS2X BlueBox over HTTP', () => {
  it('names and stacks every request and response, with the session id on each', () => {
    const { messages, conversations } = runEngine(bluebox())
    const rows = messages.map((m) => [m.conversation, m.direction, m.name, m.protocol, m.stack.join(',')])
    expect(rows).toEqual([
      [1, 'c2s', 'BlueBox connect', 'sfs2x', 'tcp,http,bluebox,sfs2x'],
      [1, 's2c', 'BlueBox connect', 'sfs2x', 'tcp,http,bluebox,sfs2x'],
      [2, 'c2s', 'Handshake', 'sfs2x', 'tcp,http,bluebox,sfs2x'],
      [2, 's2c', 'BlueBox data', 'sfs2x', 'tcp,http,bluebox,sfs2x'],
      [2, 'c2s', 'BlueBox poll', 'sfs2x', 'tcp,http,bluebox,sfs2x'],
      [2, 's2c', 'HandshakeResponse', 'sfs2x', 'tcp,http,bluebox,sfs2x'],
      [3, 'c2s', 'Login', 'sfs2x', 'tcp,http,bluebox,sfs2x'],
      [3, 'c2s', 'BlueBox poll', 'sfs2x', 'tcp,http,bluebox,sfs2x'],
      [3, 's2c', 'BlueBox data', 'sfs2x', 'tcp,http,bluebox,sfs2x'],
      [3, 's2c', 'LoginResponse', 'sfs2x', 'tcp,http,bluebox,sfs2x'],
      [4, 'c2s', 'BlueBox poll', 'sfs2x', 'tcp,http,bluebox,sfs2x'],
      [4, 's2c', 'BlueBox poll (empty)', 'sfs2x', 'tcp,http,bluebox,sfs2x'],
      [4, 'c2s', 'Login', 'sfs2x', 'tcp,http,bluebox,sfs2x']
    ])
    for (const m of messages) checkRanges(m)
    // Every message but the first request (sent before the server handed the id out) carries the session.
    const sessions = messages.map((m) => findAll(m.tree, 'bluebox.session')[0]?.value)
    expect(sessions).toEqual(['null', SESSION, ...Array(11).fill(SESSION)])
    expect((messages[1].value as any).bluebox).toEqual({ session: SESSION, command: 'connect', data: null, request: 'connect' })
    for (const c of conversations) {
      expect(c.protocol).toBe('sfs2x')
      expect(c.stack).toEqual(['tcp', 'http', 'bluebox', 'sfs2x'])
      expect(c.notes).toContain(`BlueBox session ${SESSION}`)
      expect(c.client).toMatch(/^10\.0\.0\.1:5000\d$/)
    }
    // The tree says the session spans connections and how to see them together.
    expect(findAll(messages[4].tree, 'bluebox.note')[0].value).toContain(`bluebox.session == "${SESSION}"`)
    // The display filter on the session finds the whole session across the four connections.
    expect(runEngine(bluebox(), undefined, true, `bluebox.session == "${SESSION}"`).messages).toHaveLength(12)
  })

  it('decodes the base64 data as the SFS2X packet with the tree it has over raw TCP, ranges in its own source', () => {
    const { messages } = runEngine(bluebox())
    const hs = messages[2]
    const src = hs.sources.findIndex((s) => s.name === 'BlueBox data (base64-decoded)')
    expect(Buffer.from(hs.sources[src].bytes)).toEqual(Buffer.from(handshake))
    const root = find(hs.tree, 'sfs2x')
    expect(root.source).toBe(src)
    expect(rangeBytes(hs.sources, root)).toEqual(handshake)
    // The same packet over raw TCP port 9933.
    resetFrames()
    const tcp = runEngine(new Conn(40000, 9933).c(handshake).s(handshakeRes).c(login).frames).messages
    expect(sfsTree(hs)).toEqual(sfsTree(tcp[0]))
    expect(sfsTree(messages[5])).toEqual(sfsTree(tcp[1]))
    expect(sfsTree(messages[6])).toEqual(sfsTree(tcp[2]))
    const { bluebox: _b, ...loginValue } = messages[6].value as Record<string, unknown>
    expect(loginValue).toEqual(tcp[2].value)
    expect((hs.value as any).length).toBe(vec('session/00_c2s_c0_a0').expect.length)
    expect(find(messages[6].tree, 'sfs2x.user').value).toBe('alice')
    // The URL-decoded form value is a source too, and the fields point into it.
    const form = hs.sources.findIndex((s) => s.name === 'sfsHttp (URL-decoded)')
    const cmd = findAll(hs.tree, 'bluebox.command')[0]
    expect(cmd.source).toBe(form)
    expect(Buffer.from(rangeBytes(hs.sources, cmd)).toString()).toBe('data')
    expect(Buffer.from(rangeBytes(hs.sources, findAll(hs.tree, 'bluebox.data')[0])).toString()).toBe(b64(handshake))
  })

  it('frames keep-alive, chunked and pipelined HTTP messages and pairs responses with requests', () => {
    const { messages } = runEngine(bluebox())
    // Chunked: two chunks, the body de-chunked into a source of its own.
    const polled = messages[5]
    expect(findAll(polled.tree, 'http.chunk_size').map((n) => n.value)).toEqual([7, `poll|${b64(handshakeRes)}`.length - 7, 0])
    expect(findAll(polled.tree, 'http.trailer').map((n) => n.value)).toEqual(['X-Trailer: t'])
    const body = find(polled.tree, 'http.body')
    expect(polled.sources[body.source!].name).toBe('De-chunked body')
    expect(Buffer.from(rangeBytes(polled.sources, body)).toString()).toBe(`poll|${b64(handshakeRes)}`)
    // Each response names its request's frame; pipelined responses pair in order.
    const reqFrame = (m: DecodedMessage) => m.frames[m.frames.length - 1]
    const pairs: [number, number][] = [
      [0, 1],
      [2, 3],
      [4, 5],
      [6, 8],
      [7, 9],
      [10, 11]
    ]
    for (const [q, r] of pairs) {
      expect((messages[r].value as any).responseTo).toBe(reqFrame(messages[q]))
      expect(find(messages[r].tree, 'http.response_to').value).toBe(reqFrame(messages[q]))
    }
    // The pipelined Login request and poll came in one segment: the poll's HTTP message starts where the Login's ends.
    expect(messages[6].frames).toEqual(messages[7].frames)
    expect(find(messages[7].tree, 'http.method').value).toBe('POST')
    // Start line and headers are fields with their bytes.
    const line = find(messages[2].tree, 'http.request_line')
    expect(Buffer.from(rangeBytes(messages[2].sources, line)).toString()).toBe('POST /BlueBox/BlueBox.do HTTP/1.1')
    const cl = find(messages[2].tree, 'http.content_length')
    expect(Buffer.from(rangeBytes(messages[2].sources, cl)).toString()).toBe(String(cl.value))
    // The C# client's NUL after the body: padding before the next message, or a note at the end.
    expect(messages[1].error).toBeNull()
  })

  it('shows a request cut short with its error and the fields read so far', () => {
    const { messages, conversations } = runEngine(bluebox())
    const cut = messages[12]
    expect(cut.error).toMatch(/body cut short by the end of the connection: \d+ of \d+ bytes/)
    expect(find(cut.tree, 'http.request_line').value).toBe('POST /BlueBox/BlueBox.do HTTP/1.1')
    expect(find(cut.tree, 'bluebox.command').value).toBe('data')
    expect(find(cut.tree, 'sfs2x')).toBeDefined()
    expect(conversations[0].notes.some((n) => /padding byte/.test(n))).toBe(true)
  })

  it('gives the index fields the same values without trees', () => {
    const full = runEngine(bluebox()).messages
    resetFrames()
    const rows = runEngine(bluebox(), undefined, false).messages
    expect(rows.map((m) => m.name)).toEqual(full.map((m) => m.name))
    const pick = (keys: string[], values: unknown[], key: string) => values.filter((_, i) => keys[i] === key)
    rows.forEach((m, i) => {
      for (const key of ['bluebox.session', 'bluebox.command']) {
        expect(pick(m.indexed?.keys ?? [], m.indexed?.values ?? [], key)).toEqual(findAll(full[i].tree, key).map((n) => n.value))
      }
    })
    expect(pick(rows[4].indexed!.keys, rows[4].indexed!.values, 'bluebox.command')).toEqual(['poll'])
  })

  it('leaves other HTTP as it was and notes HTTPS on 8443', () => {
    const plain = new Conn(50010).c('POST /api/login HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi').s('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
    const tls = new Conn(50011, 8443).c(Uint8Array.from([0x16, 0x03, 0x01, 0x00, 0x05, 1, 0, 0, 1, 0]))
    const { messages, conversations } = runEngine([...plain.frames, ...tls.frames])
    expect(messages.filter((m) => m.conversation === 1).map((m) => [m.protocol, m.stack.join(',')])).toEqual([
      ['unknown', 'tcp'],
      ['unknown', 'tcp']
    ])
    expect(conversations[1].notes).toContain('HTTPS on port 8443 (e.g. SFS2X BlueBox or WebSocket over TLS): stays undecoded')
  })
})

describe('one BlueBox session over several connections', () => {
  it("the app's conversation pages note it too, on a page holding one conversation of the session", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-bluebox-'))
    const file = join(dir, 'bluebox.pcapng')
    const w = new PcapngWriter()
    writeFileSync(
      file,
      Buffer.concat([
        w.header([{ linkType: 1, tsUnitsPerSecond: 1e6 }]),
        ...bluebox().map((f) => w.frame({ interfaceId: 0, tsSec: f.tsSec, tsNsec: f.tsNsec, data: f.data }))
      ])
    )
    const core = new SessionCore({ emit: () => undefined, demoCapturePath: () => file, tempDir: dir })
    try {
      await core.open(file)
      const note = `BlueBox session ${SESSION} spans conversations #1, #2, #3, #4 (one HTTP connection per request)`
      for (const sort of ['id', 'bytes'] as const)
        for (let start = 0; start < 4; start++) {
          const page = core.getConversationPage({ sort, start, count: 1 })
          expect(page.total).toBe(4)
          expect(page.conversations[0].notes, `${sort} from ${start}`).toContain(note)
        }
    } finally {
      core.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('the exported conversation list notes, on each, every conversation of its session (1 job and 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-bluebox-'))
    try {
      const w = new PcapngWriter()
      const file = join(dir, 'bluebox.pcapng')
      writeFileSync(
        file,
        Buffer.concat([
          w.header([{ linkType: 1, tsUnitsPerSecond: 1e6 }]),
          ...bluebox().map((f) => w.frame({ interfaceId: 0, tsSec: f.tsSec, tsNsec: f.tsNsec, data: f.data }))
        ])
      )
      // in-process with one engine, and through the built CLI with two shard workers
      const bin = join(__dirname, '../../../../bin/gamewire.mjs')
      const docs = [
        JSON.parse((await decodeToText({ file, format: 'json', jobs: 1 })).text),
        JSON.parse(execFileSync(process.execPath, [bin, 'decode', file, '-j', '2'], { encoding: 'utf8' }))
      ]
      for (const [jobs, doc] of docs.entries()) {
        const ids = doc.conversations.map((c: { id: number }) => `#${c.id}`).join(', ')
        expect(doc.conversations).toHaveLength(4)
        for (const c of doc.conversations)
          expect(c.notes, `run ${jobs}`).toContain(`BlueBox session ${SESSION} spans conversations ${ids} (one HTTP connection per request)`)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
