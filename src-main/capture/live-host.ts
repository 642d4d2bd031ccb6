// LiveCaptureHost: drives one live capture running in its own process (capture-process.ts), for the CLI,
// the Electron main process and `gamewire serve` alike.
//
//   const host = new LiveCaptureHost({
//     onBatch: async (b) => { ... b.ndjson / b.rows / b.frames, b.stats ... },  // a promise = backpressure
//     onStopped: (s) => { ... },
//     onError: (e) => { ... }          // the capture process died after starting
//   })
//   await host.start({ device: 'lo', filter: 'udp port 5055', output: { rows: true } })
//   await host.addKeys('PHOTON_AES_KEY * 00..')   // decoders consult the store on every message
//   await host.save('/tmp/now.pcapng')            // the frames the ring still holds
//   const stopped = await host.stop()             // restart(): stop() + start() with the same options
//
// start() rejects with LiveCaptureFailure whose `kind` says what went wrong: 'unavailable' (cap did not
// load: files still work), 'permission' (the message says how to grant it), 'filter' (libpcap's
// message), 'no-device', 'options', 'output', 'internal'.
//
// In Electron, pass `spawn` with a utilityProcess-based channel if the RunAsNode fuse is off; the
// default child_process.fork runs the script with process.execPath (Electron sets ELECTRON_RUN_AS_NODE).

import { fork } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { appRoot } from '../host/paths'
import { captureUnavailableReason } from './devices'
import type { CaptureCommand, CaptureReport, LiveBatch, LiveFailureKind, LiveStartOptions, LiveStarted, LiveStats, LiveStopped } from './live-protocol'

export class LiveCaptureFailure extends Error {
  constructor(
    readonly kind: LiveFailureKind,
    message: string
  ) {
    super(message)
    this.name = 'LiveCaptureFailure'
  }
}

export interface LiveCaptureHandlers {
  /** Each batch, in order. Returning a promise holds back the acknowledgement until it settles. */
  onBatch?(batch: LiveBatch): void | Promise<void>
  onStopped?(stopped: LiveStopped): void
  /** The capture process failed or vanished while capturing. */
  onError?(error: LiveCaptureFailure): void
  /** Diagnostic lines the capture process (libpcap, the runtime) wrote to stderr. */
  onLog?(line: string): void
}

/** How the host talks to its capture process. */
export interface CaptureChannel {
  /** The process id, where the spawner knows it. */
  readonly pid?: number
  send(c: CaptureCommand): void
  onMessage(cb: (r: CaptureReport) => void): void
  /** Called once when the process is gone; `detail` is the end of what it wrote to stderr. */
  onExit(cb: (code: number | null, signal: string | null, detail: string) => void): void
  kill(): void
}

export type CaptureSpawner = (script: string, onLog: (line: string) => void) => CaptureChannel

const STDERR_TAIL = 4096
// cap prints this when the device has no IPv4 netmask; it is harmless (filters just cannot use `net`).
const CAP_LOOKUPNET_NOISE = /^Warning: .* - This may not actually work$/

/** The default spawner: a Node child process with structured-clone IPC. */
export const forkCaptureProcess: CaptureSpawner = (script, onLog) => {
  const child = fork(script, [], { serialization: 'advanced', stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
  let tail = ''
  let partial = ''
  child.stderr!.setEncoding('utf8')
  child.stderr!.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-STDERR_TAIL)
    const lines = (partial + chunk).split('\n')
    partial = lines.pop() ?? ''
    for (const line of lines) if (line.trim() && !CAP_LOOKUPNET_NOISE.test(line.trim())) onLog(line)
  })
  return {
    pid: child.pid,
    send: (c) => {
      // The process may exit between the check and the write (a forward-only capture stops quickly):
      // with a callback the EPIPE is not an unhandled 'error' event; onExit reports the exit.
      if (child.connected) child.send(c, () => undefined)
    },
    onMessage: (cb) => child.on('message', (m) => cb(m as CaptureReport)),
    onExit: (cb) => child.once('exit', (code, signal) => cb(code, signal, tail.trim())),
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    }
  }
}

/** The built capture-process script: next to the bundle that imports this, one folder up from a shared chunk, or under out/main from the sources. */
export function captureScriptPath(): string {
  const here = dirname(fileURLToPath(import.meta.url))
  for (const candidate of [join(here, 'capture-process.js'), join(here, '..', 'capture-process.js'), join(appRoot(), 'out', 'main', 'capture-process.js')]) {
    if (existsSync(candidate)) return candidate
  }
  throw new LiveCaptureFailure('internal', 'capture process script not found: run `npm run build`')
}

