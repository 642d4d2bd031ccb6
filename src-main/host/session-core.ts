// The inspector session: one open capture, its compact message index, the timeline view (filter, sort,
// extra columns), message detail on demand, keys, decode-as, statistics and exports. Plain Node with no
// worker specifics: session-worker.ts runs it on a worker thread, the tests run it in-process. Long work
// (opening, re-decoding, filtering, exporting) yields to the event loop regularly so requests such as
// getRows and getMessage are answered while it runs, and each can be cancelled.

import { closeSync, createReadStream, openSync, rmSync, statSync, writeSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import type {
  CaptureStatistics,
  CaptureStatus,
  DecodeAsRule,
  ExportRequest,
  FieldInfo,
  FilterCheck,
  InspectorEvent,
  JobInfo,
  KeyChange,
  KeyInfo,
  MessageDetail,
  RowBatch,
  SessionStatus,
  SourceInfo,
  TimelineRow,
  ViewInfo,
  ViewSpec
} from '../../src-shared/api'
import { allFields } from '../../src-shared/bytes/fields'
import { CaptureReader } from '../../src-shared/capture/reader'
import type { CaptureFrame } from '../../src-shared/capture/types'
import { PcapngWriter } from '../../src-shared/capture/pcapng-writer'
import { Engine, WarningList, type EvictionOptions } from '../../src-shared/engine/engine'
import { ShardPool } from './shard-pool'
import { MessageIndex, type IndexInput } from '../../src-shared/engine/message-index'
import '../../src-shared/engine/meta-fields'
import { jsonText, jsonTree } from '../../src-shared/export/json'
import { toHex } from '../../src-shared/bytes/tree'
import { compileFilter, FilterError, type FilterTarget } from '../../src-shared/filter'
import { formatKeyFile, formatKeyLine, parseKeyFile, type KeyEntry } from '../../src-shared/keys/keyfile'
import { KeyStore } from '../../src-shared/keys/store'
import type { ConversationInfo, DecodedMessage } from '../../src-shared/model/types'
import { createDefaultRegistry } from '../../src-shared/protocols'
import type { WireDir } from '../../src-shared/protocols/registry'
import type { Conversation } from '../../src-shared/engine/conversation'
import { FRAME_META_FIELDS, type PackedFrames } from '../capture/live-protocol'
import { FrameStore } from './frame-store'
import { prettyJson } from './pretty-json'
import { runDecode, type HeldFrames } from './run-decode'
import { ViewMatcher } from './view-matcher'

/** Where an export goes, decided by the shell (a save dialog in Electron, a download in serve). */
export interface ExportTarget {
  path: string
  fileName: string
  downloadUrl?: string
}

export interface SessionCoreOptions {
  emit(event: InspectorEvent): void
  demoCapturePath(): string
  /** Parent folder of the frame spill files (default: the OS temp folder). */
  tempDir?: string
  /** Shard workers that decode a capture being opened (1, the default: one engine on this thread). */
  jobs?: number
  /** Run the shards on this thread (tests: no built worker script needed). */
  shardsInProcess?: boolean
}

/** What beginLive needs to know about the capture that starts. */
export interface LiveBegin {
  device: string
  linkType: number
  snapLen: number
  /** The ring limit: the most frames and frame bytes the session keeps. */
  ringFrames: number
  ringBytes: number
}

interface LiveState {
  engine: Engine
  /** Captured length of each stored frame (for the byte limit). */
  sizes: number[]
  bytes: number
  maxFrames: number
  maxBytes: number
  /** A filtered view that new messages join as they arrive; upTo is the next row it expects. */
  view: { view: ViewState; matcher: ViewMatcher; upTo: number } | null
  /** The view misses rows that arrived: recompute it. */
  viewStale: boolean
  lastRecompute: number
}

const LIVE_RECOMPUTE_MS = 1000

interface IndexResults {
  frames: number
  warnings: string[]
  linkTypes: string[]
  conversations: ConversationSource
}

/** A conversation list already in memory (a sharded open's), as a ConversationSource. */
function listSource(list: ConversationInfo[]): ConversationSource {
  return {
    conversationCount: list.length,
    *conversations() {
      yield* list
    }
  }
}

/** The index pass over a capture being opened, one engine or shards (SessionCore.indexer). */
interface Indexer {
  frame(f: CaptureFrame): void
  warn(text: string): void
  drain(): Promise<void> | void
  frames(): number
  end(): Promise<IndexResults>
  close(): void
}

export class Cancelled extends Error {
  constructor() {
    super('cancelled')
    this.name = 'Cancelled'
  }
}

class Token {
  cancelled = false
  cancel(): void {
    this.cancelled = true
  }
  check(): void {
    if (this.cancelled) throw new Cancelled()
  }
}

/** Where the session's conversation list comes from: the engine that decoded the capture. */
type ConversationSource = Pick<Engine, 'conversationCount' | 'conversations'>
const NO_CONVERSATIONS: ConversationSource = { conversationCount: 0, conversations: function* () {} }

const tick = (): Promise<void> => new Promise((r) => setImmediate(r))

/** Writes all of `bytes` (writeSync may write less than asked); returns the count. */
function writeAll(fd: number, bytes: Uint8Array): number {
  for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off)
  return bytes.length
}
/** Work between two yields to the event loop, and the interval of progress events. */
const SLICE_MS = 12
const PROGRESS_MS = 100
const DETAIL_CACHE = 32
/** Rebuilt messages a replay cursor keeps (stepping back through a conversation). */
const REPLAY_KEEP = 64
const TIMELINE_BUCKETS = 240

/** The message index plus what the detail replay needs: each message's ordinal in its conversation. */
class RowIndex {
  readonly index = new MessageIndex()
  private ordinals = new Uint32Array(1024)
  private readonly perConversation: number[] = []
  errors = 0
  warned = 0
  firstTime = Infinity

  get count(): number {
    return this.index.count
  }

  add(m: IndexInput, conv?: Conversation, dir?: WireDir): void {
    const row = this.index.add(m, conv, dir)
    if (row >= this.ordinals.length) {
      const bigger = new Uint32Array(this.ordinals.length * 2)
      bigger.set(this.ordinals)
      this.ordinals = bigger
    }
    const c = m.conversation
    this.ordinals[row] = this.perConversation[c] ?? 0
    this.perConversation[c] = (this.perConversation[c] ?? 0) + 1
    if (m.error) this.errors++
    if (m.warnings.length) this.warned++
    if (m.time < this.firstTime) this.firstTime = m.time
  }

