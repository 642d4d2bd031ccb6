// Key files (`--keylog FILE`, and import/export in the key panel). Format, per the contract in
// README.md, Key files:
//
//   # comment                                   (also trailing, after the fields)
//   PHOTON_SECRET     <conv> <hex>                Photon DH shared secret (any length)
//   PHOTON_AES_KEY    <conv> <hex, 32 bytes>      Photon AES-256 key
//   PHOTON_DH_PRIVATE <conv> <hex>                one side's DH private exponent (any length)
//   SFS2X_AES         <conv> <hex16 key> <hex16 iv>
//   FIGNET_KEY        <conv> <c2s|s2c|both> <hex, 32 bytes>
//
// <conv> is `*` or `CLIENT-SERVER` as `ip:port-ip:port` (IPv6 in brackets: `[::1]:5055-[::1]:5056`).
// Fields are separated by whitespace; hex is case-insensitive (an optional 0x prefix is accepted).
// Unknown line types are warnings (one per type); malformed lines throw KeyFileError naming the line.

import { parseEndpoint } from '../filter/ip'

export type KeyType = 'PHOTON_SECRET' | 'PHOTON_AES_KEY' | 'PHOTON_DH_PRIVATE' | 'SFS2X_AES' | 'FIGNET_KEY'
export type KeyDirection = 'c2s' | 's2c' | 'both'

export interface KeyConversation {
  /** Normalised `ip:port` (IPv6 lowercased, in brackets). */
  client: string
  server: string
}

export interface KeyEntry {
  type: KeyType
  conversation: '*' | KeyConversation
  /** FIGNET_KEY only. */
  direction?: KeyDirection
  key: Uint8Array
  /** SFS2X_AES only. */
  iv?: Uint8Array
  /** 1-based line in the file it was read from (0 for keys added in the app). */
  line: number
}

export class KeyFileError extends Error {
  constructor(
    message: string,
    readonly line: number
  ) {
    super(message)
    this.name = 'KeyFileError'
  }
}

interface TypeSpec {
  /** Number of fields after the type. */
  fields: number
  /** Required key length in bytes, or 0 for any non-empty length. */
  keyLen: number
  usage: string
}

export const KEY_TYPES: Readonly<Record<KeyType, TypeSpec>> = {
  PHOTON_SECRET: { fields: 2, keyLen: 0, usage: 'PHOTON_SECRET <conv> <hex>' },
  PHOTON_AES_KEY: { fields: 2, keyLen: 32, usage: 'PHOTON_AES_KEY <conv> <hex, 32 bytes>' },
  PHOTON_DH_PRIVATE: { fields: 2, keyLen: 0, usage: 'PHOTON_DH_PRIVATE <conv> <hex>' },
  SFS2X_AES: { fields: 3, keyLen: 16, usage: 'SFS2X_AES <conv> <hex16 key> <hex16 iv>' },
  FIGNET_KEY: { fields: 3, keyLen: 32, usage: 'FIGNET_KEY <conv> <c2s|s2c|both> <hex, 32 bytes>' }
}

function isKeyType(s: string): s is KeyType {
  return Object.hasOwn(KEY_TYPES, s)
}

/** Parses a conversation field: `*` or `ip:port-ip:port`. Returns null when malformed. */
export function parseConversation(s: string): '*' | KeyConversation | null {
  if (s === '*') return '*'
  // IPv4 and bracketed IPv6 endpoints contain no '-', so the single '-' separates them
  const parts = s.split('-')
  if (parts.length !== 2) return null
  const a = parseEndpoint(parts[0])
  const b = parseEndpoint(parts[1])
  if (!a || !b) return null
  return { client: a.text, server: b.text }
}

/** Normalises one `ip:port` endpoint (IPv6 lowercased, in brackets); returns the input when it does not parse. */
export function normalizeEndpoint(s: string): string {
  return parseEndpoint(s.trim())?.text ?? s.trim().toLowerCase()
}

/** A field of a key line and the 1-based column where it starts. */
interface LineField {
  text: string
  column: number
}

/**
 * Reads a hex field. Errors give the line and column of the first bad character and never any of the
 * field's text: a malformed line is usually a key with a typo, and messages reach stderr and the API.
 */
