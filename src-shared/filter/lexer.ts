// Tokenizer of the display-filter language. It never throws: problems become `error` tokens that carry
// a message, so the filter bar can highlight a half-typed expression. `compileFilter` turns the first
// error token into a FilterError.

import { lookupField } from '../bytes/fields'
import { parseIPv4, parseIPv6 } from './ip'

export type TokenKind =
  | 'field' // a field or protocol key: photon.op.code, udp, sfs2x.p
  | 'name' // a dot-less bare word in value position: a named value (RaiseEvent) or an unquoted string
  | 'function' // len, count, lower, upper (followed by '(')
  | 'operator' // == != === !== ~= < > <= >= eq ne ... contains matches ~ & ..
  | 'keyword' // and or xor not in true false (and && || ^^ !)
  | 'number' // 42 -7 0x1f 1.5
  | 'string' // "text" r"raw"
  | 'bytes' // aa:bb:cc aa-bb-cc aa.bb.cc
  | 'address' // 10.0.0.1 10.0.0.0/8 ::1 fe80::1 2001:db8::/32
  | 'slice' // the inside of [ ... ] after a field: 0:2, -4:, 1-3, 0:2,5
  | 'paren' // ( )
  | 'brace' // { }
  | 'bracket' // [ ]
  | 'comma' // ,
  | 'error'

export interface Token {
  kind: TokenKind
  /** [start, end) in the expression. */
  start: number
  end: number
  text: string
  /** Normalised operator ('==', '!=', 'and', ...) for operators and keywords. */
  op?: string
  /** Decoded text of a string token. */
  str?: string
  /** Bytes of a string token: UTF-8 of its characters, except \xHH and octal escapes, which are raw bytes. */
  strBytes?: Uint8Array
  /** Why an error token is an error. */
  error?: string
}

/** A problem in a filter expression, with the character range [start, end) it is about. */
export class FilterError extends Error {
  constructor(
    message: string,
    readonly start: number,
    readonly end: number
  ) {
    super(message)
    this.name = 'FilterError'
  }
}

const WORD_OPS: Record<string, string> = {
  eq: '==',
  ne: '!=',
  lt: '<',
  gt: '>',
  le: '<=',
  ge: '>=',
  any_eq: '==',
  all_ne: '!=',
  all_eq: '===',
  any_ne: '~=',
  contains: 'contains',
  matches: 'matches',
  bitwise_and: '&'
}
const WORD_KEYWORDS: Record<string, string> = { and: 'and', or: 'or', xor: 'xor', not: 'not', in: 'in', true: 'true', false: 'false' }
export const FUNCTIONS = new Set(['len', 'count', 'lower', 'upper'])

/** Symbol operators, longest first. `null` marks a symbol that is not an operator (an error with a hint). */
const SYMBOLS: [string, string | null, TokenKind][] = [
  ['===', '===', 'operator'],
  ['!==', '~=', 'operator'],
  ['==', '==', 'operator'],
  ['!=', '!=', 'operator'],
  ['~=', '~=', 'operator'],
  ['<=', '<=', 'operator'],
  ['>=', '>=', 'operator'],
  ['&&', 'and', 'keyword'],
  ['||', 'or', 'keyword'],
  ['^^', 'xor', 'keyword'],
  ['..', '..', 'operator'],
  ['<', '<', 'operator'],
  ['>', '>', 'operator'],
  ['!', 'not', 'keyword'],
  ['&', '&', 'operator'],
  ['~', 'matches', 'operator'],
  ['=', null, 'error'],
  ['|', null, 'error'],
  ['^', null, 'error']
]
const SYMBOL_HINT: Record<string, string> = { '=': "'=='", '|': "'||' or 'or'", '^': "'^^' or 'xor'" }

/** Operators after which a value is expected (so a bare word there is a 'name', not a field). */
export const VALUE_OPS = new Set(['==', '!=', '===', '~=', '<', '>', '<=', '>=', 'contains', 'matches', '&', '..'])

function isWordStart(c: string, next: string | undefined): boolean {
  return /[A-Za-z0-9_:]/.test(c) || (c === '-' && next !== undefined && /[0-9]/.test(next))
}
const WORD_CHAR = /[A-Za-z0-9_.:\-/]/

