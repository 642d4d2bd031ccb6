// The typed API the renderer talks to. Two transports implement it: the Electron preload over IPC and a
// WebSocket client for `gamewire serve`; both end in the same host-side session (src-main/host/).
// Everything that crosses it is plain JSON (no bigint, no Uint8Array, no Map), so both transports carry it
// unchanged. Arguments are checked on the host side by src-shared/api-validate.ts.

import type { ConversationInfo, DecodedMessage } from './model/types'
import type { IndexRow } from './engine/message-index'
import type { FieldType } from './bytes/fields'
import type { TreeMode } from './export/json'

// ---- session ----

export type SourceInfo =
  | { kind: 'file' /** Absolute path on the host. */; path: string /** Base name for display. */; file: string; bytes: number }
  | { kind: 'interface'; name: string }

/** Live-capture state shown in the status bar. */
export interface CaptureStatus {
  state: 'off' | 'starting' | 'capturing' | 'stopping' | 'error'
  interface?: string
  filter?: string
  /** Frames libpcap delivered. */
  frames?: number
  /** Packets dropped by the kernel / libpcap buffer; null when libpcap cannot say. */
  dropped?: number | null
  /** Packets dropped by the interface; null when libpcap cannot say. */
  ifDropped?: number | null
  /** Frames the ring limit pushed out of the session (no longer shown or saved). */
  ringDropped?: number
  /** Frames the capture could not hand over in time (the host fell behind). */
  notDelivered?: number
  error?: string
  /** What went wrong: 'filter' (libpcap's message in error), 'permission', 'no-device', 'unavailable', ... */
  errorKind?: string
}

export interface CaptureOptions {
  interface: string
  /** libpcap (BPF) capture filter; combined with the presets (presets are alternatives, this narrows them). */
  filter?: string
  /** Capture-filter presets (`photon`, `sfs2x-ws`, `enet:7777`). */
  presets?: string[]
  promiscuous?: boolean
  snapLen?: number
  /** libpcap buffer in bytes. */
  bufferSize?: number
  /** Ring limit: the most frames / bytes the session keeps (older frames go first). */
  ringFrames?: number
  ringBytes?: number
}

export interface CaptureDeviceInfo {
  name: string
  friendlyName: string
  description?: string
  addresses: string[]
  loopback: boolean
  up?: boolean
  running?: boolean
  flags: string[]
  /** Packets moved through it in the last moment (null where the system does not say). */
  traffic: boolean | null
}

export interface CapturePresetInfo {
  id: string
  label: string
  description: string
  /** The preset takes ports (`id:PORT`). */
  userPorts: boolean
}

export interface CaptureDeviceList {
  /** null when live capture works here; else why not (the `cap` binding did not load). */
  unavailable: string | null
  devices: CaptureDeviceInfo[]
  presets: CapturePresetInfo[]
}

export interface CaptureSaved {
  fileName: string
  frames: number
  /** Where the host wrote the file (Electron). */
  file?: string
  /** Where the browser can fetch it (serve). */
  downloadUrl?: string
  /** The save dialog was cancelled. */
  cancelled?: boolean
}

export interface SessionStatus {
  /** Increments every time the message index is rebuilt (open, keys, decode-as): cached rows are stale. */
  generation: number
  source: SourceInfo | null
  phase: 'empty' | 'opening' | 'ready' | 'error'
  /** Read progress while opening, in bytes. */
  progress: { bytes: number; total: number } | null
  frames: number
  messages: number
  /** Epoch seconds of the earliest message (the origin of relative times), null before the first. */
  timeOrigin: number | null
  /** Messages with a decode error. */
  errors: number
  /** Messages with warnings. */
  warned: number
  warnings: string[]
  linkTypes: string[]
  conversations: number
  captureState: CaptureStatus
  keys: number
  decodeAs: DecodeAsRule[]
  error: string | null
}

export interface DecodeAsRule {
  /** Conversation id, or an endpoint `ip:port` that either side of the conversation has. */
  match: number | string
  /** Protocol id (`photon`, `sfs2x`, `fignet`) or `unknown` to switch detection off. */
  protocol: string
}

