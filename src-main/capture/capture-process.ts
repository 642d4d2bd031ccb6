// The capture process: libpcap (through cap) on this process's main thread, the decode engine in a
// worker thread of it (live-decoder.ts), both away from any UI thread. cap cannot run in a worker thread
// itself (it polls on the process's default libuv loop; the first packet in a worker aborts the process),
// hence a process. Started by LiveCaptureHost (live-host.ts) with child_process.fork, or by Electron's
// utilityProcess; the first message is `start`, then frames stream through the same DecodeSession as
// files and the host receives batches a few times a second. A `forwardOnly` capture (the app's: its
// SessionCore decodes the frames) starts no decoder: it reads libpcap and forwards frames and counters.
//
// The main thread does as little as possible per frame (copy, -w file, ring, queue for the decoder) so
// libpcap's buffer is drained promptly. Everything that can pile up is bounded and counted:
// - frames waiting for the decoder (MAX_DECODE_BACKLOG bytes): past it frames are not decoded
//   (`decodeDropped`), though still written with -w and kept in the ring;
// - output waiting for a host that is behind (at most WINDOW unacknowledged batches, then MAX_PENDING_*):
//   past it messages are not sent (`outputDropped`).

import { DECODE_WORKER_LIMITS } from '../host/worker-limits'
import { isMainThread, Worker } from 'node:worker_threads'
import { fileURLToPath } from 'node:url'
import { summaryLineHead, summaryLineTail } from '../../src-shared/export/json'
import { utf8 } from '../../src-shared/export/json-bytes'
import { LinkTypeName, type CaptureFrame } from '../../src-shared/capture/types'
import { concatBytes } from '../../src-shared/bytes/concat'
import type { IndexRow } from '../../src-shared/engine/message-index'
import { CaptureUnavailable } from './devices'
import { CaptureError, LiveCapture, MAX_SNAPLEN, DEFAULT_BUFFER_BYTES, type LiveFrame } from './live'
import { FrameRing } from '../../src-shared/net/frame-ring'
import { PcapngFile } from './pcapng-file'
import { runLiveDecoder, type DecoderCommand, type DecoderProgress, type DecoderReport, type DecoderSetup } from './live-decoder'
import {
  checkStartOptions,
  type CaptureCommand,
  type CaptureReport,
  type LiveFailureKind,
  type LiveStartOptions,
  type LiveStats,
  type LiveStopped,
  type PackedFrames,
  type StopReason
} from './live-protocol'

const WINDOW = 4
const DEFAULT_BATCH_MS = 200
const DECODER_BATCH_MS = 20
const DECODER_BATCH_FRAMES = 1024
const MAX_DECODE_BACKLOG = 128 << 20
const MAX_PENDING_TEXT = 64 << 20
const MAX_PENDING_ROWS = 500_000
const MAX_PENDING_FRAME_BYTES = 64 << 20
const END_TIMEOUT_MS = 20_000

// ---- the channel to the host: child_process IPC, or Electron's utilityProcess parentPort ----

interface ParentPort {
  postMessage(m: unknown): void
  on(event: 'message', cb: (e: { data: unknown }) => void): void
}

const parentPort = (process as unknown as { parentPort?: ParentPort }).parentPort

function send(r: CaptureReport, then?: () => void): void {
  if (parentPort) {
    parentPort.postMessage(r)
    if (then) setImmediate(then)
  } else if (process.send && process.connected) {
    process.send(r, undefined, {}, () => then?.())
  } else {
    then?.()
  }
}

function exitAfter(r: CaptureReport, code: number): void {
  send(r, () => process.exit(code))
  // If the host is gone the callback may never come.
  setTimeout(() => process.exit(code), 2000).unref()
}

function fatal(kind: LiveFailureKind, message: string): void {
  exitAfter({ type: 'fatal', kind, message }, 3)
}

/** NDJSON lines in a batch: JSON text has no raw newline but the one ending each line. */
function countLines(ndjson: Uint8Array): number {
  let n = 0
  for (let i = ndjson.indexOf(0x0a); i >= 0; i = ndjson.indexOf(0x0a, i + 1)) n++
  return n
}

/** Frames collected for one hand-over, packed as PackedFrames. */
class FramePacker {
  meta: number[] = []
  parts: Uint8Array[] = []
  bytes = 0

  add(f: CaptureFrame): void {
    this.meta.push(f.number, f.tsSec, f.tsNsec, f.originalLength, f.data.length)
    this.parts.push(f.data)
    this.bytes += f.data.length
  }

