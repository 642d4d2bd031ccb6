// The straightforward reference for the export text: objects built as the contract describes and
// serialised with JSON.stringify (the form the export had before it wrote bytes directly). Only tests
// use it; the export itself streams bytes (src-shared/export/json.ts).

import { jsonSafe, jsonScalar, type MessageOptions } from '../../../src-shared/export/json'
import type { DecodedMessage, FieldNode } from '../../../src-shared/model/types'

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

const hex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')

/** The message as objects (the value as jsonSafe gives it, so Maps lose integer-like key order here). */
export function messageJson(m: DecodedMessage, opts: MessageOptions = {}): Record<string, unknown> {
  const o: Record<string, unknown> = {
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
    sources: m.sources.map((s) =>
      opts.includeSourceBytes ? { name: s.name, length: s.bytes.length, hex: hex(s.bytes) } : { name: s.name, length: s.bytes.length }
    ),
    warnings: m.warnings,
    error: m.error
  }
  if (opts.tree === 'none') delete o.tree
  return o
}

/** A typed value's text: JSON.stringify of its JSON-safe form, except that Maps keep their entry order. */
export function referenceValue(v: unknown): string {
  const members = (entries: [string, unknown][]) =>
    '{' +
    entries
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => `${JSON.stringify(k)}:${referenceValue(x)}`)
      .join(',') +
    '}'
  if (v instanceof Map) return members([...v].map(([k, x]) => [String(k), x]))
  if (Array.isArray(v)) return '[' + v.map(referenceValue).join(',') + ']'
  if (v !== null && typeof v === 'object' && !(v instanceof Uint8Array)) return members(Object.entries(v))
  return JSON.stringify(jsonSafe(v)) ?? 'null'
}

/** The export text of one message: JSON.stringify of messageJson, with the value written by referenceValue. */
export function referenceText(m: DecodedMessage, opts: MessageOptions = {}): string {
  const o = messageJson(m, opts)
  return (
    '{' +
    Object.keys(o)
      .map((k) => `${JSON.stringify(k)}:${k === 'value' ? referenceValue(m.value) : JSON.stringify(o[k])}`)
      .join(',') +
    '}'
  )
}