// ---- fields and filters ----

export interface FieldInfo {
  key: string
  name: string
  type: FieldType
  /** Named values of integer fields, for autocomplete (`RaiseEvent` -> 253). */
  names?: Record<string, string>
  /** The field's protocol or layer occurs in the open capture (the column picker lists these first). */
  present?: boolean
}

export type FilterCheck = { ok: true; fields: string[] } | { ok: false; message: string; start: number; end: number }

// ---- timeline ----

/** Columns every row has; any field key may be added as an extra column. */
export const BUILTIN_COLUMNS = ['id', 'time', 'conversation', 'direction', 'protocol', 'name', 'length', 'summary'] as const
export type BuiltinColumn = (typeof BUILTIN_COLUMNS)[number]

export interface SortSpec {
  /** A builtin column or an extra column's field key. */
  column: string
  desc: boolean
}

export interface ViewSpec {
  /** Display filter; empty shows every message. */
  filter: string
  sort: SortSpec | null
  /** Extra columns: field keys whose values are shown per row. */
  columns: string[]
}

export interface ViewInfo {
  id: number
  generation: number
  filter: string
  sort: SortSpec | null
  columns: string[]
  /** Rows in the view so far. */
  count: number
  /** Messages in the capture. */
  total: number
  state: 'running' | 'done' | 'superseded' | 'error'
  /** 0..1 while running. */
  progress: number
  error: string | null
}

/** A timeline row: the engine's compact index row plus the view's extra columns. */
export interface TimelineRow extends IndexRow {
  /** Values of the view's extra columns, in order ('' when the field does not occur). */
  cells: string[]
}

export interface RowBatch {
  viewId: number
  start: number
  rows: TimelineRow[]
}

// ---- conversations ----

/** What the conversation list can be sorted by; ties keep id order. */
export type ConversationSort = 'id' | 'protocol' | 'frames' | 'bytes' | 'duration'
export const CONVERSATION_SORTS: readonly ConversationSort[] = ['id', 'protocol', 'frames', 'bytes', 'duration']

/** One page of the conversation list, sorted and filtered on the host (a million conversations are never sent whole). */
export interface ConversationQuery {
  /** Default `id`. */
  sort?: ConversationSort
  desc?: boolean
  /** Position of the first conversation wanted in the sorted list. */
  start: number
  /** At most MAX_CONVERSATIONS_PER_REQUEST. */
  count: number
  /** Only conversations whose protocol is one of these (all when absent). */
  protocols?: string[]
  /** This conversation comes first in the list (when it is in it), the rest in sort order after it. */
  first?: number
}

export interface ConversationPage {
  /** Conversations in the whole list the query describes. */
  total: number
  start: number
  conversations: ConversationInfo[]
}

// ---- message detail ----

export interface TreeNode {
  key: string
  label: string
  type: string
  /** JSON-safe value: 64-bit integers as decimal strings, bytes as lowercase hex. */
  value?: string | number | boolean | null
  source?: number
  start?: number
  length?: number
  children: TreeNode[]
}

/** Bytes of a data source inline in a MessageDetail; the hex view asks for the rest. */
export const DETAIL_INLINE_BYTES = 64 << 10
/** Most bytes one getSourceBytes answer carries. */
export const MAX_SOURCE_PAGE = 256 << 10
/** Tree nodes a MessageDetail carries at most; a note node says how many more the export has. */
export const DETAIL_MAX_NODES = 20_000
/** Characters of valueJson a MessageDetail carries at most. */
export const DETAIL_MAX_VALUE_CHARS = 2 << 20

export interface SourcePage {
  offset: number
  hex: string
}