function parseHex(field: LineField, line: number, what: string, type: string): Uint8Array {
  const prefix = /^0x/i.test(field.text) ? 2 : 0
  const hex = field.text.slice(prefix)
  if (hex.length === 0) throw new KeyFileError(`line ${line}, column ${field.column}: ${type} ${what} has no hex digits`, line)
  const bad = hex.search(/[^0-9a-fA-F]/)
  if (bad !== -1)
    throw new KeyFileError(`line ${line}, column ${field.column + prefix + bad}: ${type} ${what} is not hex (a character other than 0-9, a-f)`, line)
  if (hex.length % 2 !== 0) throw new KeyFileError(`line ${line}: ${type} ${what} has an odd number of hex digits (${hex.length})`, line)
  const out = new Uint8Array(hex.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return out
}

function checkLen(b: Uint8Array, len: number, line: number, type: string, what: string): void {
  if (len && b.length !== len) {
    throw new KeyFileError(`line ${line}: ${type} ${what} must be ${len} bytes (${len * 2} hex digits), got ${b.length} bytes`, line)
  }
}

/** Parses key-file text. Throws KeyFileError on the first malformed line. */
export function parseKeyFile(text: string): { keys: KeyEntry[]; warnings: string[] } {
  const keys: KeyEntry[] = []
  const warnings: string[] = []
  const unknown = new Map<string, number[]>()
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1
    const hash = lines[i].indexOf('#')
    const fields: LineField[] = [...(hash === -1 ? lines[i] : lines[i].slice(0, hash)).matchAll(/\S+/g)].map((m) => ({ text: m[0], column: m.index + 1 }))
    if (fields.length === 0) continue
    const f = fields.map((x) => x.text)
    const type = f[0].toUpperCase()
    if (!isKeyType(type)) {
      // Only a name is repeated back: a first field that is not one may be a pasted key.
      const name = /^[A-Za-z_][A-Za-z0-9_]{0,39}$/.test(f[0]) ? f[0] : '(not a key type name)'
      const seen = unknown.get(name)
      if (seen) seen.push(lineNo)
      else unknown.set(name, [lineNo])
      continue
    }
    const spec = KEY_TYPES[type]
    if (f.length - 1 !== spec.fields) {
      throw new KeyFileError(`line ${lineNo}: ${type} needs ${spec.fields} fields after the type, got ${f.length - 1} (expected: ${spec.usage})`, lineNo)
    }
    const conversation = parseConversation(f[1])
    if (!conversation) {
      // A long hex run there is a key in the wrong place: not echoed.
      const shown = /[0-9a-fA-F]{16,}/.test(f[1]) ? '' : ` '${f[1]}'`
      throw new KeyFileError(`line ${lineNo}: bad conversation${shown} (expected * or ip:port-ip:port, IPv6 as [addr]:port)`, lineNo)
    }
    const entry: KeyEntry = { type, conversation, key: new Uint8Array(0), line: lineNo }
    switch (type) {
      case 'SFS2X_AES':
        entry.key = parseHex(fields[2], lineNo, 'key', type)
        checkLen(entry.key, 16, lineNo, type, 'key')
        entry.iv = parseHex(fields[3], lineNo, 'IV', type)
        checkLen(entry.iv, 16, lineNo, type, 'IV')
        break
      case 'FIGNET_KEY': {
        const d = f[2].toLowerCase()
        if (d !== 'c2s' && d !== 's2c' && d !== 'both') {
          throw new KeyFileError(
            `line ${lineNo}, column ${fields[2].column}: FIGNET_KEY direction must be c2s, s2c or both${f[2].length <= 8 ? `, got '${f[2]}'` : ''}`,
            lineNo
          )
        }
        entry.direction = d
        entry.key = parseHex(fields[3], lineNo, 'key', type)
        checkLen(entry.key, 32, lineNo, type, 'key')
        break
      }
      default:
        entry.key = parseHex(fields[2], lineNo, 'key', type)
        checkLen(entry.key, spec.keyLen, lineNo, type, 'key')
    }
    keys.push(entry)
  }
  for (const [type, at] of unknown) {
    const more = at.length > 1 ? ` (also on line${at.length > 2 ? 's' : ''} ${at.slice(1).join(', ')})` : ''
    warnings.push(`unknown key type ${type} on line ${at[0]}, skipped${more}`)
  }
  return { keys, warnings }
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))
function hex(b: Uint8Array): string {
  let s = ''
  for (let i = 0; i < b.length; i++) s += HEX[b[i]]
  return s
}

/** Formats one entry as a key-file line (no trailing newline). */
export function formatKeyLine(k: KeyEntry): string {
  const conv = k.conversation === '*' ? '*' : `${k.conversation.client}-${k.conversation.server}`
  const parts: string[] = [k.type, conv]
  if (k.type === 'FIGNET_KEY') parts.push(k.direction ?? 'both')
  parts.push(hex(k.key))
  if (k.type === 'SFS2X_AES') parts.push(hex(k.iv ?? new Uint8Array(16)))
  return parts.join(' ')
}

/** Formats keys as a key file, one per line; `parseKeyFile` reads it back to the same entries. */
export function formatKeyFile(keys: readonly KeyEntry[]): string {
  return keys.map((k) => formatKeyLine(k) + '\n').join('')
}
