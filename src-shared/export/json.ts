// The decoded-JSON export (format "gamewire/1"), written as a stream of text chunks so a capture of any
// size exports in bounded memory. `json` writes one document whose "messages" array streams first and
// whose "source"/"conversations" follow (they are only known at the end); `ndjson` writes one message per
// line and a last `{"summary": ...}` line.

import { toHex } from '../bytes/tree'
import type { ConversationInfo, DecodedMessage, FieldNode, FieldScalar } from '../model/types'

export const FORMAT = 'gamewire/1'

export type ExportFormat = 'json' | 'ndjson'

export interface ExportSourceInfo {
  file: string
  frames: number
  linkTypes: string[]
  warnings: string[]
}

export interface ExportOptions {
  format: ExportFormat
  /** Add each data source's bytes as `hex` (off by default: the tree ranges point into them). */
  includeSourceBytes?: boolean
  /** Keys used for decryption, written only when the user asked for them. */
  keys?: { type: string; conversation: string; key: string }[]
}

// The same bytes are often both a message's value and a tree leaf: hex them once.
let lastBytes: Uint8Array | undefined
let lastHex = ''
function hexOnce(b: Uint8Array): string {
  if (b !== lastBytes) {
    lastBytes = b
    lastHex = toHex(b)
  }
  return lastHex
}

/** JSON-safe form of a scalar: bigint as decimal string, bytes as lowercase hex. */
export function jsonScalar(v: FieldScalar | undefined): string | number | boolean | null | undefined {
  if (v instanceof Uint8Array) return hexOnce(v)
  if (typeof v === 'bigint') return v.toString()
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v) // NaN/Infinity are not JSON
  return v
}

function treeJson(nodes: FieldNode[]): unknown[] {
  return nodes.map((n) => {
    const o: Record<string, unknown> = { key: n.key, label: n.label, type: n.type }
    if (n.value !== undefined) o.value = jsonScalar(n.value)
    if (n.source !== undefined) {
      o.source = n.source
      o.start = n.start
      o.length = n.length
    }
    o.children = n.children ? treeJson(n.children) : []
    return o
  })
}

/**
 * A JSON-safe copy of a typed value: bigint as decimal string, bytes as hex, non-finite numbers as
 * strings, Maps as plain objects. For in-memory use: a plain object puts integer-like keys first, so the
 * export text goes through jsonText, which keeps a Map's wire order.
 */
export function jsonSafe(v: unknown): unknown {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v)
  if (typeof v === 'bigint') return v.toString()
  if (v instanceof Uint8Array) return hexOnce(v)
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

/**
 * The JSON text of a typed value, as JSON.stringify(jsonSafe(v)) but with every Map's entries in
 * insertion order (the contract: object keys keep wire order, numeric-looking ones included). Decoders
 * hold keyed containers (SFSObject, Photon parameters) as Maps for this reason.
 */
export function jsonText(v: unknown): string {
  if (v === null) return 'null'
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v)
    case 'boolean':
      return v ? 'true' : 'false'
    case 'number':
      return Number.isFinite(v) ? String(v) : `"${v}"`
    case 'bigint':
      return `"${v}"`
    case 'object':
      break
    default:
      return 'null'
  }
  if (v instanceof Uint8Array) return `"${hexOnce(v)}"`
  if (Array.isArray(v)) {
    let out = '['
    for (let i = 0; i < v.length; i++) out += (i ? ',' : '') + (v[i] === undefined ? 'null' : jsonText(v[i]))
    return out + ']'
  }
  let out = '{'
  let first = true
  const entry = (k: string, x: unknown) => {
    if (x === undefined) return
    out += `${first ? '' : ','}${q(k)}:${jsonText(x)}`
    first = false
  }
  if (v instanceof Map) for (const [k, x] of v) entry(String(k), x)
  else for (const k in v as Record<string, unknown>) entry(k, (v as Record<string, unknown>)[k])
  return out + '}'
}

export function messageJson(m: DecodedMessage, opts: Pick<ExportOptions, 'includeSourceBytes'> = {}): Record<string, unknown> {
  return {
    id: m.id,
    conversation: m.conversation,
    direction: m.direction,
    frames: m.frames,
    time: m.time,
    protocol: m.protocol,
    stack: m.stack,
    name: m.name,
    summary: m.summary,
    value: jsonSafe(m.value),
    tree: treeJson(m.tree),
    sources: m.sources.map((s) => (opts.includeSourceBytes ? { name: s.name, length: s.bytes.length, hex: toHex(s.bytes) } : { name: s.name, length: s.bytes.length })),
    warnings: m.warnings,
    error: m.error
  }
}