export interface MessageDetail
  extends Pick<DecodedMessage, 'id' | 'conversation' | 'direction' | 'frames' | 'time' | 'protocol' | 'stack' | 'name' | 'summary'> {
  tree: TreeNode[]
  /**
   * The data sources: each with its whole length and the hex of its first bytes (at most
   * DETAIL_INLINE_BYTES); the rest is fetched a page at a time with getSourceBytes, so a decompressed
   * body of many MiB never travels whole.
   */
  sources: { name: string; length: number; hex: string }[]
  /** The typed value as indented JSON text (object keys in wire order). */
  valueJson: string
  warnings: string[]
  error: string | null
}

// ---- keys ----

export interface KeyInfo {
  /** The key-file line (also what removeKey takes). */
  line: string
  type: string
  conversation: string
  direction?: string
  /** Conversations of the open capture this key applies to. */
  covers: number[]
  /** Came with the bundled demo capture: never saved with the user's keys, dropped when another capture opens. */
  demo?: true
}

export interface KeyChange {
  added: number
  removed: number
  warnings: string[]
  /** Conversations re-decoded because of the change. */
  redecoded: number[]
  keys: KeyInfo[]
}

// ---- statistics ----

/** Which messages getStats counts. */
export interface StatsOptions {
  /** Every message of the capture, not only the ones the timeline's display filter keeps. */
  all?: boolean
}

/** A conversation in the statistics: the messages in scope and their payload bytes. */
export interface ConversationStat {
  id: number
  client: string
  server: string
  protocol: string
  messages: number
  /** Payload bytes of those messages (what the timeline's Length column shows, summed). */
  bytes: number
}

/** What a top-N list leaves out, summed. */
export interface OthersStat {
  items: number
  messages: number
  bytes: number
}

/** Request/response pairs of one operation; latencies in milliseconds (nearest-rank percentiles). */
/** Requests, responses and latency of one operation (src-shared/analysis/operations.ts, shared with the CLI). */
export type { OperationStat } from './analysis/operations'
import type { OperationStat } from './analysis/operations'

export interface CaptureStatistics {
  /** The messages counted: the display filter's (`filter`), or all of them (`filter` is then ''). */
  scope: { filter: string; messages: number; total: number }
  /** Messages per time bucket: bucket i covers [start + i*step, start + (i+1)*step). */
  timeline: { start: number; step: number; counts: number[] }
  /** The names with the most messages (at most STATS_TOP_N), and the rest. */
  byName: { protocol: string; name: string; count: number; bytes: number }[]
  otherNames: OthersStat
  byProtocol: { protocol: string; count: number }[]
  /** The conversations with the most payload bytes, and with the most messages (at most STATS_TOP_N each). */
  topByBytes: ConversationStat[]
  topByMessages: ConversationStat[]
  othersByBytes: OthersStat
  othersByMessages: OthersStat
  /** Conversations with a message in scope. */
  conversations: number
  /** Request/response pairs per operation, most pairs first; null when the latency pass could not run. */
  operations: OperationStat[] | null
}

/** Length of the top lists in CaptureStatistics. */
export const STATS_TOP_N = 10

// ---- long jobs (export) ----

export type ExportFormat = 'json' | 'ndjson' | 'pcapng'
export type ExportScope = 'all' | 'filtered' | 'selected'

export interface ExportRequest {
  format: ExportFormat
  scope: ExportScope
  /** Message ids for scope 'selected'. */
  ids?: number[]
  /** Write the keys in use into a JSON export (off unless asked). */
  includeKeys?: boolean
  /** JSON/NDJSON: 'none' leaves each message's field tree out (smaller, faster); default 'full'. */
  tree?: TreeMode
}

export interface JobInfo {
  id: number
  kind: 'export'
  state: 'running' | 'done' | 'cancelled' | 'failed'
  /** 0..1 */
  progress: number
  description: string
  error?: string
  result?: {
    /** Where the host wrote the file (Electron). */
    file?: string
    /** Where the browser can fetch the file (serve). */
    downloadUrl?: string
    fileName: string
    bytes: number
    messages: number
    frames: number
  }
}

// ---- game-level analysis: Photon rooms, capture diff ----

