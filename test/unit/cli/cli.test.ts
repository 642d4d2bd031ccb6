// The CLI as users run it: `node bin/gamewire.mjs` on the built output (test/global-build.ts builds it when stale).
import { describe, it, expect } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync, readFileSync, readdirSync, copyFileSync, statSync, truncateSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { BIN, ROOT, gw } from '../helpers/cli'
const LOOPBACK = join(ROOT, 'test/fixtures/net/loopback.pcapng')
const tmp = mkdtempSync(join(tmpdir(), 'gw-cli-'))

describe('gamewire decode', () => {
  it('writes the decoded-JSON document of the contract', () => {
    const r = gw('decode', LOOPBACK)
    expect(r.code).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(doc.format).toBe('gamewire/1')
    expect(doc.source).toEqual({ file: 'loopback.pcapng', frames: 127, linkTypes: ['ETHERNET'], warnings: [] })
    expect(doc.conversations).toHaveLength(7)
    expect(doc.conversations[0]).toMatchObject({
      id: 1,
      transport: 'udp',
      client: '127.0.0.1:46174',
      server: '127.0.0.1:40001',
      protocol: 'unknown',
      stack: ['udp'],
      frames: 8
    })
    const m = doc.messages[0]
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
      'tree',
      'sources',
      'warnings',
      'error'
    ])
    expect(m).toMatchObject({ id: 1, conversation: 1, direction: 'a2b', frames: [1], protocol: 'unknown', value: { hex: '68656c6c6f' }, error: null })
    expect(m.tree[0]).toEqual({ key: 'data.data', label: 'Data (5 bytes)', type: 'bytes', value: '68656c6c6f', source: 0, start: 0, length: 5, children: [] })
    expect(m.sources).toEqual([{ name: 'UDP payload', length: 5 }])
    // Message ids are 1..n in order; frames are 1-based and ascending.
    doc.messages.forEach((x: { id: number; frames: number[] }, i: number) => {
      expect(x.id).toBe(i + 1)
      expect([...x.frames].sort((a, b) => a - b)).toEqual(x.frames)
    })
    // A TCP connection with a SYN knows its client.
    expect(doc.messages.find((x: { conversation: number }) => x.conversation === 3).direction).toBe('c2s')
  })

  it('writes ndjson: one message a line, then the summary line', () => {
    const r = gw('decode', LOOPBACK, '--format', 'ndjson')
    expect(r.code).toBe(0)
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    const summary = lines.pop()
    expect(Object.keys(summary)).toEqual(['summary'])
    expect(summary.summary.source.frames).toBe(127)
    expect(summary.summary.stats.messages).toBe(lines.length)
    expect(lines.every((l) => typeof l.id === 'number')).toBe(true)
  })

  it('applies a display filter and writes to a file with -o', () => {
    const out = join(tmp, 'filtered.json')
    const r = gw('decode', LOOPBACK, '--filter', 'udp.port == 40002 && gamewire.direction == b2a', '-o', out)
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('')
    const doc = JSON.parse(readFileSync(out, 'utf8'))
    expect(doc.messages.length).toBe(3)
    expect(doc.messages.every((m: { conversation: number }) => m.conversation === 2)).toBe(true)
  })

  it('forces a protocol with --decode-as and says so on the conversation', () => {
    const r = gw('decode', LOOPBACK, '--decode-as', '127.0.0.1:40001=unknown', '--format', 'ndjson')
    expect(r.code).toBe(0)
    const convs = JSON.parse(r.stdout.trim().split('\n').pop()!).summary.conversations
    expect(convs[0].notes).toEqual(['protocol detection off (decode as unknown)'])
    expect(convs[1].notes).toBeUndefined()
    expect(gw('decode', LOOPBACK, '--decode-as', 'nonsense').stderr).toBe("gamewire: --decode-as needs CONV=PROTOCOL, got 'nonsense'\n")
  })

  it('decodes what a truncated capture holds, warns, and exits 0', () => {
    const cut = join(tmp, 'cut.pcapng')
    copyFileSync(LOOPBACK, cut)
    truncateSync(cut, statSync(LOOPBACK).size - 150) // inside the second-to-last record
    const r = gw('decode', cut)
    expect(r.code).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(doc.source.frames).toBeLessThan(127)
    expect(doc.source.frames).toBeGreaterThan(100)
    expect(doc.source.warnings.join(' ')).toMatch(/truncated/)
    expect(r.stderr).toMatch(/^gamewire: warning: capture truncated/m)
  })

  it('shows progress on stderr only when stderr is a terminal', () => {
    const out = join(tmp, 'progress.json')
    // `script` (util-linux) gives the command a pseudo-terminal.
    const tty = spawnSync('script', ['-qec', `${process.execPath} ${BIN} decode ${LOOPBACK} -o ${out}`, '/dev/null'], { cwd: ROOT, encoding: 'utf8' })
    expect(tty.status).toBe(0)
    expect(tty.stdout).toMatch(/127 frames, 63 messages, 0 with errors/)
    const piped = gw('decode', LOOPBACK, '-o', out)
    expect(piped.code).toBe(0)
    expect(piped.stderr).toBe('')
  })

  it('a failed decode -o leaves an existing OUT as it was and no temporary file behind', () => {
    const dir = mkdtempSync(join(tmp, 'out-'))
    const out = join(dir, 'previous.json')
    writeFileSync(out, 'the previous export')
    const notCapture = join(tmp, 'not-a-capture.bin')
    writeFileSync(notCapture, 'hello world, not a capture')
    const r = gw('decode', notCapture, '-o', out)
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(/^gamewire: not a pcap or pcapng file/)
    expect(readFileSync(out, 'utf8')).toBe('the previous export')
    expect(readdirSync(dir)).toEqual(['previous.json'])
    // and a successful one replaces it whole
    expect(gw('decode', LOOPBACK, '-o', out).code).toBe(0)
    expect(JSON.parse(readFileSync(out, 'utf8')).source.frames).toBe(127)
    expect(readdirSync(dir)).toEqual(['previous.json'])
    // a device is written, not replaced
    expect(gw('decode', LOOPBACK, '-o', '/dev/null').code).toBe(0)
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true)
  })

  // (an unknown option also prints the command's usage: conventions.test.ts)
  it('fails with one line and exit 2 on bad input, never a stack trace', () => {
    const notCapture = join(tmp, 'x.txt')
    writeFileSync(notCapture, 'hello world, not a capture')
    const badKeys = join(tmp, 'bad.keys')
    writeFileSync(badKeys, '# keys\nSFS2X_AES * 00112233\n')
    const cases: [string[], RegExp][] = [
      [['decode'], /^gamewire: decode needs a capture file/],
      [['decode', join(tmp, 'missing.pcap')], /^gamewire: capture file not found: /],
      [['decode', tmp], /^gamewire: capture file is a directory/],
      [['decode', notCapture], /^gamewire: not a pcap or pcapng file/],
      [['decode', LOOPBACK, '--format', 'xml'], /^gamewire: --format must be json, ndjson or parquet, got 'xml'$/m],
      [['decode', LOOPBACK, '--tree', 'some'], /^gamewire: --tree must be full or none, got 'some'$/m],
      [['decode', LOOPBACK, '--tree=NONE'], /^gamewire: --tree must be full or none, got 'NONE'$/m],
      [['decode', LOOPBACK, '--tree'], /^gamewire: option --tree needs a value$/m],
      [['decode', LOOPBACK, '--tree', 'none', '--tree', 'full'], /^gamewire: option --tree given twice$/m],
      [['decode', LOOPBACK, '--filter', 'udp.port =='], /^gamewire: filter: /],
      // names and types are checked as Wireshark does, with the position
      [['decode', LOOPBACK, '--filter', 'photon.nosuch == 1'], /^gamewire: filter: 'photon\.nosuch' at 0 is neither a field nor a protocol$/m],
      [['decode', LOOPBACK, '--filter', 'frame.number > "abc"'], /^gamewire: filter: frame\.number \(u32\) cannot be compared with the string "abc" at 15$/m],
      [['decode', LOOPBACK, '--keylog', badKeys], /^gamewire: line 2: /],
      [['frobnicate'], /^gamewire: unknown command 'frobnicate'/],
      [['capture'], /^gamewire: capture needs an interface/],
      [['serve', join(tmp, 'missing.pcap')], /^gamewire: capture file not found: /],
      [['serve', '--port', 'x'], /^gamewire: --port must be 0\.\.65535/]
    ]
    for (const [args, pattern] of cases) {
      const r = gw(...args)
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr, args.join(' ')).toMatch(pattern)
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1)
      expect(r.stderr).not.toMatch(/\bat .*:\d+:\d+/)
    }
  })

  it('leaves the field trees out with --tree none; --tree full is the default', () => {
    const full = gw('decode', LOOPBACK, '--format', 'ndjson', '--include-bytes')
    const none = gw('decode', LOOPBACK, '--format', 'ndjson', '--include-bytes', '--tree', 'none')
    expect(gw('decode', LOOPBACK, '--format', 'ndjson', '--include-bytes', '--tree=full').stdout).toBe(full.stdout)
    expect(none.code).toBe(0)
    const fullLines = full.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    const noneLines = none.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(Object.keys(noneLines[0])).toEqual([
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
    expect(noneLines[0].sources[0]).toEqual({ name: 'UDP payload', length: 5, hex: '68656c6c6f' })
    for (const l of fullLines) delete l.tree
    expect(noneLines).toEqual(fullLines)
    expect(none.stdout.length).toBeLessThan(full.stdout.length / 2)
  })

  it('keeps keys out of the export unless --include-keys is given', () => {
    const keys = join(tmp, 'ok.keys')
    writeFileSync(keys, 'PHOTON_AES_KEY * ' + 'ab'.repeat(32) + '\n')
    const without = gw('decode', LOOPBACK, '--keylog', keys)
    expect(without.code).toBe(0)
    expect(without.stdout).not.toContain('ab'.repeat(32))
    const withKeys = gw('decode', LOOPBACK, '--keylog', keys, '--include-keys')
    expect(JSON.parse(withKeys.stdout).keys).toEqual([{ type: 'PHOTON_AES_KEY', conversation: '*', key: 'ab'.repeat(32) }])
  })
})