  get count(): number {
    return this.parts.length
  }

  take(linkType: number): PackedFrames {
    const data = new Uint8Array(this.bytes)
    let off = 0
    for (const d of this.parts) {
      data.set(d, off)
      off += d.length
    }
    const packed = { linkType, meta: Float64Array.from(this.meta), data }
    this.meta = []
    this.parts = []
    this.bytes = 0
    return packed
  }
}

class CaptureRun {
  private readonly ring: FrameRing | null
  private readonly started = performance.now()
  private readonly batchMs: number
  /** null for a forwardOnly capture: its host decodes the frames. */
  private readonly decoder: Worker | null
  private live: LiveCapture | undefined
  private file: PcapngFile | undefined
  private linkType = 0
  private frameNumber = 0
  private stopping = false
  private readonly warnings: string[] = []
  // frames on their way to the decoder
  private readonly toDecoder = new FramePacker()
  private lastHandOver = 0
  private backlogBytes = 0
  private readonly inFlight: number[] = [] // bytes of each batch the decoder has not finished
  private decodeDropped = 0
  private decoded: DecoderProgress = { frames: 0, messages: 0, matched: 0, errors: 0, conversations: 0 }
  private decoderTimer: NodeJS.Timeout | undefined
  // output waiting for the host
  private seq = 0
  private acked = 0
  private lastFlush = 0
  private batchTimer: NodeJS.Timeout | undefined
  private text: Uint8Array[] = []
  private textBytes = 0
  private rows: IndexRow[] = []
  private readonly toHost = new FramePacker()
  private outputDropped = 0
  private framesNotSent = 0
  private keyRequests = new Map<number, number>() // decoder request id -> host request id
  private nextKeyRequest = 1
  private onEnded: ((r: Extract<DecoderReport, { type: 'ended' }>) => void) | undefined
  private onConversations: ((r: Extract<DecoderReport, { type: 'conversations' }> | undefined) => void) | undefined
  private decoderExited = false
  /** Called when the host acknowledges a batch (the summary's pieces wait for the window). */
  private onAck: (() => void) | undefined

  constructor(private readonly opts: LiveStartOptions) {
    checkStartOptions(opts)
    this.batchMs = Math.max(20, Math.min(5000, opts.batchMs ?? DEFAULT_BATCH_MS))
    this.ring = opts.ring === null ? null : new FrameRing(opts.ring ?? {})
    const setup: DecoderSetup = {
      displayFilter: opts.displayFilter,
      keylog: opts.keylog,
      schemas: opts.schemas,
      decodeAs: opts.decodeAs,
      output: opts.output ?? { ndjson: true }
    }
    this.decoder = opts.forwardOnly ? null : new Worker(fileURLToPath(import.meta.url), { workerData: setup, resourceLimits: DECODE_WORKER_LIMITS })
  }

  /** Waits for the decoder if there is one (a bad display filter or key file fails here), then opens the device. */
  async start(): Promise<void> {
    const decoder = this.decoder
    if (decoder) {
      const ready = await new Promise<DecoderReport>((resolve, reject) => {
        decoder.once('message', resolve)
        decoder.once('error', reject)
      })
      if (ready.type === 'setup-failed') throw Object.assign(new Error(ready.message), { name: ready.name })
      if (ready.type === 'ready') this.warnings.push(...ready.warnings)
      decoder.on('message', (r: DecoderReport) => this.fromDecoder(r))
      decoder.on('exit', () => {
        this.decoderExited = true
        this.onConversations?.(undefined)
      })
      decoder.on('error', (e) => {
        this.warnings.push(`the decoder failed: ${e.message}`)
        this.stop('requested')
      })
    }
    const o = this.opts
    // Open the output first so a file we cannot write fails before any capturing.
    if (o.writeFile) {
      try {
        this.file = new PcapngFile(o.writeFile)
      } catch (e) {
        throw new CaptureError('options', `cannot write ${o.writeFile} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`)
      }
    }
    this.live = LiveCapture.open({ device: o.device, filter: o.filter, snapLen: o.snapLen, promiscuous: o.promiscuous, bufferSize: o.bufferSize }, (f) =>
      this.frame(f)
    )
    this.linkType = this.live.linkType
    this.warnings.push(...this.live.warnings)
    this.file?.header(
      { linkType: this.linkType, snapLen: o.snapLen ?? MAX_SNAPLEN, name: o.device },
      { application: 'gamewire', comment: o.filter ? `capture filter: ${o.filter}` : undefined }
    )
    this.file?.flush()
    this.batchTimer = setInterval(() => this.flush(false), this.batchMs)
    if (decoder) this.decoderTimer = setInterval(() => this.handOver(), DECODER_BATCH_MS)
    if (o.durationMs !== undefined) setTimeout(() => this.stop('duration'), o.durationMs).unref()
    send({
      type: 'started',
      device: o.device,
      linkType: this.linkType,
      linkTypeName: LinkTypeName[this.linkType] ?? `LINKTYPE_${this.linkType}`,
      filter: o.filter ?? '',
      warnings: this.warnings
    })
  }

