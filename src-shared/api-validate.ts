// Checks the arguments of every InspectorApi request as they arrive from the untrusted side (a renderer
// over IPC, a browser over the WebSocket). Each validator takes the raw argument list and returns the
// typed arguments, or throws an ApiArgumentError naming the request and the problem. Sizes are capped so
// a hostile caller cannot make the host allocate without bound.

import { isIgnorePattern } from './analysis/diff/fields'
import {
  BUILTIN_COLUMNS,
  CONVERSATION_SORTS,
  MAX_CONVERSATIONS_PER_REQUEST,
  MAX_DIFF_IGNORES,
  MAX_ROWS_PER_REQUEST,
  MAX_DIFF_LINES_PER_REQUEST,
  MAX_DIFF_PAIRS_PER_REQUEST,
  MAX_SOURCE_PAGE,
  REQUEST_NAMES,
  type CaptureOptions,
  type ConversationQuery,
  type ConversationSort,
  type DecodeAsRule,
  type DiffWithOptions,
  type ExportRequest,
  type InspectorRequests,
  type RequestName,
  type SortSpec,
  type ViewSpec
} from './api'

export const MAX_PATH_LENGTH = 4096
export const MAX_FILTER_LENGTH = 16 * 1024
export const MAX_KEY_TEXT = 1 << 20
export const MAX_COLUMNS = 32
export const MAX_SELECTED_IDS = 1_000_000
export const MAX_DECODE_AS_RULES = 256
/** A schema pack's JSON text (the example pack is a few KiB); under the WebSocket's 4 MiB message limit. */
export const MAX_SCHEMA_TEXT = 2 << 20
export const MAX_SQL_TEXT = 256 * 1024
const FIELD_KEY_RE = /^[A-Za-z_][A-Za-z0-9_.-]{0,199}$/
const PROTOCOL_RE = /^[a-z][a-z0-9_-]{0,31}$/
const INTERFACE_RE = /^[^\0\s]{1,256}$/

export class ApiArgumentError extends TypeError {
  constructor(message: string) {
    super(message)
    this.name = 'ApiArgumentError'
  }
}

type Args<K extends RequestName> = Parameters<InspectorRequests[K]>

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

function arity(name: string, args: unknown, min: number, max: number): unknown[] {
  if (!Array.isArray(args)) throw new ApiArgumentError(`${name}: arguments must be an array`)
  if (args.length < min || args.length > max) {
    const want = min === max ? `${min}` : `${min} to ${max}`
    throw new ApiArgumentError(`${name}: expected ${want} argument${max === 1 ? '' : 's'}, got ${args.length}`)
  }
  return args
}

function text(name: string, what: string, v: unknown, max: number, opts: { empty?: boolean } = {}): string {
  if (typeof v !== 'string') throw new ApiArgumentError(`${name}: ${what} must be a string, got ${describe(v)}`)
  if (!opts.empty && v.length === 0) throw new ApiArgumentError(`${name}: ${what} must not be empty`)
  if (v.length > max) throw new ApiArgumentError(`${name}: ${what} longer than ${max} characters`)
  if (v.includes('\0')) throw new ApiArgumentError(`${name}: ${what} must not contain NUL characters`)
  return v
}

function int(name: string, what: string, v: unknown, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new ApiArgumentError(`${name}: ${what} must be an integer, got ${describe(v)}`)
  if (v < min || v > max) throw new ApiArgumentError(`${name}: ${what} must be between ${min} and ${max}, got ${v}`)
  return v
}

function plainObject(name: string, what: string, v: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ApiArgumentError(`${name}: ${what} must be an object, got ${describe(v)}`)
  const proto = Object.getPrototypeOf(v)
  if (proto !== Object.prototype && proto !== null) throw new ApiArgumentError(`${name}: ${what} must be a plain object`)
  for (const k of Object.keys(v)) {
    if (!allowed.includes(k)) throw new ApiArgumentError(`${name}: ${what} has an unknown property '${k.slice(0, 40)}'`)
  }
  return v as Record<string, unknown>
}

