// The one host-side session both shells drive: the Electron main process (over IPC) and `gamewire serve`
// (over a WebSocket). It runs the SessionCore on a worker thread (in-process only when asked, for tests),
// persists keys in a folder, and asks the shell where exports go. Arguments are validated by the shells
// (src-shared/api-validate.ts) before they get here.

import { DECODE_WORKER_LIMITS } from './worker-limits'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import type {
  CaptureDiff,
  DiffLine,
  DiffPairView,
  CaptureDeviceList,
  CaptureOptions,
  CaptureSaved,
  CaptureStatus,
  DecodeAsRule,
  DiffWithOptions,
  ExportRequest,
  InspectorEvent,
  InspectorRequests,
  JobInfo,
  RoomsView,
  SessionStatus,
  StatsOptions,
  ViewSpec,
  ConversationQuery
} from '../../src-shared/api'
import { deviceTraffic, captureUnavailableReason, listDevices } from '../capture/devices'
import { DEFAULT_RING_BYTES, DEFAULT_RING_FRAMES } from '../../src-shared/net/frame-ring'
import { LiveCaptureFailure, LiveCaptureHost, type CaptureSpawner } from '../capture/live-host'
import type { LiveBatch, LiveStats } from '../capture/live-protocol'
import { CAPTURE_PRESETS, captureFilter } from '../capture/presets'
import { demoCapturePath } from './paths'
import { SessionCore, type ExportTarget, type LiveBegin } from './session-core'
import type { CoreMethod, HostToWorker, SessionWorkerData, WorkerToHost } from './session-protocol'
import { workerScriptPath } from './worker-host'

export const KEY_FILE_NAME = 'keys.txt'
/** The loaded schema packs, a JSON array of packs, next to the keys. */
export const SCHEMA_FILE_NAME = 'schemas.json'
/** How often a live capture sends its frames (several batches a second, like a file being read). */
const LIVE_BATCH_MS = 200
const TRAFFIC_SAMPLE_MS = 250

export interface InspectorSessionOptions {
  /** Folder where keys persist as a key file (and schema packs as schemas.json); no persistence without it. */
  keysDir?: string
  /** Where an export goes: a path chosen in a dialog (Electron), a temp file with a download URL (serve); null cancels. */
  exportTarget(request: ExportRequest, suggestedName: string): Promise<ExportTarget | null>
  demoCapturePath?: () => string
  /** Run the core on this thread (tests only; the shells always use the worker). */
  inProcess?: boolean
  /** Shard workers the session worker decodes an opened capture with (default: cores - 1). */
  jobs?: number
  tempDir?: string
  /** The built worker script (default: next to the built entry; tests running from source pass out/main's). */
  workerScript?: string
  /** How the capture process is started (Electron may pass a utilityProcess spawner); false: no live capture. */
  liveCapture?: { spawn?: CaptureSpawner; script?: string } | false
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
  private capture: LiveCaptureHost | null = null
  private captureOptions: CaptureOptions | undefined
  private captureStatus: CaptureStatus = { state: 'off' }
  /** Settles once the core has made the starting capture its open one; batches wait for it. */
  private liveBegun: Promise<unknown> = Promise.resolve()

  constructor(private readonly opts: InspectorSessionOptions) {
    const demo = opts.demoCapturePath ?? demoCapturePath
    if (opts.inProcess) {
      this.worker = null
      this.core = new SessionCore({ emit: (e) => this.dispatch(e), demoCapturePath: demo, tempDir: opts.tempDir })
    } else {
      this.core = null
      const data: SessionWorkerData = { demoCapturePath: demo(), tempDir: opts.tempDir, jobs: opts.jobs }
      const worker = new Worker(opts.workerScript ?? workerScriptPath('session-worker.js'), { workerData: data, resourceLimits: DECODE_WORKER_LIMITS })
      this.worker = worker
      worker.on('message', (m: WorkerToHost) => this.fromWorker(m))
      worker.on('error', (e) => this.failAll(remoteError('WorkerError', `session worker failed: ${e.message}`)))
      worker.on('exit', (code) => {
        if (!this.closed) this.failAll(remoteError('WorkerError', `session worker exited with code ${code}`))
      })
    }
    this.ready = this.loadKeys().then(() => this.loadSchemas())
  }

