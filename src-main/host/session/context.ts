// The state every part of a session shares (session-core.ts wires the parts): the open capture's frames
// and rows, where they came from, the current view, the live capture feeding it, keys, decode-as rules and
// schema packs.
// One object, passed to each part, so a part that replaces the rows or the store replaces them for all.
// Also the helpers several parts use: status, throttled progress, and engines over the session's frames.

import type { CaptureStatus, DecodeAsRule, InspectorEvent, SessionStatus, SourceInfo, ViewInfo, ViewSpec } from '../../../src-shared/api'
import { Engine, type EvictionOptions } from '../../../src-shared/engine/engine'
import { NO_CONVERSATIONS, type ConversationList } from '../../../src-shared/engine/conversation-table'
import { StateCopyRefused } from '../../../src-shared/engine/state-copy'
import type { Conversation } from '../../../src-shared/engine/conversation'
import { KeyStore } from '../../../src-shared/keys/store'
import type { DecodedMessage } from '../../../src-shared/model/types'
import type { CaptureFrame } from '../../../src-shared/capture/types'
import { createDefaultRegistry } from '../../../src-shared/protocols'
import { registerSchemaFields, SchemaSet } from '../../../src-shared/schema/set'
import type { SchemaPack } from '../../../src-shared/schema/types'
import type { WireDir } from '../../../src-shared/model/types'
import type { FrameStore } from '../frame-store'
import type { MessageFrames } from '../../../src-shared/engine/meta-fields'
import type { ViewMatcher } from '../view-matcher'
import { BACKGROUND_SLICE_MS, idleTick, PROGRESS_MS, SLICE_MS, tick, type Token } from './cancel'
import { RowIndex } from './row-index'
import { amongFrames, type ReaderWarning } from '../reader-warnings'

export interface SessionCoreOptions {
  emit(event: InspectorEvent): void
  demoCapturePath(): string
  /** Parent folder of the frame spill files (default: the OS temp folder). */
  tempDir?: string
  /** Shard workers that decode a capture being opened (1, the default: one engine on this thread). */
  jobs?: number
  /** Run the shards on this thread (tests: no built worker script needed). */
  shardsInProcess?: boolean
  /** Messages between two detail checkpoints of a conversation (session/details.ts; tests make it small). */
  checkpointSpacing?: number
  /** A comparison keeps the values of this many messages that differ, or more, in a file (spilled-values.ts; tests make it small). */
  diffSpillAt?: number
}

export interface ViewState {
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
  /**
   * What the filter and columns gave before sorting, over the first `total` rows: a new sort of the same
   * filter and columns starts from it instead of evaluating the rows again.
   */
  unsorted?: { order: Uint32Array<ArrayBuffer> | null; count: number; total: number }
}

export function emptyView(id: number, spec: ViewSpec, generation: number): ViewState {
  return { id, spec, generation, order: new Uint32Array(0), count: 0, cells: [], state: 'done', progress: 1, error: null }
}

export interface LiveState {
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

export interface IndexResults {
  frames: number
  warnings: string[]
  linkTypes: string[]
  conversations: ConversationList
}

type OnMessage = (m: DecodedMessage, conv: Conversation, dir: WireDir) => void

/**
 * How deep an engine of the session decodes: with field trees or not; with trees, whether their nodes get
 * labels (a filter or a column reads only keys and values; default true) and whether they carry the frames' layers.
 */
export interface EngineDepth {
  recording: boolean
  labels?: boolean
  layers?: boolean
  /** With trees: the only keys they keep (EngineOptions.interest: a view's filter and columns). */
  interest?: readonly string[]
}

/**
 * `onMessage` with each message numbered in `conversation` (a conversation engine numbers its one conversation 1).
 * The engine makes each message object afresh for this callback alone: renumbering it in place spares a copy
 * per message of the replay.
 */
function renumbered(conversation: number, onMessage: OnMessage): OnMessage {
  return (m, conv, dir) => {
    m.conversation = conversation
    onMessage(m, conv, dir)
  }
}

export class SessionContext {
  store: FrameStore | null = null
  rows = new RowIndex()
  source: SourceInfo | null = null
  phase: SessionStatus['phase'] = 'empty'
  progress: SessionStatus['progress'] = null
  error: string | null = null
  /** Bumped whenever message ids may mean other messages (a new capture, a re-decode). */
  generation = 0
  frames = 0
  warnings: string[] = []
  /** The capture reader's warnings, each with the number of frames read before it. */
  readerWarnings: ReaderWarning[] = []
  linkTypes: string[] = []
  /** The open capture's conversations: the engine's that decoded it, or the shards' merged table (both compact). */
  conversations: ConversationList = NO_CONVERSATIONS
  captureState: CaptureStatus = { state: 'off' }
  readonly keys = new KeyStore()
  /** Lines of the keys that came with the demo capture (KeysPart.setDemoKeys), not the user's. */
  readonly demoKeys = new Set<string>()
  decodeAs: DecodeAsRule[] = []
  /** The loaded schema packs (schemas.ts), in load order, and compiled for the engines. */
  schemaPacks: SchemaPack[] = []
  schemas: SchemaSet | undefined = undefined
  /** The timeline's current view (view.ts computes it; live intake grows it). */
  view: ViewState = emptyView(0, { filter: '', sort: null, columns: [] }, 0)
  /** Settles when the current open (or re-decode) has built the index. */
  indexing: Promise<void> = Promise.resolve()
  /** The live capture feeding this session, while its frames are the open capture. */
  live: LiveState | null = null
  /** Frames of the live capture the ring limit removed from the session. */
  ringDropped = 0
  private lastProgressEvent = 0

