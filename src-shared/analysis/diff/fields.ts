// A message's decoded `value` as leaves keyed by path, for field-by-field comparison. Paths are the
// export's JSON keys joined with '.', with the typed wrappers the decoders use ({type, value}: Photon,
// SFS2X and FigNet values) collapsed, so a path reads like the data: `parameters.248.255`,
// `body.p.p.uid`, `payload.RoomName`. Photon Hashtable/Dictionary entries are keyed by their key's value.

import { toHex } from '../../bytes/tree'

export type Scalar = string | number | boolean | null

export interface Leaf {
  value: Scalar
  /** The wrapper's type name (`Int32`, `UTF_STRING`, `uint`), when the value had one. */
  type?: string
}

const MAX_DEPTH = 48

export function scalar(v: unknown): Scalar | undefined {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v)
  if (typeof v === 'bigint') return v.toString()
  if (v instanceof Uint8Array) return toHex(v)
  return undefined
}

export function isWrapper(v: object): v is { type: string; value: unknown; decoded?: unknown } {
  return !(v instanceof Map) && !Array.isArray(v) && typeof (v as { type?: unknown }).type === 'string' && 'value' in v
}

/** Entries of a Photon Hashtable/Dictionary: [{key, value}, …]. */
export function isEntryList(v: unknown[]): v is { key: unknown; value: unknown }[] {
  return (
    v.length > 0 &&
    v.every(
      (e) =>
        e !== null && typeof e === 'object' && !Array.isArray(e) && 'key' in (e as object) && 'value' in (e as object) && Object.keys(e as object).length === 2
    )
  )
}

export function keySegment(k: unknown, index: number): string {
  const s = scalar(k !== null && typeof k === 'object' && isWrapper(k) ? k.value : k)
  return s === undefined || s === null ? `[${index}]` : String(s)
}

/** Every leaf of `value`, in the value's own order. digest.ts walks values the same way without the map: change both together. */
export function valueLeaves(value: unknown): Map<string, Leaf> {
  const out = new Map<string, Leaf>()
  walk(value, '', undefined, 0, out)
  return out
}

function walk(x: unknown, path: string, type: string | undefined, depth: number, out: Map<string, Leaf>): void {
  if (isLeaf(x, depth)) {
    const s = scalar(x) ?? null
    if (x !== undefined) out.set(path, type === undefined ? { value: s } : { value: s, type })
    return
  }
  const v = x as object
  const at = (seg: string) => (path ? `${path}.${seg}` : seg)
  if (isWrapper(v)) {
    return walk(wrapped(v), path, v.type, depth + 1, out)
  }
  if (v instanceof Map) {
    if (v.size === 0) out.set(path, { value: '{}', ...(type ? { type } : {}) })
    for (const [k, x] of v) walk(x, at(String(k)), undefined, depth + 1, out)
    return
  }
  if (Array.isArray(v)) {
    if (v.length === 0) out.set(path, { value: '[]', ...(type ? { type } : {}) })
    if (isEntryList(v)) v.forEach((e, i) => walk(e.value, at(keySegment(e.key, i)), undefined, depth + 1, out))
    else v.forEach((x, i) => walk(x, at(String(i)), undefined, depth + 1, out))
    return
  }
  const keys = Object.keys(v)
  if (keys.length === 0) out.set(path, { value: '{}', ...(type ? { type } : {}) })
  for (const k of keys) walk((v as Record<string, unknown>)[k], at(k), undefined, depth + 1, out)
}

/** Whether `p` is a volatile-field pattern FieldPatterns takes: non-empty segments, an optional leading '/'. */
export function isIgnorePattern(p: string): boolean {
  return /^\/?[^.\s]+(\.[^.\s]+)*$/.test(p)
}

/**
 * Volatile-field patterns, tested together. A pattern is segments joined with '.', `*` standing for any
 * one segment. It matches a path when its segments match a run of consecutive segments of the path
 * anywhere (or, with a leading '/', at the start of the path), and then covers that field and everything
 * under it: `_id` skips every `_id`, `/parameters.221` Photon's token parameter, `/enet` the whole ENet
 * header group. Tested on a whole path, or, for a walk that builds paths segment by segment (digest.ts),
 * on the run that ends at the segment just added: a path is covered when some prefix of its segments ends
 * in a matching run.
 */
export class FieldPatterns {
  /** One-segment patterns anchored at the start, without `*`: the defaults are nearly all of this kind. */
  private readonly firstSegment = new Set<string>()
  private readonly anchored: string[][] = []
  private readonly floating: string[][] = []
  /** A pattern without segments ('/') matches every path. */
  private readonly all: boolean

  constructor(patterns: readonly string[]) {
    let all = false
    for (const pattern of patterns) {
      const anchored = pattern.startsWith('/')
      const p = (anchored ? pattern.slice(1) : pattern).split('.').filter((s) => s !== '')
      if (p.length === 0) all = true
      else if (anchored && p.length === 1 && p[0] !== '*') this.firstSegment.add(p[0])
      else (anchored ? this.anchored : this.floating).push(p)
    }
    this.all = all
  }

  /** Whether a pattern matches `path` (its segments split at '.'). */
  test(path: string): boolean {
    const s = path.split('.')
    for (let i = 0; i < s.length; i++) if (this.endsAt(s, i)) return true
    return false
  }

  /** Whether a pattern matches a run of `s` that ends at s[last] (an anchored one: the run s[0..last]). */
  endsAt(s: readonly string[], last: number): boolean {
    if (this.all) return true
    if (last === 0 && this.firstSegment.has(s[0])) return true
    for (const p of this.anchored) if (p.length === last + 1 && runMatches(p, s, 0)) return true
    for (const p of this.floating) if (p.length <= last + 1 && runMatches(p, s, last + 1 - p.length)) return true
    return false
  }
}

function runMatches(p: readonly string[], s: readonly string[], from: number): boolean {
  for (let k = 0; k < p.length; k++) if (p[k] !== '*' && p[k] !== s[from + k]) return false
  return true
}

/** Whether valueLeaves makes `v` one leaf (a scalar, nothing to walk into, or too deep), without making its scalar. */
export function isLeaf(v: unknown, depth: number): boolean {
  return v === undefined || v === null || typeof v !== 'object' || v instanceof Uint8Array || depth > MAX_DEPTH
}

/** What valueLeaves walks into for a wrapper: its decoded form when it has one (Photon Custom types, FigNet TransformLite bytes read better than their bytes). */
export function wrapped(w: { value: unknown; decoded?: unknown }): unknown {
  return w.decoded !== undefined && w.decoded !== null ? w.decoded : w.value
}