type State = 'idle' | 'starting' | 'capturing' | 'stopping'

interface Pending {
  resolve(v: unknown): void
  reject(e: Error): void
}

/** How long a stopping capture process may stay silent before it is killed. */
const STOP_TIMEOUT_MS = 15_000

export class LiveCaptureHost {
  private channel: CaptureChannel | undefined
  private current: State = 'idle'
  private options: LiveStartOptions | undefined
  private nextId = 1
  private readonly requests = new Map<number, Pending>()
  private chain: Promise<void> = Promise.resolve()
  private startWait: Pending | undefined
  private stopWait: Promise<LiveStopped> | undefined
  /** The current run ended with 'stopped' or 'fatal'. */
  private settled = false
  private resolveStop: ((s: LiveStopped) => void) | undefined
  private rejectStop: ((e: Error) => void) | undefined
  /** While stopping: kills a capture process that has sent nothing for the stop timeout. */
  private stopTimer: NodeJS.Timeout | undefined
  /** Batches received whose handler has not finished (not acknowledged yet). */
  private unhandled = 0
  /** The stats of the last batch. */
  lastStats: LiveStats | undefined

  constructor(
    private readonly handlers: LiveCaptureHandlers = {},
    /** `stopTimeoutMs`: how long a stopping capture process may stay silent (default STOP_TIMEOUT_MS). */
    private readonly config: { spawn?: CaptureSpawner; script?: string; stopTimeoutMs?: number } = {}
  ) {}

  get state(): State {
    return this.current
  }

  /** The capture process's id while there is one. */
  get pid(): number | undefined {
    return this.channel?.pid
  }

  start(options: LiveStartOptions): Promise<LiveStarted> {
    if (this.current !== 'idle') return Promise.reject(new LiveCaptureFailure('options', `a capture is already ${this.current}`))
    const unavailable = captureUnavailableReason()
    if (unavailable) return Promise.reject(new LiveCaptureFailure('unavailable', unavailable))
    let script: string
    try {
      script = this.config.script ?? captureScriptPath()
    } catch (e) {
      return Promise.reject(e)
    }
    this.options = options
    this.current = 'starting'
    this.lastStats = undefined
    this.settled = false
    this.chain = Promise.resolve()
    this.unhandled = 0
    const channel = (this.config.spawn ?? forkCaptureProcess)(script, (line) => this.handlers.onLog?.(line))
    this.channel = channel
    this.stopWait = new Promise<LiveStopped>((resolve, reject) => {
      this.resolveStop = resolve
      this.rejectStop = reject
    })
    this.stopWait.catch(() => {}) // observed through stop() or onError
    channel.onMessage((r) => this.report(channel, r))
    channel.onExit((code, signal, detail) => this.exited(channel, code, signal, detail))
    const started = new Promise<LiveStarted>((resolve, reject) => {
      this.startWait = { resolve: resolve as (v: unknown) => void, reject }
    })
    channel.send({ type: 'start', options })
    return started
  }

  /** Stops the capture; resolves once every batch (the summary line's pieces last) has been handled, with the final stats. */
  stop(): Promise<LiveStopped> {
    if (this.current === 'idle' || !this.channel || !this.stopWait) return Promise.reject(new LiveCaptureFailure('options', 'not capturing'))
    if (this.current !== 'stopping') {
      this.current = 'stopping'
      const channel = this.channel
      channel.send({ type: 'stop' })
      // Killed only if it goes quiet on its own: a summary of a million conversations takes a while to
      // send, and while our handlers hold batches unacknowledged (a slow stdout) it is waiting for us.
      const timer = setTimeout(() => (this.unhandled > 0 ? timer.refresh() : channel.kill()), this.config.stopTimeoutMs ?? STOP_TIMEOUT_MS)
      timer.unref()
      this.stopTimer = timer
      this.stopWait
        .finally(() => {
          clearTimeout(timer)
          if (this.stopTimer === timer) this.stopTimer = undefined
        })
        .catch(() => {})
    }
    return this.stopWait
  }