  private frame(f: LiveFrame): void {
    if (this.stopping) return
    const frame: CaptureFrame = {
      number: ++this.frameNumber,
      interfaceId: 0,
      linkType: f.linkType,
      tsSec: f.tsSec,
      tsNsec: f.tsNsec,
      originalLength: f.originalLength,
      data: f.data
    }
    this.file?.frame(frame)
    this.ring?.push(frame)
    if (this.opts.output?.frames) {
      if (this.toHost.bytes + frame.data.length > MAX_PENDING_FRAME_BYTES) this.framesNotSent++
      else this.toHost.add(frame)
    }
    const now = performance.now()
    if (this.decoder) {
      if (this.backlogBytes + this.toDecoder.bytes + frame.data.length > MAX_DECODE_BACKLOG) this.decodeDropped++
      else this.toDecoder.add(frame)
      // cap drains libpcap's buffer in one loop without yielding to timers: hand over from here too.
      if (this.toDecoder.count >= DECODER_BATCH_FRAMES || now - this.lastHandOver >= DECODER_BATCH_MS) this.handOver()
    }
    if (now - this.lastFlush >= this.batchMs) this.flush(false)
    if (this.opts.maxFrames !== undefined && this.frameNumber >= this.opts.maxFrames) {
      this.live?.close()
      setImmediate(() => this.stop('count'))
    }
  }

  private handOver(): void {
    this.lastHandOver = performance.now()
    if (!this.decoder || !this.toDecoder.count) return
    const bytes = this.toDecoder.bytes
    const frames = this.toDecoder.take(this.linkType)
    this.backlogBytes += bytes
    this.inFlight.push(bytes)
    this.decoder.postMessage({ type: 'frames', frames } satisfies DecoderCommand, [frames.meta.buffer as ArrayBuffer, frames.data.buffer as ArrayBuffer])
  }

  private fromDecoder(r: DecoderReport): void {
    switch (r.type) {
      case 'decoded': {
        this.backlogBytes -= this.inFlight.shift() ?? 0
        const { ndjson, rows, type: _, ...progress } = r
        this.decoded = progress
        if (ndjson) {
          if (this.textBytes + ndjson.length > MAX_PENDING_TEXT) this.outputDropped += countLines(ndjson)
          else {
            this.text.push(ndjson)
            this.textBytes += ndjson.length
          }
        }
        if (rows) {
          const room = MAX_PENDING_ROWS - this.rows.length
          if (rows.length > room) this.outputDropped += rows.length - Math.max(0, room)
          for (let i = 0; i < Math.min(room, rows.length); i++) this.rows.push(rows[i])
        }
        return
      }
      case 'keys':
      case 'keys-failed': {
        const hostId = this.keyRequests.get(r.id)
        if (hostId === undefined) return
        this.keyRequests.delete(r.id)
        if (r.type === 'keys') send({ type: 'keys', id: hostId, added: r.added, total: r.total, warnings: r.warnings })
        else send({ type: 'request-failed', id: hostId, message: r.message })
        return
      }
      case 'ended':
        this.onEnded?.(r)
        return
      case 'conversations':
        this.onConversations?.(r)
        return
    }
  }

  stats(): LiveStats {
    const s = this.live?.stats() ?? { received: 0, truncated: 0, dropped: null, ifDropped: null }
    return {
      device: this.opts.device,
      seconds: (performance.now() - this.started) / 1000,
      received: s.received,
      truncated: s.truncated,
      dropped: s.dropped,
      ifDropped: s.ifDropped,
      messages: this.decoded.messages,
      matched: this.decoded.matched,
      errors: this.decoded.errors,
      conversations: this.decoded.conversations,
      decodeBacklog: this.decoder ? s.received - this.decodeDropped - this.decoded.frames : 0,
      decodeDropped: this.decodeDropped,
      ringFrames: this.ring?.count ?? 0,
      ringBytes: this.ring?.bytes ?? 0,
      ringDropped: this.ring?.dropped ?? 0,
      outputDropped: this.outputDropped,
      framesNotSent: this.framesNotSent,
      written: this.file?.frames ?? 0
    }
  }

