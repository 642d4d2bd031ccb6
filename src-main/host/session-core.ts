// The inspector session: one open capture, its compact message index, the timeline view (filter, sort,
// extra columns), message detail on demand, keys, decode-as, statistics and exports. Plain Node with no
// worker specifics: session-worker.ts runs it on a worker thread, the tests run it in-process. Long work
// (opening, re-decoding, filtering, exporting) yields to the event loop regularly so requests such as
// getRows and getMessage are answered while it runs, and each can be cancelled.
//
// This class is the façade: the work is done by the parts in ./session/, which share one SessionContext
// (the open capture's frames and rows, the current view, the live capture):
//   capture.ts  opening a file, re-decoding it, replacing it     view.ts     filter, sort, rows of the view
//   details.ts  one message rebuilt with its tree                exports.ts  export jobs (JSON, pcapng)
//   live.ts     a live capture's frames as the open capture      keys.ts     the key store; stats.ts statistics
//   rooms.ts    Photon rooms (the Rooms panel)                   diff.ts     the open capture against another file
//   schemas.ts  the loaded schema packs                          query.ts    SQL over the open capture (DuckDB)
//   conversation-pages.ts  the conversation list, sorted and filtered, a page at a time

import type {
  CaptureDiff,
  DiffLine,
  DiffPairView,
  ConversationPage,
  ConversationQuery,
  CaptureStatistics,
  CaptureStatus,
  DiffWithOptions,
  RoomsView,
  DecodeAsRule,
  ExportRequest,
  FieldInfo,
  FilterCheck,
  JobInfo,
  KeyChange,
  KeyInfo,
  MessageDetail,
  QueryAnswer,
  QueryTable,
  SchemaChange,
  SchemaInfo,
  SourcePage,
  RowBatch,
  SessionStatus,
  StatsOptions,
  ViewInfo,
  ViewSpec
} from '../../src-shared/api'
import '../../src-shared/engine/meta-fields'
import type { PackedFrames } from '../capture/live-protocol'
import { readFileSync } from 'node:fs'
import { demoKeysPath } from './paths'
import { CapturePart } from './session/capture'
import { SessionContext, type SessionCoreOptions } from './session/context'
import { ConversationPages } from './session/conversation-pages'
import { DetailPart } from './session/details'
import { ExportPart, type ExportTarget } from './session/exports'
import { KeysPart } from './session/keys'
import { LivePart, type LiveBegin } from './session/live'
import { QueryPart, queryTables } from './session/query'
import { SchemasPart } from './session/schemas'
import type { SchemaPack } from '../../src-shared/schema/types'
import { getStats } from './session/stats'
import { getRooms } from './session/rooms'
import { diffLines, diffPairs, diffWith, forgetDiff } from './session/diff'
import { checkFilter, getFields, ViewPart } from './session/view'

export { Cancelled } from './session/cancel'
export { niceStep } from './session/stats'
export type { ExportTarget, LiveBegin, SessionCoreOptions }

export class SessionCore {
  private readonly ctx: SessionContext
  private readonly view: ViewPart
  private readonly details: DetailPart
  private readonly exports: ExportPart
  private readonly capture: CapturePart
  private readonly live: LivePart
  private readonly keys: KeysPart
  private readonly schemas: SchemasPart
  private readonly query: QueryPart
  private readonly conversationPages: ConversationPages

  constructor(opts: SessionCoreOptions) {
    this.ctx = new SessionContext(opts)
    this.view = new ViewPart(this.ctx)
    this.details = new DetailPart(this.ctx)
    this.exports = new ExportPart(this.ctx, this.view, this.details)
    this.capture = new CapturePart(this.ctx, this.view, this.details, this.exports)
    this.live = new LivePart(this.ctx, this.view, this.details, this.capture, this.exports)
    this.keys = new KeysPart(this.ctx, () => this.redecode())
    this.schemas = new SchemasPart(this.ctx, () => this.redecode())
    this.query = new QueryPart(this.ctx)
    this.conversationPages = new ConversationPages(this.ctx)
  }

  /** Decodes the open capture again after keys or decode-as rules changed: a live capture's frames, or a file's. */
  private async redecode(): Promise<void> {
    if (this.ctx.live) return this.live.rebuild()
    return this.capture.redecode()
  }

  status(): SessionStatus {
    return this.ctx.status()
  }

  /** Opens `path`, or the bundled demo with its own key file (resources/demo-keys.txt) when no path is given. */
  async open(path?: string): Promise<SessionStatus> {
    const changed = this.keys.setDemoKeys(path === undefined ? demoKeyText(this.ctx.opts.demoCapturePath()) : '')
    try {
      return await this.capture.open(path)
    } finally {
      if (changed) this.keys.emitKeys()
    }
  }

  // ---- the timeline view ----