  ordinal(row: number): number {
    return this.ordinals[row]
  }

  messagesIn(conversation: number): number {
    return this.perConversation[conversation] ?? 0
  }
}

interface ViewState {
  id: number
  spec: ViewSpec
  generation: number
  /** Row numbers in view order; null means every row in capture order. */
  order: Uint32Array<ArrayBuffer> | null
  count: number
  /** Extra column values by row number. */
  cells: string[][]
  state: ViewInfo['state']
  progress: number
  error: string | null
}

interface ReplayCursor {
  generation: number
  conversation: number
  frames: Uint32Array
  /** Index into frames of the next frame to feed. */
  next: number
  /** Messages the replay has produced so far. */
  emitted: number
  finished: boolean
  /** Messages with their trees, by ordinal: only those whose first frame came after trees were turned on. */
  recent: Map<number, DecodedMessage>
  engine: Engine
  /** The frame from which the replay builds trees (earlier messages are decoded without, which is faster). */
  treesFrom: number
}

interface Job {
  info: JobInfo
  token: Token
}

function growU32(a: Uint32Array<ArrayBuffer>, need: number): Uint32Array<ArrayBuffer> {
  if (need <= a.length) return a
  const b = new Uint32Array(Math.max(need, a.length * 2))
  b.set(a)
  return b
}

export class SessionCore {
  private store: FrameStore | null = null
  private rows = new RowIndex()
  private source: SourceInfo | null = null
  private phase: SessionStatus['phase'] = 'empty'
  private progress: SessionStatus['progress'] = null
  private error: string | null = null
  private generation = 0
  private frames = 0
  private warnings: string[] = []
  private readerWarnings: string[] = []
  private linkTypes: string[] = []
  /** The engine that decoded the open capture, for its conversations (kept there compactly, not copied). */
  private conversations: ConversationSource = NO_CONVERSATIONS
  private captureState: CaptureStatus = { state: 'off' }
  private readonly keys = new KeyStore()
  private decodeAs: DecodeAsRule[] = []

  private spec: ViewSpec = { filter: '', sort: null, columns: [] }
  private view: ViewState = this.emptyView(0)
  private viewSeq = 0
  private viewToken = new Token()
  private viewRun: { spec: ViewSpec; generation: number; token: Token; promise: Promise<ViewInfo> } | null = null

  private openToken = new Token()
  /** Settles when the current open (or re-decode) has built the index. */
  private indexing: Promise<void> = Promise.resolve()
  private reindexToken = new Token()

  private jobs = new Map<number, Job>()
  private jobSeq = 0
  private detailCache = new Map<string, MessageDetail>()
  private cursor: ReplayCursor | null = null
  private lastProgressEvent = 0
  /** The live capture feeding this session, while its frames are the open capture. */
  private live: LiveState | null = null
  /** Frames of the live capture the ring limit removed from the session. */
  private ringDropped = 0

  constructor(private readonly opts: SessionCoreOptions) {}

  // ---- status ----

  status(): SessionStatus {
    return {
      generation: this.generation,
      source: this.source,
      phase: this.phase,
      progress: this.progress,
      frames: this.frames,
      messages: this.rows.count,
      timeOrigin: Number.isFinite(this.rows.firstTime) ? this.rows.firstTime : null,
      errors: this.rows.errors,
      warned: this.rows.warned,
      warnings: this.warnings.slice(0, 200),
      linkTypes: this.linkTypes,
      conversations: this.conversations.conversationCount,
      captureState: this.source?.kind === 'interface' ? { ...this.captureState, ringDropped: this.ringDropped } : this.captureState,
      keys: this.keys.size,
      decodeAs: this.decodeAs,
      error: this.error
    }
  }

  private emitStatus(): void {
    this.opts.emit({ type: 'status', status: this.status() })
  }

  private emitView(): void {
    this.opts.emit({ type: 'view', view: this.viewInfo() })
  }

  /** Progress events at most every PROGRESS_MS, except the final one. */
  private throttled(): boolean {
    const now = performance.now()
    if (now - this.lastProgressEvent < PROGRESS_MS) return false
    this.lastProgressEvent = now
    return true
  }

  // ---- opening ----

