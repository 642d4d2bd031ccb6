// Export jobs: decoded JSON/NDJSON through the same code path as `gamewire decode`, or the frames that
// carried the exported messages as pcapng. Each export runs as a cancellable job that reports progress.

import { closeSync, openSync, rmSync, writeSync } from 'node:fs'
import type { ExportRequest, JobInfo } from '../../../src-shared/api'
import { PcapngWriter } from '../../../src-shared/capture/pcapng-writer'
import type { CaptureFrame } from '../../../src-shared/capture/types'
import type { DecodeJob } from '../decode-job'
import { runDecode, type DecodeIo, type HeldFrames } from '../run-decode'
import { ViewMatcher } from '../view-matcher'
import { Cancelled, SLICE_MS, tick, Token } from './cancel'
import type { SessionContext } from './context'
import type { DetailPart } from './details'
import { exportRows } from './export-rows'
import type { ViewPart } from './view'

/** Where an export goes, decided by the shell (a save dialog in Electron, a download in serve). */
export interface ExportTarget {
  path: string
  fileName: string
  downloadUrl?: string
}

interface Job {
  info: JobInfo
  token: Token
}

/** Writes all of `bytes` (writeSync may write less than asked); returns the count. */
function writeAll(fd: number, bytes: Uint8Array): number {
  for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off)
  return bytes.length
}

export class ExportPart {
  private jobs = new Map<number, Job>()
  private jobSeq = 0

  constructor(
    private readonly ctx: SessionContext,
    private readonly view: ViewPart,
    private readonly details: DetailPart
  ) {}