  /** Sends what is pending (and the stats) unless the host is WINDOW batches behind; `final` ignores the window. */
  private flush(final: boolean): void {
    this.lastFlush = performance.now()
    if (!final && this.seq - this.acked >= WINDOW) return
    this.file?.flush()
    const batch: CaptureReport = { type: 'batch', seq: ++this.seq, stats: this.stats() }
    if (this.text.length) {
      batch.ndjson = concatBytes(this.text)
      this.text = []
      this.textBytes = 0
    }
    if (this.rows.length) {
      batch.rows = this.rows
      this.rows = []
    }
    if (this.toHost.count) batch.frames = this.toHost.take(this.linkType)
    send(batch)
  }

  ack(seq: number): void {
    this.acked = Math.max(this.acked, Math.min(seq, this.seq))
    const waiting = this.onAck
    this.onAck = undefined
    waiting?.()
  }

  addKeys(hostId: number, text: string): void {
    if (!this.decoder) {
      send({ type: 'request-failed', id: hostId, message: 'this capture does not decode (forwardOnly): its host holds the keys' })
      return
    }
    const id = this.nextKeyRequest++
    this.keyRequests.set(id, hostId)
    this.decoder.postMessage({ type: 'add-keys', id, text } satisfies DecoderCommand)
  }

  save(id: number, path: string): void {
    if (!this.ring) {
      send({ type: 'request-failed', id, message: 'this capture keeps no frames (started without a ring): use -w' })
      return
    }
    let file: PcapngFile | undefined
    try {
      file = new PcapngFile(path)
      const first = this.ring.frames().next().value
      file.header(
        { linkType: this.linkType, snapLen: this.opts.snapLen ?? MAX_SNAPLEN, name: this.opts.device },
        {
          application: 'gamewire',
          comment: `live capture on ${this.opts.device}${first ? `, frames ${first.number}..${this.frameNumber}` : ''}${this.ring.dropped ? ` (${this.ring.dropped} older frames dropped by the ring limit)` : ''}`
        }
      )
      for (const f of this.ring.frames()) file.frame(f)
      const frames = file.frames
      file.close()
      send({ type: 'saved', id, path, frames })
    } catch (e) {
      try {
        file?.close()
      } catch {
        // already failing
      }
      const code = (e as NodeJS.ErrnoException).code
      send({ type: 'request-failed', id, message: `cannot save to ${path} (${code ?? (e as Error).message})` })
    }
  }

  /** Lets the decoder finish what it has, then ends its session (partial reassemblies come out). */
  private async endDecoder(decoder: Worker): Promise<Extract<DecoderReport, { type: 'ended' }> | undefined> {
    this.handOver()
    const ended = await new Promise<Extract<DecoderReport, { type: 'ended' }> | undefined>((resolve) => {
      this.onEnded = resolve
      decoder.once('exit', () => resolve(undefined))
      setTimeout(() => resolve(undefined), END_TIMEOUT_MS).unref()
      decoder.postMessage({ type: 'end' } satisfies DecoderCommand)
    })
    if (!ended) this.warnings.push('the decoder did not finish in time; the last messages may be missing')
    return ended
  }