  async open(path?: string): Promise<SessionStatus> {
    const target = resolve(path ?? this.opts.demoCapturePath())
    let size: number
    try {
      const st = statSync(target)
      if (st.isDirectory()) throw new Error(`${target} is a directory`)
      size = st.size
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      throw new Error(code === 'ENOENT' ? `no such file: ${target}` : code ? `cannot read ${target} (${code})` : (e as Error).message)
    }
    this.live = null
    const store = this.replaceCapture({ kind: 'file', path: target, file: basename(target), bytes: size })
    const token = (this.openToken = new Token())
    const rows = this.rows
    this.phase = 'opening'
    this.progress = { bytes: 0, total: size }
    // While the file is read the timeline shows every message so far.
    this.view = { ...this.emptyView(++this.viewSeq), order: null, state: 'running' }
    this.emitStatus()
    this.emitView()

    let finished!: () => void
    this.indexing = new Promise<void>((r) => (finished = r))
    const indexer = this.indexer(store, rows)
    const reader = new CaptureReader({
      onInterface: (i) => store.interfaces.push(i),
      onFrame: (f) => {
        store.append(f)
        indexer.frame(f)
      },
      onWarning: (w) => {
        this.readerWarnings.push(w)
        indexer.warn(w)
      }
    })
    let bytes = 0
    let results: IndexResults
    try {
      for await (const chunk of createReadStream(target, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
        token.check()
        reader.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
        await indexer.drain()
        bytes += chunk.length
        this.progress = { bytes, total: size }
        this.frames = indexer.frames()
        if (this.throttled()) {
          this.view.count = rows.count
          this.emitStatus()
          this.emitView()
        }
      }
      token.check()
      if (bytes > 0) reader.end()
      results = await indexer.end()
    } catch (e) {
      indexer.close()
      finished()
      if (e instanceof Cancelled || token.cancelled) return this.status()
      this.phase = 'error'
      this.progress = null
      this.error = (e as Error).message
      this.frames = indexer.frames()
      this.view = { ...this.emptyView(++this.viewSeq), state: 'error', error: this.error }
      this.emitStatus()
      this.emitView()
      throw e
    }
    this.takeResults(results)
    this.phase = 'ready'
    this.progress = null
    finished()
    this.emitStatus()
    // Apply the timeline's filter, sort and columns to the new capture.
    void this.startView()
    return this.status()
  }

  private takeEngineResults(engine: Engine): void {
    this.takeResults({ frames: engine.stats.frames, warnings: engine.stats.warnings, linkTypes: engine.stats.linkTypes, conversations: engine })
  }

  private takeResults(r: IndexResults): void {
    this.frames = r.frames
    this.warnings = r.warnings
    this.linkTypes = r.linkTypes
    this.conversations = r.conversations
  }

  /**
   * The index pass of a capture being opened: one engine on this thread, or shards on worker threads when
   * the session has jobs for them (not with decode-as rules naming conversation ids, which shards cannot
   * know). Both fill the same rows and frame lists.
   */
  private indexer(store: FrameStore, rows: RowIndex): Indexer {
    const jobs = this.opts.jobs ?? 1
    if (jobs > 1 && !this.decodeAs.some((r) => typeof r.match === 'number')) {
      const warnings = new WarningList()
      const pool = new ShardPool(
        jobs,
        { mode: 'index', keys: [...this.keys.list()], decodeAs: this.decodeAs, frameConversations: true },
        {
          conversation: (id, ends) => rows.index.setEnds(id, ends),
          row: (_id, row) => rows.add(row, undefined, row.wireDir),
          frameConversation: (f, c) => store.addToConversation(f, c),
          warning: (w) => warnings.add(w)
        },
        this.opts.shardsInProcess
      )
      return {
        frame: (f) => pool.push(f),
        warn: (w) => pool.warn(w),
        drain: () => pool.drain(),
        frames: () => pool.frames,
        end: async () => {
          const r = await pool.end()
          return { frames: r.frames, warnings: warnings.list, linkTypes: r.linkTypes, conversations: listSource(r.conversations) }
        },
        close: () => pool.close()
      }
    }
    const engine = this.newEngine({
      recording: false,
      onMessage: (m, conv, dir) => rows.add(m, conv, dir),
      onFrameConversation: (f, c) => store.addToConversation(f, c)
    })
    return {
      frame: (f) => engine.addFrame(f),
      warn: (w) => engine.warn(w),
      drain: () => undefined,
      frames: () => engine.stats.frames,
      end: async () => {
        engine.finish()
        return { frames: engine.stats.frames, warnings: engine.stats.warnings, linkTypes: engine.stats.linkTypes, conversations: engine }
      },
      close: () => undefined
    }
  }

  private newEngine(o: {
    recording: boolean
    onMessage(m: DecodedMessage, conv: Conversation, dir: WireDir): void
    onFrameConversation?(frame: number, conv: number): void
    decodeAs?: DecodeAsRule[]
    eviction?: EvictionOptions
    layers?: boolean
  }): Engine {
    return new Engine({
      registry: createDefaultRegistry(),
      keys: this.keys,
      recording: o.recording,
      layers: o.layers,
      interface: (id) => this.store?.interfaces[id],
      decodeAs: o.decodeAs ?? this.decodeAs,
      eviction: o.eviction,
      onMessage: o.onMessage,
      onFrameConversation: o.onFrameConversation
    })
  }

  private requireStore(): FrameStore {
    if (!this.store) throw new Error('no capture is open')
    return this.store
  }

  /**
   * Replays every stored frame through a fresh engine (same keys and decode-as rules), yielding to the
   * event loop between slices. The message ids it produces are the index's row numbers + 1.
   */
  private async replayAll(o: {
    token: Token
    recording: boolean
    layers?: boolean
    onMessage(m: DecodedMessage, conv: Conversation, dir: WireDir): void
    onProgress?(fraction: number): void
  }): Promise<Engine> {
    const store = this.requireStore()
    const engine = this.newEngine(o)
    for (const w of this.readerWarnings) engine.warn(w)
    let sliceStart = performance.now()
    for (const f of store.range()) {
      engine.addFrame(f)
      if ((f.number & 63) === 0 && performance.now() - sliceStart > SLICE_MS) {
        await tick()
        o.token.check()
        sliceStart = performance.now()
        if (o.onProgress && this.throttled()) o.onProgress(f.number / Math.max(1, store.count))
      }
    }
    o.token.check()
    engine.finish()
    return engine
  }

  /** Rebuilds the index after keys or decode-as rules changed, then re-applies the view. */
  private async redecode(): Promise<void> {
    if (this.live) return this.rebuildLive()
    if (!this.store || this.phase === 'empty') return
    await this.indexing
    if (this.phase !== 'ready') return
    this.reindexToken.cancel()
    this.viewToken.cancel()
    const token = (this.reindexToken = new Token())
    let finished!: () => void
    this.indexing = new Promise<void>((r) => (finished = r))
    const fresh = new RowIndex()
    try {
      const engine = await this.replayAll({
        token,
        recording: false,
        onMessage: (m, conv, dir) => fresh.add(m, conv, dir),
        onProgress: (p) => {
          this.progress = { bytes: Math.round(p * 1000), total: 1000 }
          this.emitStatus()
        }
      })
      this.rows = fresh
      this.generation++
      this.detailCache.clear()
      this.takeEngineResults(engine)
    } finally {
      this.progress = null
      finished()
    }
    this.emitStatus()
    await this.startView()
  }

  // ---- the timeline view ----

  private emptyView(id: number): ViewState {
    return { id, spec: this.spec, generation: this.generation, order: new Uint32Array(0), count: 0, cells: [], state: 'done', progress: 1, error: null }
  }

  private viewInfo(v: ViewState = this.view): ViewInfo {
    return {
      id: v.id,
      generation: v.generation,
      filter: v.spec.filter,
      sort: v.spec.sort,
      columns: v.spec.columns,
      count: v.order === null ? this.rows.count : v.count,
      total: this.rows.count,
      state: v.state,
      progress: v.progress,
      error: v.error
    }
  }

  async setView(spec: ViewSpec): Promise<ViewInfo> {
    this.spec = spec
    this.viewToken.cancel()
    await this.indexing
    if (this.spec !== spec) return { ...this.viewInfo(), state: 'superseded' }
    if (this.phase !== 'ready') {
      // Nothing open: the spec applies to the next capture.
      this.view = { ...this.emptyView(++this.viewSeq) }
      this.emitView()
      return this.viewInfo()
    }
    return this.startView()
  }

  /** Computes the view for the current spec, or joins the computation already running for it. */
  private startView(): Promise<ViewInfo> {
    const run = this.viewRun
    if (run && run.spec === this.spec && run.generation === this.generation && !run.token.cancelled) return run.promise
    this.viewToken.cancel()
    const token = (this.viewToken = new Token())
    const promise = this.computeView(token)
    this.viewRun = { spec: this.spec, generation: this.generation, token, promise }
    return promise
  }

  private async computeView(token: Token): Promise<ViewInfo> {
    const spec = this.spec
    const total = this.rows.count
    const view: ViewState = { ...this.emptyView(++this.viewSeq), spec, state: 'running', progress: 0 }
    this.view = view
    let matcher: ViewMatcher
    try {
      matcher = new ViewMatcher(spec.filter, spec.columns)
    } catch (e) {
      view.state = 'error'
      view.error = e instanceof FilterError ? e.message : (e as Error).message
      this.emitView()
      return this.viewInfo(view)
    }
    try {
      if (matcher.trivial) {
        view.order = null
        view.count = total
      } else {
        this.emitView()
        const cells: string[][] = spec.columns.map(() => new Array<string>(total).fill(''))
        view.cells = cells
        const matched = await this.evaluateRows(matcher, total, token, (p) => {
          view.progress = p
          this.emitView()
        }, cells)
        let count = 0
        for (let r = 0; r < total; r++) count += matched[r]
        const order = new Uint32Array(count)
        for (let r = 0, k = 0; r < total; r++) if (matched[r]) order[k++] = r
        view.order = order
        view.count = count
      }
      if (spec.sort) {
        await tick()
        token.check()
        const sorted = this.sortRows(view.order ?? identity(total), spec.sort.column, spec.sort.desc, view)
        view.order = sorted
        view.count = sorted.length
      }
    } catch (e) {
      if (e instanceof Cancelled) return { ...this.viewInfo(view), state: 'superseded' }
      view.state = 'error'
      view.error = (e as Error).message
      this.emitView()
      return this.viewInfo(view)
    }
    view.state = 'done'
    view.progress = 1
    if (this.live) {
      // Later live messages join this view as they arrive when that needs neither trees nor sorting;
      // otherwise the view is recomputed now and then (liveFrames).
      const incremental = !matcher.trivial && !matcher.needsTree && !spec.sort
      this.live.view = incremental ? { view, matcher, upTo: total } : null
      this.live.viewStale = !matcher.trivial && this.rows.count > total
    }
    this.emitView()
    return this.viewInfo(view)
  }

  /**
   * Which of the first `total` rows the matcher's filter matches (1 per matching row), filling `cells`
   * with its columns. Rows are answered from the index where it holds every field the view reads; only
   * the conversations with rows it cannot answer are decoded again, with trees, one conversation at a time
   * (or in one pass over the capture when that is most of it).
   */
  private async evaluateRows(matcher: ViewMatcher, total: number, token: Token, onProgress: (p: number) => void, cells: string[][] = []): Promise<Uint8Array> {
    const index = this.rows.index
    const matched = new Uint8Array(total)
    const target = index.target()
    /** Conversations with a row the index cannot answer. */
    const replay = new Set<number>()
    let sliceStart = performance.now()
    for (let r = 0; r < total; r++) {
      if (!matcher.indexAnswers(index, r)) {
        replay.add(index.conversationAt(r))
        continue
      }
      target.at(r)
      if (cells.length) {
        const values = matcher.cells(target)
        for (let c = 0; c < cells.length; c++) cells[c][r] = values[c]
      }
      if (matcher.matches(target)) matched[r] = 1
      if ((r & 4095) === 0 && performance.now() - sliceStart > SLICE_MS) {
        await tick()
        token.check()
        sliceStart = performance.now()
        if (this.throttled()) onProgress((0.1 * r) / total)
      }
    }
    if (replay.size === 0) return matched
    const fromTree = (row: number, t: FilterTarget) => {
      if (row >= total || !replay.has(index.conversationAt(row))) return
      if (cells.length) {
        const values = matcher.cells(t)
        for (let c = 0; c < cells.length; c++) cells[c][row] = values[c]
      }
      matched[row] = matcher.matches(t) ? 1 : 0
    }
    const recording = matcher.needsTree
    if (replay.size * 2 > this.conversations.conversationCount) {
      await this.replayAll({
        token,
        recording,
        layers: matcher.needsLayers,
        onMessage: (m, conv, dir) => fromTree(m.id - 1, matcher.target(m, conv, dir)),
        onProgress: (p) => onProgress(0.1 + 0.9 * p)
      })
      return matched
    }
    const rowsOf = new Map<number, number[]>()
    for (const c of replay) rowsOf.set(c, [])
    for (let r = 0; r < total; r++) rowsOf.get(index.conversationAt(r))?.push(r)
    let done = 0
    for (const [conversation, rows] of rowsOf) {
      let k = 0
      const engine = this.conversationEngine(conversation, recording, (m, conv, dir) => {
        if (k < rows.length) fromTree(rows[k++], matcher.target(m, conv, dir))
      }, matcher.needsLayers)
      const store = this.requireStore()
      for (const f of store.framesOf(conversation)) engine.addFrame(store.get(f))
      engine.finish()
      done++
      if (performance.now() - sliceStart > SLICE_MS) {
        await tick()
        token.check()
        sliceStart = performance.now()
        if (this.throttled()) onProgress(0.1 + (0.9 * done) / replay.size)
      }
    }
    return matched
  }

  /** An engine that decodes one conversation's frames alone (it numbers that conversation 1), with the session's keys and rules. */
  private conversationEngine(conversation: number, recording: boolean, onMessage: (m: DecodedMessage, conv: Conversation, dir: WireDir) => void, layers = false): Engine {
    const decodeAs = this.decodeAs.flatMap((r) => (typeof r.match === 'string' ? [r] : r.match === conversation ? [{ ...r, match: 1 }] : []))
    return this.newEngine({
      recording,
      layers,
      decodeAs,
      // The conversation was not idle or crowded out while it lasted (else it would be two): only a TCP
      // close may end it early here too, so its messages come out as in the full decode.
      eviction: { maxLive: Infinity, idleSeconds: Infinity },
      onMessage: (m, conv, dir) => onMessage({ ...m, conversation }, conv, dir)
    })
  }

  private sortRows(rows: Uint32Array, column: string, desc: boolean, view: ViewState): Uint32Array<ArrayBuffer> {
    const out = Uint32Array.from(rows)
    const extra = view.spec.columns.indexOf(column)
    const dir = desc ? -1 : 1
    if (extra >= 0) {
      const cells = view.cells[extra] ?? []
      const numeric = (s: string) => (s !== '' && Number.isFinite(Number(s)) ? Number(s) : NaN)
      const keys = Array.from(out, (r) => cells[r] ?? '')
      const nums = keys.map(numeric)
      const allNumeric = nums.every((n, i) => !Number.isNaN(n) || keys[i] === '')
      const pos = new Map<number, number>()
      out.forEach((r, i) => pos.set(r, i))
      return out.sort((a, b) => {
        const i = pos.get(a)!
        const j = pos.get(b)!
        const c = allNumeric ? (nums[i] || 0) - (nums[j] || 0) : keys[i].localeCompare(keys[j])
        return c !== 0 ? c * dir : a - b
      })
    }
    const index = this.rows.index
    let keys: Float64Array | Uint32Array
    if (column === 'id' || column === 'time' || column === 'conversation' || column === 'length') {
      const numeric = new Float64Array(index.count)
      const at = column === 'time' ? (r: number) => index.timeAt(r) : column === 'conversation' ? (r: number) => index.conversationAt(r) : column === 'length' ? (r: number) => index.lengthAt(r) : (r: number) => r
      for (const r of out) numeric[r] = at(r)
      keys = numeric
    } else if (column === 'direction' || column === 'protocol' || column === 'name' || column === 'summary') {
      keys = index.textRanks(column)
    } else {
      return out
    }
    // Ties keep capture order, so the sort is stable whichever way it goes.
    return out.sort((a, b) => {
      const c = keys[a] - keys[b]
      return c !== 0 ? c * dir : a - b
    })
  }

  getRows(viewId: number, start: number, count: number): RowBatch {
    const v = this.view
    if (viewId !== v.id) return { viewId: v.id, start, rows: [] }
    const size = v.order === null ? this.rows.count : v.count
    const end = Math.min(size, start + count)
    const rows: TimelineRow[] = []
    for (let i = start; i < end; i++) {
      const r = v.order === null ? i : v.order[i]
      rows.push({ ...this.rows.index.row(r), cells: v.cells.map((c) => c[r] ?? '') })
    }
    return { viewId: v.id, start, rows }
  }

  findRow(viewId: number, messageId: number): number {
    const v = this.view
    if (viewId !== v.id) return -1
    const row = messageId - 1
    if (v.order === null) return row < this.rows.count ? row : -1
    for (let i = 0; i < v.count; i++) if (v.order[i] === row) return i
    return -1
  }

  // ---- message detail ----

  /**
   * Rebuilds one message with its tree by replaying only its conversation's frames. The replay is kept
   * as a cursor: the next message of the same conversation (arrow keys in the timeline) continues where
   * it stopped instead of starting over, and the last few rebuilt messages are kept for stepping back.
   */
  private rebuild(id: number): DecodedMessage {
    const store = this.requireStore()
    if (!Number.isInteger(id) || id < 1 || id > this.rows.count) throw new RangeError(`no message ${id} (the capture has ${this.rows.count})`)
    const row = this.rows.index.row(id - 1)
    const wanted = this.rows.ordinal(id - 1)
    const found = this.replayTo(store, row.conversation, wanted, row.firstFrame) ?? this.replayTo(store, row.conversation, wanted, 0)
    if (!found) throw new Error(`message ${id} could not be rebuilt from its conversation's frames`)
    return { ...found, id }
  }

  /**
   * The conversation's `wanted`-th message with its tree, from the replay cursor: continued where it stopped,
   * or started again. Frames before `firstFrame` are decoded without trees; null when the message did not come
   * out with a whole tree (it began before the frame where trees were turned on: try again from 0).
   */
  private replayTo(store: FrameStore, conversation: number, wanted: number, firstFrame: number): DecodedMessage | null {
    let c = this.cursor
    if (!c || c.generation !== this.generation || c.conversation !== conversation || (wanted < c.emitted && !c.recent.has(wanted))) {
      const fresh: ReplayCursor = { generation: this.generation, conversation, frames: store.framesOf(conversation), next: 0, emitted: 0, finished: false, recent: new Map(), engine: null!, treesFrom: Infinity }
      fresh.engine = this.conversationEngine(conversation, false, (m) => {
        const k = fresh.emitted++
        if ((m.frames[0] ?? 0) < fresh.treesFrom) return
        fresh.recent.set(k, m)
        if (fresh.recent.size > REPLAY_KEEP) fresh.recent.delete(fresh.recent.keys().next().value!)
      }, true) // the detail shows the frames under the message
      c = this.cursor = fresh
    }
    const treesOn = (from: number) => {
      if (c.engine.recording) return
      c.engine.recording = true
      c.treesFrom = from
    }
    while (!c.recent.has(wanted) && c.next < c.frames.length && c.emitted <= wanted) {
      const f = c.frames[c.next++]
      if (f >= firstFrame) treesOn(f)
      c.engine.addFrame(store.get(f))
    }
    if (!c.recent.has(wanted) && !c.finished && c.emitted <= wanted) {
      treesOn(firstFrame)
      c.finished = true
      c.engine.finish()
    }
    return c.recent.get(wanted) ?? null
  }

  /**
   * The message frame `frame` carries (the lowest id when several): one whose first or last frame it is,
   * else one of the same conversation whose frames span it (a middle segment of a reassembled message, or
   * an ACK between its segments). For summaries that point at a frame.
   */
  findFrame(frame: number): number | null {
    const store = this.store
    if (!store || !Number.isInteger(frame) || frame < 1 || frame > store.count) return null
    const index = this.rows.index
    let spanning: number[] = []
    for (let r = 0; r < this.rows.count; r++) {
      const row = index.row(r)
      if (row.firstFrame === frame || row.lastFrame === frame) return r + 1
      if (row.firstFrame < frame && frame < row.lastFrame) spanning.push(r)
    }
    spanning = spanning.filter((r) => store.framesOf(index.conversationAt(r)).includes(frame))
    return spanning.length ? spanning[0] + 1 : null
  }

  getMessage(id: number): MessageDetail {
    const cacheKey = `${this.generation}:${id}`
    const cached = this.detailCache.get(cacheKey)
    if (cached) return cached
    const m = this.rebuild(id)
    // The export's own form of the message, with the value as indented text and the sources' bytes.
    const detail: MessageDetail = {
      id: m.id,
      conversation: m.conversation,
      direction: m.direction,
      frames: m.frames,
      time: m.time,
      protocol: m.protocol,
      stack: m.stack,
      name: m.name,
      summary: m.summary,
      tree: jsonTree(m.tree),
      sources: m.sources.map((s) => ({ name: s.name, hex: toHex(s.bytes) })),
      valueJson: prettyJson(jsonText(m.value)),
      warnings: m.warnings,
      error: m.error
    }
    if (this.detailCache.size >= DETAIL_CACHE) this.detailCache.delete(this.detailCache.keys().next().value!)
    this.detailCache.set(cacheKey, detail)
    return detail
  }

  // ---- conversations, fields, filters ----

  getConversations(): ConversationInfo[] {
    return [...this.conversations.conversations()]
  }

  getFields(): FieldInfo[] {
    return allFields().map((f) => {
      const out: FieldInfo = { key: f.key, name: f.name, type: f.type }
      if (f.names) out.names = Object.fromEntries(Object.entries(f.names).map(([k, v]) => [k, String(v)]))
      return out
    })
  }

  checkFilter(text: string): FilterCheck {
    if (!text.trim()) return { ok: true, fields: [] }
    try {
      return { ok: true, fields: compileFilter(text).fields }
    } catch (e) {
      if (e instanceof FilterError) return { ok: false, message: e.message, start: e.start, end: e.end }
      return { ok: false, message: (e as Error).message, start: 0, end: text.length }
    }
  }

  async setDecodeAs(rules: DecodeAsRule[]): Promise<SessionStatus> {
    this.decodeAs = rules
    this.emitStatus()
    await this.redecode()
    return this.status()
  }

  // ---- keys ----

  private keyInfo(k: KeyEntry): KeyInfo {
    const conv = k.conversation === '*' ? '*' : `${k.conversation.client}-${k.conversation.server}`
    const info: KeyInfo = { line: formatKeyLine(k), type: k.type, conversation: conv, covers: this.covers(k) }
    if (k.direction) info.direction = k.direction
    return info
  }

  /** Conversations of the open capture a key applies to. */
  private covers(k: KeyEntry): number[] {
    const protocol = k.type.split('_')[0].toLowerCase()
    const kc = k.conversation
    const out: number[] = []
    for (const c of this.conversations.conversations()) {
      const hit = kc === '*' ? c.protocol === protocol : (kc.client === c.client && kc.server === c.server) || (kc.client === c.server && kc.server === c.client)
      if (hit) out.push(c.id)
    }
    return out
  }

  listKeys(): KeyInfo[] {
    return this.keys.list().map((k) => this.keyInfo(k))
  }

  private async keysChanged(entries: KeyEntry[], added: number, removed: number, warnings: string[]): Promise<KeyChange> {
    const covered = [...new Set(entries.flatMap((k) => this.covers(k)))].sort((a, b) => a - b)
    this.emitStatus()
    this.opts.emit({ type: 'keys', keys: this.listKeys() })
    if ((added || removed) && covered.length) await this.redecode()
    // Conversation info (protocol, notes) may have changed: report coverage again.
    const keys = this.listKeys()
    this.opts.emit({ type: 'keys', keys })
    return { added, removed, warnings, redecoded: added || removed ? covered : [], keys }
  }

  /** Adds key-file text. Throws KeyFileError (naming the line) for a malformed line. */
  async addKeys(text: string): Promise<KeyChange> {
    const parsed = parseKeyFile(text)
    const fresh = parsed.keys.filter((k) => this.keys.add({ ...k, line: 0 }))
    return this.keysChanged(fresh, fresh.length, 0, parsed.warnings)
  }

  async removeKey(line: string): Promise<KeyChange> {
    const parsed = parseKeyFile(line)
    const gone = parsed.keys.filter((k) => this.keys.remove(k))
    return this.keysChanged(gone, 0, gone.length, parsed.warnings)
  }

  exportKeys(): string {
    return formatKeyFile(this.keys.list())
  }

  // ---- statistics ----

  getStats(): CaptureStatistics {
    const index = this.rows.index
    const n = index.count
    let first = Infinity
    let last = -Infinity
    const byName = new Map<string, { protocol: string; name: string; count: number }>()
    const byProtocol = new Map<string, number>()
    for (let i = 0; i < n; i++) {
      const time = index.timeAt(i)
      if (time < first) first = time
      if (time > last) last = time
      const protocol = index.protocolAt(i)
      const name = index.nameAt(i)
      const k = `${protocol}\u0000${name}`
      const e = byName.get(k)
      if (e) e.count++
      else byName.set(k, { protocol, name, count: 1 })
      byProtocol.set(protocol, (byProtocol.get(protocol) ?? 0) + 1)
    }
    let timeline: CaptureStatistics['timeline'] = { start: 0, step: 1, counts: [] }
    if (n > 0) {
      const span = Math.max(last - first, 1e-3)
      const step = niceStep(span / TIMELINE_BUCKETS)
      const start = Math.floor(first / step) * step
      const counts = new Array<number>(Math.floor((last - start) / step) + 1).fill(0)
      for (let i = 0; i < n; i++) counts[Math.min(counts.length - 1, Math.floor((index.timeAt(i) - start) / step))]++
      timeline = { start, step, counts }
    }
    return {
      timeline,
      byName: [...byName.values()].sort((a, b) => b.count - a.count || a.name.localeCompare(b.name)).slice(0, 100),
      byProtocol: [...byProtocol].map(([protocol, count]) => ({ protocol, count })).sort((a, b) => b.count - a.count),
      byConversation: Array.from(this.conversations.conversations(), (c) => ({
        id: c.id,
        client: c.client,
        server: c.server,
        protocol: c.protocol,
        frames: c.frames,
        bytes: c.bytes,
        messages: this.rows.messagesIn(c.id)
      }))
    }
  }

  // ---- exports ----

  startExport(req: ExportRequest, target: ExportTarget): JobInfo {
    const source = this.source
    if (!source || this.phase !== 'ready') throw new Error('no capture is open')
    if (req.scope === 'filtered' && this.view.error) throw new Error(`the filter has an error: ${this.view.error}`)
    const token = new Token()
    const what = req.scope === 'all' ? 'all messages' : req.scope === 'filtered' ? 'filtered messages' : `${req.ids?.length ?? 0} selected messages`
    const info: JobInfo = {
      id: ++this.jobSeq,
      kind: 'export',
      state: 'running',
      progress: 0,
      description: `Exporting ${what} as ${req.format === 'pcapng' ? 'pcapng' : req.format === 'ndjson' ? 'NDJSON' : 'JSON'} to ${target.fileName}`
    }
    const job: Job = { info, token }
    this.jobs.set(info.id, job)
    const progress = (p: number) => {
      info.progress = Math.min(1, Math.max(0, p))
      if (this.throttled()) this.opts.emit({ type: 'job', job: { ...info } })
    }
    const run = req.format === 'pcapng' ? this.exportPcapng(req, target, token, progress) : this.exportJson(req, target, token, progress)
    run.then(
      (r) => {
        info.state = 'done'
        info.progress = 1
        info.result = { fileName: target.fileName, ...r }
        if (target.downloadUrl) info.result.downloadUrl = target.downloadUrl
        else info.result.file = target.path
      },
      (e) => {
        rmSync(target.path, { force: true })
        if (e instanceof Cancelled) info.state = 'cancelled'
        else {
          info.state = 'failed'
          info.error = (e as Error).message
        }
      }
    ).finally(() => {
      this.jobs.delete(info.id)
      this.opts.emit({ type: 'job', job: { ...info } })
    })
    this.opts.emit({ type: 'job', job: { ...info } })
    return { ...info }
  }

  cancelJob(id: number): void {
    this.jobs.get(id)?.token.cancel()
  }

  /**
   * Decoded JSON through the same code path as `gamewire decode`, with the session's keys and rules, over
   * the frames the session holds: a file's, or a live capture's so far.
   */
  private async exportJson(req: ExportRequest, target: ExportTarget, token: Token, progress: (p: number) => void) {
    const source = this.source
    const store = this.requireStore()
    if (!source) throw new Error('no capture is open')
    const held: HeldFrames = {
      name: source.kind === 'file' ? source.file : source.name,
      count: store.count,
      frames: () => store.range(1, store.count),
      warnings: this.readerWarnings
    }
    const fd = openSync(target.path, 'w')
    let bytes = 0
    try {
      const result = await runDecode(
        {
          file: source.kind === 'file' ? source.path : source.name,
          format: req.format === 'ndjson' ? 'ndjson' : 'json',
          keylog: this.keys.size ? formatKeyFile(this.keys.list()) : undefined,
          filter: req.scope === 'filtered' && this.view.spec.filter.trim() ? this.view.spec.filter : undefined,
          decodeAs: this.decodeAs.length ? this.decodeAs : undefined,
          includeKeys: req.includeKeys,
          tree: req.tree,
          ids: req.scope === 'selected' ? req.ids : undefined
        },
        {
          write: (chunk) => {
            bytes += writeAll(fd, chunk)
          },
          reuse: true,
          flush: async () => {
            await tick()
            token.check()
          },
          progress: (p) => progress(p.total ? p.bytes / p.total : 0)
        },
        held
      )
      return { bytes, messages: result.matched, frames: result.frames }
    } catch (e) {
      // A live capture's ring limit replaced the frames being exported.
      if (this.store !== store && !(e instanceof Cancelled)) throw new Error('the capture dropped its oldest frames (ring limit) during the export: export again')
      throw e
    } finally {
      closeSync(fd)
    }
  }

  /** The frames that carried the exported messages (every frame for 'all'), as pcapng. */
  private async exportPcapng(req: ExportRequest, target: ExportTarget, token: Token, progress: (p: number) => void) {
    const store = this.requireStore()
    let keep: Uint8Array | null = null
    let messages = this.rows.count
    if (req.scope !== 'all') {
      const wanted = new Uint8Array(store.count + 1)
      keep = wanted
      messages = 0
      const index = this.rows.index
      let rows: number[]
      if (req.scope === 'selected') rows = (req.ids ?? []).filter((id) => Number.isInteger(id) && id >= 1 && id <= index.count).map((id) => id - 1)
      else {
        const matched = await this.evaluateRows(new ViewMatcher(this.view.spec.filter, []), index.count, token, (p) => progress(p / 2))
        rows = []
        for (let r = 0; r < matched.length; r++) if (matched[r]) rows.push(r)
      }
      for (const r of new Set(rows)) {
        messages++
        for (const f of index.framesAt(r)) if (f <= store.count) wanted[f] = 1
      }
    }
    const writer = new PcapngWriter()
    const fd = openSync(target.path, 'w')
    let bytes = 0
    let frames = 0
    try {
      bytes += writeSync(
        fd,
        writer.header(
          store.interfaces.map((i) => ({ linkType: i.linkType, snapLen: i.snapLen, name: i.name, tsUnitsPerSecond: 1e9 as const })),
          { application: 'gamewire', comment: `${req.scope} messages exported by gamewire` }
        )
      )
      let sliceStart = performance.now()
      for (const f of store.range(1, store.count, keep ? (n) => keep![n] === 1 : undefined)) {
        bytes += writeSync(fd, writer.frame(writableFrame(f)))
        frames++
        if (performance.now() - sliceStart > SLICE_MS) {
          await tick()
          token.check()
          sliceStart = performance.now()
          progress(0.5 + (0.5 * f.number) / Math.max(1, store.count))
        }
      }
    } finally {
      closeSync(fd)
    }
    return { bytes, messages, frames }
  }

  // ---- live capture (frames from src-main/capture/ via InspectorSession) ----

  setCaptureState(state: CaptureStatus): void {
    this.captureState = state
    this.emitStatus()
  }

  /** Stops all work on the open capture and starts an empty one from `source` (a file or an interface). */
  private replaceCapture(source: SourceInfo): FrameStore {
    this.openToken.cancel()
    this.reindexToken.cancel()
    this.viewToken.cancel()
    for (const job of this.jobs.values()) job.token.cancel()
    this.store?.close()
    const store = (this.store = new FrameStore(this.opts.tempDir))
    this.rows = new RowIndex()
    this.source = source
    this.error = null
    this.frames = 0
    this.warnings = []
    this.readerWarnings = []
    this.linkTypes = []
    this.conversations = NO_CONVERSATIONS
    this.generation++
    this.detailCache.clear()
    this.cursor = null
    return store
  }

  /** Makes an empty live capture the open capture; frames then arrive through liveFrames(). */
  beginLive(o: LiveBegin): SessionStatus {
    const store = this.replaceCapture({ kind: 'interface', name: o.device })
    store.interfaces.push({ id: 0, section: 0, linkType: o.linkType, snapLen: o.snapLen, name: o.device, tsUnitsPerSecond: 1e9, tsOffset: 0 })
    this.phase = 'ready'
    this.progress = null
    this.ringDropped = 0
    this.live = {
      engine: null!,
      sizes: [],
      bytes: 0,
      maxFrames: Math.max(2, o.ringFrames),
      maxBytes: Math.max(2, o.ringBytes),
      view: null,
      viewStale: false,
      lastRecompute: 0
    }
    this.live.engine = this.liveEngine()
    this.emitStatus()
    void this.startView()
    return this.status()
  }

  /** A live engine over the session's rows: new messages become rows and join an incremental view. */
  private liveEngine(): Engine {
    const rows = this.rows
    const store = this.store!
    return this.newEngine({
      recording: false,
      onMessage: (m, conv, dir) => {
        const row = rows.count
        rows.add(m, conv, dir)
        const lv = this.live?.view
        if (!lv || lv.view !== this.view || this.rows !== rows) return
        if (lv.upTo !== row) {
          this.live!.viewStale = true
          return
        }
        lv.upTo++
        const t = lv.matcher.target(m, conv, dir)
        if (!lv.matcher.matches(t)) return
        const v = lv.view
        v.order = growU32((v.order as Uint32Array<ArrayBuffer>) ?? new Uint32Array(0), v.count + 1)
        v.order[v.count++] = row
      },
      onFrameConversation: (f, c) => store.addToConversation(f, c)
    })
  }

  /** One batch of live frames (packed as the capture process sends them): stored, decoded, shown. */
  liveFrames(packed: PackedFrames): SessionStatus {
    const live = this.live
    const store = this.store
    if (!live || !store) return this.status()
    let off = 0
    for (let i = 0; i + FRAME_META_FIELDS <= packed.meta.length; i += FRAME_META_FIELDS) {
      const len = packed.meta[i + 4]
      if (off + len > packed.data.length) break
      // Frames the capture could not hand over are missing: the store numbers what it has, 1, 2, 3...
      const frame: CaptureFrame = {
        number: store.count + 1,
        interfaceId: 0,
        linkType: packed.linkType,
        tsSec: packed.meta[i + 1],
        tsNsec: packed.meta[i + 2],
        originalLength: packed.meta[i + 3],
        data: packed.data.subarray(off, off + len)
      }
      off += len
      store.append(frame)
      live.sizes.push(len)
      live.bytes += len
      live.engine.addFrame(frame)
    }
    this.takeEngineResults(live.engine)
    if (store.count > live.maxFrames || live.bytes > live.maxBytes) this.trimLive()
    else this.liveViewUpdate()
    this.emitStatus()
    return this.status()
  }

  /** Shows the rows that arrived: a growing view, or a recomputed one (at most once a second). */
  private liveViewUpdate(): void {
    const live = this.live!
    if (this.view.order === null) {
      this.view.count = this.rows.count
      this.emitView()
      return
    }
    if (live.view && live.view.view === this.view && !live.viewStale) {
      this.emitView()
      return
    }
    const running = this.viewRun && !this.viewRun.token.cancelled && this.view.state === 'running'
    const now = performance.now()
    if (running || now - live.lastRecompute < LIVE_RECOMPUTE_MS) {
      live.viewStale = true
      return
    }
    live.lastRecompute = now
    live.viewStale = false
    this.viewRun = null
    void this.startView()
  }

  /**
   * The ring limit: past it the oldest frames go, down to half the limit, so trimming happens rarely.
   * The kept frames are renumbered and decoded again (message ids change; the generation says so).
   */
  private trimLive(): void {
    const live = this.live!
    const old = this.store!
    let keepFrom = Math.max(1, old.count - Math.floor(live.maxFrames / 2) + 1)
    let bytes = 0
    for (let n = old.count; n >= keepFrom; n--) {
      bytes += live.sizes[n - 1]
      if (bytes > live.maxBytes / 2) {
        keepFrom = n + 1
        break
      }
    }
    keepFrom = Math.min(keepFrom, old.count)
    const fresh = new FrameStore(this.opts.tempDir)
    fresh.interfaces.push(...old.interfaces)
    for (const f of old.range(keepFrom)) fresh.append({ ...f, number: f.number - keepFrom + 1 })
    old.close()
    this.store = fresh
    this.ringDropped += keepFrom - 1
    live.sizes = live.sizes.slice(keepFrom - 1)
    live.bytes = live.sizes.reduce((a, b) => a + b, 0)
    this.rebuildLive()
  }

  /** Decodes the stored live frames again (keys, decode-as, trimming) into a new live engine, without finishing it. */
  private rebuildLive(): void {
    const live = this.live!
    this.viewToken.cancel()
    this.rows = new RowIndex()
    this.store!.clearConversations()
    live.view = null
    live.viewStale = false
    live.engine = this.liveEngine()
    for (const w of this.readerWarnings) live.engine.warn(w)
    for (const f of this.store!.range()) live.engine.addFrame(f)
    this.takeEngineResults(live.engine)
    this.generation++
    this.detailCache.clear()
    this.cursor = null
    live.lastRecompute = performance.now()
    this.emitStatus()
    void this.startView()
  }

  /** The live capture ended: its frames stay open like a file's. */
  endLive(): SessionStatus {
    if (this.live) {
      this.takeEngineResults(this.live.engine)
      this.live = null
      // A recomputed view includes the messages the end of the capture completes.
      this.viewRun = null
      void this.startView()
    }
    this.emitStatus()
    return this.status()
  }

  /** Frames the session holds, written as pcapng (a live capture after it stopped). */
  async saveFrames(target: ExportTarget): Promise<{ frames: number; bytes: number }> {
    const r = await this.exportPcapng({ format: 'pcapng', scope: 'all' }, target, new Token(), () => undefined)
    return { frames: r.frames, bytes: r.bytes }
  }

  close(): void {
    this.openToken.cancel()
    this.reindexToken.cancel()
    this.viewToken.cancel()
    for (const job of this.jobs.values()) job.token.cancel()
    this.store?.close()
    this.store = null
    this.cursor = null
    this.live = null
  }
}

function identity(n: number): Uint32Array {
  const a = new Uint32Array(n)
  for (let i = 0; i < n; i++) a[i] = i
  return a
}

/** 1, 2 or 5 times a power of ten, at least `x`. */
export function niceStep(x: number): number {
  const p = Math.pow(10, Math.floor(Math.log10(x)))
  for (const m of [1, 2, 5, 10]) if (m * p >= x) return m * p
  return 10 * p
}

function writableFrame(f: CaptureFrame) {
  return { interfaceId: f.interfaceId, tsSec: Math.max(0, Math.floor(f.tsSec)), tsNsec: f.tsNsec, data: f.data, originalLength: Math.max(f.originalLength, f.data.length) }
}
