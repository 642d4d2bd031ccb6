// Shared pieces of the SFS2X end-to-end tests: decode a committed capture with DecodeSession (as the golden
// tests do) and read the truth file the fixture generator wrote (test/fixtures/make-sfs2x-fixtures.mjs).
// Expectations come from the truth files only: the official SDK's decode of every packet, and what the
// sending side put on the wire.

import { readFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { jsonSafe } from '../../../../src-shared/export/json'
import type { DecodedMessage } from '../../../../src-shared/model/types'
import { decodeFile, type Decoded } from '../../helpers/decode'
export { decodeFile, type Decoded }

export const FIXTURES = join(__dirname, '../../../fixtures/sfs2x')

export interface Typed {
  type: string
  value?: unknown
  length?: number
  sha256?: string
}

export interface TruthPacket {
  direction: 'c2s' | 's2c'
  header: { byte: number; binary: boolean; encrypted: boolean; compressed: boolean; blueBoxed: boolean; bigSized: boolean; forward: boolean }
  shardId?: number | null
  length: number
  transforms: string[]
  uncompressedLength: number
  controllerId: number
  actionId: number
  controller: string
  action: string
  command: string | null
  room: number | null
  body: Typed
  wire: { hex: string } | { length: number; sha256: string }
}

export interface Truth {
  fixture: string
  server: string
  stack: string[]
  packets: TruthPacket[]
  events?: Array<Record<string, unknown>>
  websocket?: { url: string; path: string; negotiated: string; permessageDeflate: boolean }
  preamble?: { request: string; response: string }
}

export function loadTruth(name: string): Truth {
  return JSON.parse(readFileSync(join(FIXTURES, `${name}.truth.json`), 'utf8'))
}

const cache = new Map<string, Decoded>()
export function decodeFixture(name: string): Decoded {
  if (!cache.has(name)) cache.set(name, decodeFile(join(FIXTURES, `${name}.pcapng`)))
  return cache.get(name)!
}

export const BIG_BYTES = 1024

function hexOf(v: unknown): string {
  if (typeof v === 'string') return v
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex')
  return String(v)
}

/**
 * A decoded typed value in the truth file's form: BYTE_ARRAY values longer than 1024 bytes become
 * {type, length, sha256}, as the generator stored them. Everything else is kept as it is.
 */
export function compact(t: unknown): unknown {
  if (!t || typeof t !== 'object' || Array.isArray(t)) return t
  const x = t as Typed
  if (x.type === 'BYTE_ARRAY') {
    const h = hexOf(x.value)
    if (h.length > BIG_BYTES * 2) return { type: x.type, length: h.length / 2, sha256: createHash('sha256').update(Buffer.from(h, 'hex')).digest('hex') }
    return x
  }
  if (x.type === 'SFS_ARRAY' && Array.isArray(x.value)) return { ...x, value: x.value.map(compact) }
  if (x.type === 'SFS_OBJECT' && x.value && typeof x.value === 'object') {
    return { ...x, value: Object.fromEntries(Object.entries(x.value as Record<string, unknown>).map(([k, v]) => [k, compact(v)])) }
  }
  return x
}

/** Every object's keys, in order, with their paths: checks the wire order the contract asks to keep. */
export function keyOrder(t: unknown, path = ''): string[] {
  if (!t || typeof t !== 'object') return []
  const x = t as Typed
  if (x.type === 'SFS_OBJECT' && x.value && typeof x.value === 'object') {
    const entries = Object.entries(x.value as Record<string, unknown>)
    return [`${path}{${entries.map(([k]) => k).join(',')}}`, ...entries.flatMap(([k, v]) => keyOrder(v, `${path}.${k}`))]
  }
  if (x.type === 'SFS_ARRAY' && Array.isArray(x.value)) return x.value.flatMap((v, i) => keyOrder(v, `${path}[${i}]`))
  return []
}

export interface SfsValue {
  header: Record<string, unknown>
  length: number
  body: Typed
  controller: string
  action: string
  command?: string | null
  transforms?: string[]
  shard?: number | null
}

export const sfsMessages = (d: Decoded): DecodedMessage[] => d.messages.filter((m) => m.protocol === 'sfs2x')
/** A message's value as the export writes it (bigint as decimal string, bytes as hex). */
export const sfsValueOf = (m: DecodedMessage): SfsValue => (jsonSafe(m.value) ?? {}) as SfsValue

/** The contract's header object for the truth's header bits. */
export const headerOf = (p: TruthPacket) => ({
  byte: p.header.byte,
  binary: p.header.binary,
  encrypted: p.header.encrypted,
  compressed: p.header.compressed,
  blueBoxed: p.header.blueBoxed,
  bigSized: p.header.bigSized,
  forward: p.header.forward
})

/** The contract's part of an SFS2X message value that the truth file determines. */
export function expectedValue(p: TruthPacket) {
  return {
    header: headerOf(p),
    length: p.length,
    body: p.body,
    controller: p.controller,
    action: p.action,
    command: p.command
  }
}

/** The same part, taken from a decoded message (command: missing and null both mean "none"). */
export function actualValue(m: DecodedMessage) {
  const v = sfsValueOf(m)
  const h = v.header ?? {}
  return {
    header: {
      byte: h.byte,
      binary: h.binary,
      encrypted: h.encrypted,
      compressed: h.compressed,
      blueBoxed: h.blueBoxed,
      bigSized: h.bigSized,
      forward: h.forward
    },
    length: v.length,
    body: compact(v.body) as Typed,
    controller: v.controller,
    action: v.action,
    command: v.command ?? null
  }
}

/** Recursively finds a tree node. */
export function findNode(nodes: DecodedMessage['tree'], pred: (n: DecodedMessage['tree'][number]) => boolean): DecodedMessage['tree'][number] | undefined {
  for (const n of nodes) {
    if (pred(n)) return n
    const c = n.children ? findNode(n.children, pred) : undefined
    if (c) return c
  }
  return undefined
}