// Field keys, types and source names repeat endlessly: quote each once.
const quoted = new Map<string, string>()
function q(s: string): string {
  let t = quoted.get(s)
  if (t === undefined) {
    t = JSON.stringify(s)
    if (quoted.size < 50_000) quoted.set(s, t)
  }
  return t
}

function treeText(nodes: FieldNode[]): string {
  let out = '['
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]
    if (i) out += ','
    out += `{"key":${q(n.key)},"label":${JSON.stringify(n.label)},"type":${q(n.type)}`
    if (n.value !== undefined) out += `,"value":${JSON.stringify(jsonScalar(n.value))}`
    if (n.source !== undefined) out += `,"source":${n.source},"start":${n.start},"length":${n.length}`
    out += `,"children":${n.children ? treeText(n.children) : '[]'}}`
  }
  return out + ']'
}

/** The export text of one message: the same document as JSON.stringify(messageJson(m)), built directly (the hot path of every export). */
export function messageText(m: DecodedMessage, opts: Pick<ExportOptions, 'includeSourceBytes'> = {}): string {
  let sources = '['
  for (let i = 0; i < m.sources.length; i++) {
    const src = m.sources[i]
    sources += `${i ? ',' : ''}{"name":${q(src.name)},"length":${src.bytes.length}${opts.includeSourceBytes ? `,"hex":"${toHex(src.bytes)}"` : ''}}`
  }
  sources += ']'
  return (
    `{"id":${m.id},"conversation":${m.conversation},"direction":"${m.direction}","frames":[${m.frames.join(',')}],"time":${JSON.stringify(m.time)}` +
    `,"protocol":${q(m.protocol)},"stack":[${m.stack.map(q).join(',')}],"name":${JSON.stringify(m.name)},"summary":${JSON.stringify(m.summary)}` +
    `,"value":${m.value === undefined ? 'null' : jsonText(m.value)},"tree":${treeText(m.tree)},"sources":${sources}` +
    `,"warnings":${JSON.stringify(m.warnings)},"error":${JSON.stringify(m.error)}}`
  )
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
    roleFromHandshake: c.roleFromHandshake
  }
  if (c.notes.length) o.notes = c.notes
  return o
}

export class JsonExportWriter {
  private count = 0

  constructor(private readonly opts: ExportOptions) {}

  begin(): string {
    return this.opts.format === 'json' ? `{"format":${JSON.stringify(FORMAT)},"messages":[\n` : ''
  }

  message(m: DecodedMessage): string {
    const text = messageText(m, this.opts)
    const sep = this.opts.format === 'json' && this.count > 0 ? ',\n' : ''
    this.count++
    return this.opts.format === 'json' ? sep + text : text + '\n'
  }

  /** The rest of the document after the last message, as one text. */
  end(source: ExportSourceInfo, conversations: Iterable<ConversationInfo>, stats: { messages: number; errors: number }): string {
    return [...this.endChunks(source, conversations, stats)].join('')
  }

  /**
   * The same text in pieces of about 64 KiB, so a list of a million conversations is written out (and
   * can be taken from compact storage) as it goes instead of being built as one string.
   */
  *endChunks(source: ExportSourceInfo, conversations: Iterable<ConversationInfo>, stats: { messages: number; errors: number }): Generator<string> {
    const json = this.opts.format === 'json'
    // Key order as JSON.stringify of {format, source, conversations, stats, keys} (ndjson's summary line).
    let text = json ? `\n],"source":${JSON.stringify(source)},"conversations":[` : `{"summary":{"format":${JSON.stringify(FORMAT)},"source":${JSON.stringify(source)},"conversations":[`
    let first = true
    for (const c of conversations) {
      text += (first ? '' : ',') + JSON.stringify(conversationJson(c))
      first = false
      if (text.length >= 1 << 16) {
        yield text
        text = ''
      }
    }
    text += `],"stats":${JSON.stringify(stats)}`
    if (this.opts.keys) text += `,"keys":${JSON.stringify(this.opts.keys)}`
    yield text + (json ? '}\n' : '}}\n')
  }
}