describe('gamewire stats and devices', () => {
  it('summarises a capture', () => {
    const r = gw('stats', LOOPBACK, '--json')
    expect(r.code).toBe(0)
    const s = JSON.parse(r.stdout)
    expect(s.frames).toBe(127)
    expect(s.conversations).toHaveLength(7)
    expect(s.index.columnBytesPerMessage).toBeLessThanOrEqual(40)
  })

  it('takes --keylog: the index pass decrypts with the keys (a wrong key is an error, the right one none)', () => {
    const capture = join(ROOT, 'test/fixtures/ui/sfs2x-aes.pcapng')
    const wrong = join(tmp, 'wrong-sfs2x.keys')
    writeFileSync(wrong, `SFS2X_AES * ${'00'.repeat(16)} ${'00'.repeat(16)}\n`)
    const bad = JSON.parse(gw('stats', capture, '--json', '--keylog', wrong).stdout)
    expect(bad.errors).toBeGreaterThan(0)
    const good = gw('stats', capture, '--json', '--keylog', join(ROOT, 'test/fixtures/ui/keys.txt'))
    expect(good.code).toBe(0)
    expect(JSON.parse(good.stdout)).toMatchObject({ errors: 0, messages: bad.messages })
    const malformed = join(tmp, 'malformed.keys')
    writeFileSync(malformed, '# ok\nSFS2X_AES * nothex\n')
    const r = gw('stats', capture, '--keylog', malformed)
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/line 2/)
  })

  it('lists libpcap devices, loopback included', () => {
    const r = gw('devices', '--json')
    expect(r.code).toBe(0)
    const devices = JSON.parse(r.stdout)
    expect(devices.some((d: { name: string; loopback: boolean }) => d.name === 'lo' && d.loopback)).toBe(true)
  })
})