  constructor(readonly opts: SessionCoreOptions) {}

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

  emitStatus(): void {
    this.opts.emit({ type: 'status', status: this.status() })
  }

  /** Progress events at most every PROGRESS_MS, except the final one. */
  throttled(): boolean {
    const now = performance.now()
    if (now - this.lastProgressEvent < PROGRESS_MS) return false
    this.lastProgressEvent = now
    return true
  }

  takeResults(r: IndexResults): void {
    this.frames = r.frames
    this.warnings = r.warnings
    this.linkTypes = r.linkTypes
    this.conversations = r.conversations
  }

  takeEngineResults(engine: Engine): void {
    this.takeResults({ frames: engine.stats.frames, warnings: engine.stats.warnings, linkTypes: engine.stats.linkTypes, conversations: engine })
  }

  /** Makes `packs` the session's: every engine made from now on uses them, and filters know their fields. */
  setSchemas(packs: SchemaPack[]): void {
    this.schemaPacks = packs
    this.schemas = packs.length ? new SchemaSet(packs) : undefined
    registerSchemaFields(packs)
  }

  requireStore(): FrameStore {
    if (!this.store) throw new Error('no capture is open')
    return this.store
  }

  /** What the stored frames give a filter beyond its messages: their lengths, and the frames for header fields. */
  messageFrames(): MessageFrames | undefined {
    const store = this.store
    if (!store) return undefined
    return { lengths: store, frames: { get: (n) => (n >= 1 && n <= store.count ? store.get(n) : undefined) }, iface: (id) => store.interfaces[id] }
  }

  newEngine(
    o: EngineDepth & {
      /** Other keys than the session's (an export decodes with its job's). */
      keys?: KeyStore
      onMessage: OnMessage
      onFrameConversation?(frame: number, conv: number): void
      decodeAs?: DecodeAsRule[]
      eviction?: EvictionOptions
    }
  ): Engine {
    return new Engine({
      registry: createDefaultRegistry(),
      keys: o.keys ?? this.keys,
      recording: o.recording,
      labels: o.labels,
      layers: o.layers,
      interest: o.interest,
      interface: (id) => this.store?.interfaces[id],
      decodeAs: o.decodeAs ?? this.decodeAs,
      schemas: this.schemas,
      eviction: o.eviction,
      onMessage: o.onMessage,
      onFrameConversation: o.onFrameConversation
    })
  }

  /**
   * An engine that decodes one conversation's frames alone (it numbers that conversation 1), with the
   * session's keys and rules; its messages go to `onMessage` with their conversation's own id.
   */
  conversationEngine(conversation: number, o: EngineDepth & { onMessage: OnMessage; keys?: KeyStore }): Engine {
    const decodeAs = this.decodeAs.flatMap((r) => (typeof r.match === 'string' ? [r] : r.match === conversation ? [{ ...r, match: 1 }] : []))
    return this.newEngine({
      recording: o.recording,
      labels: o.labels,
      layers: o.layers,
      interest: o.interest,
      keys: o.keys,
      decodeAs,
      // The conversation was not idle or crowded out while it lasted (else it would be two): only a TCP
      // close may end it early here too, so its messages come out as in the full decode.
      eviction: { maxLive: Infinity, idleSeconds: Infinity },
      onMessage: renumbered(conversation, o.onMessage)
    })
  }

  /**
   * A conversation engine (conversationEngine) continued from a copy of one kept at a point of its frames (a
   * detail checkpoint): the checkpoint stays as it is. Null when its state cannot be copied (state-copy.ts).
   */
  resumeConversation(checkpoint: Engine, conversation: number, onMessage: OnMessage, changes?: Parameters<Engine['fork']>[1]): Engine | null {
    const engine = checkpoint.fork(renumbered(conversation, onMessage), changes)
    return engine instanceof StateCopyRefused ? null : engine
  }

