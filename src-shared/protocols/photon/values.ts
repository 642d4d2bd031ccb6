// Photon typed values (GpBinary 1.6 and 1.8) in the shape of the decoded-JSON contract
// (README.md, The decoded JSON, "Typed values" → Photon). Int64 stays bigint and byte arrays stay
// Uint8Array until exported; parameters are Maps keyed by the decimal byte code, in wire order.

export type PhotonTypeName =
  | 'Null'
  | 'Boolean'
  | 'Byte'
  | 'Int16'
  | 'Int32'
  | 'Int64'
  | 'Float'
  | 'Double'
  | 'String'
  | 'ByteArray'
  | 'IntArray'
  | 'StringArray'
  | 'ObjectArray'
  | 'Array'
  | 'Hashtable'
  | 'Dictionary'
  | 'Custom'
  | 'EventData'
  | 'OperationRequest'
  | 'OperationResponse'
  // Protocol18 only
  | 'BooleanArray'
  | 'Int16Array'
  | 'FloatArray'
  | 'DoubleArray'
  | 'Int64Array'
  | 'CustomArray'
  | 'DictionaryArray'
  | 'HashtableArray'

/** A Dictionary key/value type: a type name, or 'Object' when every entry carries its own type byte. */
export type PhotonSlotType = PhotonTypeName | 'Object'

/** Parameters keyed by the decimal byte code, in wire order (a plain object would reorder numeric keys). */
export type PhotonParams = Map<string, PhotonValue>

export interface PhotonEntry {
  key: PhotonValue
  value: PhotonValue
}

export type PhotonCustom = {
  type: 'Custom'
  code: number
  value: Uint8Array
  /** The fields of a PUN type, or of a type a schema pack lays out. */
  decoded?: Record<string, number | bigint | boolean | Uint8Array>
  /** A schema pack's name for the type. */
  name?: string
}
export type PhotonHashtable = { type: 'Hashtable'; value: PhotonEntry[] }
export type PhotonDictionary = { type: 'Dictionary'; keyType: PhotonSlotType; valueType: PhotonSlotType; value: PhotonEntry[] }
export type PhotonEventData = { type: 'EventData'; code: number; parameters: PhotonParams }
export type PhotonOperationRequest = { type: 'OperationRequest'; code: number; parameters: PhotonParams }
export type PhotonOperationResponse = { type: 'OperationResponse'; code: number; returnCode: number; debugMessage: PhotonValue; parameters: PhotonParams }

export type PhotonValue =
  | { type: 'Null'; value: null }
  | { type: 'Boolean'; value: boolean }
  | { type: 'Byte' | 'Int16' | 'Int32' | 'Float' | 'Double'; value: number }
  | { type: 'Int64'; value: bigint }
  | { type: 'String'; value: string }
  | { type: 'ByteArray'; value: Uint8Array; nested?: unknown }
  | { type: 'IntArray' | 'Int16Array' | 'FloatArray' | 'DoubleArray'; value: number[] }
  | { type: 'Int64Array'; value: bigint[] }
  | { type: 'BooleanArray'; value: boolean[] }
  | { type: 'StringArray'; value: string[] }
  | { type: 'ObjectArray'; value: PhotonValue[] }
  | { type: 'Array'; elementType: PhotonSlotType; value: PhotonValue[] }
  | PhotonHashtable
  | PhotonDictionary
  | PhotonCustom
  | { type: 'CustomArray'; code: number; value: PhotonCustom[] }
  | { type: 'DictionaryArray'; keyType: PhotonSlotType; valueType: PhotonSlotType; value: PhotonDictionary[] }
  | { type: 'HashtableArray'; value: PhotonHashtable[] }
  | PhotonEventData
  | PhotonOperationRequest
  | PhotonOperationResponse

const MAX_ITEMS = 8

function previewString(s: string, max: number): string {
  return s.length > max ? `${JSON.stringify(s.slice(0, max))}… (${s.length} chars)` : JSON.stringify(s)
}

function hexHead(b: Uint8Array, n = 16): string {
  let s = ''
  for (let i = 0; i < Math.min(b.length, n); i++) s += b[i].toString(16).padStart(2, '0')
  return b.length > n ? `${s}…` : s
}

function list(items: readonly unknown[], show: (x: never) => string): string {
  const head = items.slice(0, MAX_ITEMS).map((x) => show(x as never))
  return `[${head.join(', ')}${items.length > MAX_ITEMS ? `, … ${items.length - MAX_ITEMS} more` : ''}]`
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** The type as shown in labels: `Array<String>`, `Dictionary<Byte,Object>`, `Custom 86`, else the type name. */
export function typeText(v: PhotonValue): string {
  switch (v.type) {
    case 'Array':
      return `Array<${v.elementType}>`
    case 'Dictionary':
    case 'DictionaryArray':
      return `${v.type}<${v.keyType},${v.valueType}>`
    case 'Custom':
    case 'CustomArray':
      return `${v.type} ${customCodeText(v.code)}`
    default:
      return v.type
  }
}

/** 86 → `'V' (86)`: PUN registers its types under printable letters. */
export function customCodeText(code: number): string {
  return code >= 0x21 && code < 0x7f ? `'${String.fromCharCode(code)}' (${code})` : String(code)
}

/**
 * A short one-line rendering of a value for labels and summaries (no type name; see typeText).
 * `max` bounds string previews.
 */
export function previewValue(v: PhotonValue, max = 60): string {
  switch (v.type) {
    case 'Null':
      return 'null'
    case 'String':
      return previewString(v.value, max)
    case 'ByteArray':
      return v.value.length ? `${plural(v.value.length, 'byte')}: ${hexHead(v.value)}` : '0 bytes'
    case 'Custom':
      return v.decoded
        ? `{${Object.entries(v.decoded)
            .map(([k, x]) => `${k}: ${x instanceof Uint8Array ? `${x.length} bytes` : String(x)}`)
            .join(', ')}}`
        : `${plural(v.value.length, 'byte')}${v.value.length ? `: ${hexHead(v.value)}` : ''}`
    case 'IntArray':
    case 'Int16Array':
    case 'FloatArray':
    case 'DoubleArray':
    case 'Int64Array':
    case 'BooleanArray':
      return list(v.value, (x: number | bigint | boolean) => String(x))
    case 'StringArray':
      return list(v.value, (x: string) => previewString(x, 24))
    case 'Array':
    case 'ObjectArray':
      return v.value.length && v.value.length <= MAX_ITEMS && v.value.every(isScalar)
        ? list(v.value, (x: PhotonValue) => previewValue(x, 24))
        : `(${plural(v.value.length, 'element')})`
    case 'CustomArray':
    case 'DictionaryArray':
    case 'HashtableArray':
      return `(${plural(v.value.length, 'element')})`
    case 'Hashtable':
    case 'Dictionary':
      return `(${plural(v.value.length, 'entry', 'entries')})`
    case 'EventData':
    case 'OperationRequest':
      return `code ${v.code} (${plural(v.parameters.size, 'parameter')})`
    case 'OperationResponse':
      return `code ${v.code} returnCode ${v.returnCode} (${plural(v.parameters.size, 'parameter')})`
    default:
      return String(v.value)
  }
}

/** Scalars: shown inline and usable as a tree key segment. */
export function isScalar(v: PhotonValue): boolean {
  switch (v.type) {
    case 'Null':
    case 'Boolean':
    case 'Byte':
    case 'Int16':
    case 'Int32':
    case 'Int64':
    case 'Float':
    case 'Double':
    case 'String':
      return true
    default:
      return false
  }
}
