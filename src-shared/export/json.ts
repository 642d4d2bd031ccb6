// The decoded-JSON export (format "gamewire/1"), written as a stream of UTF-8 chunks so a capture of any
// size exports in bounded memory. `json` writes one document whose "messages" array streams first and
// whose "source"/"conversations" follow (they are only known at the end); `ndjson` writes one message per
// line and a last `{"summary": ...}` line. Messages go straight to bytes (json-bytes.ts): no strings or
// objects are built per message.

import type { TreeNode } from '../api'
import { toHex } from '../bytes/tree'
import type { ConversationInfo, DecodedMessage, FieldNode, FieldScalar } from '../model/types'
import { JsonBytes, jsonString, Snippets, utf8, type ByteSink, type JsonBytesOptions } from './json-bytes'

export const FORMAT = 'gamewire/1'

export type ExportFormat = 'json' | 'ndjson'

/** `full` writes each message's field tree; `none` leaves the `tree` key out (and lets the engine skip building trees). */
export type TreeMode = 'full' | 'none'
export const TREE_MODES: readonly TreeMode[] = ['full', 'none']

export interface ExportSourceInfo {
  file: string
  frames: number
  linkTypes: string[]
  warnings: string[]
}

export interface MessageOptions {
  /** Add each data source's bytes as `hex` (off by default: the tree ranges point into them). */
  includeSourceBytes?: boolean
  /** Default 'full'. */
  tree?: TreeMode
}

export interface ExportOptions extends MessageOptions {
  format: ExportFormat
  /** Keys used for decryption, written only when the user asked for them. */
  keys?: { type: string; conversation: string; key: string }[]
}

// ---- typed values ----

/**
 * Writes a typed value: bigint and non-finite numbers as strings, bytes as lowercase hex, every Map's
 * entries in insertion order (the contract: object keys keep wire order, numeric-looking ones included;
 * decoders hold keyed containers such as SFSObject and Photon parameters as Maps for this reason),
 * undefined entries left out of objects and written as null in arrays.
 */
export function writeValue(w: JsonBytes, v: unknown): void {
  if (v === null) return w.null()
  switch (typeof v) {
    case 'string':
      return w.string(v)
    case 'boolean':
      return w.bool(v)
    case 'number':
      return Number.isFinite(v) ? w.number(v) : w.quotedText(v)
    case 'bigint':
      return w.quotedText(v)
    case 'object':
      break
    default:
      return w.null()
  }
  if (v instanceof Uint8Array) return w.hex(v)
  if (Array.isArray(v)) {
    w.byte(0x5b)
    for (let i = 0; i < v.length; i++) {
      if (i) w.byte(0x2c)
      writeValue(w, v[i])
    }
    return w.byte(0x5d)
  }
  w.byte(0x7b)
  let first = true
  if (v instanceof Map) for (const [k, x] of v) first = member(w, first, String(k), x)
  else for (const k in v as Record<string, unknown>) first = member(w, first, k, (v as Record<string, unknown>)[k])
  w.byte(0x7d)
}

const MEMBER = new Snippets((k) => `${k}:`)

// One object member unless its value is undefined; returns whether the object is still empty.
function member(w: JsonBytes, first: boolean, k: string, x: unknown): boolean {
  if (x === undefined) return first
  if (!first) w.byte(0x2c)
  w.raw(MEMBER.get(k))
  writeValue(w, x)
  return false
}

/** The JSON text of a typed value (see writeValue), for in-memory use: the detail view, tests. */
export function jsonText(v: unknown): string {
  return jsonString((w) => writeValue(w, v))
}

/** JSON-safe form of a scalar: bigint as decimal string, bytes as lowercase hex. */
export function jsonScalar(v: FieldScalar | undefined): string | number | boolean | null | undefined {
  if (v instanceof Uint8Array) return toHex(v)
  if (typeof v === 'bigint') return v.toString()
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v) // NaN/Infinity are not JSON
  return v
}

/**
 * A JSON-safe copy of a typed value, as objects: bigint as decimal string, bytes as hex, non-finite
 * numbers as strings, Maps as plain objects. A plain object puts integer-like keys first, so export text
 * never goes through this (writeValue keeps a Map's wire order).
 */
export function jsonSafe(v: unknown): unknown {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v)
  if (typeof v === 'bigint') return v.toString()
  if (v instanceof Uint8Array) return toHex(v)
  if (Array.isArray(v)) return v.map(jsonSafe)
  if (v instanceof Map) {
    const out: Record<string, unknown> = {}
    for (const [k, x] of v) if (x !== undefined) defineKey(out, String(k), jsonSafe(x))
    return out
  }
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {}
    for (const k in v as Record<string, unknown>) {
      const x = (v as Record<string, unknown>)[k]
      if (x !== undefined) defineKey(out, k, jsonSafe(x))
    }
    return out
  }
  return undefined
}

// A key named "__proto__" from the wire must become an own property, not the object's prototype.
function defineKey(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true })
  else o[k] = v
}