function fieldKey(name: string, what: string, v: unknown): string {
  const k = text(name, what, v, 200)
  if (!FIELD_KEY_RE.test(k)) throw new ApiArgumentError(`${name}: ${what} is not a field key: '${k.slice(0, 40)}'`)
  return k
}

function bool(name: string, what: string, v: unknown): boolean {
  if (typeof v !== 'boolean') throw new ApiArgumentError(`${name}: ${what} must be true or false, got ${describe(v)}`)
  return v
}

const UINT32 = 0xffffffff

function sortSpec(name: string, v: unknown): SortSpec | null {
  if (v === null) return null
  const o = plainObject(name, 'sort', v, ['column', 'desc'])
  const column = fieldKey(name, 'sort column', o.column)
  return { column, desc: bool(name, 'sort.desc', o.desc) }
}

export function validateViewSpec(name: string, v: unknown): ViewSpec {
  const o = plainObject(name, 'view', v, ['filter', 'sort', 'columns'])
  const filter = text(name, 'filter', o.filter, MAX_FILTER_LENGTH, { empty: true })
  const sort = sortSpec(name, o.sort ?? null)
  if (!Array.isArray(o.columns)) throw new ApiArgumentError(`${name}: columns must be an array, got ${describe(o.columns)}`)
  if (o.columns.length > MAX_COLUMNS) throw new ApiArgumentError(`${name}: at most ${MAX_COLUMNS} extra columns`)
  const columns = o.columns.map((c, i) => fieldKey(name, `columns[${i}]`, c))
  if (sort && !(BUILTIN_COLUMNS as readonly string[]).includes(sort.column) && !columns.includes(sort.column)) {
    throw new ApiArgumentError(`${name}: sort column '${sort.column}' is neither a builtin nor an extra column`)
  }
  return { filter, sort, columns }
}

function decodeAsRules(name: string, v: unknown): DecodeAsRule[] {
  if (!Array.isArray(v)) throw new ApiArgumentError(`${name}: rules must be an array, got ${describe(v)}`)
  if (v.length > MAX_DECODE_AS_RULES) throw new ApiArgumentError(`${name}: at most ${MAX_DECODE_AS_RULES} rules`)
  return v.map((r, i) => {
    const o = plainObject(name, `rules[${i}]`, r, ['match', 'protocol'])
    const match = typeof o.match === 'number' ? int(name, `rules[${i}].match`, o.match, 1, UINT32) : text(name, `rules[${i}].match`, o.match, 64)
    const protocol = text(name, `rules[${i}].protocol`, o.protocol, 32)
    if (!PROTOCOL_RE.test(protocol)) throw new ApiArgumentError(`${name}: rules[${i}].protocol is not a protocol id: '${protocol}'`)
    return { match, protocol }
  })
}

/** Protocols a conversation query may name (a few; each a protocol id). */
const MAX_QUERY_PROTOCOLS = 16

function conversationQuery(name: string, v: unknown): ConversationQuery {
  const o = plainObject(name, 'query', v, ['sort', 'desc', 'start', 'count', 'protocols', 'first'])
  const out: ConversationQuery = { start: int(name, 'start', o.start, 0, UINT32), count: int(name, 'count', o.count, 0, MAX_CONVERSATIONS_PER_REQUEST) }
  if (o.sort !== undefined) {
    if (!CONVERSATION_SORTS.includes(o.sort as ConversationSort))
      throw new ApiArgumentError(`${name}: sort must be one of ${CONVERSATION_SORTS.join(', ')}, got '${String(o.sort).slice(0, 40)}'`)
    out.sort = o.sort as ConversationSort
  }
  if (o.desc !== undefined) out.desc = bool(name, 'desc', o.desc)
  if (o.protocols !== undefined) {
    if (!Array.isArray(o.protocols)) throw new ApiArgumentError(`${name}: protocols must be an array, got ${describe(o.protocols)}`)
    if (o.protocols.length > MAX_QUERY_PROTOCOLS) throw new ApiArgumentError(`${name}: at most ${MAX_QUERY_PROTOCOLS} protocols`)
    out.protocols = o.protocols.map((p, i) => {
      const t = text(name, `protocols[${i}]`, p, 32)
      if (!PROTOCOL_RE.test(t)) throw new ApiArgumentError(`${name}: protocols[${i}] is not a protocol id: '${t}'`)
      return t
    })
  }
  if (o.first !== undefined) out.first = int(name, 'first', o.first, 1, UINT32)
  return out
}