  /** Settles when the current run ends: by stop(), --count/--duration, or a failure (rejects). */
  whenStopped(): Promise<LiveStopped> {
    return this.stopWait ?? Promise.reject(new LiveCaptureFailure('options', 'not capturing'))
  }

  /** Stops and starts again with the same options, or with `options` when given. */
  async restart(options?: LiveStartOptions): Promise<LiveStarted> {
    const next = options ?? this.options
    if (!next) throw new LiveCaptureFailure('options', 'nothing to restart')
    if (this.current !== 'idle') await this.stop().catch(() => undefined)
    return this.start(next)
  }

  /** Adds key-file lines to the running capture's key store; later messages decrypt with them. */
  addKeys(text: string): Promise<{ added: number; total: number; warnings: string[] }> {
    return this.request((id) => ({ type: 'add-keys', id, text })) as Promise<{ added: number; total: number; warnings: string[] }>
  }

  /** Writes the frames the ring holds to a pcapng file while the capture goes on. */
  save(path: string): Promise<{ path: string; frames: number }> {
    return this.request((id) => ({ type: 'save', id, path })) as Promise<{ path: string; frames: number }>
  }

  private request(make: (id: number) => CaptureCommand): Promise<unknown> {
    if (this.current !== 'capturing' || !this.channel) return Promise.reject(new LiveCaptureFailure('options', 'not capturing'))
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.requests.set(id, { resolve, reject })
      this.channel!.send(make(id))
    })
  }

  private report(channel: CaptureChannel, r: CaptureReport): void {
    if (channel !== this.channel) return
    this.stopTimer?.refresh()
    switch (r.type) {
      case 'started': {
        this.current = this.current === 'stopping' ? 'stopping' : 'capturing'
        const { type: _, ...started } = r
        this.startWait?.resolve(started)
        this.startWait = undefined
        return
      }
      case 'batch': {
        this.lastStats = r.stats
        const { type: _, ...batch } = r
        this.unhandled++
        this.chain = this.chain
          .then(() => this.handlers.onBatch?.(batch))
          .catch((e: Error) => this.handlers.onLog?.(`batch handler failed: ${e.message}`))
          .then(() => {
            this.unhandled--
            this.stopTimer?.refresh()
            channel.send({ type: 'ack', seq: r.seq })
          })
        return
      }
      case 'keys':
        this.requests.get(r.id)?.resolve({ added: r.added, total: r.total, warnings: r.warnings })
        this.requests.delete(r.id)
        return
      case 'saved':
        this.requests.get(r.id)?.resolve({ path: r.path, frames: r.frames })
        this.requests.delete(r.id)
        return
      case 'request-failed':
        this.requests.get(r.id)?.reject(new LiveCaptureFailure('options', r.message))
        this.requests.delete(r.id)
        return
      case 'stopped': {
        const { type: _, ...stopped } = r
        this.lastStats = stopped.stats
        this.settled = true
        this.chain.then(() => {
          this.detach(channel)
          this.handlers.onStopped?.(stopped)
          this.resolveStop?.(stopped)
        })
        return
      }
      case 'fatal':
        this.detach(channel)
        this.fail(new LiveCaptureFailure(r.kind, r.message))
        return
    }
  }

  /** The run is over (the process exits by itself): the host is free for the next start(). */
  private detach(channel: CaptureChannel, why = new LiveCaptureFailure('options', 'the capture has stopped')): void {
    if (channel !== this.channel) return
    this.channel = undefined
    this.current = 'idle'
    for (const p of this.requests.values()) p.reject(why)
    this.requests.clear()
  }

  private fail(e: LiveCaptureFailure): void {
    this.settled = true
    if (this.startWait) {
      this.startWait.reject(e)
      this.startWait = undefined
    } else {
      this.handlers.onError?.(e)
    }
    this.rejectStop?.(e)
  }

  private exited(channel: CaptureChannel, code: number | null, signal: string | null, detail: string): void {
    if (channel !== this.channel) return
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`
    const lastLine = detail
      .split('\n')
      .filter((l) => l.trim() && !CAP_LOOKUPNET_NOISE.test(l.trim()))
      .pop()
    const error = new LiveCaptureFailure('internal', `the capture process ${how}${lastLine ? `: ${lastLine.trim()}` : ''}`)
    this.chain.then(() => {
      // After 'stopped' or 'fatal' the run is settled and detached; otherwise the process crashed.
      if (this.settled) return
      this.detach(channel, error)
      this.fail(error)
    })
  }
}
