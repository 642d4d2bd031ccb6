// A decode session: capture bytes in (pushed in chunks), filtered decoded messages out. The CLI worker,
// `serve` and the desktop app all drive the engine through this one piece.

import { CaptureReader } from '../capture/reader'
import type { CaptureFrame, CaptureInterface } from '../capture/types'
import { compileFilter, type CompiledFilter } from '../filter'
import type { KeyStore } from '../keys/store'
import { registerSchemaFields, SchemaSet } from '../schema/set'
import type { SchemaPack } from '../schema/types'
import type { DecodedMessage } from '../model/types'
import { createDefaultRegistry } from '../protocols'
import type { ProtocolRegistry, WireDir } from '../protocols/registry'
import type { Conversation } from './conversation'
import { Engine, type DecodeAsRule, type EvictionOptions } from './engine'
import { streamingTargets, type RecentFrames } from './meta-fields'

export interface SessionOptions {
  keys?: KeyStore
  /** Validated schema packs (src-shared/schema); their fields are made known before the filter compiles. */
  schemas?: readonly SchemaPack[]
  /** Display filter; messages that do not match are not passed on. */
  filter?: string | CompiledFilter
  recording?: boolean
  /** With trees: whether they get labels (EngineOptions.labels; default true). */
  labels?: boolean
  /** With trees: the only keys they keep (EngineOptions.interest). */
  interest?: readonly string[]
  /** With trees: the frames' layers first in each message (EngineOptions.layers). A filter reads them without. */
  layers?: boolean
  decodeAs?: DecodeAsRule[]
  /** Ending conversations early to bound memory (Engine's default when not given). */
  eviction?: EvictionOptions | false
  registry?: ProtocolRegistry
  onMessage(m: DecodedMessage, conv?: Conversation, dir?: WireDir): void
  onFrame?(f: CaptureFrame): void
}

export class DecodeSession {
  readonly engine: Engine
  readonly reader: CaptureReader
  private readonly filter: CompiledFilter | undefined
  readonly interfaces: CaptureInterface[] = []
  matched = 0
  private fileBytes = 0
  /** The recent frames, as the filter needs them (their lengths, their layers). */
  private readonly recent: RecentFrames | null

  constructor(private readonly opts: SessionOptions) {
    if (opts.schemas?.length) registerSchemaFields(opts.schemas)
    this.filter = typeof opts.filter === 'string' ? (opts.filter.trim() ? compileFilter(opts.filter) : undefined) : opts.filter
    // Frame lengths and header fields (ip.ttl) come from the recent frames, unless from trees with layers.
    const { recent, targets } = streamingTargets(this.filter?.fields ?? [], (id) => this.interfaces[id], opts)
    this.recent = recent
    this.engine = new Engine({
      registry: opts.registry ?? createDefaultRegistry(),
      keys: opts.keys,
      schemas: opts.schemas?.length ? new SchemaSet(opts.schemas) : undefined,
      recording: opts.recording ?? true,
      labels: opts.labels,
      interest: opts.interest,
      layers: opts.layers,
      interface: (id) => this.interfaces[id],
      decodeAs: opts.decodeAs,
      eviction: opts.eviction,
      onMessage: (m, conv, dir) => {
        if (this.filter && !this.filter.matches(targets.of(m, conv, dir))) return
        this.matched++
        opts.onMessage(m, conv, dir)
      }
    })
    this.reader = new CaptureReader({
      onInterface: (i) => this.interfaces.push(i),
      onFrame: (f) => this.addFrame(f),
      onWarning: (w) => this.engine.warn(w)
    })
  }

  /** Pushes capture-file bytes; throws CaptureFormatError when the input is not a capture file. */
  push(chunk: Uint8Array): void {
    this.fileBytes += chunk.length
    this.reader.push(chunk)
  }

  /** Feeds a frame that did not come from a file (live capture). */
  addFrame(f: CaptureFrame): void {
    this.opts.onFrame?.(f)
    this.recent?.put(f)
    this.engine.addFrame(f)
  }

  /** End of input. For a file, throws CaptureFormatError when it held no capture at all. */
  end(): void {
    if (this.fileBytes > 0) this.reader.end()
    this.engine.finish()
  }
}