  async stop(reason: StopReason): Promise<void> {
    if (this.stopping) return
    this.stopping = true
    clearInterval(this.batchTimer)
    clearInterval(this.decoderTimer)
    this.live?.close()
    try {
      this.file?.close()
    } catch (e) {
      this.warnings.push(`writing ${this.opts.writeFile} failed (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`)
    }
    if (reason === 'parent-gone') process.exit(0)
    const ended = this.decoder ? await this.endDecoder(this.decoder) : undefined
    this.flush(true)
    const stats = this.stats()
    const warnings = [...this.warnings, ...(ended?.warnings ?? [])]
    if (stats.dropped === null) warnings.push('libpcap drop counts are not available through the cap binding')
    const source = {
      interface: this.opts.device,
      file: this.opts.writeFile ?? null,
      // Without a decoder the frames are the ones captured (and forwarded).
      frames: this.decoder ? this.decoded.frames : this.frameNumber,
      linkTypes: ended?.linkTypes ?? [],
      warnings
    }
    const capture = {
      filter: this.opts.filter ?? '',
      stoppedBy: reason,
      seconds: Math.round(stats.seconds * 1000) / 1000,
      received: stats.received,
      truncated: stats.truncated,
      dropped: stats.dropped,
      ifDropped: stats.ifDropped,
      decodeDropped: stats.decodeDropped,
      written: stats.written,
      ringDropped: stats.ringDropped,
      outputDropped: stats.outputDropped,
      bufferSize: this.opts.bufferSize ?? DEFAULT_BUFFER_BYTES,
      snapLen: this.opts.snapLen ?? MAX_SNAPLEN
    }
    // The summary line, after the last messages, in pieces: the same bytes as JSON.stringify({ summary })
    // with summary = { format, source, conversations, stats, capture }, its conversation list read from
    // the decoder a piece at a time (a million conversations would not fit in one string).
    await this.sendSummary(utf8(summaryLineHead(source)))
    if (this.decoder && ended) {
      for (;;) {
        const piece = await this.nextConversations(this.decoder)
        if (!piece) {
          process.stderr.write('the decoder stopped while listing the conversations: the summary lists only some\n')
          break
        }
        await this.sendSummary(piece.json)
        if (piece.done) break
      }
    }
    await this.sendSummary(utf8(summaryLineTail({ messages: stats.matched, errors: stats.errors }, { capture })))
    const stopped: LiveStopped = { reason, stats, warnings }
    exitAfter({ type: 'stopped', ...stopped }, 0)
  }

  /** A batch with a piece of the summary line, once the host is less than WINDOW batches behind. */
  private async sendSummary(summary: Uint8Array): Promise<void> {
    while (this.seq - this.acked >= WINDOW) await new Promise<void>((resolve) => (this.onAck = resolve))
    send({ type: 'batch', seq: ++this.seq, stats: this.stats(), summary })
  }

  /** The decoder's next piece of the conversation list; undefined if it is gone. */
  private nextConversations(decoder: Worker): Promise<Extract<DecoderReport, { type: 'conversations' }> | undefined> {
    if (this.decoderExited) return Promise.resolve(undefined)
    return new Promise((resolve) => {
      this.onConversations = resolve
      decoder.postMessage({ type: 'conversations' } satisfies DecoderCommand)
    })
  }
}

function runCaptureProcess(): void {
  let run: CaptureRun | undefined
  const onCommand = (c: CaptureCommand): void => {
    switch (c?.type) {
      case 'start': {
        if (run) return
        const failed = (e: Error): void => {
          if (e instanceof CaptureError) fatal(e.kind, e.message)
          else if (e instanceof CaptureUnavailable) fatal('unavailable', e.message)
          else if (e.name === 'KeyFileError' || e.name === 'FilterError' || e instanceof RangeError) fatal('options', e.message)
          else fatal('internal', `internal error: ${e.message}`)
        }
        try {
          run = new CaptureRun(c.options)
        } catch (e) {
          failed(e as Error)
          return
        }
        run.start().catch(failed)
        return
      }
      case 'ack':
        run?.ack(c.seq)
        return
      case 'add-keys':
        if (run) run.addKeys(c.id, String(c.text))
        else send({ type: 'request-failed', id: c.id, message: 'not capturing' })
        return
      case 'save':
        if (run) run.save(c.id, String(c.path))
        else send({ type: 'request-failed', id: c.id, message: 'not capturing' })
        return
      case 'stop':
        if (run) void run.stop('requested')
        else process.exit(0)
        return
    }
  }
  if (parentPort) parentPort.on('message', (e) => onCommand(e.data as CaptureCommand))
  else process.on('message', (m) => onCommand(m as CaptureCommand))
  // Ctrl-C in a terminal reaches the whole process group: the host decides when to stop.
  process.on('SIGINT', () => {})
  process.on('SIGTERM', () => (run ? void run.stop('requested') : process.exit(0)))
  // The host went away without stopping us: close the capture and the -w file, then go.
  process.on('disconnect', () => (run ? void run.stop('parent-gone') : process.exit(0)))
}

// One script, two roles: the capture process itself, and (as a worker thread of it) the decoder.
if (isMainThread) runCaptureProcess()
else runLiveDecoder()
