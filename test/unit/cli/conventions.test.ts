// The command-line conventions, on the built bin as users run it: --help and -h per command, --version,
// unknown options named with the command's usage, and the options several commands share.
import { describe, it, expect, beforeAll } from 'vitest'
import { spawnSync, execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'

import { BIN, ROOT, gw } from '../helpers/cli'
const DEMO = join(ROOT, 'resources/demo.pcapng')
const COMMANDS = ['decode', 'stats', 'rooms', 'capture', 'devices', 'serve']

/** The command run under a pseudo-terminal (`script`, util-linux): what a user at a terminal sees. */
function tty(...args: string[]) {
  const r = spawnSync('script', ['-qec', [process.execPath, BIN, ...args].join(' '), '/dev/null'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28 })
  return { code: r.status, out: r.stdout }
}

/** The usage lines at the top of a command's --help (up to the first blank line). */
const usageOf = (help: string) => help.split('\n\n')[0]

beforeAll(() => {
  try {
    statSync(join(ROOT, 'out/main/cli.js'))
  } catch {
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' })
  }
})

describe('help and version', () => {
  it('each command answers --help and -h with its own usage and options on stdout, exit 0', () => {
    const mustList: Record<string, string[]> = {
      decode: ['--keylog FILE', '--filter EXPR', '--format json|ndjson', '--output OUT', '--decode-as CONV=PROTOCOL', '--jobs N', '--quiet', '--help'],
      stats: ['--keylog FILE', '--decode-as CONV=PROTOCOL', '--json', '--jobs N', '--quiet', '--help'],
      capture: ['--interface IFACE', '--keylog FILE', '--decode-as CONV=PROTOCOL', '--quiet', '--help'],
      rooms: ['--keylog FILE', '--decode-as CONV=PROTOCOL', '--json', '--help'],
      devices: ['--json', '--help'],
      serve: ['--port N', '--host H', '--jobs N', '--help']
    }
    for (const c of COMMANDS) {
      const long = gw(c, '--help')
      expect(long.code, c).toBe(0)
      expect(long.stderr, c).toBe('')
      expect(long.stdout, c).toMatch(new RegExp(`^usage: gamewire ${c}\\b`))
      for (const o of mustList[c]) expect(long.stdout, `${c} ${o}`).toContain(o)
      // another command's own option is not in this one's help
      if (c !== 'capture') expect(long.stdout, c).not.toContain('--interface')
      expect(gw(c, '-h').stdout, c).toBe(long.stdout)
      expect(gw('help', c).stdout, c).toBe(long.stdout)
    }
  })

  it('--help wins over the rest of the line, but a value that is -h is a value', () => {
    const help = gw('decode', '--help').stdout
    expect(gw('decode', 'missing.pcap', '--bogus', '--help')).toEqual({ code: 0, stdout: help, stderr: '' })
    expect(gw('stats', '-h', '--jobs', 'x').code).toBe(0)
    // -h here is the filter expression: the command runs (and the filter is refused)
    const r = gw('decode', DEMO, '--filter', '-h')
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/^gamewire: filter: /)
  })

  it('gamewire --help and -h give the general usage on stdout; no command gives it on stderr with exit 2', () => {
    const r = gw('--help')
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
    expect(r.stdout).toMatch(/^usage: gamewire <command> \[options\]/)
    for (const c of COMMANDS) expect(r.stdout).toMatch(new RegExp(`^  ${c} +\\S`, 'm'))
    expect(gw('-h')).toEqual(r)
    expect(gw('help')).toEqual(r)
    const none = gw()
    expect(none.code).toBe(2)
    expect(none.stdout).toBe('')
    expect(none.stderr).toBe(r.stdout)
  })

  it('--version and -V print the version in package.json', () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    expect(version).toMatch(/^\d+\.\d+\.\d+/)
    for (const flag of ['--version', '-V']) expect(gw(flag)).toEqual({ code: 0, stdout: `gamewire ${version}\n`, stderr: '' })
  })
})

describe('mistakes on the command line', () => {
  it('an unknown option names itself, then the command usage: exit 2, stderr only, no stack trace', () => {
    const cases: [string[], string][] = [
      [['decode', DEMO, '--bogus'], '--bogus'],
      [['decode', DEMO, '-z'], '-z'],
      [['stats', DEMO, '--tree', 'none'], '--tree'],
      [['capture', '-i', 'lo', '--jobs', '2'], '--jobs'],
      [['devices', '-q'], '-q'],
      [['serve', '--keylog', 'keys.txt'], '--keylog']
    ]
    for (const [args, option] of cases) {
      const r = gw(...args)
      const label = args.join(' ')
      expect(r.code, label).toBe(2)
      expect(r.stdout, label).toBe('')
      const [first, ...rest] = r.stderr.trimEnd().split('\n')
      expect(first, label).toBe(`gamewire: unknown option ${option}`)
      expect(rest.join('\n'), label).toBe(usageOf(gw(args[0], '--help').stdout))
      expect(r.stderr, label).not.toMatch(/\bat .*:\d+:\d+/)
    }
  })

  it('an unknown option before any command is named, with the general usage lines', () => {
    const r = gw('--bogus')
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr.trimEnd().split('\n')).toEqual(['gamewire: unknown option --bogus', ...gw('--help').stdout.split('\n\n')[0].split('\n')])
  })

  it('an extra argument is named the same way', () => {
    const r = gw('stats', DEMO, 'second.pcap')
    expect(r.code).toBe(2)
    expect(r.stderr.trimEnd().split('\n')).toEqual([`gamewire: unexpected argument 'second.pcap'`, ...usageOf(gw('stats', '--help').stdout).split('\n')])
  })
})

