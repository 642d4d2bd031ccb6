// Runs a sharded decode (src-shared/engine/shard.ts): this thread reads and routes frames, N shard workers
// decode their conversations, the merge puts everything back in one engine's order. Frames travel to the
// workers in batches with their buffers transferred; at most WINDOW batches per worker are in flight, so
// reading slows down to the decoders' pace instead of filling memory.

import { SHARD_WORKER_LIMITS } from './worker-limits'
import { Worker } from 'node:worker_threads'
import type { CaptureFrame, CaptureInterface } from '../../src-shared/capture/types'
import type { DecodeAsRule } from '../../src-shared/engine/engine'
import { FrameBatcher, ShardDecoder, ShardMerger, ShardRouter, type FrameBatch, type MergeSink, type ShardReport } from '../../src-shared/engine/shard'
import { compileFilter } from '../../src-shared/filter'
import { writeMessageBody, type TreeMode } from '../../src-shared/export/json'
import { decodeDepth } from './view-matcher'
import type { KeyEntry } from '../../src-shared/keys/keyfile'
import { KeyStore } from '../../src-shared/keys/store'
import { registerSchemaFields, SchemaSet } from '../../src-shared/schema/set'
import type { SchemaPack } from '../../src-shared/schema/types'
import type { ConversationList } from '../../src-shared/engine/conversation-table'
import { createDefaultRegistry } from '../../src-shared/protocols'
import { workerScriptPath } from './worker-host'
import { availableParallelism } from 'node:os'

/** How a shard is set up: sent to each worker as its workerData. */
export interface ShardSetup {
  mode: 'index' | 'export'
  keys: readonly KeyEntry[]
  /** Validated schema packs: plain data, so they reach the workers as keys do. */
  schemas?: SchemaPack[]
  decodeAs?: DecodeAsRule[]
  filter?: string
  includeSourceBytes?: boolean
  tree?: TreeMode
  /** Export mode: the frames' layers in the messages (DecodeJob.layers). */
  layers?: boolean
  frameConversations?: boolean
}

export type ShardRequest = ({ type: 'frames' } & FrameBatch) | { type: 'end'; lastFrame: number }
export type ShardReply = { type: 'report'; report: ShardReport } | { type: 'fatal'; message: string }

/** The default number of decoding workers: one per core, less the one that reads and merges; at least 1. */
export function defaultJobs(): number {
  return Math.max(1, availableParallelism() - 1)
}

/** A shard as the worker entry and the in-process pool build it. */
export function createShard(setup: ShardSetup): ShardDecoder {
  const keys = new KeyStore()
  keys.addAll(setup.keys)
  if (setup.schemas?.length) registerSchemaFields(setup.schemas)
  const filter = setup.filter?.trim() ? compileFilter(setup.filter) : undefined
  const message = { includeSourceBytes: setup.includeSourceBytes, tree: setup.tree }
  return new ShardDecoder({
    registry: createDefaultRegistry(),
    keys,
    schemas: setup.schemas?.length ? new SchemaSet(setup.schemas) : undefined,
    decodeAs: setup.decodeAs,
    mode: setup.mode,
    filter,
    writeBody: (w, m) => writeMessageBody(w, m, message),
    ...decodeDepth(setup.tree !== 'none', filter),
    layers: setup.layers,
    frameConversations: setup.frameConversations
  })
}

/**
 * Per batch: at most this many of the capture's frames (the worker's own and the others' it only hears the
 * time of), or BATCH_BYTES of frame data, whichever fills first. Smaller batches keep the workers' memory
 * down, even where reports are small: in a filtered export whose reports were a few KB, a worker's heap
 * reached 190 MB with 2,048-frame batches and 115 MB with 256, for about 70 MB of live data either way
 * (garbage piles up while one long batch runs). On the bench's game capture with two workers, 512-frame
 * batches peaked at 266-277 MiB (`stats`) and 392-431 MiB (`decode --tree none`), 2,048-frame ones at
 * 330-362 and 467-518 MiB, in the same time; with 256, both took about 4 % longer.
 */
const BATCH_FRAMES = 512
const BATCH_BYTES = 1 << 20
/**
 * Frames per batch of an export with field trees: each batch's report (its messages' JSON, about 13 KB per
 * message) also waits in memory until the merge reaches it, several per worker (those in flight, and those
 * of a worker ahead of a slower one). With 2,048-frame batches, two workers peaked at about 1 GB on the
 * bench's game capture; 605-669 MiB with 256.
 */
const TREE_EXPORT_BATCH_FRAMES = 256
const WINDOW = 4

interface ShardSlot {
  send(r: ShardRequest): void
  batcher: FrameBatcher
  inFlight: number
  /** The highest frame the shard has reported done. */
  done: number
  /** How many of the capture's interfaces it has been sent. */
  interfacesSent: number
  stop(): void
}

export interface ShardPoolResult {
  conversations: ConversationList
  frames: number
  messages: number
  errors: number
  linkTypes: string[]
}

export class ShardPool {
  private readonly slots: ShardSlot[]
  private readonly router: ShardRouter
  private readonly merger: ShardMerger
  private readonly batchFrames: number
  private lastFrame = 0
  private failure: Error | null = null
  private wake: (() => void) | null = null
  private ended = 0
  private closed = false