export const FIELD_RE = /^[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/
export const NUMBER_RE = /^-?(?:0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+)$/
export const BYTES_RE = /^[0-9a-fA-F]{2}(?:([:.-])[0-9a-fA-F]{2}(?:\1[0-9a-fA-F]{2})*)?$/

/** Lexical class of a word (without context). */
export function classifyWord(text: string): TokenKind {
  const lower = text.toLowerCase()
  if (WORD_OPS[lower] !== undefined) return 'operator'
  if (WORD_KEYWORDS[lower] !== undefined) return 'keyword'
  if (NUMBER_RE.test(text)) return 'number'
  if (isAddressWord(text)) return 'address'
  if (text.length > 2 && BYTES_RE.test(text)) return 'bytes'
  if (FIELD_RE.test(text)) return 'field'
  return 'error'
}

/** IPv4, IPv6 or either with a /prefix. */
export function isAddressWord(text: string): boolean {
  return parseAddressWord(text) !== null
}

export function parseAddressWord(text: string): { bytes: Uint8Array; prefix?: number } | null {
  const slash = text.indexOf('/')
  const addr = slash === -1 ? text : text.slice(0, slash)
  const bytes = addr.includes(':') ? parseIPv6(addr) : parseIPv4(addr)
  if (!bytes) return null
  if (slash === -1) return { bytes }
  const p = text.slice(slash + 1)
  if (!/^[0-9]{1,3}$/.test(p)) return null
  const prefix = Number(p)
  if (prefix > bytes.length * 8) return null
  return { bytes, prefix }
}

const enc = new TextEncoder()

/** Decodes a quoted string starting at `i` (the opening quote, or the `r` of a raw string). */
function scanString(expr: string, i: number): Token {
  const start = i
  const raw = expr[i] === 'r'
  if (raw) i++
  i++ // opening quote
  let str = ''
  const bytes: number[] = []
  const pushText = (s: string) => {
    str += s
    for (const b of enc.encode(s)) bytes.push(b)
  }
  const pushRaw = (b: number) => {
    str += String.fromCharCode(b)
    bytes.push(b)
  }
  while (i < expr.length) {
    const c = expr[i]
    if (c === '"') {
      return { kind: 'string', start, end: i + 1, text: expr.slice(start, i + 1), str, strBytes: Uint8Array.from(bytes) }
    }
    if (c !== '\\') {
      // keep surrogate pairs together so their UTF-8 is right
      const cp = expr.codePointAt(i)!
      const ch = String.fromCodePoint(cp)
      pushText(ch)
      i += ch.length
      continue
    }
    if (i + 1 >= expr.length) break
    const e = expr[i + 1]
    if (raw) {
      // raw strings keep the backslash; \" does not end the string
      pushText('\\' + e)
      i += 2
      continue
    }
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v', '\\': '\\', '"': '"', "'": "'" }
    if (simple[e] !== undefined) {
      pushText(simple[e])
      i += 2
    } else if (e === 'x') {
      const m = /^[0-9a-fA-F]{1,2}/.exec(expr.slice(i + 2, i + 4))
      if (!m)
        return {
          kind: 'error',
          start: i,
          end: Math.min(expr.length, i + 2),
          text: expr.slice(i, i + 2),
          error: `invalid escape '\\x' in string at ${i} (expected hex digits)`
        }
      pushRaw(parseInt(m[0], 16))
      i += 2 + m[0].length
    } else if (e === 'u') {
      const m = /^[0-9a-fA-F]{4}/.exec(expr.slice(i + 2, i + 6))
      if (!m)
        return {
          kind: 'error',
          start: i,
          end: Math.min(expr.length, i + 2),
          text: expr.slice(i, i + 2),
          error: `invalid escape '\\u' in string at ${i} (expected 4 hex digits)`
        }
      pushText(String.fromCharCode(parseInt(m[0], 16)))
      i += 6
    } else if (/[0-7]/.test(e)) {
      const m = /^[0-7]{1,3}/.exec(expr.slice(i + 1, i + 4))!
      const v = parseInt(m[0], 8)
      if (v > 255)
        return { kind: 'error', start: i, end: i + 1 + m[0].length, text: expr.slice(i, i + 1 + m[0].length), error: `octal escape out of range at ${i}` }
      pushRaw(v)
      i += 1 + m[0].length
    } else {
      return { kind: 'error', start: i, end: i + 2, text: expr.slice(i, i + 2), error: `invalid escape '\\${e}' in string at ${i}` }
    }
  }
  return { kind: 'error', start, end: expr.length, text: expr.slice(start), error: `unterminated string starting at ${start}` }
}

/**
 * Splits an expression into tokens with their [start, end) ranges. Never throws; unknown characters,
 * unterminated strings and malformed words come back as `error` tokens with a message.
 */
export function tokenize(expr: string): Token[] {
  const out: Token[] = []
  let i = 0
  let braceDepth = 0
  const n = expr.length
  while (i < n) {
    const c = expr[i]
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v' || c === '\u00a0') {
      i++
      continue
    }
    if (c === '"' || (c === 'r' && expr[i + 1] === '"')) {
      const t = scanString(expr, i)
      out.push(t)
      i = t.kind === 'error' && t.start !== i ? skipString(expr, i) : t.end
      continue
    }
    if (c === '(' || c === ')') {
      out.push({ kind: 'paren', start: i, end: i + 1, text: c })
      i++
      continue
    }
    if (c === '{' || c === '}') {
      braceDepth += c === '{' ? 1 : braceDepth > 0 ? -1 : 0
      out.push({ kind: 'brace', start: i, end: i + 1, text: c })
      i++
      continue
    }
    if (c === ',') {
      out.push({ kind: 'comma', start: i, end: i + 1, text: c })
      i++
      continue
    }
    if (c === '[') {
      out.push({ kind: 'bracket', start: i, end: i + 1, text: c })
      i++
      let j = i
      while (j < n && expr[j] !== ']' && /[0-9:,\s-]/.test(expr[j])) j++
      // trim surrounding whitespace of the slice spec
      let s = i
      while (s < j && /\s/.test(expr[s])) s++
      let e = j
      while (e > s && /\s/.test(expr[e - 1])) e--
      if (e > s) out.push({ kind: 'slice', start: s, end: e, text: expr.slice(s, e) })
      i = j
      continue
    }
    if (c === ']') {
      out.push({ kind: 'bracket', start: i, end: i + 1, text: c })
      i++
      continue
    }
    if (isWordStart(c, expr[i + 1])) {
      let j = i + 1
      while (j < n && WORD_CHAR.test(expr[j]) && !(expr[j] === '.' && expr[j + 1] === '.')) j++
      const text = expr.slice(i, j)
      out.push(wordToken(text, i, j, out, braceDepth, expr, j))
      i = j
      continue
    }
    let matched = false
    for (const [sym, op, kind] of SYMBOLS) {
      if (expr.startsWith(sym, i)) {
        if (op === null) {
          out.push({ kind: 'error', start: i, end: i + sym.length, text: sym, error: `unknown operator '${sym}' at ${i} (use ${SYMBOL_HINT[sym]})` })
        } else {
          out.push({ kind, start: i, end: i + sym.length, text: sym, op })
        }
        i += sym.length
        matched = true
        break
      }
    }
    if (matched) continue
    const cp = expr.codePointAt(i)!
    const ch = String.fromCodePoint(cp)
    out.push({ kind: 'error', start: i, end: i + ch.length, text: ch, error: `unexpected character '${ch}' at ${i}` })
    i += ch.length
  }
  return out
}

