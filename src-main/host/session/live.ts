// Live intake: a live capture's frames (forwarded by the capture process through InspectorSession) become
// the open capture. Each frame is stored and decoded once, by a live engine over the session's rows; new
// messages join a filtered view as they arrive, and the ring limit trims the oldest frames.

import type { CaptureStatus, SessionStatus } from '../../../src-shared/api'
import type { CaptureFrame } from '../../../src-shared/capture/types'
import type { Engine } from '../../../src-shared/engine/engine'
import { FRAME_META_FIELDS, type PackedFrames } from '../../capture/live-protocol'
import { FrameStore } from '../frame-store'
import { Token } from './cancel'
import type { CapturePart } from './capture'
import type { SessionContext } from './context'
import type { DetailPart } from './details'
import type { ExportPart, ExportTarget } from './exports'
import { RowIndex } from './row-index'
import { amongFrames } from '../reader-warnings'
import type { ViewPart } from './view'

/** What beginLive needs to know about the capture that starts. */
export interface LiveBegin {
  device: string
  linkType: number
  snapLen: number
  /** The ring limit: the most frames and frame bytes the session keeps. */
  ringFrames: number
  ringBytes: number
}

const LIVE_RECOMPUTE_MS = 1000

function growU32(a: Uint32Array<ArrayBuffer>, need: number): Uint32Array<ArrayBuffer> {
  if (need <= a.length) return a
  const b = new Uint32Array(Math.max(need, a.length * 2))
  b.set(a)
  return b
}

export class LivePart {
  constructor(
    private readonly ctx: SessionContext,
    private readonly view: ViewPart,
    private readonly details: DetailPart,
    private readonly capture: CapturePart,
    private readonly exports: ExportPart
  ) {}

  setCaptureState(state: CaptureStatus): void {
    this.ctx.captureState = state
    this.ctx.emitStatus()
  }

  /** Makes an empty live capture the open capture; frames then arrive through liveFrames(). */
  beginLive(o: LiveBegin): SessionStatus {
    const ctx = this.ctx
    const store = this.capture.replaceCapture({ kind: 'interface', name: o.device })
    store.interfaces.push({ id: 0, section: 0, linkType: o.linkType, snapLen: o.snapLen, name: o.device, tsUnitsPerSecond: 1e9, tsOffset: 0 })
    ctx.phase = 'ready'
    ctx.progress = null
    ctx.ringDropped = 0
    ctx.live = {
      engine: null!,
      sizes: [],
      bytes: 0,
      maxFrames: Math.max(2, o.ringFrames),
      maxBytes: Math.max(2, o.ringBytes),
      view: null,
      viewStale: false,
      lastRecompute: 0
    }
    ctx.live.engine = this.liveEngine()
    ctx.emitStatus()
    void this.view.start()
    return ctx.status()
  }

  /** A live engine over the session's rows: new messages become rows and join an incremental view. */
  private liveEngine(): Engine {
    const ctx = this.ctx
    const rows = ctx.rows
    const store = ctx.store!
    return ctx.newEngine({
      recording: false,
      onMessage: (m, conv, dir) => {
        const row = rows.count
        rows.add(m, conv, dir)
        const lv = ctx.live?.view
        if (!lv || lv.view !== ctx.view || ctx.rows !== rows) return
        if (lv.upTo !== row) {
          ctx.live!.viewStale = true
          return
        }
        lv.upTo++
        const t = lv.matcher.target(m, conv, dir)
        if (!lv.matcher.matches(t)) return
        const v = lv.view
        v.order = growU32((v.order as Uint32Array<ArrayBuffer>) ?? new Uint32Array(0), v.count + 1)
        v.order[v.count++] = row
        if (v.cells.length) {
          const values = lv.matcher.cells(t)
          for (let c = 0; c < v.cells.length; c++) v.cells[c][row] = values[c]
        }
      },
      onFrameConversation: (f, c) => store.addToConversation(f, c)
    })
  }

  /** One batch of live frames (packed as the capture process sends them): stored, decoded, shown. */
  liveFrames(packed: PackedFrames): SessionStatus {
    const ctx = this.ctx
    const live = ctx.live
    const store = ctx.store
    if (!live || !store) return ctx.status()
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
    ctx.takeEngineResults(live.engine)
    if (store.count > live.maxFrames || live.bytes > live.maxBytes) this.trimLive()
    else this.liveViewUpdate()
    ctx.emitStatus()
    return ctx.status()
  }

  /** Shows the rows that arrived: a growing view, or a recomputed one (at most once a second). */
  private liveViewUpdate(): void {
    const ctx = this.ctx
    const live = ctx.live!
    if (ctx.view.order === null) {
      ctx.view.count = ctx.rows.count
      this.view.emitView()
      return
    }
    if (live.view && live.view.view === ctx.view && !live.viewStale) {
      this.view.emitView()
      return
    }
    const now = performance.now()
    if (this.view.computing || now - live.lastRecompute < LIVE_RECOMPUTE_MS) {
      live.viewStale = true
      return
    }
    live.lastRecompute = now
    live.viewStale = false
    void this.view.recompute()
  }

  /**
   * The ring limit: past it the oldest frames go, down to half the limit, so trimming happens rarely.
   * The kept frames are renumbered and decoded again (message ids change; the generation says so).
   */
  private trimLive(): void {
    const ctx = this.ctx
    const live = ctx.live!
    const old = ctx.store!
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
    const fresh = new FrameStore(ctx.opts.tempDir)
    fresh.interfaces.push(...old.interfaces)
    for (const f of old.range(keepFrom)) fresh.append({ ...f, number: f.number - keepFrom + 1 })
    old.close()
    ctx.store = fresh
    ctx.ringDropped += keepFrom - 1
    live.sizes = live.sizes.slice(keepFrom - 1)
    live.bytes = live.sizes.reduce((a, b) => a + b, 0)
    this.rebuild()
  }

  /** Decodes the stored live frames again (keys, decode-as, trimming) into a new live engine, without finishing it. */
  rebuild(): void {
    const ctx = this.ctx
    const live = ctx.live!
    this.view.cancel()
    ctx.rows = new RowIndex()
    ctx.store!.clearConversations()
    live.view = null
    live.viewStale = false
    live.engine = this.liveEngine()
    for (const f of amongFrames(ctx.store!.range(), ctx.readerWarnings, (w) => live.engine.warn(w))) live.engine.addFrame(f)
    ctx.takeEngineResults(live.engine)
    ctx.generation++
    this.details.forget()
    live.lastRecompute = performance.now()
    ctx.emitStatus()
    void this.view.start()
  }

  /** The live capture ended: its frames stay open like a file's. */
  endLive(): SessionStatus {
    const ctx = this.ctx
    if (ctx.live) {
      ctx.takeEngineResults(ctx.live.engine)
      ctx.live = null
      // A recomputed view includes the messages the end of the capture completes.
      void this.view.recompute()
    }
    ctx.emitStatus()
    return ctx.status()
  }

  /** Frames the session holds, written as pcapng (a live capture after it stopped). */
  async saveFrames(target: ExportTarget): Promise<{ frames: number; bytes: number }> {
    const r = await this.exports.exportPcapng({ format: 'pcapng', scope: 'all' }, target, new Token(), () => undefined)
    return { frames: r.frames, bytes: r.bytes }
  }
}