  startExport(req: ExportRequest, target: ExportTarget): JobInfo {
    const ctx = this.ctx
    const source = ctx.source
    if (!source || ctx.phase !== 'ready') throw new Error('no capture is open')
    if (req.scope === 'filtered' && ctx.view.error) throw new Error(`the filter has an error: ${ctx.view.error}`)
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
      if (ctx.throttled()) ctx.opts.emit({ type: 'job', job: { ...info } })
    }
    const run = req.format === 'pcapng' ? this.exportPcapng(req, target, token, progress) : this.exportJson(req, target, token, progress)
    run
      .then(
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
      )
      .finally(() => {
        this.jobs.delete(info.id)
        ctx.opts.emit({ type: 'job', job: { ...info } })
      })
    ctx.opts.emit({ type: 'job', job: { ...info } })
    return { ...info }
  }

  cancelJob(id: number): void {
    this.jobs.get(id)?.token.cancel()
  }

  /** Cancels every running export (the capture they read is going away). */
  cancelAll(): void {
    for (const job of this.jobs.values()) job.token.cancel()
  }

  /**
   * Decoded JSON through the same code path as `gamewire decode`, with the session's keys and rules, over
   * the frames the session holds: a file's, or a live capture's so far. Chosen messages of a file (selected,
   * or the view's filter) are rebuilt from their conversations alone (export-rows.ts), into the same bytes.
   */
  private async exportJson(req: ExportRequest, target: ExportTarget, token: Token, progress: (p: number) => void) {
    const ctx = this.ctx
    const source = ctx.source
    const store = ctx.requireStore()
    if (!source) throw new Error('no capture is open')
    const name = source.kind === 'file' ? source.file : source.name
    const job: DecodeJob = {
      file: source.kind === 'file' ? source.path : source.name,
      format: req.format === 'ndjson' ? 'ndjson' : 'json',
      keys: ctx.keys.size ? ctx.keys.list() : undefined,
      decodeAs: ctx.decodeAs.length ? ctx.decodeAs : undefined,
      schemas: ctx.schemaPacks.length ? ctx.schemaPacks : undefined,
      includeKeys: req.includeKeys,
      tree: req.tree
    }
    let fd = openSync(target.path, 'w')
    let bytes = 0
    const io: DecodeIo = {
      write: (chunk) => {
        bytes += writeAll(fd, chunk)
      },
      reuse: true,
      flush: async () => {
        await tick()
        token.check()
      },
      progress: (p) => progress(p.total ? p.bytes / p.total : 0)
    }
    try {
      const filter = req.scope === 'filtered' ? ctx.view.spec.filter.trim() : ''
      if (source.kind === 'file' && (req.scope === 'selected' || filter)) {
        const rows = await this.chosenRows(req, token, (p) => progress(p / 2))
        const r = await exportRows(ctx, rows, job, name, io, token, (p) => progress(0.5 + p / 2), this.details)
        if (r) return { bytes, messages: r.matched, frames: r.frames }
        // A row did not come back from its replay (not expected: the tests hold the two ways equal): start
        // the file again and decode the whole capture.
        closeSync(fd)
        fd = openSync(target.path, 'w')
        bytes = 0
      }
      const held: HeldFrames = {
        name,
        count: store.count,
        frames: () => store.range(1, store.count),
        warnings: ctx.readerWarnings,
        shardsInProcess: ctx.opts.shardsInProcess
      }
      // In the session's shard workers, as its index pass (the same bytes whatever their number).
      const jobs = ctx.opts.jobs
      const result = await runDecode({ ...job, filter: filter || undefined, ids: req.scope === 'selected' ? req.ids : undefined, jobs }, io, held)
      return { bytes, messages: result.matched, frames: result.frames }
    } catch (e) {
      // A live capture's ring limit replaced the frames being exported.
      if (ctx.store !== store && !(e instanceof Cancelled))
        throw new Error('the capture dropped its oldest frames (ring limit) during the export: export again')
      throw e
    } finally {
      closeSync(fd)
    }
  }

  /**
   * The rows an export of selected or filtered messages covers, in capture order: the selected ids that
   * exist, or the rows the view's filter keeps (the view's own result when it is complete for these rows;
   * a view still being computed for the filter is waited for rather than evaluated a second time beside it).
   */
  private async chosenRows(req: ExportRequest, token: Token, progress: (p: number) => void): Promise<Uint32Array> {
    const ctx = this.ctx
    const total = ctx.rows.count
    if (req.scope === 'selected') {
      const ids = new Set((req.ids ?? []).filter((id) => Number.isInteger(id) && id >= 1 && id <= total))
      return Uint32Array.from(ids, (id) => id - 1).sort()
    }
    const filter = ctx.view.spec.filter
    const generation = ctx.generation
    const computed = () => {
      const view = ctx.view
      const done = view.unsorted
      const ok = view.state === 'done' && view.spec.filter === filter && view.generation === generation && ctx.generation === generation
      return ok && done && done.total === total && !ctx.live ? done : null
    }
    const running = computed() || ctx.live ? null : this.view.running()
    if (running) {
      await running
      token.check()
    }
    const done = computed()
    if (done) return done.order ? done.order.slice(0, done.count) : Uint32Array.from({ length: total }, (_, r) => r)
    const matched = await this.view.evaluateRows(new ViewMatcher(filter, [], ctx.messageFrames()), total, token, progress)
    let count = 0
    for (let r = 0; r < total; r++) count += matched[r]
    const rows = new Uint32Array(count)
    for (let r = 0, k = 0; r < total; r++) if (matched[r]) rows[k++] = r
    return rows
  }

  /** The frames that carried the exported messages (every frame for 'all'), as pcapng. */
  async exportPcapng(req: ExportRequest, target: ExportTarget, token: Token, progress: (p: number) => void) {
    const store = this.ctx.requireStore()
    let keep: Uint8Array | null = null
    let messages = this.ctx.rows.count
    if (req.scope !== 'all') {
      const wanted = new Uint8Array(store.count + 1)
      keep = wanted
      messages = 0
      const index = this.ctx.rows.index
      const rows = await this.chosenRows(req, token, (p) => progress(p / 2))
      for (const r of rows) {
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
}

function writableFrame(f: CaptureFrame) {
  return {
    interfaceId: f.interfaceId,
    tsSec: Math.max(0, Math.floor(f.tsSec)),
    tsNsec: f.tsNsec,
    data: f.data,
    originalLength: Math.max(f.originalLength, f.data.length)
  }
}