describe('options shared between commands', () => {
  it('stats takes -q/--quiet: the same summary, and no progress line even at a terminal', () => {
    const plain = gw('stats', DEMO)
    expect(plain.code).toBe(0)
    for (const q of ['-q', '--quiet']) expect(gw('stats', DEMO, q)).toEqual(plain)
    // at a terminal stats shows a progress line (cleared before the summary); -q leaves it out
    const shown = tty('stats', DEMO, '--jobs', '1')
    expect(shown.code).toBe(0)
    expect(shown.out).toMatch(/reading \d+%/)
    const quiet = tty('stats', DEMO, '--jobs', '1', '-q')
    expect(quiet.code).toBe(0)
    expect(quiet.out).not.toMatch(/reading/)
    expect(quiet.out.replace(/\r/g, '')).toBe(plain.stdout)
  })

  it('diff shows how much of each capture is read at a terminal, cleared before the report; -q leaves it out', () => {
    const plain = gw('diff', DEMO, DEMO)
    expect(plain.code).toBe(0)
    const name = basename(DEMO)
    const shown = tty('diff', DEMO, DEMO)
    expect(shown.code).toBe(0)
    // both files' lines, B's read in a worker thread: each reaches 100 %
    expect(shown.out).toContain(`reading ${name} 100%  ${name} 100%`)
    // what is left once the progress lines, each after a carriage return and an erase-line, are taken out
    const pieces = shown.out.split('\r\u001b[K')
    const report = pieces.map((piece) => piece.replace(/^reading [^\r\n]*/, '')).join('')
    expect(report.replace(/\r/g, '')).toBe(plain.stdout)
    for (const q of ['-q', '--quiet']) {
      const quiet = tty('diff', DEMO, DEMO, q)
      expect(quiet.code).toBe(0)
      expect(quiet.out).not.toMatch(/reading/)
      expect(quiet.out.replace(/\r/g, '')).toBe(plain.stdout)
    }
  })

  it('decode -q leaves the progress line out at a terminal', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'gw-conventions-')), 'demo.json')
    expect(tty('decode', DEMO, '-o', out).out).toMatch(/324 frames, \d+ messages/)
    const quiet = tty('decode', DEMO, '-o', out, '-q')
    expect(quiet.code).toBe(0)
    expect(quiet.out).toBe('')
  })

  it('stats takes --decode-as as decode does: the forced conversation is counted as forced, with its note', () => {
    const before = JSON.parse(gw('stats', DEMO, '--json').stdout)
    const sfs = before.conversations.find((c: { server: string }) => c.server === '198.51.100.30:9933')
    expect(sfs.protocol).toBe('sfs2x')
    for (const jobs of ['1', '2']) {
      const r = gw('stats', DEMO, '--json', '--jobs', jobs, '--decode-as', '198.51.100.30:9933=unknown')
      expect(r.code, jobs).toBe(0)
      const after = JSON.parse(r.stdout)
      const forced = after.conversations.find((c: { id: number }) => c.id === sfs.id)
      expect(forced.protocol, jobs).toBe('unknown')
      expect(forced.notes, jobs).toContain('protocol detection off (decode as unknown)')
      // the SFS2X messages that conversation held (after its HTTP preamble) are no longer counted as sfs2x
      const sfsMessages = JSON.parse(gw('decode', DEMO, '--tree', 'none', '--filter', `gamewire.conversation == ${sfs.id} && sfs2x`).stdout).messages.length
      expect(sfsMessages, jobs).toBeGreaterThan(0)
      expect(after.protocols.sfs2x, jobs).toBe(before.protocols.sfs2x - sfsMessages)
    }
    const bad = gw('stats', DEMO, '--decode-as', 'nonsense')
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/^gamewire: --decode-as needs CONV=PROTOCOL/)
  })

  it('capture takes -q and serve takes --jobs (checked before anything starts)', () => {
    // -q is accepted: the next complaint is the missing interface, not the option
    expect(gw('capture', '-q').stderr).toMatch(/^gamewire: capture needs an interface/)
    const r = gw('serve', '--jobs', '0')
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^gamewire: --jobs must be a whole number from 1 to 64, got '0'$/m)
  })
})
