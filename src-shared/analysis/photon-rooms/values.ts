// Reading the decoded Photon values the room analysis needs: parameters by code, numbers of any integer
// type, and a canonical text of a value so two values (an event's data, a removal's filter) compare by
// content. Hashtable and Dictionary entries compare without regard to their order, as the server's
// Hashtable does (docs/photon.md, Rooms and the event cache).

import type { PhotonMessageValue } from '../../protocols/photon/message'
import type { PhotonValue } from '../../protocols/photon/values'

export function param(v: PhotonMessageValue, code: number): PhotonValue | undefined {
  return v.parameters?.get(String(code))
}

/** An integer of any width (Int64 as a number), else undefined. */
export function num(v: PhotonValue | undefined): number | undefined {
  if (!v) return undefined
  if (v.type === 'Byte' || v.type === 'Int16' || v.type === 'Int32') return v.value
  if (v.type === 'Int64') return Number(v.value)
  return undefined
}

export function bool(v: PhotonValue | undefined): boolean | undefined {
  return v && v.type === 'Boolean' ? v.value : undefined
}

export function str(v: PhotonValue | undefined): string | undefined {
  return v && v.type === 'String' ? v.value : undefined
}

/** The integers of an actor list (IntArray, or an array of integers). */
export function ints(v: PhotonValue | undefined): number[] | undefined {
  if (!v) return undefined
  if (v.type === 'IntArray' || v.type === 'Int16Array') return v.value
  if (v.type === 'Array' || v.type === 'ObjectArray') return v.value.map(num).filter((n): n is number => n !== undefined)
  const one = num(v)
  return one === undefined ? undefined : [one]
}

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')

/** A canonical text of a value: equal texts mean equal content (type included, entry order ignored). */
export function canon(v: PhotonValue | undefined): string {
  if (!v) return '-'
  switch (v.type) {
    case 'Null':
      return 'null'
    case 'Boolean':
      return String(v.value)
    case 'String':
      return JSON.stringify(v.value)
    case 'Int64':
      return `L${v.value}`
    case 'Byte':
    case 'Int16':
    case 'Int32':
    case 'Float':
    case 'Double':
      return `${v.type[0]}${v.type === 'Int16' ? 's' : ''}${v.value}`
    case 'ByteArray':
      return `x${hex(v.value)}`
    case 'Custom':
      return `c${v.code}:${hex(v.value)}`
    case 'Hashtable':
    case 'Dictionary':
      return `{${v.value
        .map((e) => `${canon(e.key)}=${canon(e.value)}`)
        .sort()
        .join(',')}}`
    case 'EventData':
    case 'OperationRequest':
    case 'OperationResponse':
      return `${v.type}${v.code}{${[...v.parameters].map(([k, x]) => `${k}=${canon(x)}`).join(',')}}`
    case 'IntArray':
    case 'Int16Array':
    case 'FloatArray':
    case 'DoubleArray':
    case 'BooleanArray':
    case 'StringArray':
      return `${v.type}[${v.value.map((x) => JSON.stringify(x)).join(',')}]`
    case 'Int64Array':
      return `Int64Array[${v.value.join(',')}]`
    default:
      return `${v.type}[${(v.value as PhotonValue[]).map(canon).join(',')}]`
  }
}

/** A Hashtable's entries as canonical key → canonical value. */
export function entries(v: PhotonValue | undefined): Map<string, string> | undefined {
  if (!v || (v.type !== 'Hashtable' && v.type !== 'Dictionary')) return undefined
  return new Map(v.value.map((e) => [canon(e.key), canon(e.value)]))
}

/** The value under a byte key (as the well-known room and actor properties use) in a Hashtable. */
export function byteKey(v: PhotonValue | undefined, key: number): PhotonValue | undefined {
  if (!v || (v.type !== 'Hashtable' && v.type !== 'Dictionary')) return undefined
  return v.value.find((e) => num(e.key) === key && e.key.type === 'Byte')?.value
}

/**
 * Photon's data filter of RemoveFromRoomCache: a Hashtable filter matches data holding every one of its
 * entries (a subset); any other filter matches equal data.
 */
export function dataMatches(filter: PhotonValue, data: PhotonValue | undefined): boolean {
  const f = entries(filter)
  if (!f) return canon(filter) === canon(data)
  const d = entries(data)
  if (!d) return false
  for (const [k, x] of f) if (d.get(k) !== x) return false
  return true
}