/** The field tree as JSON-safe objects, for the app's detail view (which is sent as data, not text). */
export function jsonTree(nodes: FieldNode[]): TreeNode[] {
  return nodes.map((n) => {
    // Keys in the export's order, children last.
    const o = { key: n.key, label: n.label, type: n.type } as TreeNode
    if (n.value !== undefined) o.value = jsonScalar(n.value)
    if (n.source !== undefined) {
      o.source = n.source
      o.start = n.start
      o.length = n.length
    }
    o.children = n.children ? jsonTree(n.children) : []
    return o
  })
}

// ---- messages ----

// A node's key and type repeat endlessly: each comes with the punctuation around it, encoded once.
const NODE_HEAD = new Snippets((k) => `{"key":${k},"label":`)
const NODE_TYPE = new Snippets((t) => `,"type":${t}`)
const NODE_TYPE_VALUE = new Snippets((t) => `,"type":${t},"value":`)
const T_SOURCE = utf8(',"source":')
const T_START = utf8(',"start":')
const T_LENGTH = utf8(',"length":')
const T_CHILDREN = utf8(',"children":')
const T_NO_CHILDREN = utf8(',"children":[]}')

function writeTree(w: JsonBytes, nodes: FieldNode[]): void {
  w.byte(0x5b)
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]
    if (i) w.byte(0x2c)
    w.raw(NODE_HEAD.get(n.key))
    w.string(n.label)
    if (n.value !== undefined) {
      w.raw(NODE_TYPE_VALUE.get(n.type))
      writeValue(w, n.value)
    } else w.raw(NODE_TYPE.get(n.type))
    if (n.source !== undefined) {
      // As JSON.stringify treats an object's property: undefined leaves the key out.
      w.field(T_SOURCE, n.source)
      if (n.start !== undefined) w.field(T_START, n.start)
      if (n.length !== undefined) w.field(T_LENGTH, n.length)
    }
    if (n.children) {
      w.raw(T_CHILDREN)
      writeTree(w, n.children)
      w.byte(0x7d)
    } else w.raw(T_NO_CHILDREN)
  }
  w.byte(0x5d)
}

const M_ID = utf8('{"id":')
const M_CONVERSATION = utf8(',"conversation":')
const M_DIRECTION = utf8(',"direction":')
const M_FRAMES = utf8(',"frames":[')
const M_TIME = utf8('],"time":')
const M_PROTOCOL = utf8(',"protocol":')
const M_STACK = utf8(',"stack":[')
const M_NAME = utf8('],"name":')
const M_SUMMARY = utf8(',"summary":')
const M_VALUE = utf8(',"value":')
const M_TREE = utf8(',"tree":')
const M_SOURCES = utf8(',"sources":[')
const M_WARNINGS = utf8('],"warnings":[')
const M_ERROR = utf8('],"error":')
const S_NAME = utf8('{"name":')
const S_LENGTH = utf8(',"length":')
const S_HEX = utf8(',"hex":')

/** Writes one message object of the contract (the hot path of every export). */
export function writeMessage(w: JsonBytes, m: DecodedMessage, opts: MessageOptions = {}): void {
  writeMessageHead(w, m.id, m.conversation)
  writeMessageBody(w, m, opts)
}

/** The start of a message object, up to its conversation id: what a sharded decode writes at the merge. */
export function writeMessageHead(w: JsonBytes, id: number, conversation: number): void {
  w.field(M_ID, id)
  w.field(M_CONVERSATION, conversation)
}

/** The rest of a message object after writeMessageHead: everything a shard knows without the global ids. */
export function writeMessageBody(w: JsonBytes, m: DecodedMessage, opts: MessageOptions = {}): void {
  w.raw(M_DIRECTION)
  w.name(m.direction)
  w.raw(M_FRAMES)
  for (let i = 0; i < m.frames.length; i++) {
    if (i) w.byte(0x2c)
    w.number(m.frames[i])
  }
  w.field(M_TIME, m.time)
  w.raw(M_PROTOCOL)
  w.name(m.protocol)
  w.raw(M_STACK)
  for (let i = 0; i < m.stack.length; i++) {
    if (i) w.byte(0x2c)
    w.name(m.stack[i])
  }
  w.raw(M_NAME)
  w.string(m.name)
  w.raw(M_SUMMARY)
  w.string(m.summary)
  w.raw(M_VALUE)
  writeValue(w, m.value)
  if (opts.tree !== 'none') {
    w.raw(M_TREE)
    writeTree(w, m.tree)
  }
  w.raw(M_SOURCES)
  for (let i = 0; i < m.sources.length; i++) {
    const src = m.sources[i]
    if (i) w.byte(0x2c)
    w.raw(S_NAME)
    w.name(src.name)
    w.field(S_LENGTH, src.bytes.length)
    if (opts.includeSourceBytes) {
      w.raw(S_HEX)
      w.hex(src.bytes)
    }
    w.byte(0x7d)
  }
  w.raw(M_WARNINGS)
  for (let i = 0; i < m.warnings.length; i++) {
    if (i) w.byte(0x2c)
    writeValue(w, m.warnings[i])
  }
  w.raw(M_ERROR)
  writeValue(w, m.error)
  w.byte(0x7d)
}