  onEvent(cb: (e: InspectorEvent) => void): () => void {
    this.listeners.add(cb)
    return () => {
      this.listeners.delete(cb)
    }
  }

  private dispatch(e: InspectorEvent): void {
    // the demo's own keys are not the user's: they are never saved
    if (e.type === 'keys') this.persistKeys(e.keys.filter((k) => !k.demo).map((k) => k.line))
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

  // ---- schema packs persistence ----

  private schemaFile(): string | undefined {
    return this.opts.keysDir ? join(this.opts.keysDir, SCHEMA_FILE_NAME) : undefined
  }

  private async loadSchemas(): Promise<void> {
    const file = this.schemaFile()
    if (!file) return
    let packs: unknown
    try {
      packs = JSON.parse(readFileSync(file, 'utf8'))
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') console.warn(`gamewire: ignoring the saved schema packs in ${file}: ${(e as Error).message}`)
      return
    }
    if (!Array.isArray(packs)) return console.warn(`gamewire: ignoring the saved schema packs in ${file}: not a JSON array`)
    // Each pack is checked again as it is added: one that no longer validates is left out, the others load.
    for (const [i, p] of packs.entries()) {
      try {
        await this.rawCall('addSchema', [JSON.stringify(p)])
      } catch (e) {
        console.warn(`gamewire: ignoring saved schema pack ${i + 1} in ${file}: ${(e as Error).message}`)
      }
    }
  }

  /** Writes the core's packs to schemas.json (temp file and rename, 0600 like the keys). */
  private async persistSchemas(): Promise<void> {
    const file = this.schemaFile()
    if (!file) return
    const packs = await this.rawCall<unknown[]>('exportSchemas', [])
    const dir = this.opts.keysDir!
    this.persisting = this.persisting.then(() => {
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 })
        const tmp = `${file}.tmp`
        writeFileSync(tmp, `${JSON.stringify(packs, null, 2)}\n`, { mode: 0o600 })
        renameSync(tmp, file)
      } catch (e) {
        console.warn(`gamewire: could not save schema packs to ${file}: ${(e as Error).message}`)
      }
    })
    await this.persisting
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
  getConversationPage(query: ConversationQuery) {
    return this.call<Awaited<ReturnType<InspectorRequests['getConversationPage']>>>('getConversationPage', [query])
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
  findFrame(frame: number) {
    return this.call<number | null>('findFrame', [frame])
  }
  getMessage(id: number) {
    return this.call<Awaited<ReturnType<InspectorRequests['getMessage']>>>('getMessage', [id])
  }

  getSourceBytes(id: number, source: number, offset: number, length: number) {
    return this.call<Awaited<ReturnType<InspectorRequests['getSourceBytes']>>>('getSourceBytes', [id, source, offset, length])
  }
  setDecodeAs(rules: DecodeAsRule[]): Promise<SessionStatus> {
    return this.call('setDecodeAs', [rules])
  }
  listKeys() {
    return this.call<Awaited<ReturnType<InspectorRequests['listKeys']>>>('listKeys')
  }
  addKeys(text: string) {
    // A running capture only forwards frames: the core's live engine decodes them with these keys.
    return this.call<Awaited<ReturnType<InspectorRequests['addKeys']>>>('addKeys', [text])
  }
  removeKey(line: string) {
    return this.call<Awaited<ReturnType<InspectorRequests['removeKey']>>>('removeKey', [line])
  }
  exportKeys() {
    return this.call<string>('exportKeys')
  }
  getStats(options?: StatsOptions) {
    return this.call<Awaited<ReturnType<InspectorRequests['getStats']>>>('getStats', options === undefined ? [] : [options])
  }

  listSchemas() {
    return this.call<Awaited<ReturnType<InspectorRequests['listSchemas']>>>('listSchemas')
  }
  async addSchema(text: string) {
    const change = await this.call<Awaited<ReturnType<InspectorRequests['addSchema']>>>('addSchema', [text])
    await this.persistSchemas()
    return change
  }
  async removeSchema(id: string) {
    const change = await this.call<Awaited<ReturnType<InspectorRequests['removeSchema']>>>('removeSchema', [id])
    await this.persistSchemas()
    return change
  }
  queryTables() {
    return this.call<Awaited<ReturnType<InspectorRequests['queryTables']>>>('queryTables')
  }
  runQuery(sql: string) {
    return this.call<Awaited<ReturnType<InspectorRequests['runQuery']>>>('runQuery', [sql])
  }
  cancelQuery(): Promise<void> {
    return this.call('cancelQuery')
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

  // ---- live capture ----

  async listCaptureDevices(): Promise<CaptureDeviceList> {
    const presets = CAPTURE_PRESETS.map((p) => ({ id: p.id, label: p.label, description: p.description, userPorts: !!p.userPorts }))
    const unavailable = captureUnavailableReason()
    if (unavailable || this.opts.liveCapture === false)
      return { unavailable: unavailable ?? 'live capture is not available in this build', devices: [], presets }
    const devices = listDevices()
    const names = devices.map((d) => d.name)
    // Counters sampled twice: the devices whose counters moved carry traffic.
    const before = new Map(deviceTraffic(names).map((t) => [t.name, t]))
    await new Promise((r) => setTimeout(r, TRAFFIC_SAMPLE_MS))
    const after = new Map(deviceTraffic(names).map((t) => [t.name, t]))
    return {
      unavailable: null,
      presets,
      devices: devices.map((d) => {
        const a = before.get(d.name)
        const b = after.get(d.name)
        return {
          name: d.name,
          friendlyName: d.friendlyName,
          ...(d.description ? { description: d.description } : {}),
          addresses: d.addresses.map((x) => x.addr),
          loopback: d.loopback,
          ...(d.up !== undefined ? { up: d.up } : {}),
          ...(d.running !== undefined ? { running: d.running } : {}),
          flags: d.flags,
          traffic: a && b ? b.rxPackets + b.txPackets > a.rxPackets + a.txPackets : null
        }
      })
    }
  }

  private setCapture(status: CaptureStatus): void {
    this.captureStatus = status
    void this.call('setCaptureState', [status]).catch(() => undefined)
  }

  /** The capture process's own counters (libpcap, delivery); messages and errors are the core's, from its live engine. */
  private statsStatus(stats: LiveStats, state: CaptureStatus['state']): CaptureStatus {
    return {
      ...this.captureStatus,
      state,
      frames: stats.received,
      dropped: stats.dropped,
      ifDropped: stats.ifDropped,
      notDelivered: stats.framesNotSent
    }
  }

  private captureHost(): LiveCaptureHost {
    const cfg = this.opts.liveCapture
    if (cfg === false) throw new Error('live capture is not available in this build (open a capture file instead)')
    if (!this.capture) {
      this.capture = new LiveCaptureHost(
        {
          onBatch: (b) => this.liveBatch(b),
          onStopped: (stopped) => {
            this.setCapture(this.statsStatus(stopped.stats, 'off'))
            void this.call('endLive').catch(() => undefined)
          },
          onError: (e) => {
            this.setCapture({ ...this.captureStatus, state: 'error', error: e.message, errorKind: e.kind })
            void this.call('endLive').catch(() => undefined)
          },
          onLog: (line) => console.warn(`gamewire capture: ${line}`)
        },
        { spawn: cfg?.spawn, script: cfg?.script }
      )
    }
    return this.capture
  }

  private async liveBatch(b: LiveBatch): Promise<void> {
    await this.liveBegun
    if (this.closed) return
    if (this.capture?.state === 'capturing' || this.capture?.state === 'stopping') this.captureStatus = this.statsStatus(b.stats, this.captureStatus.state)
    await this.call('setCaptureState', [this.captureStatus])
    // Awaiting the worker holds back the acknowledgement: a slow session slows the capture's output.
    if (b.frames) await this.call('liveFrames', [b.frames])
  }

  async startCapture(options: CaptureOptions): Promise<CaptureStatus> {
    await this.ready
    const host = this.captureHost()
    if (host.state !== 'idle') throw new Error(`a capture is already ${host.state}`)
    let filter: string
    try {
      filter = captureFilter(options.presets ?? [], options.filter)
    } catch (e) {
      this.setCapture({ state: 'error', interface: options.interface, error: (e as Error).message, errorKind: 'filter' })
      throw e
    }
    const ring = { frames: options.ringFrames ?? DEFAULT_RING_FRAMES, bytes: options.ringBytes ?? DEFAULT_RING_BYTES }
    this.captureOptions = options
    this.setCapture({ state: 'starting', interface: options.interface, filter })
    let begun!: () => void
    this.liveBegun = new Promise<void>((r) => (begun = r))
    try {
      const started = await host.start({
        device: options.interface,
        filter: filter || undefined,
        snapLen: options.snapLen,
        promiscuous: options.promiscuous,
        bufferSize: options.bufferSize,
        ring,
        // The core decodes every frame once, with its own keys and decode-as rules; the capture
        // process starts no decoder of its own.
        forwardOnly: true,
        output: { frames: true },
        batchMs: LIVE_BATCH_MS
      })
      const begin: LiveBegin = {
        device: started.device,
        linkType: started.linkType,
        snapLen: options.snapLen ?? 262_144,
        ringFrames: ring.frames,
        ringBytes: ring.bytes
      }
      this.captureStatus = { state: 'capturing', interface: started.device, filter: started.filter, frames: 0, dropped: null, ifDropped: null, notDelivered: 0 }
      const beginning = this.call('beginLive', [begin])
      begun()
      await beginning
      await this.call('setCaptureState', [this.captureStatus])
    } catch (e) {
      begun()
      const kind = e instanceof LiveCaptureFailure ? e.kind : 'internal'
      this.setCapture({ state: 'error', interface: options.interface, filter, error: (e as Error).message, errorKind: kind })
      throw e
    }
    return this.captureStatus
  }

  async stopCapture(): Promise<CaptureStatus> {
    const host = this.capture
    if (!host || host.state === 'idle') throw new Error('not capturing')
    this.setCapture({ ...this.captureStatus, state: 'stopping' })
    await host.stop()
    // onStopped has asked the core to end the capture; answer once it has.
    await this.call('status')
    return this.captureStatus
  }

  async restartCapture(): Promise<CaptureStatus> {
    const options = this.captureOptions
    if (!options) throw new Error('no capture to restart')
    if (this.capture && this.capture.state !== 'idle') await this.stopCapture()
    return this.startCapture(options)
  }

  async saveCapture(): Promise<CaptureSaved> {
    await this.ready
    const status = await this.getStatus()
    if (status.source?.kind !== 'interface') throw new Error('there is no live capture to save')
    const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)
    const target = await this.opts.exportTarget({ format: 'pcapng', scope: 'all' }, `capture-${status.source.name}-${stamp}.pcapng`)
    if (!target) return { fileName: '', frames: 0, cancelled: true }
    // While capturing, the capture's own ring (every frame, delivered or not); afterwards the session's frames.
    const frames =
      this.capture?.state === 'capturing'
        ? (await this.capture.save(target.path)).frames
        : (await this.rawCall<{ frames: number }>('saveFrames', [target])).frames
    return { fileName: target.fileName, frames, ...(target.downloadUrl ? { downloadUrl: target.downloadUrl } : { file: target.path }) }
  }

  // ---- game-level analysis ----

  getRooms(): Promise<RoomsView> {
    return this.call('getRooms')
  }
  diffWith(path: string, options?: DiffWithOptions): Promise<CaptureDiff> {
    return this.call('diffWith', options === undefined ? [path] : [path, options])
  }
  getDiffPairs(report: number, start: number, count: number): Promise<DiffPairView[]> {
    return this.call('getDiffPairs', [report, start, count])
  }
  getDiffLines(report: number, pair: number, start: number, count: number): Promise<DiffLine[]> {
    return this.call('getDiffLines', [report, pair, start, count])
  }

  /** Stops the worker and removes the session's temporary files. */
  async close(): Promise<void> {
    if (this.closed) return
    if (this.capture && this.capture.state !== 'idle') await this.capture.stop().catch(() => undefined)
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
