// Runs `gamewire capture` as users do (node bin/gamewire.mjs on the built output) and watches its
// stdout line by line while it runs, so a test can tell messages that arrived during the capture from
// ones printed at the end. Also: free ports and a capture-process spawner that forbids a decoder, shared
// by the live-capture tests. The build is test/global-build.ts's (vitest globalSetup).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createServer } from 'node:net'
import { createSocket } from 'node:dgram'
import { join } from 'node:path'
import { forkCaptureProcess, type CaptureSpawner } from '../../../src-main/capture/live-host'

export const ROOT = join(__dirname, '../../..')
export const BIN = join(ROOT, 'bin/gamewire.mjs')

/** A port nobody listens on right now (TCP and UDP both free). */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const s = createServer()
      s.once('error', reject)
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port
        s.close(() => resolve(p))
      })
    })
    const udpFree = await new Promise<boolean>((resolve) => {
      const u = createSocket('udp4')
      u.once('error', () => resolve(false))
      u.bind(port, '127.0.0.1', () => u.close(() => resolve(true)))
    })
    if (udpFree) return port
  }
}

export type Line = Record<string, any>

export interface CaptureResult {
  code: number | null
  messages: Line[]
  summary: Line
  stderr: string
}

export class RunningCapture {
  readonly lines: Line[] = []
  stderr = ''
  private partial = ''
  private exited: Promise<number | null>
  private listeners = new Set<() => void>()

  constructor(readonly child: ChildProcess) {
    child.stdout!.setEncoding('utf8')
    child.stdout!.on('data', (chunk: string) => {
      const parts = (this.partial + chunk).split('\n')
      this.partial = parts.pop() ?? ''
      for (const p of parts) if (p.trim()) this.lines.push(JSON.parse(p))
      for (const l of [...this.listeners]) l()
    })
    child.stderr!.setEncoding('utf8')
    child.stderr!.on('data', (chunk: string) => {
      this.stderr += chunk
      for (const l of [...this.listeners]) l()
    })
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)))
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null
  }

  /** Messages printed so far (the summary line excluded). */
  get messages(): Line[] {
    return this.lines.filter((l) => !('summary' in l && l.summary?.format))
  }

  /** Resolves with the first non-undefined `pick` result as output arrives; rejects after `ms` or if the capture ends first. */
  waitFor<T>(pick: (c: RunningCapture) => T | undefined, what: string, ms = 15_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        let v: T | undefined
        try {
          v = pick(this)
        } catch (e) {
          done()
          reject(e)
          return
        }
        if (v !== undefined) {
          done()
          resolve(v)
        } else if (!this.alive) {
          done()
          reject(new Error(`capture ended before ${what}; stderr: ${this.stderr}`))
        }
      }
      const timer = setTimeout(() => {
        done()
        reject(new Error(`timed out waiting for ${what}; ${this.messages.length} messages so far; stderr: ${this.stderr}`))
      }, ms)
      const done = (): void => {
        clearTimeout(timer)
        this.listeners.delete(check)
      }
      this.listeners.add(check)
      this.child.once('exit', check)
      check()
    })
  }

  /** Waits for the capture to end by itself (--count, --duration). */
  async finished(): Promise<CaptureResult> {
    const code = await this.exited
    return this.result(code)
  }

  async stop(signal: NodeJS.Signals = 'SIGINT'): Promise<CaptureResult> {
    if (this.alive) this.child.kill(signal)
    return this.finished()
  }

  private result(code: number | null): CaptureResult {
    const summary = this.lines.find((l) => 'summary' in l && l.summary?.format)?.summary
    return { code, messages: this.messages, summary, stderr: this.stderr }
  }
}

/** Starts `gamewire capture ARGS`; resolves once it says it is capturing (libpcap has the device open). */
export async function startCapture(args: string[]): Promise<RunningCapture> {
  const child = spawn(process.execPath, [BIN, 'capture', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  const cap = new RunningCapture(child)
  await cap.waitFor((c) => (c.stderr.includes('gamewire: capturing on') ? true : undefined), 'the capture to start', 20_000)
  return cap
}

/**
 * Runs `gamewire capture ARGS` to the end (for argument errors). `withoutCaptureRights` drops
 * CAP_NET_RAW/CAP_NET_ADMIN from the bounding set: the process stays root for files (a clean clone may
 * sit in a directory other users cannot enter) but libpcap gets EPERM, as for an unprivileged user.
 */
export async function runCapture(args: string[], opts: { withoutCaptureRights?: boolean } = {}): Promise<CaptureResult> {
  const child = opts.withoutCaptureRights
    ? spawn('setpriv', ['--bounding-set=-net_raw,-net_admin', process.execPath, BIN, 'capture', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, [BIN, 'capture', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  return new RunningCapture(child).finished()
}

/** Runs a traffic script (node FILE ARGS) and returns the JSON line it prints. */
export function runTraffic(script: string, args: string[]): Promise<Line> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(__dirname, script), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`${script} exited ${code}: ${err}`))))
  })
}

/** Frame count of a capture file as tshark reads it. */
export function tsharkFrames(file: string): number {
  const out = execFileSync('tshark', ['-r', file, '-T', 'fields', '-e', 'frame.number'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString()
  return out.split('\n').filter((l) => l.trim()).length
}

const DECODER_TRAP = join(mkdtempSync(join(tmpdir(), 'gw-decoder-trap-')), 'no-decoder.cjs')
writeFileSync(
  DECODER_TRAP,
  `// Preloaded into a capture process: starting any worker thread (the decoder) fails the capture.
const wt = require('node:worker_threads')
if (wt.isMainThread) {
  wt.Worker = class { constructor() { throw new Error('a decoder worker was started') } }
  require('node:module').syncBuiltinESMExports()
}
`
)

/**
 * Starts the capture process like the default spawner, but with worker threads trapped: a capture that
 * starts its decoder fails with 'a decoder worker was started', so one that works under it decodes nothing.
 */
export const noDecoderSpawner: CaptureSpawner = (script, onLog) => {
  const saved = process.env.NODE_OPTIONS
  // fork() copies the environment when it is called: set it just around the call.
  process.env.NODE_OPTIONS = `${saved ?? ''} --require ${DECODER_TRAP}`.trim()
  try {
    return forkCaptureProcess(script, onLog)
  } finally {
    if (saved === undefined) delete process.env.NODE_OPTIONS
    else process.env.NODE_OPTIONS = saved
  }
}
