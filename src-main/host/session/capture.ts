// The open capture: opening a file (the index pass, one engine or shards), decoding it again when keys or
// decode-as rules change, and replacing it with an empty one (a new file, or a live capture starting).

import { createReadStream, statSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import type { SessionStatus, SourceInfo } from '../../../src-shared/api'
import { CaptureReader } from '../../../src-shared/capture/reader'
import type { CaptureFrame } from '../../../src-shared/capture/types'
import { WarningList } from '../../../src-shared/engine/engine'
import { FrameStore } from '../frame-store'
import { ShardPool } from '../shard-pool'
import { Cancelled, Token } from './cancel'
import { NO_CONVERSATIONS } from '../../../src-shared/engine/conversation-table'
import type { IndexResults, SessionContext } from './context'
import type { DetailPart } from './details'
import { forgetDiff } from './diff'
import type { ExportPart } from './exports'
import { RowIndex } from './row-index'
import type { ViewPart } from './view'

/** The index pass over a capture being opened, one engine or shards (CapturePart.indexer). */
interface Indexer {
  frame(f: CaptureFrame): void
  warn(text: string): void
  drain(): Promise<void> | void
  frames(): number
  end(): Promise<IndexResults>
  close(): void
}

export class CapturePart {
  private openToken = new Token()
  private reindexToken = new Token()

  constructor(
    private readonly ctx: SessionContext,
    private readonly view: ViewPart,
    private readonly details: DetailPart,
    private readonly exports: ExportPart
  ) {}

  async open(path?: string): Promise<SessionStatus> {
    const ctx = this.ctx
    const target = resolve(path ?? ctx.opts.demoCapturePath())
    let size: number
    try {
      const st = statSync(target)
      if (st.isDirectory()) throw new Error(`${target} is a directory`)
      size = st.size
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      throw new Error(code === 'ENOENT' ? `no such file: ${target}` : code ? `cannot read ${target} (${code})` : (e as Error).message)
    }
    ctx.live = null
    const store = this.replaceCapture({ kind: 'file', path: target, file: basename(target), bytes: size })
    const token = (this.openToken = new Token())
    const rows = ctx.rows
    ctx.phase = 'opening'
    ctx.progress = { bytes: 0, total: size }
    // While the file is read the timeline shows every message so far.
    this.view.replace({ order: null, state: 'running' })
    ctx.emitStatus()
    this.view.emitView()

    let finished!: () => void
    ctx.indexing = new Promise<void>((r) => (finished = r))
    const indexer = this.indexer(store, rows)
    const reader = new CaptureReader({
      onInterface: (i) => store.interfaces.push(i),
      onFrame: (f) => {
        store.append(f)
        indexer.frame(f)
      },
      onWarning: (w) => {
        ctx.readerWarnings.push({ text: w, after: store.count })
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
        ctx.progress = { bytes, total: size }
        ctx.frames = indexer.frames()
        if (ctx.throttled()) {
          ctx.view.count = rows.count
          ctx.emitStatus()
          this.view.emitView()
        }
      }
      token.check()
      if (bytes > 0) reader.end()
      results = await indexer.end()
    } catch (e) {
      indexer.close()
      finished()
      if (e instanceof Cancelled || token.cancelled) return ctx.status()
      ctx.phase = 'error'
      ctx.progress = null
      ctx.error = (e as Error).message
      ctx.frames = indexer.frames()
      this.view.replace({ state: 'error', error: ctx.error })
      ctx.emitStatus()
      this.view.emitView()
      throw e
    }
    ctx.takeResults(results)
    rows.trim()
    ctx.phase = 'ready'
    ctx.progress = null
    finished()
    ctx.emitStatus()
    // Apply the timeline's filter, sort and columns to the new capture; then, while nothing else runs, take
    // the checkpoints that keep a message's detail quick anywhere in a long conversation.
    void this.view.start()
    void this.details.prepare()
    return ctx.status()
  }

  /**
   * The index pass of a capture being opened: one engine on this thread, or shards on worker threads when
   * the session has jobs for them (not with decode-as rules naming conversation ids, which shards cannot
   * know). Both fill the same rows and frame lists.
   */
  private indexer(store: FrameStore, rows: RowIndex): Indexer {
    const ctx = this.ctx
    const jobs = ctx.opts.jobs ?? 1
    if (jobs > 1 && !ctx.decodeAs.some((r) => typeof r.match === 'number')) {
      const warnings = new WarningList()
      const pool = new ShardPool(
        jobs,
        { mode: 'index', keys: [...ctx.keys.list()], decodeAs: ctx.decodeAs, schemas: ctx.schemaPacks, frameConversations: true },
        {
          conversation: (id, ends) => rows.index.setEnds(id, ends),
          row: (_id, row) => rows.add(row, undefined, row.wireDir),
          frameConversation: (f, c) => store.addToConversation(f, c),
          warning: (w) => warnings.add(w)
        },
        ctx.opts.shardsInProcess
      )
      return {
        frame: (f) => pool.push(f),
        warn: (w) => pool.warn(w),
        drain: () => pool.drain(),
        frames: () => pool.frames,
        end: async () => {
          const r = await pool.end()
          return { frames: r.frames, warnings: warnings.list, linkTypes: r.linkTypes, conversations: r.conversations }
        },
        close: () => pool.close()
      }
    }
    const engine = ctx.newEngine({
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

  /** Rebuilds a file's index after keys or decode-as rules changed, then re-applies the view. */
  async redecode(): Promise<void> {
    const ctx = this.ctx
    if (!ctx.store || ctx.phase === 'empty') return
    await ctx.indexing
    if (ctx.phase !== 'ready') return
    this.reindexToken.cancel()
    this.view.cancel()
    const token = (this.reindexToken = new Token())
    let finished!: () => void
    ctx.indexing = new Promise<void>((r) => (finished = r))
    const fresh = new RowIndex()
    try {
      const engine = await ctx.replayAll({
        token,
        recording: false,
        onMessage: (m, conv, dir) => fresh.add(m, conv, dir),
        onProgress: (p) => {
          ctx.progress = { bytes: Math.round(p * 1000), total: 1000 }
          ctx.emitStatus()
        }
      })
      fresh.trim()
      ctx.rows = fresh
      ctx.generation++
      this.details.forget()
      ctx.takeEngineResults(engine)
    } finally {
      ctx.progress = null
      finished()
    }
    ctx.emitStatus()
    void this.details.prepare()
    await this.view.start()
  }

  /** Stops all work on the open capture and starts an empty one from `source` (a file or an interface). */
  replaceCapture(source: SourceInfo): FrameStore {
    const ctx = this.ctx
    this.cancel()
    ctx.store?.close()
    const store = (ctx.store = new FrameStore(ctx.opts.tempDir))
    ctx.rows = new RowIndex()
    ctx.source = source
    ctx.error = null
    ctx.frames = 0
    ctx.warnings = []
    ctx.readerWarnings = []
    ctx.linkTypes = []
    ctx.conversations = NO_CONVERSATIONS
    ctx.generation++
    this.details.forget()
    forgetDiff(ctx) // the last comparison's sides were the old capture's
    return store
  }

  /** Stops opening, re-decoding, computing the view and exporting. */
  cancel(): void {
    this.openToken.cancel()
    this.reindexToken.cancel()
    this.view.cancel()
    this.exports.cancelAll()
  }
}