/** The gamewire-rooms/1 document (src-shared/analysis/photon-rooms/document.ts), plain JSON already. */
export type {
  RoomsDocument,
  Room,
  RoomActor,
  RoomJoin,
  Divergence,
  MasterChange,
  ExpectedReplay,
  ReceivedReplay,
  UnknownInput
} from './analysis/photon-rooms/document'
import type { RoomsDocument } from './analysis/photon-rooms/document'
export type { DiffReport, ConversationDiff, ChangedMessage, FieldChange, MessageRef, OperationDiff, DiffRow } from './analysis/diff'
import type { ChangedMessage, ConversationDiff, DiffReport, MessageRef } from './analysis/diff'

/** The rooms document, and which message each frame it names stands for. */
export interface RoomsView extends RoomsDocument {
  /**
   * Frame number -> id of the first message there that the analysis read (a frame often carries ACKs
   * first); absent when the replay's ids cannot be matched with the timeline's (then select by frame).
   */
  messageAt?: Record<string, number>
}

export interface DiffWithOptions {
  /** Volatile-field patterns to skip besides the defaults (`gamewire diff --ignore`). */
  ignore?: string[]
  /** Compare the fields skipped by default too. */
  noDefaults?: boolean
}

/**
 * One line of a pair's side-by-side view: an aligned pair or a message on one side alone (the other null),
 * a changed pair with its change (its fields, or paired out of order); or that many unchanged lines left
 * out of a long pair (see compactRows).
 */
export type DiffLine = { a: MessageRef | null; b: MessageRef | null; change?: ChangedMessage } | { gap: number }

/** A conversation pair of the report as the Diff panel lists it: its counts and its first lines. */
export interface DiffPairView extends Pick<ConversationDiff, 'protocol' | 'a' | 'b' | 'pairedBy' | 'aligned'> {
  /** Its place in the report (for getDiffLines). */
  index: number
  /** Aligned pairs with field differences (a pair only out of order has a changed line but is not counted). */
  changed: number
  onlyA: number
  onlyB: number
  /** Lines in its side-by-side view (every compared message; a pair of more than 2,000 as its differences with context). */
  lines: number
  /** The first DIFF_LINES_PAGE lines; getDiffLines gives the others. */
  rows: DiffLine[]
}

/**
 * The gamewire-diff/1 report, its conversation pairs as the panel lists them: the first DIFF_PAIRS_PAGE,
 * each with its first lines; the host keeps the rest for getDiffPairs and getDiffLines.
 */
export interface CaptureDiff extends Omit<DiffReport, 'conversations'> {
  conversations: DiffPairView[]
  /** A's message ids are the timeline's (false when the open capture's rows cannot be matched: select by frame then). */
  timelineIds: boolean
  /** Conversation pairs in the report. */
  pairs: number
  /** This report's number, for getDiffPairs and getDiffLines. */
  report: number
}

/** Conversation pairs diffWith sends with its report (a capture of 200,000 conversations has as many pairs). */
export const DIFF_PAIRS_PAGE = 50
/** Most conversation pairs one getDiffPairs call returns. */
export const MAX_DIFF_PAIRS_PER_REQUEST = 500
/** Lines a pair comes with, and that "Show more" asks for. */
export const DIFF_LINES_PAGE = 100
/** Most lines one getDiffLines call returns. */
export const MAX_DIFF_LINES_PER_REQUEST = 5000

/** Most ignore patterns one diffWith takes. */
export const MAX_DIFF_IGNORES = 256
// ---- schema packs (src-shared/schema) ----

/** A loaded schema pack as the Schemas panel lists it. */
export interface SchemaInfo {
  /** The pack's name: what removeSchema takes (importing a pack of the same name replaces it). */
  id: string
  name: string
  description?: string
  /** The protocols it describes: photon, sfs2x, fignet. */
  protocols: string[]
  /** Which conversations it applies to, in words ("all conversations", "port 5056 or host 10.0.0.2"). */
  appliesTo: string
  /** What it names: "12 operations, 3 events, 4 parameters", ... */
  contents: string
  /** Conversations of the open capture it applies to. */
  covers: number[]
}