function exportRequest(name: string, v: unknown): ExportRequest {
  const o = plainObject(name, 'request', v, ['format', 'scope', 'ids', 'includeKeys', 'tree'])
  if (o.format !== 'json' && o.format !== 'ndjson' && o.format !== 'pcapng') {
    throw new ApiArgumentError(`${name}: format must be json, ndjson or pcapng`)
  }
  if (o.scope !== 'all' && o.scope !== 'filtered' && o.scope !== 'selected') {
    throw new ApiArgumentError(`${name}: scope must be all, filtered or selected`)
  }
  const out: ExportRequest = { format: o.format, scope: o.scope }
  if (o.ids !== undefined) {
    if (!Array.isArray(o.ids)) throw new ApiArgumentError(`${name}: ids must be an array, got ${describe(o.ids)}`)
    if (o.ids.length > MAX_SELECTED_IDS) throw new ApiArgumentError(`${name}: at most ${MAX_SELECTED_IDS} ids`)
    out.ids = o.ids.map((id, i) => int(name, `ids[${i}]`, id, 1, UINT32))
  }
  if (o.scope === 'selected' && (!out.ids || out.ids.length === 0)) throw new ApiArgumentError(`${name}: scope 'selected' needs ids`)
  if (o.includeKeys !== undefined) out.includeKeys = bool(name, 'includeKeys', o.includeKeys)
  if (o.tree !== undefined) {
    if (o.tree !== 'full' && o.tree !== 'none') throw new ApiArgumentError(`${name}: tree must be 'full' or 'none'`)
    out.tree = o.tree
  }
  return out
}

export const MAX_CAPTURE_PRESETS = 32
const PRESET_RE = /^[a-z][a-z0-9-]{0,31}(:\d{1,5}(,\d{1,5}){0,31})?$/
/** libpcap takes snap lengths up to 262144 and buffers in bytes; the ring is capped so memory stays bounded. */
const MAX_SNAPLEN = 262_144
const MAX_BUFFER_SIZE = 1 << 30
const MAX_RING_FRAMES = 10_000_000
const MAX_RING_BYTES = 4 * 1024 ** 3

function captureOptions(name: string, v: unknown): CaptureOptions {
  const o = plainObject(name, 'options', v, ['interface', 'filter', 'presets', 'promiscuous', 'snapLen', 'bufferSize', 'ringFrames', 'ringBytes'])
  const iface = text(name, 'interface', o.interface, 256)
  if (!INTERFACE_RE.test(iface)) throw new ApiArgumentError(`${name}: interface name has whitespace or control characters`)
  const out: CaptureOptions = { interface: iface }
  if (o.filter !== undefined) out.filter = text(name, 'filter', o.filter, 4096, { empty: true })
  if (o.presets !== undefined) {
    if (!Array.isArray(o.presets)) throw new ApiArgumentError(`${name}: presets must be an array, got ${describe(o.presets)}`)
    if (o.presets.length > MAX_CAPTURE_PRESETS) throw new ApiArgumentError(`${name}: at most ${MAX_CAPTURE_PRESETS} presets`)
    out.presets = o.presets.map((p, i) => {
      const t = text(name, `presets[${i}]`, p, 256)
      if (!PRESET_RE.test(t)) throw new ApiArgumentError(`${name}: presets[${i}] is not a preset: '${t.slice(0, 40)}'`)
      return t
    })
  }
  if (o.promiscuous !== undefined) out.promiscuous = bool(name, 'promiscuous', o.promiscuous)
  if (o.snapLen !== undefined) out.snapLen = int(name, 'snapLen', o.snapLen, 1, MAX_SNAPLEN)
  if (o.bufferSize !== undefined) out.bufferSize = int(name, 'bufferSize', o.bufferSize, 1, MAX_BUFFER_SIZE)
  if (o.ringFrames !== undefined) out.ringFrames = int(name, 'ringFrames', o.ringFrames, 1, MAX_RING_FRAMES)
  if (o.ringBytes !== undefined) out.ringBytes = int(name, 'ringBytes', o.ringBytes, 1, MAX_RING_BYTES)
  return out
}