  setView(spec: ViewSpec): Promise<ViewInfo> {
    return this.view.setView(spec)
  }
  getRows(viewId: number, start: number, count: number): RowBatch {
    return this.view.getRows(viewId, start, count)
  }
  findRow(viewId: number, messageId: number): number {
    return this.view.findRow(viewId, messageId)
  }
  findFrame(frame: number): number | null {
    return this.details.findFrame(frame)
  }

  getMessage(id: number): MessageDetail {
    return this.details.getMessage(id)
  }

  getSourceBytes(id: number, source: number, offset: number, length: number): SourcePage {
    return this.details.getSourceBytes(id, source, offset, length)
  }

  /**
   * Settles when the background pass that takes detail checkpoints after an open is done (or stopped), with
   * how many checkpoints the session keeps and how many replays started from one. Not part of the app's API:
   * for the bench and the tests.
   */
  async detailCheckpoints(): Promise<{ kept: number; resumed: number }> {
    await this.details.prepared()
    return this.details.checkpointUse
  }

  // ---- conversations, fields, filters, decode-as ----

  getConversationPage(query: ConversationQuery): ConversationPage {
    return this.conversationPages.page(query)
  }
  getFields(): FieldInfo[] {
    return getFields(this.ctx.phase === 'ready' ? this.ctx.rows.index.presentFamilies() : undefined)
  }
  checkFilter(text: string): FilterCheck {
    return checkFilter(text)
  }

  async setDecodeAs(rules: DecodeAsRule[]): Promise<SessionStatus> {
    this.ctx.decodeAs = rules
    this.ctx.emitStatus()
    await this.redecode()
    return this.status()
  }

  // ---- keys and statistics ----

  listKeys(): KeyInfo[] {
    return this.keys.listKeys()
  }
  addKeys(text: string): Promise<KeyChange> {
    return this.keys.addKeys(text)
  }
  removeKey(line: string): Promise<KeyChange> {
    return this.keys.removeKey(line)
  }
  exportKeys(): string {
    return this.keys.exportKeys()
  }
  /** Statistics over the display filter's rows (once its view is computed), or all rows with `all`. */
  async getStats(options: StatsOptions = {}): Promise<CaptureStatistics> {
    if (this.view.computing) await this.view.start()
    return getStats(this.ctx, options)
  }

  // ---- exports ----

  startExport(req: ExportRequest, target: ExportTarget): JobInfo {
    return this.exports.startExport(req, target)
  }
  cancelJob(id: number): void {
    this.exports.cancelJob(id)
  }

  // ---- live capture (frames from src-main/capture/ via InspectorSession) ----

  setCaptureState(state: CaptureStatus): void {
    this.live.setCaptureState(state)
  }
  beginLive(o: LiveBegin): SessionStatus {
    return this.live.beginLive(o)
  }
  liveFrames(packed: PackedFrames): SessionStatus {
    return this.live.liveFrames(packed)
  }
  endLive(): SessionStatus {
    return this.live.endLive()
  }
  saveFrames(target: ExportTarget): Promise<{ frames: number; bytes: number }> {
    return this.live.saveFrames(target)
  }

  // ---- game-level analysis ----

  /** The open capture's Photon rooms (gamewire-rooms/1), from a replay without trees; kept until the rows change. */
  getRooms(): Promise<RoomsView> {
    return getRooms(this.ctx)
  }
  /** The open capture (A) against the capture file `path` (B), with the pairs side by side. */
  diffWith(path: string, options?: DiffWithOptions): Promise<CaptureDiff> {
    return diffWith(this.ctx, path, options)
  }
  getDiffPairs(report: number, start: number, count: number): DiffPairView[] {
    return diffPairs(this.ctx, report, start, count)
  }
  getDiffLines(report: number, pair: number, start: number, count: number): DiffLine[] {
    return diffLines(this.ctx, report, pair, start, count)
  }

  // ---- schema packs ----

  listSchemas(): SchemaInfo[] {
    return this.schemas.listSchemas()
  }
  /** Throws SchemaError (its JSON path and why) for a pack that does not validate. */
  addSchema(text: string): Promise<SchemaChange> {
    return this.schemas.addSchema(text)
  }
  removeSchema(id: string): Promise<SchemaChange> {
    return this.schemas.removeSchema(id)
  }
  /** The loaded packs, for the host to persist. */
  exportSchemas(): SchemaPack[] {
    return this.schemas.exportSchemas()
  }

  // ---- SQL (the Query panel) ----

  queryTables(): QueryTable[] {
    return queryTables()
  }
  runQuery(sql: string): Promise<QueryAnswer> {
    return this.query.runQuery(sql)
  }
  cancelQuery(): void {
    this.query.cancel()
  }

  close(): void {
    this.query.close()
    this.capture.cancel()
    this.ctx.store?.close()
    this.ctx.store = null
    forgetDiff(this.ctx)
    this.details.forget()
    this.ctx.live = null
  }
}

/** The demo capture's key file text, or '' when it has none. */
function demoKeyText(capture: string): string {
  try {
    return readFileSync(demoKeysPath(capture), 'utf8')
  } catch {
    return ''
  }
}
