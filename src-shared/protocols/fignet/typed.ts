// FigNet typed values in the shape of the decoded-JSON contract (README.md, The decoded JSON, FigNet):
// `{type: <C# type name>, value, name?}`. 64-bit integers stay bigint and byte arrays Uint8Array until the
// export turns them into decimal strings and lowercase hex. Model values are plain objects of typed
// fields in declaration order (field names are never integer-like, so object order is wire order).

export interface Typed {
  /** C# type name (`byte`, `uint`, `string`, `byte[]`, `List<T>`, a model or enum name), or a MessagePack format family. */
  type: string
  value: unknown
  /** Enum member name. */
  name?: string
  /** What the field carries in this direction when the code reuses it (docs/fignet.md, guide §10). */
  meaning?: string
  /** Set on values whose type was guessed (generic decoding of undocumented models). */
  guessed?: true
  [extra: string]: unknown
}

export type TypedFields = Record<string, Typed>

const MAX_STRING = 40

/** A short rendering for summaries: strings quoted and cut, bytes as a count, enums by name. */
export function brief(t: Typed | undefined): string {
  if (!t) return '?'
  if (t.name !== undefined) return t.name
  const v = t.value
  if (v === null || v === undefined) return 'null'
  if (typeof v === 'string') return JSON.stringify(v.length > MAX_STRING ? `${v.slice(0, MAX_STRING)}…` : v)
  if (v instanceof Uint8Array) return `${v.length} byte${v.length === 1 ? '' : 's'}`
  if (Array.isArray(v)) return `${v.length} item${v.length === 1 ? '' : 's'}`
  if (typeof v === 'object') return t.type
  return String(v)
}

/** The plain number of a typed integer (NaN when it is not one). */
export function num(t: Typed | undefined): number {
  if (!t) return NaN
  if (typeof t.value === 'number') return t.value
  if (typeof t.value === 'bigint') return Number(t.value)
  return NaN
}

/** The fraction texts of thousandths 0..999 (".5", ".25", ".125", "" for 0), made once. */
const THOUSANDTHS: readonly string[] = Array.from({ length: 1000 }, (_, i) => (i === 0 ? '' : `.${String(i).padStart(3, '0').replace(/0+$/, '')}`))
/** Below this many thousandths (1e12 in value) a double's ulp is far under 0.0005: the decimal is its shortest text. */
const EXACT_THOUSANDTHS = 1e15

/**
 * `String(Math.round(v * 1000) / 1000)` (summaries show positions to 3 decimals), built from the integer
 * thousandths: number-to-text of a fraction costs more than that. Values outside ±1e12 and non-finite ones
 * go the String way. Same text: k/1000 with |k| < 1e15 prints as its ≤3-decimal form, the shortest that
 * reads back to it.
 */
export function round3Text(v: number): string {
  const k = Math.round(v * 1000)
  if (!(k > -EXACT_THOUSANDTHS && k < EXACT_THOUSANDTHS)) return String(k / 1000)
  if (k === 0) return '0' // also -0, which String prints as 0
  const a = k < 0 ? -k : k
  const whole = Math.floor(a / 1000)
  const text = `${whole}${THOUSANDTHS[a - whole * 1000]}`
  return k < 0 ? `-${text}` : text
}