  /** `jobs` shard workers; `inProcess` runs the shards on this thread (tests, and where workers cannot start). */
  constructor(jobs: number, setup: ShardSetup, sink: MergeSink, inProcess = false) {
    const n = Math.max(1, Math.floor(jobs))
    this.batchFrames = setup.mode === 'export' && setup.tree !== 'none' ? TREE_EXPORT_BATCH_FRAMES : BATCH_FRAMES
    this.merger = new ShardMerger(n, sink)
    this.router = new ShardRouter(createDefaultRegistry(), n, (text, frame) => this.merger.ownWarning(text, frame))
    this.slots = Array.from({ length: n }, (_, i) => (inProcess ? this.localSlot(i, setup) : this.workerSlot(i, setup)))
  }

  private readonly interfaces: CaptureInterface[] = []

  private slot(send: (r: ShardRequest) => void, stop: () => void): ShardSlot {
    return { send, stop, batcher: new FrameBatcher(), inFlight: 0, done: 0, interfacesSent: 0 }
  }

  private workerSlot(i: number, setup: ShardSetup): ShardSlot {
    const w = new Worker(workerScriptPath('shard-worker.js'), { workerData: setup, resourceLimits: SHARD_WORKER_LIMITS })
    w.on('message', (r: ShardReply) => (r.type === 'report' ? this.reported(i, r.report) : this.fail(new Error(r.message))))
    w.on('error', (e) => this.fail(new Error(`internal error in a decode worker: ${e.message}`)))
    // A worker stops only when closed: before its last report, an exit is a failure.
    w.on('exit', (code) => {
      if (!this.closed) this.fail(new Error(`a decode worker exited with code ${code}`))
    })
    return this.slot(
      (r) => (r.type === 'frames' ? w.postMessage(r, [r.meta.buffer as ArrayBuffer, r.data.buffer as ArrayBuffer]) : w.postMessage(r)),
      () => void w.terminate()
    )
  }

  private localSlot(i: number, setup: ShardSetup): ShardSlot {
    const shard = createShard(setup)
    // Replies go through a microtask, as a worker's would arrive later.
    return this.slot(
      (r) => {
        const report = r.type === 'frames' ? shard.frames(r) : shard.end(r.lastFrame)
        queueMicrotask(() => this.reported(i, report))
      },
      () => undefined
    )
  }

  private fail(e: Error): void {
    if (this.failure || this.closed) return
    this.failure = e
    this.wake?.()
  }

  private reported(i: number, report: ShardReport): void {
    const s = this.slots[i]
    s.inFlight--
    s.done = Math.max(s.done, report.watermark)
    if (report.end) this.ended++
    this.merger.add(i, report)
    this.merger.drain(this.safe())
    this.wake?.()
  }

  /** The highest frame whose events are all in: every shard with frames still to decode has reached it. */
  private safe(): number {
    let safe = this.lastFrame
    for (const s of this.slots) if ((s.inFlight > 0 || s.batcher.count > 0) && s.done < safe) safe = s.done
    return safe
  }

  private flushSlot(s: ShardSlot): void {
    if (s.batcher.count === 0) return
    const b = s.batcher.take()
    if (s.interfacesSent < this.interfaces.length) {
      b.interfaces = [...this.interfaces]
      s.interfacesSent = this.interfaces.length
    }
    s.inFlight++
    s.send({ type: 'frames', ...b })
  }

  /** Frames read so far, and messages merged so far (progress). */
  get frames(): number {
    return this.router.network.stats.frames
  }
  get messages(): number {
    return this.merger.messages
  }

  /** A warning about the input itself (the capture reader's), in order with the frames read so far. */
  warn(text: string): void {
    this.merger.ownWarning(text, Math.max(1, this.lastFrame))
  }

  /** An interface of the capture (pcapng IDB): the shards name it in the frame nodes of trees with layers. */
  addInterface(i: CaptureInterface): void {
    this.interfaces.push(i)
  }

  push(f: CaptureFrame): void {
    if (this.failure) throw this.failure
    if (f.number > this.lastFrame) this.lastFrame = f.number
    const r = this.router.route(f)
    // Every other shard hears of the frame's time: its conversations end when idle as in one engine.
    for (let i = 0; i < this.slots.length; i++) {
      const s = this.slots[i]
      if (r && i === r.shard) for (const x of r.frames) s.batcher.add(x)
      else s.batcher.tick(f)
      if (s.batcher.count >= this.batchFrames || s.batcher.size >= BATCH_BYTES) this.flushSlot(s)
    }
  }

  /** Waits until no worker has more than WINDOW batches to decode (call between input chunks). */
  async drain(): Promise<void> {
    // Partial batches go too: the merge waits for every shard's frames, so none may sit in a batcher for long.
    for (const s of this.slots) this.flushSlot(s)
    while (!this.failure && this.slots.some((s) => s.inFlight > WINDOW)) await new Promise<void>((r) => (this.wake = r))
    if (this.failure) throw this.failure
  }

  /** End of input: decodes what is left, flushes every conversation and returns the capture's totals. */
  async end(): Promise<ShardPoolResult> {
    for (const s of this.slots) this.flushSlot(s)
    this.router.network.finish()
    for (const s of this.slots) {
      s.inFlight++
      s.send({ type: 'end', lastFrame: this.lastFrame })
    }
    while (!this.failure && this.ended < this.slots.length) await new Promise<void>((r) => (this.wake = r))
    if (this.failure) {
      this.close()
      throw this.failure
    }
    const conversations = this.merger.finish()
    this.close()
    const st = this.router.network.stats
    return { conversations, frames: st.frames, messages: this.merger.messages, errors: this.merger.errors, linkTypes: st.linkTypes }
  }

  close(): void {
    this.closed = true
    for (const s of this.slots) s.stop()
  }
}