  /**
   * Decodes the given conversations again, each alone as conversationEngine does, in one pass over the
   * stored frames in order: the other conversations' frames are skipped unread. `onMessage` sees each
   * message with `m.conversation` set to its conversation. Each engine ends at its conversation's last frame.
   * `recordingAt`, when given, decides before each frame whether that conversation's engine builds trees
   * (an export of a few messages builds theirs alone).
   */
  async replayConversations(
    conversations: ReadonlySet<number>,
    o: EngineDepth & {
      token: Token
      keys?: KeyStore
      onMessage: OnMessage
      onProgress?(fraction: number): void
      recordingAt?(conversation: number, frame: number): boolean
      /**
       * After each frame a conversation's engine took (not its last one), with the index into the
       * conversation's frames of the next one it will be fed.
       */
      afterFrame?(conversation: number, engine: Engine, frame: number, next: number): void
      /**
       * Engines already part way through their conversation (resumed from a detail checkpoint, with this
       * replay's onMessage): each is fed its conversation's frames from index `next` on.
       */
      resumed?: ReadonlyMap<number, { engine: Engine; next: number }>
      /** Whether the caller has all it wants from a conversation: its later frames are skipped, unread. */
      done?(conversation: number): boolean
      /** Work in the background: shorter slices, and only while no foreground work runs (cancel.ts). */
      background?: boolean
    }
  ): Promise<void> {
    const store = this.requireStore()
    /** Each frame's conversation when it is one of these, else 0. */
    const owner = new Uint32Array(store.count + 1)
    const lastFrame = new Map<number, number>()
    const engines = new Map<number, Engine>()
    /** Per conversation, the index into its frames of the next one to feed. */
    const next = new Map<number, number>()
    for (const c of conversations) {
      const frames = store.framesOf(c)
      const resumed = o.resumed?.get(c)
      if (resumed) engines.set(c, resumed.engine)
      next.set(c, resumed?.next ?? 0)
      for (let i = resumed?.next ?? 0; i < frames.length; i++) owner[frames[i]] = c
      if (frames.length) lastFrame.set(c, frames[frames.length - 1])
    }
    const dropped = new Set<number>()
    let open = conversations.size
    await this.inSlices(
      store.range(1, store.count, (n) => owner[n] !== 0 && !dropped.has(owner[n])),
      o,
      (f) => {
        const c = owner[f.number]
        let engine = engines.get(c)
        if (!engine) engines.set(c, (engine = this.conversationEngine(c, o)))
        if (o.recordingAt) engine.recording = o.recordingAt(c, f.number)
        engine.addFrame(f)
        const fed = next.get(c)! + 1
        next.set(c, fed)
        if (f.number === lastFrame.get(c)) {
          engine.finish()
          engines.delete(c)
          open--
        } else if (o.done?.(c)) {
          engines.delete(c)
          dropped.add(c)
          open--
        } else o.afterFrame?.(c, engine, f.number, fed)
        return open > 0
      }
    )
    for (const engine of engines.values()) engine.finish()
  }

  /**
   * Replays every stored frame through a fresh engine (same keys and decode-as rules), yielding to the
   * event loop between slices. The message ids it produces are the index's row numbers + 1.
   */
  async replayAll(o: { token: Token; recording: boolean; layers?: boolean; onMessage: OnMessage; onProgress?(fraction: number): void }): Promise<Engine> {
    const store = this.requireStore()
    const engine = this.newEngine(o)
    const frames = amongFrames(store.range(), this.readerWarnings, (w) => engine.warn(w))
    await this.inSlices(frames, o, (f) => {
      engine.addFrame(f)
      return true
    })
    engine.finish()
    return engine
  }

  /**
   * Gives `each` the frames in order (until it returns false), yielding to the event loop between slices of
   * SLICE_MS: the token is checked there (and once at the end), and progress is the share of the store's
   * frames passed.
   */
  private async inSlices(
    frames: Iterable<CaptureFrame>,
    o: { token: Token; onProgress?(fraction: number): void; background?: boolean },
    each: (f: CaptureFrame) => boolean
  ): Promise<void> {
    const total = Math.max(1, this.requireStore().count)
    const sliceMs = o.background ? BACKGROUND_SLICE_MS : SLICE_MS
    let sliceStart = performance.now()
    let n = 0
    for (const f of frames) {
      if (!each(f)) break
      if ((++n & 63) === 0 && performance.now() - sliceStart > sliceMs) {
        await (o.background ? idleTick() : tick())
        o.token.check()
        sliceStart = performance.now()
        if (o.onProgress && this.throttled()) o.onProgress(f.number / total)
      }
    }
    o.token.check()
  }
}