export interface SchemaChange {
  /** Conversations decoded again because of the change (empty when nothing is open). */
  redecoded: number[]
  schemas: SchemaInfo[]
}

// ---- SQL over the open capture (the Query panel; src-main/sql) ----

/** One table the Query panel's SQL may read, with its columns (src-main/sql/tables.ts). */
export interface QueryTable {
  name: string
  doc: string
  columns: { name: string; type: string; doc: string }[]
}

/** A statement's result: at most QUERY_ROW_LIMIT rows, cells as JSON values (BIGINT as decimal text). */
export interface QueryAnswer {
  columns: { name: string; type: string }[]
  rows: (string | number | boolean | null | unknown[] | Record<string, unknown>)[][]
  /** More rows than QUERY_ROW_LIMIT: the rest are not shown. */
  truncated: boolean
  /** Milliseconds spent: decoding the capture into the tables (0 when cached), and running the statement. */
  loadMs: number
  runMs: number
}

/** Rows a Query panel result carries at most. */
export const QUERY_ROW_LIMIT = 10_000

// ---- events ----

/** Actions the native menu asks the renderer to perform. */
export type MenuAction = 'export-json' | 'export-pcapng' | 'keys' | 'statistics' | 'conversations' | 'focus-filter' | 'capture'

export type InspectorEvent =
  | { type: 'status'; status: SessionStatus }
  | { type: 'view'; view: ViewInfo }
  | { type: 'job'; job: JobInfo }
  | { type: 'keys'; keys: KeyInfo[] }
  | { type: 'menu'; action: MenuAction }

// ---- the API ----

/** Requests answered by the host session; the same names are the IPC channels and WebSocket methods. */
export interface InspectorRequests {
  /** Opens a capture file on the host. Without a path, opens the bundled demo capture. */
  openCapture(path?: string): Promise<SessionStatus>
  getStatus(): Promise<SessionStatus>
  /** A page of the conversation list, sorted and filtered as asked. */
  getConversationPage(query: ConversationQuery): Promise<ConversationPage>
  /** Every field key the decoders know (autocomplete, column picker). */
  getFields(): Promise<FieldInfo[]>
  checkFilter(text: string): Promise<FilterCheck>
  /** Sets the timeline's filter, sort and extra columns; resolves when the view is complete or superseded. */
  setView(spec: ViewSpec): Promise<ViewInfo>
  getRows(viewId: number, start: number, count: number): Promise<RowBatch>
  /** Position of a message in a view, or -1. */
  findRow(viewId: number, messageId: number): Promise<number>
  /** The id of the message that frame `frame` carries (the first, when it carries several), or null. */
  findFrame(frame: number): Promise<number | null>
  /** The message's tree, data sources and value, decoded on demand (capped: see MessageDetail). */
  getMessage(id: number): Promise<MessageDetail>
  /** Bytes of one of a message's data sources, as hex: at most MAX_SOURCE_PAGE bytes from `offset`. */
  getSourceBytes(id: number, source: number, offset: number, length: number): Promise<SourcePage>
  setDecodeAs(rules: DecodeAsRule[]): Promise<SessionStatus>
  listKeys(): Promise<KeyInfo[]>
  /** Adds keys given as key-file text; re-decodes the conversations they cover. */
  addKeys(text: string): Promise<KeyChange>
  removeKey(line: string): Promise<KeyChange>
  /** The keys as key-file text. */
  exportKeys(): Promise<string>
  getStats(options?: StatsOptions): Promise<CaptureStatistics>
  startExport(request: ExportRequest): Promise<JobInfo>
  cancelJob(id: number): Promise<void>
  /** Capture devices, presets, and whether live capture can run at all. */
  listCaptureDevices(): Promise<CaptureDeviceList>
  /** Starts a live capture: the session's capture becomes the live one and rows stream in. */
  startCapture(options: CaptureOptions): Promise<CaptureStatus>
  stopCapture(): Promise<CaptureStatus>
  /** Stops and starts again with the same options (the timeline starts empty). */
  restartCapture(): Promise<CaptureStatus>
  /** Writes the frames the capture's ring holds as pcapng (while capturing, or after stopping). */
  saveCapture(): Promise<CaptureSaved>
  /** Photon rooms of the open capture (the `gamewire rooms --json` document), from a replay without trees. */
  getRooms(): Promise<RoomsView>
  /** Compares the open capture (A) with the capture file at `path` on the host (B), as `gamewire diff --json`. */
  diffWith(path: string, options?: DiffWithOptions): Promise<CaptureDiff>
  /** Pairs [start, start + count) of diffWith's report `report`; throws once another comparison or a change of the capture replaced it. */
  getDiffPairs(report: number, start: number, count: number): Promise<DiffPairView[]>
  /** Lines [start, start + count) of the report's pair `pair` (DiffPairView.index); throws as getDiffPairs does. */
  getDiffLines(report: number, pair: number, start: number, count: number): Promise<DiffLine[]>
  /** The loaded schema packs (the Schemas panel). */
  listSchemas(): Promise<SchemaInfo[]>
  /** Adds (or replaces, by name) a pack given as its JSON text; re-decodes the open capture. Throws SchemaError (JSON path: why). */
  addSchema(text: string): Promise<SchemaChange>
  removeSchema(id: string): Promise<SchemaChange>
  /** The SQL tables and their columns. */
  queryTables(): Promise<QueryTable[]>
  /** Runs SQL over the open capture's messages (decoded into the tables once per capture state); throws SqlError. */
  runQuery(sql: string): Promise<QueryAnswer>
  /** Stops the running query (it fails with "cancelled"). */
  cancelQuery(): Promise<void>
}