function diffWithOptions(name: string, v: unknown): DiffWithOptions {
  const o = plainObject(name, 'options', v, ['ignore', 'noDefaults'])
  const out: DiffWithOptions = {}
  if (o.ignore !== undefined) {
    if (!Array.isArray(o.ignore)) throw new ApiArgumentError(`${name}: ignore must be an array, got ${describe(o.ignore)}`)
    if (o.ignore.length > MAX_DIFF_IGNORES) throw new ApiArgumentError(`${name}: at most ${MAX_DIFF_IGNORES} ignore patterns`)
    out.ignore = o.ignore.map((p, i) => {
      const t = text(name, `ignore[${i}]`, p, 200)
      if (!isIgnorePattern(t)) throw new ApiArgumentError(`${name}: ignore[${i}] is not a field path such as parameters.221 or _id: '${t.slice(0, 40)}'`)
      return t
    })
  }
  if (o.noDefaults !== undefined) out.noDefaults = bool(name, 'noDefaults', o.noDefaults)
  return out
}

const validators: { [K in RequestName]: (args: unknown) => Args<K> } = {
  openCapture(args) {
    const [path] = arity('openCapture', args, 0, 1)
    return path === undefined ? [] : [text('openCapture', 'path', path, MAX_PATH_LENGTH)]
  },
  getStatus: (args) => (arity('getStatus', args, 0, 0), []),
  getConversationPage(args) {
    const [query] = arity('getConversationPage', args, 1, 1)
    return [conversationQuery('getConversationPage', query)]
  },
  getFields: (args) => (arity('getFields', args, 0, 0), []),
  checkFilter(args) {
    const [t] = arity('checkFilter', args, 1, 1)
    return [text('checkFilter', 'filter', t, MAX_FILTER_LENGTH, { empty: true })]
  },
  setView(args) {
    const [spec] = arity('setView', args, 1, 1)
    return [validateViewSpec('setView', spec)]
  },
  getRows(args) {
    const [view, start, count] = arity('getRows', args, 3, 3)
    return [int('getRows', 'viewId', view, 0, UINT32), int('getRows', 'start', start, 0, UINT32), int('getRows', 'count', count, 0, MAX_ROWS_PER_REQUEST)]
  },
  findRow(args) {
    const [view, id] = arity('findRow', args, 2, 2)
    return [int('findRow', 'viewId', view, 0, UINT32), int('findRow', 'messageId', id, 1, UINT32)]
  },
  findFrame(args) {
    const [frame] = arity('findFrame', args, 1, 1)
    return [int('findFrame', 'frame', frame, 1, UINT32)]
  },
  getMessage(args) {
    const [id] = arity('getMessage', args, 1, 1)
    return [int('getMessage', 'id', id, 1, UINT32)]
  },
  getSourceBytes(args) {
    const [id, source, offset, length] = arity('getSourceBytes', args, 4, 4)
    return [
      int('getSourceBytes', 'id', id, 1, UINT32),
      int('getSourceBytes', 'source', source, 0, 1024),
      int('getSourceBytes', 'offset', offset, 0, UINT32),
      int('getSourceBytes', 'length', length, 0, MAX_SOURCE_PAGE)
    ]
  },
  setDecodeAs(args) {
    const [rules] = arity('setDecodeAs', args, 1, 1)
    return [decodeAsRules('setDecodeAs', rules)]
  },
  listKeys: (args) => (arity('listKeys', args, 0, 0), []),
  addKeys(args) {
    const [t] = arity('addKeys', args, 1, 1)
    return [text('addKeys', 'key text', t, MAX_KEY_TEXT)]
  },
  removeKey(args) {
    const [line] = arity('removeKey', args, 1, 1)
    return [text('removeKey', 'key line', line, 4096)]
  },
  exportKeys: (args) => (arity('exportKeys', args, 0, 0), []),
  getStats(args) {
    const [o] = arity('getStats', args, 0, 1)
    if (o === undefined) return []
    if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new ApiArgumentError(`getStats: options must be an object, got ${describe(o)}`)
    const all = (o as { all?: unknown }).all
    return [all === undefined ? {} : { all: bool('getStats', 'all', all) }]
  },
  startExport(args) {
    const [req] = arity('startExport', args, 1, 1)
    return [exportRequest('startExport', req)]
  },
  cancelJob(args) {
    const [id] = arity('cancelJob', args, 1, 1)
    return [int('cancelJob', 'id', id, 0, UINT32)]
  },
  listCaptureDevices: (args) => (arity('listCaptureDevices', args, 0, 0), []),
  startCapture(args) {
    const [o] = arity('startCapture', args, 1, 1)
    return [captureOptions('startCapture', o)]
  },
  stopCapture: (args) => (arity('stopCapture', args, 0, 0), []),
  restartCapture: (args) => (arity('restartCapture', args, 0, 0), []),
  saveCapture: (args) => (arity('saveCapture', args, 0, 0), []),
  getRooms: (args) => (arity('getRooms', args, 0, 0), []),
  diffWith(args) {
    const [path, o] = arity('diffWith', args, 1, 2)
    const p = text('diffWith', 'path', path, MAX_PATH_LENGTH)
    return o === undefined ? [p] : [p, diffWithOptions('diffWith', o)]
  },
  getDiffPairs(args) {
    const [report, start, count] = arity('getDiffPairs', args, 3, 3)
    return [
      int('getDiffPairs', 'report', report, 1, UINT32),
      int('getDiffPairs', 'start', start, 0, UINT32),
      int('getDiffPairs', 'count', count, 0, MAX_DIFF_PAIRS_PER_REQUEST)
    ]
  },
  getDiffLines(args) {
    const [report, pair, start, count] = arity('getDiffLines', args, 4, 4)
    return [
      int('getDiffLines', 'report', report, 1, UINT32),
      int('getDiffLines', 'pair', pair, 0, UINT32),
      int('getDiffLines', 'start', start, 0, UINT32),
      int('getDiffLines', 'count', count, 0, MAX_DIFF_LINES_PER_REQUEST)
    ]
  },
  listSchemas: (args) => (arity('listSchemas', args, 0, 0), []),
  addSchema(args) {
    const [t] = arity('addSchema', args, 1, 1)
    return [text('addSchema', 'schema pack text', t, MAX_SCHEMA_TEXT)]
  },
  removeSchema(args) {
    const [id] = arity('removeSchema', args, 1, 1)
    return [text('removeSchema', 'schema id', id, 4096)]
  },
  queryTables: (args) => (arity('queryTables', args, 0, 0), []),
  runQuery(args) {
    const [sql] = arity('runQuery', args, 1, 1)
    return [text('runQuery', 'SQL', sql, MAX_SQL_TEXT)]
  },
  cancelQuery: (args) => (arity('cancelQuery', args, 0, 0), [])
}

export function isRequestName(name: unknown): name is RequestName {
  return typeof name === 'string' && (REQUEST_NAMES as readonly string[]).includes(name)
}

/** Checks a request's raw arguments; returns them typed or throws ApiArgumentError. */
export function validateRequest<K extends RequestName>(name: K, args: unknown): Args<K> {
  if (!isRequestName(name)) throw new ApiArgumentError(`unknown request '${String(name).slice(0, 40)}'`)
  return validators[name](args) as Args<K>
}
