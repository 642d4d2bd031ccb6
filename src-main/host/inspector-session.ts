// The one host-side session both shells drive: the Electron main process (over IPC) and `gamewire serve`
// (over a WebSocket). It runs the SessionCore on a worker thread (in-process only when asked, for tests),
// persists keys in a folder, and asks the shell where exports go. Arguments are validated by the shells
// (src-shared/api-validate.ts) before they get here.

import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import type {
  CaptureOptions,
  CaptureStatus,
  DecodeAsRule,
  ExportRequest,
  InspectorEvent,
  InspectorRequests,
  JobInfo,
  SessionStatus,
  ViewSpec
} from '../../src-shared/api'
import type { CaptureFrame, CaptureInterface } from '../../src-shared/capture/types'
import { demoCapturePath } from './paths'
import { SessionCore, type ExportTarget } from './session-core'
import type { CoreMethod, HostToWorker, SessionWorkerData, WorkerToHost } from './session-protocol'
import { workerScriptPath } from './worker-host'

export const KEY_FILE_NAME = 'keys.txt'

/**
 * Live capture plugs in here (src-main/capture/, being written separately). `start` begins capturing
 * and reports through `sink`; until a hook is given, startCapture answers that live capture is not
 * available in this build.
 */
export interface LiveCaptureHook {
  start(options: CaptureOptions, sink: LiveCaptureSink): Promise<void>
  stop(): Promise<void>
}

export interface LiveCaptureSink {
  state(status: CaptureStatus): void
  interface(iface: CaptureInterface): void
  frame(frame: CaptureFrame): void
}

export interface InspectorSessionOptions {
  /** Folder where keys persist as a key file; no persistence without it. */
  keysDir?: string
  /** Where an export goes: a path chosen in a dialog (Electron), a temp file with a download URL (serve); null cancels. */
  exportTarget(request: ExportRequest, suggestedName: string): Promise<ExportTarget | null>
  demoCapturePath?: () => string
  /** Run the core on this thread (tests only; the shells always use the worker). */
  inProcess?: boolean
  tempDir?: string
  /** The built worker script (default: next to the built entry; tests running from source pass out/main's). */
  workerScript?: string
  liveCapture?: LiveCaptureHook
}

export class SessionClosed extends Error {
  constructor() {
    super('the session is closed')
    this.name = 'SessionClosed'
  }
}

interface Pending {
  resolve(v: unknown): void
  reject(e: Error): void
}

/** An error as the worker reported it, keeping its name (FilterError, KeyFileError, ...). */
function remoteError(name: string, message: string): Error {
  const e = new Error(message)
  e.name = name
  return e
}

export class InspectorSession implements InspectorRequests {
  private readonly listeners = new Set<(e: InspectorEvent) => void>()
  private readonly worker: Worker | null
  private readonly core: SessionCore | null
  private readonly pending = new Map<number, Pending>()
  private seq = 0
  private closed = false
  private persisting: Promise<void> = Promise.resolve()
  /** Settles once the persisted keys are loaded; every request waits for it. */
  private readonly ready: Promise<void>

  constructor(private readonly opts: InspectorSessionOptions) {
    const demo = opts.demoCapturePath ?? demoCapturePath
    if (opts.inProcess) {
      this.worker = null
      this.core = new SessionCore({ emit: (e) => this.dispatch(e), demoCapturePath: demo, tempDir: opts.tempDir })
    } else {
      this.core = null
      const data: SessionWorkerData = { demoCapturePath: demo(), tempDir: opts.tempDir }
      const worker = new Worker(opts.workerScript ?? workerScriptPath('session-worker.js'), { workerData: data })
      this.worker = worker
      worker.on('message', (m: WorkerToHost) => this.fromWorker(m))
      worker.on('error', (e) => this.failAll(remoteError('WorkerError', `session worker failed: ${e.message}`)))
      worker.on('exit', (code) => {
        if (!this.closed) this.failAll(remoteError('WorkerError', `session worker exited with code ${code}`))
      })
    }
    this.ready = this.loadKeys()
  }

  onEvent(cb: (e: InspectorEvent) => void): () => void {
    this.listeners.add(cb)
    return () => {
      this.listeners.delete(cb)
    }
  }

  private dispatch(e: InspectorEvent): void {
    if (e.type === 'keys') this.persistKeys(e.keys.map((k) => k.line))
    for (const cb of [...this.listeners]) {
      try {
        cb(e)
      } catch {
        // one broken listener must not stop the others
      }
    }
  }

  private fromWorker(m: WorkerToHost): void {
    if (m.type === 'event') return this.dispatch(m.event)
    const p = this.pending.get(m.id)
    if (!p) return
    this.pending.delete(m.id)
    if (m.type === 'result') p.resolve(m.value)
    else p.reject(remoteError(m.name, m.message))
  }

  private failAll(e: Error): void {
    for (const p of this.pending.values()) p.reject(e)
    this.pending.clear()
  }