/** The export text of one message, as a string (tests, in-memory use; exports stream bytes). */
export function messageText(m: DecodedMessage, opts: MessageOptions = {}): string {
  return jsonString((w) => writeMessage(w, m, opts))
}

export function conversationJson(c: ConversationInfo): Record<string, unknown> {
  const o: Record<string, unknown> = {
    id: c.id,
    transport: c.transport,
    client: c.client,
    server: c.server,
    protocol: c.protocol,
    stack: c.stack,
    frames: c.frames,
    bytes: c.bytes,
    firstTime: c.firstTime,
    lastTime: c.lastTime,
    roleFrom: c.roleFrom
  }
  if (c.notes.length) o.notes = c.notes
  return o
}

// The NDJSON summary line, `{"summary": {format, source, conversations, stats, ...more}}` in JSON.stringify's
// key order, in three parts so its conversation list can be written between them a piece at a time (the
// file export's and a live capture's).

/** The summary line up to its conversation list's first item. */
export function summaryLineHead(source: object): string {
  return `{"summary":{"format":${JSON.stringify(FORMAT)},"source":${JSON.stringify(source)},"conversations":[`
}

/** The summary line after its conversation list: the stats, then `more`'s fields (`keys`, a live capture's `capture`), and the newline. */
export function summaryLineTail(stats: { messages: number; errors: number }, more: Record<string, unknown> = {}): string {
  return `${afterConversations(stats, more)}}}\n`
}

function afterConversations(stats: { messages: number; errors: number }, more: Record<string, unknown>): string {
  let text = `],"stats":${JSON.stringify(stats)}`
  for (const [k, v] of Object.entries(more)) text += `,${JSON.stringify(k)}:${JSON.stringify(v)}`
  return text
}

/** The items of a summary's `conversations` array, one JSON text each, the comma before all but the first. */
export function* conversationListItems(conversations: Iterable<ConversationInfo>): Generator<string> {
  let first = true
  for (const c of conversations) {
    yield (first ? '' : ',') + JSON.stringify(conversationJson(c))
    first = false
  }
}

const MESSAGE_SEPARATOR = utf8(',\n')

/**
 * Writes an export document to `sink` in chunks. Bytes are handed over when a chunk fills, on flush(),
 * and at end(); a caller that applies backpressure calls flush() between input chunks.
 */
export class JsonExportWriter {
  private count = 0
  private readonly out: JsonBytes

  constructor(
    private readonly opts: ExportOptions,
    sink: ByteSink,
    bytes?: JsonBytesOptions
  ) {
    this.out = new JsonBytes(sink, bytes)
  }

  /** Bytes written and not yet handed to the sink. */
  get buffered(): number {
    return this.out.buffered
  }

  begin(): void {
    if (this.opts.format === 'json') this.out.json(`{"format":${JSON.stringify(FORMAT)},"messages":[\n`)
  }

  message(m: DecodedMessage): void {
    this.place(() => writeMessage(this.out, m, this.opts))
  }

  /** A message whose body a shard wrote (writeMessageBody), with the ids the merge gave it. */
  messageBody(id: number, conversation: number, body: Uint8Array): void {
    this.place(() => {
      writeMessageHead(this.out, id, conversation)
      this.out.raw(body)
    })
  }

  private place(write: () => void): void {
    const json = this.opts.format === 'json'
    if (json && this.count > 0) this.out.raw(MESSAGE_SEPARATOR)
    this.count++
    write()
    if (!json) this.out.byte(0x0a)
  }

  /** Writes the tail (summary) and hands everything over. */
  end(source: ExportSourceInfo, conversations: Iterable<ConversationInfo>, stats: { messages: number; errors: number }): void {
    for (const _ of this.endPieces(source, conversations, stats)) {
      // written as it goes
    }
  }

  /**
   * The same tail, handed to the sink in pieces (a step per 256 conversations), so a list of a million
   * conversations is written out as it is read from compact storage, with the caller free to wait between.
   */
  *endPieces(source: ExportSourceInfo, conversations: Iterable<ConversationInfo>, stats: { messages: number; errors: number }): Generator<void> {
    const json = this.opts.format === 'json'
    this.out.json(json ? `\n],"source":${JSON.stringify(source)},"conversations":[` : summaryLineHead(source))
    let n = 0
    for (const piece of conversationListItems(conversations)) {
      this.out.json(piece)
      // About 64 KiB at a time: the caller may wait for its output to drain between pieces.
      if (++n % 256 === 0) {
        this.out.flush()
        yield
      }
    }
    const more = this.opts.keys ? { keys: this.opts.keys } : {}
    this.out.json(json ? `${afterConversations(stats, more)}}\n` : summaryLineTail(stats, more))
    this.out.flush()
  }

  /** Hands the written bytes to the sink when at least `min` are waiting. */
  flush(min?: number): void {
    this.out.flush(min)
  }
}