export type RequestName = keyof InspectorRequests

export interface InspectorApi extends InspectorRequests {
  readonly shell: 'electron' | 'browser'
  /** Subscribes to session events. Returns the unsubscribe function. */
  onEvent(cb: (event: InspectorEvent) => void): () => void
  /** Electron only: the native open dialog, then opens the chosen file (null when cancelled). */
  chooseCapture?(): Promise<SessionStatus | null>
  /** Electron only: the host path of a file dropped on the window (a DOM File; typed by its name here, since this tree has no DOM types). */
  pathForFile?(file: DroppedFile): string
}

/** A DOM `File` as the API sees one: Electron's webUtils.getPathForFile takes the File object itself. */
export interface DroppedFile {
  readonly name: string
}

/** Every request name, in one place for the transports. */
export const REQUEST_NAMES: readonly RequestName[] = [
  'openCapture',
  'getStatus',
  'getConversationPage',
  'getFields',
  'checkFilter',
  'setView',
  'getRows',
  'findRow',
  'findFrame',
  'getMessage',
  'getSourceBytes',
  'setDecodeAs',
  'listKeys',
  'addKeys',
  'removeKey',
  'exportKeys',
  'getStats',
  'startExport',
  'cancelJob',
  'listCaptureDevices',
  'startCapture',
  'stopCapture',
  'restartCapture',
  'saveCapture',
  'getRooms',
  'diffWith',
  'getDiffPairs',
  'getDiffLines',
  'listSchemas',
  'addSchema',
  'removeSchema',
  'queryTables',
  'runQuery',
  'cancelQuery'
]

/** IPC channel of a request (renderer -> main, ipcMain.handle). */
export function requestChannel(name: RequestName): string {
  return `gamewire:${name}`
}

/** IPC channels outside the request table. */
export const IPC_CHANNELS = {
  /** main -> renderer: one InspectorEvent. */
  event: 'gamewire:event',
  /** renderer -> main: native open dialog. */
  chooseCapture: 'gamewire:chooseCapture'
} as const

/** Largest number of rows one getRows call returns. */
export const MAX_ROWS_PER_REQUEST = 5000
/** Largest number of conversations one getConversationPage call returns (about 230 bytes of JSON each). */
export const MAX_CONVERSATIONS_PER_REQUEST = 5000