  private rawCall<T>(method: CoreMethod, args: unknown[]): Promise<T> {
    if (this.closed) return Promise.reject(new SessionClosed())
    if (this.core) {
      const fn = (this.core[method] as (...a: unknown[]) => unknown).bind(this.core)
      return Promise.resolve().then(() => fn(...args) as T)
    }
    return new Promise<T>((resolve, reject) => {
      const id = ++this.seq
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject })
      this.worker!.postMessage({ type: 'call', id, method, args } satisfies HostToWorker)
    })
  }

  private async call<T>(method: CoreMethod, args: unknown[] = []): Promise<T> {
    await this.ready
    return this.rawCall<T>(method, args)
  }

  // ---- keys persistence ----

  private keyFile(): string | undefined {
    return this.opts.keysDir ? join(this.opts.keysDir, KEY_FILE_NAME) : undefined
  }

  private async loadKeys(): Promise<void> {
    const file = this.keyFile()
    if (!file) return
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch {
      return // no keys saved yet
    }
    try {
      await this.rawCall('addKeys', [text])
    } catch (e) {
      console.warn(`gamewire: ignoring the saved keys in ${file}: ${(e as Error).message}`)
    }
  }

  private persistKeys(lines: string[]): void {
    const file = this.keyFile()
    if (!file) return
    const dir = this.opts.keysDir!
    const text = `# gamewire keys (key-file format, one key per line)\n${lines.map((l) => l + '\n').join('')}`
    // Write to a temp file and rename, so a crash never leaves half a key file.
    this.persisting = this.persisting.then(() => {
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 })
        const tmp = `${file}.tmp`
        writeFileSync(tmp, text, { mode: 0o600 })
        renameSync(tmp, file)
      } catch (e) {
        console.warn(`gamewire: could not save keys to ${file}: ${(e as Error).message}`)
      }
    })
  }

  /** Resolves once every key change so far is on disk. */
  flushKeys(): Promise<void> {
    return this.persisting
  }

  // ---- InspectorRequests ----

  openCapture(path?: string): Promise<SessionStatus> {
    return this.call('open', path === undefined ? [] : [path])
  }
  getStatus(): Promise<SessionStatus> {
    return this.call('status')
  }
  getConversations() {
    return this.call<Awaited<ReturnType<InspectorRequests['getConversations']>>>('getConversations')
  }
  getFields() {
    return this.call<Awaited<ReturnType<InspectorRequests['getFields']>>>('getFields')
  }
  checkFilter(text: string) {
    return this.call<Awaited<ReturnType<InspectorRequests['checkFilter']>>>('checkFilter', [text])
  }
  setView(spec: ViewSpec) {
    return this.call<Awaited<ReturnType<InspectorRequests['setView']>>>('setView', [spec])
  }
  getRows(viewId: number, start: number, count: number) {
    return this.call<Awaited<ReturnType<InspectorRequests['getRows']>>>('getRows', [viewId, start, count])
  }
  findRow(viewId: number, messageId: number) {
    return this.call<number>('findRow', [viewId, messageId])
  }
  getMessage(id: number) {
    return this.call<Awaited<ReturnType<InspectorRequests['getMessage']>>>('getMessage', [id])
  }
  setDecodeAs(rules: DecodeAsRule[]): Promise<SessionStatus> {
    return this.call('setDecodeAs', [rules])
  }
  listKeys() {
    return this.call<Awaited<ReturnType<InspectorRequests['listKeys']>>>('listKeys')
  }
  addKeys(text: string) {
    return this.call<Awaited<ReturnType<InspectorRequests['addKeys']>>>('addKeys', [text])
  }
  removeKey(line: string) {
    return this.call<Awaited<ReturnType<InspectorRequests['removeKey']>>>('removeKey', [line])
  }
  exportKeys() {
    return this.call<string>('exportKeys')
  }
  getStats() {
    return this.call<Awaited<ReturnType<InspectorRequests['getStats']>>>('getStats')
  }

  async startExport(request: ExportRequest): Promise<JobInfo> {
    await this.ready
    const status = await this.getStatus()
    const base = status.source?.kind === 'file' ? status.source.file.replace(/\.(pcapng|pcap|cap)$/i, '') : 'capture'
    const suffix = request.scope === 'all' ? '' : `-${request.scope}`
    const ext = request.format === 'pcapng' ? 'pcapng' : request.format === 'ndjson' ? 'ndjson' : 'json'
    const target = await this.opts.exportTarget(request, `${base}${suffix}.${ext}`)
    if (!target) return { id: 0, kind: 'export', state: 'cancelled', progress: 0, description: 'Export cancelled' }
    return this.rawCall('startExport', [request, target])
  }

  cancelJob(id: number): Promise<void> {
    return this.call('cancelJob', [id])
  }

  async startCapture(options: CaptureOptions): Promise<CaptureStatus> {
    const hook = this.opts.liveCapture
    if (!hook) throw new Error('live capture is not available in this build (open a capture file instead)')
    // The frame side of the sink is wired when live capture lands (src-main/capture/live.ts).
    await hook.start(options, {
      state: (s) => void this.call('setCaptureState', [s]),
      interface: () => undefined,
      frame: () => undefined
    })
    return (await this.getStatus()).captureState
  }

  async stopCapture(): Promise<CaptureStatus> {
    const hook = this.opts.liveCapture
    if (!hook) throw new Error('live capture is not available in this build')
    await hook.stop()
    return (await this.getStatus()).captureState
  }

  /** Stops the worker and removes the session's temporary files. */
  async close(): Promise<void> {
    if (this.closed) return
    try {
      await this.rawCall('close', [])
    } catch {
      // closing anyway
    }
    this.closed = true
    this.failAll(new SessionClosed())
    await this.persisting
    if (this.worker) await this.worker.terminate()
  }
}