/** After a bad escape, skip to the end of the string so the rest of the expression still tokenizes. */
function skipString(expr: string, i: number): number {
  let j = i + (expr[i] === 'r' ? 2 : 1)
  while (j < expr.length && expr[j] !== '"') j += expr[j] === '\\' ? 2 : 1
  return Math.min(expr.length, j + 1)
}

function wordToken(text: string, start: number, end: number, prev: Token[], braceDepth: number, expr: string, after: number): Token {
  const lower = text.toLowerCase()
  const op = WORD_OPS[lower]
  if (op !== undefined) return { kind: 'operator', start, end, text, op }
  const kw = WORD_KEYWORDS[lower]
  if (kw !== undefined) return { kind: 'keyword', start, end, text, op: kw }
  let kind = classifyWord(text)
  if (kind === 'field') {
    let k = after
    while (k < expr.length && /\s/.test(expr[k])) k++
    if (expr[k] === '(' && FUNCTIONS.has(lower)) return { kind: 'function', start, end, text, op: lower }
    const last = prev[prev.length - 1]
    const valuePos = braceDepth > 0 || (last !== undefined && last.kind === 'operator' && VALUE_OPS.has(last.op!))
    if (valuePos && !text.includes('.') && !lookupField(text)) kind = 'name'
  }
  if (kind === 'error') {
    return { kind, start, end, text, error: `invalid token '${text}' at ${start}` }
  }
  return { kind, start, end, text }
}
